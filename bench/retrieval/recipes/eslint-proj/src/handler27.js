export function handle27(req) {
  let count = req.items.length;
  const unusedTemp27 = 0;
  console.log('handling', count);
  return count * 27;
}
