export function handle8(req) {
  let count = req.items.length;
  const unusedTemp8 = 0;
  console.log('handling', count);
  return count * 8;
}
