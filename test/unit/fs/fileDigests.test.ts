// The digests of many small files (src/core/fs/fileDigests.ts): read once, read again only when a
// stat says the file changed, kept across processes in .agent/.cache/, never trusted blindly.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FileDigests } from '../../../src/core/fs/fileDigests';
import { cacheFile } from '../../../src/core/workspace/cacheFiles';
import { digestFolder } from './digestFixture';
import { tune } from '../../../src/core/processState';

const SPEC = { cache: 'skillsDigests' as const, version: 1, valid: (v: unknown): v is string => typeof v === 'string' };

/** A cache file as written: its header line and one entry per line (every line must parse). */
function readCache(file: string): { header: { format: string; name: string; v: number; count: number }; entries: unknown[][] } {
  const [head, ...rest] = fs.readFileSync(file, 'utf8').split('\n');
  assert.equal(rest.pop(), '', 'the file ends with a newline');
  return { header: JSON.parse(head), entries: rest.map((l) => JSON.parse(l) as unknown[]) };
}


test('each file is read once; later calls read only what changed in place, was replaced, truncated or added, and drop what was deleted', async () => {
  const { agentDir, files, reads, read } = digestFolder(5);
  const d = FileDigests.unshared(agentDir, SPEC);
  const first = await d.get(files, read);
  assert.deepEqual([...first.values.values()], ['THING 0', 'THING 1', 'THING 2', 'THING 3', 'THING 4']);
  assert.equal(reads.length, 5);
  reads.length = 0;
  assert.deepEqual([...(await d.get(files, read)).values.values()], ['THING 0', 'THING 1', 'THING 2', 'THING 3', 'THING 4']);
  assert.deepEqual(reads, []);
  // In place, same size: the mtime (and ctime) tell.
  fs.writeFileSync(files[1], 'thing X');
  fs.utimesSync(files[1], new Date(Date.now() + 5000), new Date(Date.now() + 5000));
  // Replaced by rename: a new inode.
  fs.writeFileSync(files[2] + '.tmp', 'other 2');
  fs.renameSync(files[2] + '.tmp', files[2]);
  fs.truncateSync(files[3], 0);
  fs.rmSync(files[4]);
  const added = path.join(agentDir, 'things', '5.md');
  fs.writeFileSync(added, 'thing 5');
  const r = await d.get([...files, added], read);
  assert.deepEqual(reads.sort(), ['1.md', '2.md', '3.md', '5.md']);
  assert.deepEqual([...r.values.entries()].map(([f, v]) => `${path.basename(f)}=${v}`), ['0.md=THING 0', '1.md=THING X', '2.md=OTHER 2', '3.md=', '5.md=THING 5']);
});

test('a new process starts from .agent/.cache/<name>.json and reads only files changed since', async () => {
  const { agentDir, files, reads, read } = digestFolder(5);
  // A file outside .agent/ (a skill under .github/skills/) is remembered as well.
  const outside = path.join(agentDir, '..', '.github', 'skills', 'x', 'SKILL.md');
  fs.mkdirSync(path.dirname(outside), { recursive: true });
  fs.writeFileSync(outside, 'skill');
  files.push(outside);
  await FileDigests.unshared(agentDir, SPEC).get(files, read);
  assert.ok(fs.existsSync(cacheFile(agentDir, SPEC.cache)));
  assert.equal(fs.readFileSync(path.join(agentDir, '.cache', '.gitignore'), 'utf8'), '*\n');
  fs.writeFileSync(files[0], 'thing zero, longer');
  reads.length = 0;
  const r = await FileDigests.unshared(agentDir, SPEC).get(files, read);
  assert.deepEqual(reads, ['0.md']);
  assert.equal(r.values.get(files[0]), 'THING ZERO, LONGER');
  assert.equal(r.values.get(files[4]), 'THING 4');
  assert.equal(r.values.get(outside), 'SKILL');
});

