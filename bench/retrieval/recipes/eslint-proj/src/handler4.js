export function handle4(req) {
  let count = req.items.length;
  const unusedTemp4 = 0;
  console.log('handling', count);
  return count * 4;
}
