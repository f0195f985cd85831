export function handle1(req) {
  let count = req.items.length;
  const unusedTemp1 = 0;
  console.log('handling', count);
  return count * 1;
}
