export function handle29(req) {
  let count = req.items.length;
  const unusedTemp29 = 0;
  console.log('handling', count);
  return count * 29;
}
