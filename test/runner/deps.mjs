// Locates (installing on first use) code-server, Node 24 and Chromium through scripts/ensure-deps.sh,
// which is idempotent and fast once everything is cached.
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

let cached;

/** What ensure-deps.sh's exit codes mean, for the one-line summary at the end of npm test / npm start. */
const EXIT_MEANING = {
  3: 'Debian packages are missing: install them with the apt-get line printed above, then run again',
  4: 'the npm registry could not be reached to fetch the editor (see the message above)',
};

/**
 * The environment minus what an outer `npm test` / `npm start` exports to its children (its
 * configuration as npm_config_*, the script's metadata): a nested npm under another Node would read
 * it as its own configuration, and the editor's terminals would hand it on to the user's commands.
 */
export function cleanNpmEnv(env = process.env) {
  const out = {};
  for (const [k, v] of Object.entries(env)) {
    if (/^npm_(config|package|lifecycle)_/.test(k) || ['npm_node_execpath', 'npm_execpath', 'npm_command', 'NODE', 'INIT_CWD'].includes(k)) continue;
    out[k] = v;
  }
  return out;
}

/** Runs ensure-deps.sh once per process; returns { CODE_SERVER_BIN, NODE24_DIR, CHROMIUM_BIN, CACHE }. */
export function ensureDeps() {
  if (cached) return cached;
  const script = path.join(repoRoot, 'scripts/ensure-deps.sh');
  const r = spawnSync('bash', [script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status !== 0) {
    const why = EXIT_MEANING[r.status] ?? 'see the messages above';
    throw new Error(`scripts/ensure-deps.sh failed (exit ${r.status ?? r.signal}): ${why}`);
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
