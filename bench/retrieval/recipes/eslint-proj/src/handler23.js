export function handle23(req) {
  let count = req.items.length;
  const unusedTemp23 = 0;
  console.log('handling', count);
  return count * 23;
}
