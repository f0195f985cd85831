export function handle7(req) {
  let count = req.items.length;
  const unusedTemp7 = 0;
  console.log('handling', count);
  return count * 7;
}
