export function handle17(req) {
  let count = req.items.length;
  const unusedTemp17 = 0;
  console.log('handling', count);
  return count * 17;
}
