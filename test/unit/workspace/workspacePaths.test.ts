import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { resolveWorkspacePath, type WorkspaceFolderRef } from '../../../src/core/workspace/workspacePaths';

function setup(): { a: WorkspaceFolderRef; b: WorkspaceFolderRef; outside: string } {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wsp-')));
  const a = { name: 'api', path: path.join(base, 'api') };
  const b = { name: 'web', path: path.join(base, 'web') };
  const outside = path.join(base, 'outside');
  for (const d of [a.path, path.join(b.path, '.agent'), outside]) fs.mkdirSync(d, { recursive: true });
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'x');
  fs.writeFileSync(path.join(a.path, 'a.txt'), 'a');
  fs.writeFileSync(path.join(b.path, 'b.txt'), 'b');
  fs.mkdirSync(path.join(b.path, 'ünï', '数据'), { recursive: true });
  fs.symlinkSync(outside, path.join(b.path, 'linkdir'));
  fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(b.path, 'link.txt'));
  fs.symlinkSync(path.join(b.path, 'b.txt'), path.join(b.path, 'inside-link.txt'));
  fs.symlinkSync(path.join(outside, 'nothing-yet'), path.join(b.path, 'dangling'));
  return { a, b, outside };
}

test('relative paths go to the first folder with .agent/, or to a folder named first', async () => {
  const { a, b } = setup();
  const r1 = await resolveWorkspacePath([a, b], 'b.txt');
  assert.ok(r1.ok);
  assert.equal(r1.value.abs, path.join(b.path, 'b.txt'));
  assert.equal(r1.value.display, 'b.txt');
  const r2 = await resolveWorkspacePath([a, b], 'api/a.txt');
  assert.ok(r2.ok);
  assert.equal(r2.value.abs, path.join(a.path, 'a.txt'));
  assert.equal(r2.value.display, 'api/a.txt');
  const r3 = await resolveWorkspacePath([a, b], 'ünï/数据/new.txt');
  assert.ok(r3.ok);
  assert.equal(r3.value.exists, false);
  const r4 = await resolveWorkspacePath([a, b], path.join(a.path, 'a.txt'));
  assert.ok(r4.ok && r4.value.folder.name === 'api');
});

test('.., absolute paths elsewhere and symlinks out are refused with a reason', async () => {
  const { a, b, outside } = setup();
  const cases: [string, RegExp][] = [
    ['../../etc/passwd', /"\.\."/],
    ['sub/../../x', /"\.\."/],
    ['/etc/passwd', /absolute path outside the workspace/],
    [path.join(outside, 'secret.txt'), /absolute path outside/],
    ['link.txt', /symbolic link .*outside/],
    ['linkdir/secret.txt', /symbolic link .*outside/],
    ['dangling', /symbolic link .*outside/],
    ['linkdir/new/file.txt', /symbolic link .*outside/],
  ];
  for (const [input, re] of cases) {
    const r = await resolveWorkspacePath([a, b], input);
    assert.equal(r.ok, false, input);
    if (!r.ok) {
      assert.match(r.error.message, re, input);
      assert.equal(r.error.file, input);
    }
  }
  const fine = await resolveWorkspacePath([a, b], 'inside-link.txt');
  assert.ok(fine.ok);
});

test('no folder open is a clear error', async () => {
  const r = await resolveWorkspacePath([], 'x');
  assert.ok(!r.ok && /no workspace folder/.test(r.error.message));
});
