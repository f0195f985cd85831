export function handle24(req) {
  let count = req.items.length;
  const unusedTemp24 = 0;
  console.log('handling', count);
  return count * 24;
}
