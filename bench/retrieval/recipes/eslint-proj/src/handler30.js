export function handle30(req) {
  let count = req.items.length;
  const unusedTemp30 = 0;
  console.log('handling', count);
  return count * 30;
}
