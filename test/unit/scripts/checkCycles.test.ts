// scripts/checkCycles.mjs, the import-cycle check of `npm run lint`: it must find a cycle (type-only
// imports included) and pass a tree without one.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { repoRoot } from '../../repoRoot';

function tree(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-cycles-'));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

const check = (dir: string) => spawnSync(process.execPath, [path.join(repoRoot, 'scripts/checkCycles.mjs'), dir], { encoding: 'utf8', cwd: dir });

test('a cycle through a type-only import and a folder index fails, naming the files', () => {
  const dir = tree({
    'a/one.ts': "import type { T } from '../b';\nexport const x = 1;\n",
    'b/index.ts': "export { y } from './two';\nexport type T = number;\n",
    'b/two.ts': "import { x } from '../a/one';\nexport const y = x;\n",
    'c.ts': "import { y } from './b';\n// import { nothing } from './a/one' (a comment is no import)\nexport const z = y;\n",
  });
  const r = check(dir);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /a\/one\.ts <-> b\/index\.ts <-> b\/two\.ts/);
  assert.doesNotMatch(r.stderr, /c\.ts/);
});

test('a tree without cycles passes', () => {
  const dir = tree({ 'a.ts': "import { b } from './b';\nexport const a = b;\n", 'b.ts': 'export const b = 1;\n' });
  const r = check(dir);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /no import cycles among 2 files/);
});
