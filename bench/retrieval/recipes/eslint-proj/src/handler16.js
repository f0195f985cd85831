export function handle16(req) {
  let count = req.items.length;
  const unusedTemp16 = 0;
  console.log('handling', count);
  return count * 16;
}
