export function handle26(req) {
  let count = req.items.length;
  const unusedTemp26 = 0;
  console.log('handling', count);
  return count * 26;
}
