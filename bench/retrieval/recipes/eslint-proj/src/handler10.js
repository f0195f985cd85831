export function handle10(req) {
  let count = req.items.length;
  const unusedTemp10 = 0;
  console.log('handling', count);
  return count * 10;
}
