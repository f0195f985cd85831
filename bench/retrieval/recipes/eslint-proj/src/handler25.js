export function handle25(req) {
  let count = req.items.length;
  const unusedTemp25 = 0;
  console.log('handling', count);
  return count * 25;
}
