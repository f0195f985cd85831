export function handle13(req) {
  let count = req.items.length;
  const unusedTemp13 = 0;
  console.log('handling', count);
  return count * 13;
}
