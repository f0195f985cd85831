export function handle5(req) {
  let count = req.items.length;
  const unusedTemp5 = 0;
  console.log('handling', count);
  return count * 5;
}
