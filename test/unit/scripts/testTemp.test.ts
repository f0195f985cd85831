// scripts/testTemp.mjs: npm test gives its processes their own temp folder and fails naming the test
// temp folders (ac-…) left in it; what editors and CLIs leave there is not a test's and is not named.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../../repoRoot';

interface TempModule {
  makeRunTemp(): string;
  testLeftovers(dir: string): string[];
  judgeLeftovers(left: string[]): { failing: string[]; warned: string[] };
  removeRunTemp(dir: string): void;
}
// A variable specifier keeps tsc from resolving (and type-checking) the .mjs script.
const load = (): Promise<TempModule> => import(pathToFileURL(path.join(repoRoot, 'scripts/testTemp.mjs')).href) as Promise<TempModule>;

test('the run\'s temp folder is open to every user like /tmp, names only the tests\' ac-… folders left, and goes away whole', async () => {
  const { makeRunTemp, testLeftovers, judgeLeftovers, removeRunTemp } = await load();
  const dir = makeRunTemp();
  try {
    assert.equal(fs.statSync(dir).mode & 0o7777, 0o1777);
    assert.deepEqual(testLeftovers(dir), []);
    fs.mkdirSync(path.join(dir, 'ac-it-trash-x1'));
    fs.writeFileSync(path.join(dir, 'ac-moved-42'), '');
    fs.mkdirSync(path.join(dir, 'vscode-typescript0'));
    fs.writeFileSync(path.join(dir, 'claude-1234.sock.txt'), '');
    assert.deepEqual(testLeftovers(dir), [path.join(dir, 'ac-it-trash-x1'), path.join(dir, 'ac-moved-42')]);
    // An editor suite's folder fails the run; another test's is named as a warning.
    assert.deepEqual(judgeLeftovers(testLeftovers(dir)), { failing: [path.join(dir, 'ac-it-trash-x1')], warned: [path.join(dir, 'ac-moved-42')] });
  } finally {
    removeRunTemp(dir);
  }
  assert.ok(!fs.existsSync(dir));
  assert.deepEqual(testLeftovers(dir), []);
});
