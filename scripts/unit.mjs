// Runs the core unit tests (compiled to out/ by `tsc -p .`) with node's own test runner.
// Node 20 has no glob support in --test, so the files are listed here.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve('out/test/unit');
const files = [];
const walk = (dir) => {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.name.endsWith('.test.js')) files.push(p);
  }
};
if (fs.existsSync(root)) walk(root);
const filter = process.argv[2];
const chosen = filter ? files.filter((f) => f.includes(filter)) : files;
if (chosen.length === 0) {
  console.error(`no unit test files under ${root}${filter ? ` matching ${filter}` : ''} (run tsc -p . first)`);
  process.exit(1);
}
const r = spawnSync(process.execPath, ['--test', '--test-reporter=spec', ...chosen], { stdio: 'inherit' });
process.exit(r.status ?? 1);
