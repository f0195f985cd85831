const net = require('net');
const { setTimeout: sleep } = require('timers/promises');

function log(level, msg) {
  console.log(`${new Date(Date.UTC(2026, 11, 6, 9, 14, 0)).toISOString()} ${level.padEnd(5)} ${msg}`);
}

async function connectDb(port) {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => resolve(s));
    s.once('error', reject);
  });
}

async function loadRoutes() {
  const routes = ['/health', '/api/orders', '/api/orders/:id', '/api/users', '/api/users/:id', '/api/cart', '/api/checkout', '/metrics'];
  for (const r of routes) log('info', `route registered: GET ${r}`);
  await sleep(5);
}

async function warmCache() {
  for (let i = 1; i <= 12; i++) log('debug', `cache warm: shard ${i}/12 loaded (${200 + i * 13} keys)`);
}

async function main() {
  log('info', 'starting orders-api v2.8.1 (node ' + process.version + ')');
  log('info', 'config: PORT=8080 DB_HOST=127.0.0.1 DB_PORT=5433 POOL_SIZE=10');
  await loadRoutes();
  await warmCache();
  log('info', 'connecting to postgres at 127.0.0.1:5433');
  const db = await connectDb(5433);
  log('info', 'connected');
  db.end();
}

main();