test('a cache file that is garbage, truncated, of another version or with malformed entries is rebuilt from the files', async () => {
  const { agentDir, files, reads, read } = digestFolder(5);
  await FileDigests.unshared(agentDir, SPEC).get(files, read);
  const cache = cacheFile(agentDir, SPEC.cache);
  const good = fs.readFileSync(cache, 'utf8');
  const { header, entries } = readCache(cache);
  const lines = (h: unknown, es: unknown[]) => [h, ...es].map((x) => JSON.stringify(x)).join('\n') + '\n';
  const badEntries = entries.map((e, i) => (i === 2 ? [e[0], e[1], 42] : i === 3 ? [e[0], 'x', e[2]] : e));
  // Cut in the middle of the fourth entry's line: the three whole ones are used.
  const cut = good.split('\n').slice(0, 4).join('\n').length + 8;
  for (const [what, text, rereads] of [
    ['garbage', '\u0000\u0001 not json', 5],
    ['truncated', good.slice(0, cut), 2],
    ['truncated in its header', good.slice(0, 10), 5],
    ['another version', lines({ ...header, v: 99 }, entries), 5],
    ['the format before lines (one JSON object)', JSON.stringify({ format: 'agent-context-digests', name: header.name, v: header.v, entries }), 5],
    ['malformed entries', lines(header, badEntries), 2],
    ['an array', '[]', 5],
  ] as const) {
    fs.writeFileSync(cache, text);
    reads.length = 0;
    const r = await FileDigests.unshared(agentDir, SPEC).get(files, read);
    assert.equal(reads.length, rereads, what);
    assert.deepEqual([...r.values.values()], ['THING 0', 'THING 1', 'THING 2', 'THING 3', 'THING 4'], what);
    assert.equal(readCache(cache).entries.length, 5, `${what}: rewritten whole`);
  }
  // A stale entry (the file changed, the cache did not) is not used.
  fs.writeFileSync(cache, good);
  fs.writeFileSync(files[2], 'changed while no process looked');
  assert.equal((await FileDigests.unshared(agentDir, SPEC).get(files, read)).values.get(files[2]), 'CHANGED WHILE NO PROCESS LOOKED');
});

test('two processes writing the cache at once: every answer right, the file whole', async () => {
  const { agentDir, files, read } = digestFolder(200);
  const a = FileDigests.unshared(agentDir, SPEC);
  const b = FileDigests.unshared(agentDir, SPEC);
  for (let round = 0; round < 5; round++) {
    fs.writeFileSync(files[round], `round ${round}`);
    const [ra, rb] = await Promise.all([a.get(files, read), b.get(files, read)]);
    assert.equal(ra.values.get(files[round]), `ROUND ${round}`);
    assert.equal(rb.values.get(files[round]), `ROUND ${round}`);
    assert.equal(ra.values.size, 200);
  }
  const c = readCache(cacheFile(agentDir, SPEC.cache));
  assert.equal(c.entries.length, 200);
  assert.equal(c.header.count, 200);
  assert.deepEqual(fs.readdirSync(path.join(agentDir, '.cache')).filter((n) => n.includes('tmp')), fs.existsSync(path.join(agentDir, '.cache', 'tmp')) ? ['tmp'] : []);
});

test('a file that cannot be read is reported every time and never remembered; folders and missing files are left out; no .agent/ means no cache', async () => {
  const { agentDir, files, reads } = digestFolder(3);
  let fail = true;
  const read = async (f: string): Promise<string> => {
    reads.push(path.basename(f));
    if (fail && f === files[1]) throw new Error('EACCES: permission denied');
    return 'ok';
  };
  const d = FileDigests.unshared(agentDir, SPEC);
  const dir = path.join(agentDir, 'things', 'folder.md');
  fs.mkdirSync(dir);
  const r = await d.get([...files, dir, path.join(agentDir, 'things', 'gone.md')], read);
  assert.deepEqual([...r.failed.keys()], [files[1]]);
  assert.equal(r.values.size, 2);
  fail = false;
  reads.length = 0;
  assert.equal((await d.get(files, read)).values.get(files[1]), 'ok');
  assert.deepEqual(reads, ['1.md']);
  const bare = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-digests-bare-'));
  fs.writeFileSync(path.join(bare, 'x.md'), 'x');
  await FileDigests.unshared(path.join(bare, '.agent'), SPEC).get([path.join(bare, 'x.md')], read);
  assert.deepEqual(fs.readdirSync(bare), ['x.md']);
});

