export function handle6(req) {
  let count = req.items.length;
  const unusedTemp6 = 0;
  console.log('handling', count);
  return count * 6;
}
