import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { deletePermanently, encodeTrashPath, moveToTrash, pathsWithoutTrash } from '../../../src/core/fs/trash';

const tmp = (p: string) => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), p)));

test('encodeTrashPath URL-encodes each segment and keeps slashes', () => {
  assert.equal(encodeTrashPath('/home/u/a b/ä#?.txt'), '/home/u/a%20b/%C3%A4%23%3F.txt');
});

test('moveToTrash follows the freedesktop layout and never overwrites an earlier trashed file', async () => {
  const dir = tmp('ac-trash-src-');
  const data = tmp('ac-trash-data-');
  for (const round of [1, 2]) {
    fs.writeFileSync(path.join(dir, 'same.txt'), `round ${round}`);
    const r = await moveToTrash([path.join(dir, 'same.txt')], { xdgDataHome: data, platform: 'linux' });
    assert.deepEqual([r.trashed.length, r.failed, r.noTrash], [1, [], []]);
  }
  assert.deepEqual(fs.readdirSync(path.join(data, 'Trash/files')).sort(), ['same.2.txt', 'same.txt']);
  assert.equal(fs.readFileSync(path.join(data, 'Trash/files/same.2.txt'), 'utf8'), 'round 2');
  assert.deepEqual(fs.readdirSync(path.join(data, 'Trash/info')).sort(), ['same.2.txt.trashinfo', 'same.txt.trashinfo']);
  assert.ok(!fs.existsSync(path.join(dir, 'same.txt')));
  const folder = path.join(dir, 'folder');
  fs.mkdirSync(folder);
  fs.writeFileSync(path.join(folder, 'x'), 'x');
  const f = await moveToTrash([folder, path.join(dir, 'missing')], { xdgDataHome: data, platform: 'linux' });
  assert.equal(f.trashed.length, 1);
  assert.deepEqual(f.failed.map((x) => x.message), ['already gone']);
});

test('moveToTrash reports paths with no usable trash and leaves them alone', async () => {
  const dir = tmp('ac-notrash-');
  const file = path.join(dir, 'a.txt');
  fs.writeFileSync(file, 'a');
  const r = await moveToTrash([file], { platform: 'win32' });
  assert.deepEqual(r.noTrash, [file]);
  assert.ok(fs.existsSync(file));
});

test('pathsWithoutTrash names the paths with no usable trash and moves nothing (a command asks once, before it starts)', async () => {
  const dir = tmp('ac-trash-check-');
  const data = tmp('ac-trash-data-');
  const f = path.join(dir, 'a.txt');
  fs.writeFileSync(f, 'x');
  assert.deepEqual(await pathsWithoutTrash([f], { xdgDataHome: data, platform: 'linux' }), []);
  assert.deepEqual(await pathsWithoutTrash([f], { platform: 'win32' }), [f]);
  assert.equal(fs.readFileSync(f, 'utf8'), 'x', 'nothing was moved');
  assert.deepEqual(fs.readdirSync(path.join(data, 'Trash/files')), []);
});

test('Windows: the host\'s trash (the editor\'s useTrash) takes what the core cannot; on Linux the core\'s own trash is used and the host is never asked', async () => {
  const dir = tmp('ac-host-trash-');
  const data = tmp('ac-host-trash-data-');
  const a = path.join(dir, 'a.txt');
  const b = path.join(dir, 'b.txt');
  fs.writeFileSync(a, 'a');
  fs.writeFileSync(b, 'b');
  const asked: string[] = [];
  const hostTrash = async (p: string): Promise<boolean> => {
    asked.push(p);
    if (p !== a) return false; // the host could not take it
    fs.rmSync(p);
    return true;
  };
  assert.deepEqual(await pathsWithoutTrash([a, b], { platform: 'win32', hostTrash }), [], 'a host trash is there to ask');
  const r = await moveToTrash([a, b], { platform: 'win32', hostTrash });
  assert.deepEqual(r.trashed.map((t) => t.path), [a]);
  assert.deepEqual(r.noTrash, [b], 'refused by the host: left alone, for the caller to ask about');
  assert.ok(fs.existsSync(b));
  asked.length = 0;
  const c = path.join(dir, 'c.txt');
  fs.writeFileSync(c, 'c');
  const l = await moveToTrash([c], { platform: 'linux', xdgDataHome: data, hostTrash });
  assert.equal(l.trashed.length, 1);
  assert.deepEqual(asked, [], 'Linux: the freedesktop trash, not the host');
  assert.deepEqual(fs.readdirSync(path.join(data, 'Trash/files')), ['c.txt']);
});

test('deletePermanently refuses paths outside the given folder', async () => {
  const dir = tmp('ac-del-');
  const inside = path.join(dir, 'in.txt');
  const outside = tmp('ac-del-out-');
  fs.writeFileSync(inside, 'x');
  fs.writeFileSync(path.join(outside, 'o.txt'), 'o');
  fs.symlinkSync(outside, path.join(dir, 'link'));
  const r = await deletePermanently([inside, path.join(outside, 'o.txt'), path.join(dir, 'link/o.txt')], dir);
  assert.equal(r.trashed.length, 1);
  assert.equal(r.failed.length, 2);
  assert.ok(!fs.existsSync(inside));
  assert.ok(fs.existsSync(path.join(outside, 'o.txt')));
});
