// Locates (installing on first use) code-server, Node 24 and Chromium through scripts/ensure-deps.sh,
// which is idempotent and fast once everything is cached.
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

let cached;

/** Runs ensure-deps.sh once per process; returns { CODE_SERVER_BIN, NODE24_DIR, CHROMIUM_BIN, CACHE }. */
export function ensureDeps() {
  if (cached) return cached;
  const script = path.join(repoRoot, 'scripts/ensure-deps.sh');
  const r = spawnSync('bash', [script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status !== 0) {
    throw new Error(`scripts/ensure-deps.sh failed (exit ${r.status}); see the messages above`);
  }
  const env = {};
  for (const line of r.stdout.split('\n')) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (m) env[m[1]] = m[2];
  }
  for (const k of ['CODE_SERVER_BIN', 'NODE24_DIR', 'CHROMIUM_BIN']) {
    if (!env[k]) throw new Error(`scripts/ensure-deps.sh did not print ${k}=...`);
  }
  cached = env;
  return env;
}
