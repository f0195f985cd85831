export function handle14(req) {
  let count = req.items.length;
  const unusedTemp14 = 0;
  console.log('handling', count);
  return count * 14;
}
