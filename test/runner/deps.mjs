// Locates (installing on first use) code-server, Node 24 and Chromium through scripts/ensure-deps.sh,
// which is idempotent and fast once everything is cached.
import { spawn, spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { OWNER_VAR, onCleanup, ownerMarker } from './processes.mjs';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Results by the groups asked for ('editor', 'clients'). */
const cachedBy = new Map();

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

/** Parses ensure-deps.sh's result (or throws the one-line reason it failed). */
function parseResult(status, signal, stdout) {
  if (status !== 0) {
    const why = EXIT_MEANING[status] ?? 'see the messages above';
    throw new Error(`scripts/ensure-deps.sh failed (exit ${status ?? signal}): ${why}`);
  }
  const env = {};
  for (const line of stdout.split('\n')) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (m) env[m[1]] = m[2];
  }
  for (const k of ['CODE_SERVER_BIN', 'NODE24_DIR', 'CHROMIUM_BIN']) {
    if (!env[k]) throw new Error(`scripts/ensure-deps.sh did not print ${k}=...`);
  }
  return env;
}

const script = path.join(repoRoot, 'scripts/ensure-deps.sh');

/**
 * Runs ensure-deps.sh once per process; returns { CODE_SERVER_BIN, NODE24_DIR, CHROMIUM_BIN, CACHE }
 * and, with the clients, the agent CLIs' paths (CLAUDE_BIN, CODEX_BIN, …). `groups`: what to install,
 * 'editor' and/or 'clients' (default both; `npm start` needs only the editor).
 */
export function ensureDeps(groups = ['editor', 'clients']) {
  const key = [...groups].sort().join(',');
  // What a wider call already installed answers a narrower one.
  for (const [k, v] of cachedBy) if (groups.every((g) => k.split(',').includes(g))) return v;
  const r = spawnSync('bash', [script, ...groups], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const result = parseResult(r.status, r.signal, r.stdout);
  cachedBy.set(key, result);
  return result;
}

let pending;

/**
 * Starts ensure-deps.sh in the background and returns a promise of ensureDeps()'s result: npm test
 * lets a cold install (minutes of native compiles) overlap lint, tsc and the unit tests. Once it has
 * resolved, ensureDeps() answers from the cache. Do not call ensureDeps() while it is pending.
 */
export function ensureDepsInBackground(groups = ['editor', 'clients']) {
  const key = [...groups].sort().join(',');
  const done = cachedBy.get('clients,editor') ?? cachedBy.get(key);
  if (done) return Promise.resolve(done);
  if (!pending) {
    pending = new Promise((resolve, reject) => {
      // The runner's marker: if npm test stops early (a lint failure, Ctrl-C), the exit handler kills
      // the install with everything it started; a half-done install is redone next time (.complete).
      const child = spawn('bash', [script, ...groups], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, [OWNER_VAR]: ownerMarker() } });
      onCleanup(() => {});
      let stdout = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.on('error', reject);
      child.on('close', (status, signal) => {
        try {
          const result = parseResult(status, signal, stdout);
          cachedBy.set(key, result);
          resolve(result);
        } catch (e) {
          reject(e);
        }
      });
    });
    // Reported when awaited; not an unhandled rejection if it fails before that.
    pending.catch(() => {});
  }
  return pending;
}
