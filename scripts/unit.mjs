// Runs the unit tests (compiled to out/ by `tsc -p .`) with node's own test runner.
//   node scripts/unit.mjs [--slow | --all] [substring]
// The fast tier (test/unit/, laid out like src/) is the default: the editor-free core, under a
// minute. --slow runs test/slow/ (data at bench-like sizes, whole-corpus and many-process tests),
// --all both; `npm test` runs both. Node 20 has no glob support in --test, so files are listed here.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { digitTempDir } from '../test/runner/processes.mjs';

const args = process.argv.slice(2);
const tiers = args.includes('--all') ? ['unit', 'slow'] : args.includes('--slow') ? ['slow'] : ['unit'];
const filter = args.find((a) => !a.startsWith('--'));
const files = [];
const walk = (dir) => {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.name.endsWith('.test.js')) files.push(p);
  }
};
for (const t of tiers) {
  const root = path.resolve('out/test', t);
  if (fs.existsSync(root)) walk(root);
}
// out/ may hold compiled modules whose source was moved or deleted (tsc never removes them): they are
// removed, so a test cannot load a renamed module by a path string and pass here but not in a fresh
// clone (the cleanupCache test did, after core/scratch/cleanup.ts became scratchCleanup.ts).
const stale = [];
const walkOut = (dir) => {
  if (!fs.existsSync(dir)) return;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walkOut(p);
    else if (e.name.endsWith('.js') && !fs.existsSync(path.resolve(path.relative(path.resolve('out'), p)).replace(/\.js$/, '.ts'))) stale.push(p);
  }
};
for (const d of ['src', 'test', 'bench']) walkOut(path.resolve('out', d));
for (const f of stale) for (const g of [f, `${f}.map`]) fs.rmSync(g, { force: true });
// Only compiled tests with a source run.
const live = files.filter((f) => fs.existsSync(path.resolve(path.relative(path.resolve('out'), f)).replace(/\.js$/, '.ts')));
const chosen = filter ? live.filter((f) => f.includes(filter)) : live;
if (chosen.length === 0) {
  console.error(`no ${tiers.join('/')} test files under out/test${filter ? ` matching ${filter}` : ''} (run tsc -p . first)`);
  process.exit(1);
}
// One test file per core at a time (node's default is one fewer than the cores: serial on two).
const concurrency = Math.max(1, os.availableParallelism());
// Tests make their folders under os.tmpdir() and many do not remove them (a full run left ~600
// folders, some of 45 MB): each run gets its own temp folder, removed afterwards, so repeated runs
// never fill the machine's /tmp.
const tmp = digitTempDir(os.tmpdir(), 'agent-context-unit-'); // letters could spell a masking keyword (processes.mjs)
let r;
try {
  r = spawnSync(process.execPath, ['--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...chosen], { stdio: 'inherit', env: { ...process.env, TMPDIR: tmp } });
} finally {
  fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 3 });
}
process.exit(r.status ?? 1);