test('refresh checks only the files named: the others stay remembered, unchecked; a named file gone is dropped', async () => {
  const { agentDir, files, reads, read } = digestFolder(5);
  const d = FileDigests.unshared(agentDir, SPEC);
  await d.get(files, read);
  fs.writeFileSync(files[1], 'thing one, changed');
  fs.writeFileSync(files[2], 'thing two, changed');
  fs.rmSync(files[3]);
  reads.length = 0;
  const r = await d.refresh([files[1], files[3]], read);
  assert.deepEqual(reads, ['1.md']);
  assert.deepEqual([...r.values.entries()].map(([f, v]) => `${path.basename(f)}=${v}`), ['1.md=THING ONE, CHANGED']);
  // The next whole listing: 2.md (changed, not named) is read now; 0.md and 4.md were kept all along.
  reads.length = 0;
  const all = await d.get(files.filter((_, i) => i !== 3), read);
  assert.deepEqual(reads, ['2.md']);
  assert.equal(all.values.get(files[0]), 'THING 0');
  assert.equal(all.values.get(files[2]), 'THING TWO, CHANGED');
});

test('with many entries, the cache file is rewritten once 1/64 of them changed; a new process meanwhile re-reads only the files changed since', async () => {
  const { agentDir, files, reads, read } = digestFolder(640);
  const d = FileDigests.unshared(agentDir, SPEC);
  await d.get(files, read);
  const cache = cacheFile(agentDir, SPEC.cache);
  const written = (): string => fs.readFileSync(cache, 'utf8');
  const first = written();
  for (let i = 0; i < 9; i++) {
    fs.writeFileSync(files[i], `edit ${i}`);
    await d.refresh([files[i]], read);
  }
  assert.equal(written(), first, '9 of 640 changed: not rewritten yet');
  reads.length = 0;
  const fresh = await FileDigests.unshared(agentDir, SPEC).get(files, read);
  assert.equal(reads.length, 9);
  assert.equal(fresh.values.get(files[8]), 'EDIT 8');
  fs.writeFileSync(files[9], 'edit 9');
  await d.refresh([files[9]], read);
  assert.notEqual(written(), first, 'the tenth change rewrites it');
  reads.length = 0;
  await FileDigests.unshared(agentDir, SPEC).get(files, read);
  assert.deepEqual(reads, []);
});

test('a process that asks for a few files rewrites the cache with every other entry as it was: a later process reads nothing again', async () => {
  const { agentDir, files, reads, read } = digestFolder(128);
  // A path that needs escaping in JSON, outside .agent/ (its line is kept as text, then written back).
  const odd = path.join(agentDir, '..', 'odd "quoted" \\ name', 'SKILL.md');
  fs.mkdirSync(path.dirname(odd), { recursive: true });
  fs.writeFileSync(odd, 'odd one');
  files.push(odd);
  await FileDigests.unshared(agentDir, SPEC).get(files, read);
  const cache = cacheFile(agentDir, SPEC.cache);
  const before = fs.readFileSync(cache, 'utf8');
  // A second process (the Plan view's first page): three files asked for, all changed, so the cache is rewritten.
  for (let i = 0; i < 3; i++) fs.writeFileSync(files[i], `edited ${i}`);
  reads.length = 0;
  const page = await FileDigests.unshared(agentDir, SPEC).refresh(files.slice(0, 3), read);
  assert.deepEqual(reads, ['0.md', '1.md', '2.md']);
  assert.equal(page.values.get(files[0]), 'EDITED 0');
  assert.notEqual(fs.readFileSync(cache, 'utf8'), before, 'rewritten (3 of 129 changed)');
  assert.equal(readCache(cache).entries.length, 129, 'every entry kept, and every line parses');
  // A third process asks for all of them: nothing is read again, every digest is right.
  reads.length = 0;
  const all = await FileDigests.unshared(agentDir, SPEC).get(files, read);
  assert.deepEqual(reads, []);
  assert.equal(all.values.get(files[2]), 'EDITED 2');
  assert.equal(all.values.get(files[100]), 'THING 100');
  assert.equal(all.values.get(odd), 'ODD ONE');
});

