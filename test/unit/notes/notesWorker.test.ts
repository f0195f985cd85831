// The editor's listing of the notes on a worker thread (src/core/notes/notesWorker.ts): its diffs
// build the same index as this thread's listings, later diffs name only the notes that changed, and
// a worker that fails leaves the caller to list on its own thread.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { addNote, NOTES_DIR, type ListedNote } from '../../../src/core/notes/noteFile';
import { listNotes, recheckNotes } from '../../../src/core/notes/notes';
import { NoteIndex } from '../../../src/core/notes/noteIndex';
import { NotesWorker } from '../../../src/core/notes/notesWorker';
import { tune } from '../../../src/core/processState';

const plain = (ns: ListedNote[]): unknown => JSON.parse(JSON.stringify(ns));

function folder(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-notes-worker-'));
  fs.mkdirSync(path.join(root, '.agent/scratch'), { recursive: true });
  fs.mkdirSync(path.join(root, 'src'));
  for (let i = 0; i < 6; i++) fs.writeFileSync(path.join(root, `src/f${i}.ts`), 'line\n'.repeat(20));
  return root;
}

/** Every target's candidates in both indexes, as plain data. */
function sameAnswers(a: NoteIndex, b: NoteIndex, targets: readonly [string, number?, number?][]): void {
  for (const [p, t, c] of targets) assert.deepEqual(plain(a.candidates(p, t, c)), plain(b.candidates(p, t, c)), `${p} ${t}:${c}`);
}

test('the worker lists the notes this thread would, broken note files too; later diffs name only the notes that changed', async () => {
  const root = folder();
  for (let i = 0; i < 40; i++) {
    const r = await addNote(root, { path: `src/f${i % 6}.ts`, author: 'u', text: `note ${i}`, ...(i % 3 ? { startLine: 1 + (i % 5) } : { terminal: 1 + (i % 4), command: i % 3 }) });
    assert.ok(r.ok);
  }
  fs.writeFileSync(path.join(root, NOTES_DIR, 'zz-broken.md'), '---\nid: x\ntarget: a\nauthor: u\ncreated: now\nlines: 9-3\n---\ntext\n');
  const targets: [string, number?, number?][] = [...Array.from({ length: 6 }, (_, i): [string] => [`src/f${i}.ts`]), ['src/f0.ts', 1, 0], ['.agent/terminals/2.txt', 2, 1], ['nowhere']];
  const worker = new NotesWorker();
  try {
    const first = await worker.list(root, { reported: true, fresh: true });
    assert.ok(first, `the worker answered (${worker.failure})`);
    assert.equal(first.files.length, 40);
    assert.deepEqual(first.errors.map((e) => [e.file, e.line]), [[`${NOTES_DIR}/zz-broken.md`, 6]]);
    const fromWorker = new NoteIndex();
    const touched = await fromWorker.apply(first);
    assert.deepEqual([...touched].sort(), Array.from({ length: 6 }, (_, i) => `src/f${i}.ts`));
    const here = new NoteIndex();
    await here.update((await listNotes(root, { marks: false })).notes);
    sameAnswers(fromWorker, here, targets);

    // Nothing changed: an empty diff.
    const same = await worker.list(root, { reported: true, fresh: false });
    assert.deepEqual([same?.files, same?.removed], [[], []]);

    const { notes } = await listNotes(root, { marks: false });
    // One note edited in place (the folder's stamp stays as it was): the caller names its file, as the change feed does.
    const inPlace = path.join(root, notes[5].file);
    fs.writeFileSync(inPlace, fs.readFileSync(inPlace, 'utf8').replace('note ', 'edited note '));
    const one = await worker.list(root, { recheck: [inPlace], reported: true, fresh: false });
    assert.deepEqual([one?.files, one?.removed], [[notes[5].file], []]);
    assert.deepEqual([...(await fromWorker.apply(one!))], [notes[5].path]);
    assert.match(fromWorker.candidates(notes[5].path).find((n) => n.id === notes[5].id)?.text ?? '', /^edited note/);

    // One note added, one edited in place, one deleted: the caller names their files.
    const added = await addNote(root, { path: 'src/f5.ts', author: 'u', text: 'a new one', startLine: 2 });
    assert.ok(added.ok);
    const edited = path.join(root, notes[3].file);
    fs.writeFileSync(edited, fs.readFileSync(edited, 'utf8').replace(`target: ${notes[3].path}`, 'target: src/moved.ts'));
    const deleted = path.join(root, notes[7].file);
    fs.rmSync(deleted);
    const named = [path.join(root, added.value.file), edited, deleted];
    const later = await worker.list(root, { recheck: named, reported: true, fresh: false });
    assert.ok(later);
    assert.deepEqual(later.files.sort(), [added.value.file, notes[3].file].sort());
    assert.deepEqual(later.removed, [notes[7].file]);
    const changedPaths = await fromWorker.apply(later);
    assert.deepEqual([...changedPaths].sort(), [...new Set(['src/f5.ts', notes[3].path, 'src/moved.ts', notes[7].path])].sort());
    recheckNotes(root, named);
    await here.update((await listNotes(root, { marks: false })).notes);
    sameAnswers(fromWorker, here, [...targets, ['src/moved.ts']]);
    assert.equal(fromWorker.size, 40);

    // A new index asks for every note again.
    const again = await worker.list(root, { reported: true, fresh: true });
    assert.equal(again?.files.length, 40);
  } finally {
    worker.dispose();
  }
});

test('a worker that fails answers undefined, says why, and is not tried again', async () => {
  const root = folder();
  assert.ok((await addNote(root, { path: 'src/f1.ts', author: 'u', text: 'x' })).ok);
  const failing = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ac-notes-worker-')), 'fail.js');
  fs.writeFileSync(failing, 'throw new Error("broken worker");\n');
  const restore = tune({ notesWorkerScript: failing });
  const worker = new NotesWorker();
  try {
    assert.equal(await worker.list(root, { reported: true, fresh: true }), undefined);
    assert.match(worker.failure ?? '', /broken worker|exited/);
    tune({ notesWorkerScript: undefined });
    assert.equal(await worker.list(root, { reported: true, fresh: true }), undefined, 'not started again');
  } finally {
    restore();
    worker.dispose();
  }
});

test('a process with nothing else to do waits for the answer it is owed', async () => {
  const root = folder();
  for (let i = 0; i < 3; i++) assert.ok((await addNote(root, { path: `src/f${i}.ts`, author: 'u', text: `n${i}` })).ok);
  const script = `const { NotesWorker } = require(${JSON.stringify(require.resolve('../../../src/core/notes/notesWorker'))});
new NotesWorker().list(${JSON.stringify(root)}, { reported: true, fresh: true }).then((d) => console.log('notes', d ? d.files.length : 'none'));`;
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), 'notes 3');
});
