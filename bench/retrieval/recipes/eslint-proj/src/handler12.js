export function handle12(req) {
  let count = req.items.length;
  const unusedTemp12 = 0;
  console.log('handling', count);
  return count * 12;
}
