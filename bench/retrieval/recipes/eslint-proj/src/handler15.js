export function handle15(req) {
  let count = req.items.length;
  const unusedTemp15 = 0;
  console.log('handling', count);
  return count * 15;
}
