// `npm run bench`: compiles if the sources are newer than out/ (and bundles if newer than
// dist/mcp.js), makes sure ripgrep is available
// (apt-get install when root; otherwise row 3's ripgrep comparison is skipped with the reason),
// then runs out/bench/main.js. Not part of `npm test`.
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const main = path.join(root, 'out', 'bench', 'main.js');

function newest(dir) {
  let t = 0;
  if (!fs.existsSync(dir)) return t;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'corpus' && e.name !== 'work' && e.name !== 'node_modules') t = Math.max(t, newest(p));
    } else if (e.name.endsWith('.ts')) t = Math.max(t, fs.statSync(p).mtimeMs);
  }
  return t;
}

const built = fs.existsSync(main) ? fs.statSync(main).mtimeMs : 0;
if (built < Math.max(newest(path.join(root, 'src')), newest(path.join(root, 'bench')))) {
  console.error('[bench] compiling (tsc -p .)…');
  const r = spawnSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', root], { stdio: 'inherit' });
  // tsc still emits when a colleague's file has a type error; the rows that need it say so.
  if (r.status !== 0) console.error('[bench] tsc reported errors (see above); continuing with what was emitted');
  if (!fs.existsSync(main)) process.exit(1);
}

// The MCP rows' bundle (row 14j runs dist/mcp.js, what users run).
const bundle = path.join(root, 'dist', 'mcp.js');
if ((fs.existsSync(bundle) ? fs.statSync(bundle).mtimeMs : 0) < newest(path.join(root, 'src'))) {
  console.error('[bench] bundling (node esbuild.mjs)…');
  const r = spawnSync(process.execPath, [path.join(root, 'esbuild.mjs')], { stdio: 'inherit', cwd: root });
  if (r.status !== 0) console.error('[bench] esbuild failed (see above): row 14j is left out');
}

function which(cmd) {
  try {
    return execFileSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

const env = { ...process.env };
let rg = which('rg');
if (!rg) {
  if (process.getuid?.() === 0) {
    console.error('[bench] ripgrep not found: apt-get install -y ripgrep');
    const r = spawnSync('apt-get', ['install', '-y', 'ripgrep'], { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (r.status !== 0) spawnSync('sh', ['-c', 'apt-get update && apt-get install -y ripgrep'], { stdio: ['ignore', 'inherit', 'inherit'] });
    rg = which('rg');
    if (!rg) env.BENCH_RG_MISSING = 'ripgrep not installed: apt-get install -y ripgrep failed';
  } else {
    env.BENCH_RG_MISSING = 'ripgrep not installed and not root (install the Debian package ripgrep)';
  }
}
if (rg) env.BENCH_RG = rg;

const r = spawnSync(process.execPath, ['--max-old-space-size=8192', main], { stdio: 'inherit', env, cwd: root });
process.exit(r.status ?? 1);
