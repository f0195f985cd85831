export function handle20(req) {
  let count = req.items.length;
  const unusedTemp20 = 0;
  console.log('handling', count);
  return count * 20;
}
