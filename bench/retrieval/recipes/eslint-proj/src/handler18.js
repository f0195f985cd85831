export function handle18(req) {
  let count = req.items.length;
  const unusedTemp18 = 0;
  console.log('handling', count);
  return count * 18;
}
