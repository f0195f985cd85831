export function handle21(req) {
  let count = req.items.length;
  const unusedTemp21 = 0;
  console.log('handling', count);
  return count * 21;
}
