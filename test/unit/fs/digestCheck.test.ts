// A large digest cache's first check on a worker thread (src/core/fs/digestCheck.ts): the first get
// after the load trusts only what the worker found unchanged, and anything that goes wrong with the
// worker leaves it to stat every file itself, with the same answer.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FileDigests } from '../../../src/core/fs/fileDigests';
import { digestFolder } from './digestFixture';
import { checkCacheFile, startDigestCheck } from '../../../src/core/fs/digestCheck';
import { fileKeyOf } from '../../../src/core/fs/stamps';
import { tune } from '../../../src/core/processState';

const SPEC = { cache: 'notesDigests' as const, version: 1, valid: (v: unknown): v is string => typeof v === 'string' };


/** Changes three files the ways a stat tells: in place (same size, later mtime), replaced by rename, deleted; and one into a folder. */
function changeSome(files: string[]): void {
  fs.writeFileSync(files[1], 'thing X');
  fs.utimesSync(files[1], new Date(Date.now() + 5000), new Date(Date.now() + 5000));
  fs.writeFileSync(files[2] + '.tmp', 'other 2');
  fs.renameSync(files[2] + '.tmp', files[2]);
  fs.rmSync(files[3]);
  fs.rmSync(files[4]);
  fs.mkdirSync(files[4]);
}

const expected = (files: string[], n: number): string[] => files.map((f, i) => (i === 1 ? 'THING X' : i === 2 ? 'OTHER 2' : i === 3 || i === 4 ? '' : `THING ${i}`)).filter((v, i) => i !== 3 && i !== 4).slice(0, n);

test('the worker names exactly the files whose stat differs from their entry; lines that do not parse are left to the loader', async () => {
  const { agentDir, files, read } = digestFolder(6);
  const d = FileDigests.unshared(agentDir, SPEC);
  await d.get(files, read);
  await (d as unknown as { save(): Promise<void> }).save();
  changeSome(files);
  fs.appendFileSync(d.file, '["things/5.md", [1,2\n'); // a line cut short
  const r = checkCacheFile(d.file, agentDir);
  assert.equal(r.entries, 6);
  assert.deepEqual([...(r.stale ?? [])].sort(), [files[1], files[2], files[3], files[4]].sort());
  assert.deepEqual(r.stamp, fileKeyOf(fs.statSync(d.file)));
});

test('a new process over a large cache: the first get stats on a worker and reads only what changed; later gets check on their own thread', async () => {
  const restore = tune({ digestOffThreadMinBytes: 0 });
  try {
    const { agentDir, files, reads, read } = digestFolder(300);
    const first = FileDigests.unshared(agentDir, SPEC);
    await first.get(files, read);
    await (first as unknown as { save(): Promise<void> }).save();
    changeSome(files);
    reads.length = 0;
    const next = FileDigests.unshared(agentDir, SPEC); // as a new process
    const r = await next.get(files, read);
    assert.equal(next.lastCheck, 'worker');
    assert.deepEqual(reads.sort(), ['1.md', '2.md']);
    assert.deepEqual([...r.values.values()].slice(0, 4), expected(files, 4));
    assert.equal(r.values.size, 298, 'the deleted file and the folder are left out');
    // The worker's check stands for one pass: an edit after it is seen by the next get's own stat.
    fs.writeFileSync(files[10], 'thing ten!');
    reads.length = 0;
    const again = await next.get(files, read);
    assert.equal(next.lastCheck, 'thread');
    assert.deepEqual(reads, ['10.md']);
    assert.equal(again.values.get(files[10]), 'THING TEN!');
  } finally {
    restore();
  }
});

test('a worker that fails, or that read another version of the cache, is not used: the first get stats every file itself, with the same answer', async () => {
  const restore = tune({ digestOffThreadMinBytes: 0, digestCheckScript: undefined });
  const failing = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ac-digest-check-')), 'fail.js');
  fs.writeFileSync(failing, 'throw new Error("broken worker");\n');
  try {
    const { agentDir, files, reads, read } = digestFolder(50);
    const first = FileDigests.unshared(agentDir, SPEC);
    await first.get(files, read);
    await (first as unknown as { save(): Promise<void> }).save();
    changeSome(files);
    reads.length = 0;
    tune({ digestCheckScript: failing });
    const next = FileDigests.unshared(agentDir, SPEC);
    const r = await next.get(files, read);
    assert.equal(next.lastCheck, 'thread');
    assert.deepEqual(reads.sort(), ['1.md', '2.md']);
    assert.deepEqual([...r.values.values()].slice(0, 4), expected(files, 4));
    tune({ digestCheckScript: undefined });
    // The real worker, asked about a cache read with another stamp (rewritten meanwhile): no answer.
    const run = startDigestCheck(first.file, agentDir);
    assert.ok(run, 'a worker started');
    const st = fs.statSync(first.file);
    assert.equal(await run.result([st.dev, st.ino, st.size + 1, st.mtimeMs, st.ctimeMs]), undefined);
    // Asked about the cache as it is (the get above rewrote it with what it found): nothing stale.
    const good = startDigestCheck(first.file, agentDir)!;
    assert.deepEqual(await good.result(fileKeyOf(st)), new Set());
  } finally {
    restore();
  }
});

test('a small cache is checked on the thread: no worker is started for it', async () => {
  const { agentDir, files, read } = digestFolder(5);
  const first = FileDigests.unshared(agentDir, SPEC);
  await first.get(files, read);
  await (first as unknown as { save(): Promise<void> }).save();
  assert.equal(startDigestCheck(first.file, agentDir), undefined);
  const next = FileDigests.unshared(agentDir, SPEC);
  await next.get(files, read);
  assert.equal(next.lastCheck, 'thread');
});
