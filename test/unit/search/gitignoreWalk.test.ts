// .gitignore rules as the built-in grep and glob apply them, for folders whose names start with two
// dots: such a folder is inside the workspace folder and gets its rules (it was once taken for a
// path leaving it, so what the workspace's .gitignore ignores there was searched).
import { after, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gitignoreTester } from '../../../src/core/search/gitignoreWalk';

const made: string[] = [];
after(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
});

test('a folder named ..x gets the workspace folder\'s .gitignore rules, like any other folder', () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ac-gitignore-')));
  made.push(root);
  fs.writeFileSync(path.join(root, '.gitignore'), '*.log\n');
  for (const dir of ['..x', 'plain']) fs.mkdirSync(path.join(root, dir, 'sub'), { recursive: true });
  const ignored = gitignoreTester(root);
  assert.equal(ignored(path.join(root, 'plain', 'sub', 'a.log'), false), true);
  assert.equal(ignored(path.join(root, '..x', 'a.log'), false), true);
  assert.equal(ignored(path.join(root, '..x', 'sub', 'a.log'), false), true);
  assert.equal(ignored(path.join(root, '..x', 'a.txt'), false), false);
});