test('while nothing changed, get answers with the same map (callers keep what they derive from it); any change, a different file list or a failed read gives a new one', async () => {
  const { agentDir, files, read } = digestFolder(4);
  const d = FileDigests.unshared(agentDir, SPEC);
  const a = (await d.get(files, read)).values;
  const b = (await d.get([...files], read)).values;
  assert.equal(b, a, 'the same files, none changed: the same map');
  // Edited in place.
  fs.writeFileSync(files[0], 'thing changed');
  const c = (await d.get(files, read)).values;
  assert.notEqual(c, a);
  assert.equal(c.get(files[0]), 'THING CHANGED');
  assert.equal((await d.get(files, read)).values, c, 'settled again');
  // One file fewer asked for (it still exists): a new map without it.
  const fewer = (await d.get(files.slice(1), read)).values;
  assert.notEqual(fewer, c);
  assert.equal(fewer.has(files[0]), false);
  // Deleted: a new map without it.
  const all = (await d.get(files, read)).values;
  fs.rmSync(files[3]);
  const gone = (await d.get(files, read)).values;
  assert.notEqual(gone, all);
  assert.deepEqual([...gone.keys()], files.slice(0, 3));
  // A read that fails: never the remembered map.
  const failing = async (f: string): Promise<string> => {
    if (f === files[1]) throw new Error('unreadable');
    return read(f);
  };
  fs.writeFileSync(files[1], 'thing other');
  const r = await d.get(files.slice(0, 3), failing);
  assert.equal(r.failed.size, 1);
  assert.notEqual(r.values, gone);
  const again = await d.get(files.slice(0, 3), failing);
  assert.notEqual(again.values, r.values, 'an answer with a failure is not kept');
});

const WATCHED = { ...SPEC, name: 'watched-digests', watch: true };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a watched kind stats only what changed: an edit in place from its event (at the next call), a rename or a new file from the folder\'s stamp at once', { skip: process.platform !== 'linux' && 'fs.watch events are what this relies on; watched on Linux only' }, async () => {
  const restore = tune({ digestWatching: true, digestWatchedRefreshMs: 60_000 });
  try {
    const { agentDir, files, reads, read } = digestFolder(600);
    const d = FileDigests.unshared(agentDir, WATCHED);
    await d.get(files, read);
    assert.equal(d.lastStats, 600, 'the first look stats every file');
    // The folder's stamp is trusted once it is older than a clock tick could hide (fs/settledStamp.ts).
    await sleep(2100);
    await d.get(files, read);
    assert.equal(d.lastStats, 600, 'the first settled stamp is taken with a full check');
    reads.length = 0;
    const same = await d.get(files, read);
    assert.equal(d.lastStats, 0, 'nothing changed and nothing reported: no file is stat\'ed');
    assert.equal(same.values.get(files[7]), 'THING 7');
    // Edited in place (the folder's stamp stays) and asked for at once: its event names it.
    fs.writeFileSync(files[7], 'thing seven');
    assert.equal((await d.get(files, read)).values.get(files[7]), 'THING SEVEN', 'the edit is seen at the next call');
    assert.ok(d.lastStats <= 1, `only the file named was stat'ed (${d.lastStats})`);
    assert.deepEqual(reads, ['7.md']);
    // Replaced by rename, as every atomic write does, and read at once: the folder's stamp changed, so it is checked whole.
    fs.writeFileSync(files[8] + '.tmp', 'thing eight');
    fs.renameSync(files[8] + '.tmp', files[8]);
    assert.equal((await d.get(files, read)).values.get(files[8]), 'THING EIGHT');
    // A file added and one deleted, asked for at once.
    const added = path.join(agentDir, 'things', 'new.md');
    fs.writeFileSync(added, 'thing new');
    fs.rmSync(files[9]);
    const r = await d.get([...files.filter((f) => f !== files[9]), added], read);
    assert.equal(r.values.get(added), 'THING NEW');
    assert.equal(r.values.has(files[9]), false);
    assert.equal(r.values.size, 600);
  } finally {
    restore();
  }
});

test('a watched kind checks its folder whole when it was replaced, and a round of files stands in for missed events', { skip: process.platform !== 'linux' && 'watched on Linux only' }, async () => {
  const restore = tune({ digestWatching: true, digestWatchedRefreshMs: 60_000 });
  try {
    const { agentDir, files, read } = digestFolder(3);
    const d = FileDigests.unshared(agentDir, WATCHED);
    await d.get(files, read);
    await sleep(2100);
    await d.get(files, read);
    await d.get(files, read);
    assert.equal(d.lastStats, 0);
    // The folder deleted and made anew with files of the same names and sizes.
    const dir = path.dirname(files[0]);
    fs.rmSync(dir, { recursive: true });
    fs.mkdirSync(dir);
    files.forEach((f, i) => fs.writeFileSync(f, `THANG ${i}`));
    assert.deepEqual([...(await d.get(files, read)).values.values()], ['THANG 0', 'THANG 1', 'THANG 2']);
    // With a round due at every call, each call stats a round (up to 500 files) whatever the events say.
    tune({ digestWatchedRefreshMs: 0 });
    await d.get(files, read);
    assert.equal(d.lastStats, 3);
  } finally {
    restore();
  }
});
