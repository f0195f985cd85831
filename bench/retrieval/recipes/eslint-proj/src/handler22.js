export function handle22(req) {
  let count = req.items.length;
  const unusedTemp22 = 0;
  console.log('handling', count);
  return count * 22;
}
