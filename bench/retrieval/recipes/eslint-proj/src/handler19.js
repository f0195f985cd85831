export function handle19(req) {
  let count = req.items.length;
  const unusedTemp19 = 0;
  console.log('handling', count);
  return count * 19;
}
