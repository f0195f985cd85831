// The extension's own non-recursive watches (src/core/fs/folderWatch.ts): entries of each folder
// reported, and a folder that is deleted, re-created, missing at first or replaced by a rename
// watched again, on real folders with Node's fs.watch.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FolderWatch, type FolderEvent } from '../../../src/core/fs/folderWatch';

function setup(): { root: string; events: [string, FolderEvent][]; seen: (file: string, kind?: FolderEvent) => Promise<void> } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-folderwatch-'));
  const events: [string, FolderEvent][] = [];
  const seen = async (file: string, kind?: FolderEvent): Promise<void> => {
    const t0 = Date.now();
    while (!events.some(([f, k]) => f === file && (!kind || k === kind))) {
      if (Date.now() - t0 > 5000) assert.fail(`no ${kind ?? 'event'} for ${file} within 5 s; got ${JSON.stringify(events.map(([f, k]) => [path.relative(root, f), k]))}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  return { root, events, seen };
}

test('reports entries created, changed and deleted in each watched folder, and nothing from deeper folders', async () => {
  const { root, events, seen } = setup();
  const a = path.join(root, '.agent');
  const scratch = path.join(a, 'scratch');
  fs.mkdirSync(path.join(scratch, 'deep'), { recursive: true });
  const w = new FolderWatch([a, scratch], (f, k) => events.push([f, k]), { rearmMs: 50 });
  try {
    assert.deepEqual(w.watching.sort(), [a, scratch].sort());
    fs.writeFileSync(path.join(scratch, 'x.txt'), 'one');
    await seen(path.join(scratch, 'x.txt'), 'created');
    fs.appendFileSync(path.join(scratch, 'x.txt'), 'two');
    await seen(path.join(scratch, 'x.txt'), 'changed');
    fs.rmSync(path.join(scratch, 'x.txt'));
    await seen(path.join(scratch, 'x.txt'), 'deleted');
    fs.writeFileSync(path.join(a, 'plan.yaml'), 'objective: x\n');
    await seen(path.join(a, 'plan.yaml'), 'created');
    // A folder there from the start is not walked (the editor's watcher covers it).
    fs.writeFileSync(path.join(scratch, 'deep', 'y.txt'), 'deeper');
    fs.writeFileSync(path.join(scratch, 'z.txt'), 'marker');
    await seen(path.join(scratch, 'z.txt'));
    assert.ok(!events.some(([f]) => f.includes('y.txt')), 'not watched recursively');
  } finally {
    w.dispose();
  }
});

test('a folder deleted and re-created at once is watched again (the case the editor watcher missed), and announced', async () => {
  const { root, events, seen } = setup();
  const a = path.join(root, '.agent');
  const scratch = path.join(a, 'scratch');
  fs.mkdirSync(scratch, { recursive: true });
  const w = new FolderWatch([a, scratch], (f, k) => events.push([f, k]), { rearmMs: 50 });
  try {
    fs.rmSync(a, { recursive: true });
    fs.mkdirSync(scratch, { recursive: true });
    // The re-armed folder is announced: listeners re-read what they may have missed.
    await seen(scratch, 'rewatched');
    fs.writeFileSync(path.join(scratch, 'after.txt'), 'new folder');
    await seen(path.join(scratch, 'after.txt'), 'created');
    assert.deepEqual(w.watching.sort(), [a, scratch].sort());
  } finally {
    w.dispose();
  }
});

test('folders missing at first are watched once they appear; a folder replaced by a rename is watched in its new self', async () => {
  const { root, events, seen } = setup();
  const a = path.join(root, '.agent');
  const memory = path.join(a, 'memory');
  const w = new FolderWatch([a, memory], (f, k) => events.push([f, k]), { rearmMs: 50 });
  try {
    assert.deepEqual(w.watching, []);
    fs.mkdirSync(memory, { recursive: true });
    await seen(memory, 'rewatched');
    fs.writeFileSync(path.join(memory, 'a.yaml'), 'k: v\n');
    await seen(path.join(memory, 'a.yaml'), 'created');
    // .agent/ swapped for another one by renames: the old watches followed the old folders.
    const fresh = path.join(root, 'fresh');
    fs.mkdirSync(path.join(fresh, 'memory'), { recursive: true });
    events.length = 0;
    fs.renameSync(a, path.join(root, 'old'));
    fs.renameSync(fresh, a);
    await seen(memory, 'rewatched');
    fs.writeFileSync(path.join(memory, 'b.yaml'), 'k: v\n');
    await seen(path.join(memory, 'b.yaml'), 'created');
    fs.writeFileSync(path.join(root, 'old', 'memory', 'c.yaml'), 'k: v\n');
    await new Promise((r) => setTimeout(r, 200));
    assert.ok(!events.some(([f]) => f.endsWith('c.yaml')), 'the old folder is no longer watched');
  } finally {
    w.dispose();
  }
});

test('after dispose nothing is reported', async () => {
  const { root, events } = setup();
  const w = new FolderWatch([root], (f, k) => events.push([f, k]), { rearmMs: 50 });
  w.dispose();
  fs.writeFileSync(path.join(root, 'x'), 'x');
  await new Promise((r) => setTimeout(r, 200));
  assert.deepEqual(events, []);
  assert.deepEqual(w.watching, []);
});

test('under a deep folder, folders created while watched are watched too, with the folders they already hold', async () => {
  const { root, events, seen } = setup();
  const scratch = path.join(root, 'scratch');
  fs.mkdirSync(scratch);
  const w = new FolderWatch([scratch], (f, k) => events.push([f, k]), { deep: [scratch], rearmMs: 50 });
  try {
    // Made in one go, faster than any watch can be set: each folder is announced once watched.
    for (let d = 0; d < 3; d++) fs.mkdirSync(path.join(scratch, 'bulk', `part${d}`), { recursive: true });
    for (let d = 0; d < 3; d++) await seen(path.join(scratch, 'bulk', `part${d}`), 'rewatched');
    fs.writeFileSync(path.join(scratch, 'bulk', 'part2', 'late.txt'), 'x');
    await seen(path.join(scratch, 'bulk', 'part2', 'late.txt'), 'created');
    // Deleted: dropped, not looked for again.
    fs.rmSync(path.join(scratch, 'bulk'), { recursive: true });
    await seen(path.join(scratch, 'bulk'), 'deleted');
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(w.watching, [scratch]);
    // scratch/ itself re-created with a tree in it at once: that tree is watched too.
    events.length = 0;
    fs.rmSync(scratch, { recursive: true });
    fs.mkdirSync(path.join(scratch, 'sub'), { recursive: true });
    await seen(path.join(scratch, 'sub'), 'rewatched');
    fs.writeFileSync(path.join(scratch, 'sub', 'again.txt'), 'x');
    await seen(path.join(scratch, 'sub', 'again.txt'), 'created');
  } finally {
    w.dispose();
  }
});
