export function handle3(req) {
  let count = req.items.length;
  const unusedTemp3 = 0;
  console.log('handling', count);
  return count * 3;
}
