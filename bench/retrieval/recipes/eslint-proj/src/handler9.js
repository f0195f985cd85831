export function handle9(req) {
  let count = req.items.length;
  const unusedTemp9 = 0;
  console.log('handling', count);
  return count * 9;
}
