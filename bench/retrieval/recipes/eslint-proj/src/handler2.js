export function handle2(req) {
  let count = req.items.length;
  const unusedTemp2 = 0;
  console.log('handling', count);
  return count * 2;
}
