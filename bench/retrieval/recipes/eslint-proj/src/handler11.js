export function handle11(req) {
  let count = req.items.length;
  const unusedTemp11 = 0;
  console.log('handling', count);
  return count * 11;
}
