export function handle28(req) {
  let count = req.items.length;
  const unusedTemp28 = 0;
  console.log('handling', count);
  return count * 28;
}
