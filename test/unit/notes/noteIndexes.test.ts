// The editor's notes of every folder (src/core/notes/noteIndexes.ts), what the note decorations and
// the views' tooltips read: listed on a worker thread, and on this thread once the worker fails (at
// start or later), with one warning, a redraw of everything, and the same notes either way.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { addNote, type ListedNote } from '../../../src/core/notes/noteFile';
import { NoteIndexes } from '../../../src/core/notes/noteIndexes';
import { tune } from '../../../src/core/processState';

function folder(): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ac-note-indexes-')));
  fs.mkdirSync(path.join(root, '.agent/scratch'), { recursive: true });
  fs.mkdirSync(path.join(root, 'src'));
  for (let i = 0; i < 3; i++) fs.writeFileSync(path.join(root, `src/f${i}.ts`), 'line\n'.repeat(20));
  return root;
}

const texts = (ns: ListedNote[]): string[] => ns.map((n) => n.text).sort();

/** A worker script: the real worker, except that it exits when asked for its listing number `n` (1-based). */
function dyingWorker(n: number): string {
  const entry = JSON.stringify(path.join(__dirname, '..', '..', '..', 'src', 'core', 'notes', 'notesWorkerEntry.js'));
  const script = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ac-note-indexes-')), 'dies.js');
  // Its listener comes first, so the real one never answers that request.
  fs.writeFileSync(script, `let asked = 0;
require('node:worker_threads').parentPort.on('message', () => { if (++asked === ${n}) process.exit(7); });
require(${entry});`);
  return script;
}

test('notes listed on the worker: by path and by terminal command, and a note added later is in the next refresh', async () => {
  const root = folder();
  assert.ok((await addNote(root, { path: 'src/f0.ts', author: 'u', text: 'first', startLine: 2 })).ok);
  assert.ok((await addNote(root, { path: '.agent/terminals/3.txt', author: 'u', text: 'on a command', terminal: 3, command: 4 })).ok);
  const warnings: string[] = [];
  const notes = new NoteIndexes((m) => warnings.push(m));
  try {
    const touched = await notes.refresh([root]);
    assert.equal(notes.listedOn, 'worker');
    assert.deepEqual(touched, [[root, new Set(['src/f0.ts', '.agent/terminals/3.txt'])]]);
    assert.deepEqual(texts(notes.notesFor(root, { path: 'src/f0.ts', startLine: 1, endLine: 3 })), ['first']);
    assert.deepEqual(texts(notes.notesFor(root, { path: 'src/f0.ts', startLine: 10, endLine: 12 })), [], 'other lines');
    assert.deepEqual(texts(notes.notesFor(root, { path: '.agent/terminals/3.txt', terminal: 3, command: 4 })), ['on a command']);
    const added = await addNote(root, { path: 'src/f1.ts', author: 'u', text: 'second' });
    assert.ok(added.ok);
    notes.changed(root, [added.value.file]);
    assert.deepEqual(await notes.refresh([root]), [[root, new Set(['src/f1.ts'])]]);
    assert.deepEqual(texts(notes.notesFor(root, { path: 'src/f1.ts' })), ['second']);
    assert.deepEqual(warnings, []);
  } finally {
    notes.dispose();
  }
});

test('a worker that cannot start: this thread lists the notes, with one warning naming why', async () => {
  const root = folder();
  assert.ok((await addNote(root, { path: 'src/f0.ts', author: 'u', text: 'first' })).ok);
  const failing = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ac-note-indexes-')), 'fail.js');
  fs.writeFileSync(failing, 'throw new Error("broken notes worker");\n');
  const restore = tune({ notesWorkerScript: failing });
  const warnings: string[] = [];
  const notes = new NoteIndexes((m) => warnings.push(m));
  try {
    assert.equal(await notes.refresh([root]), 'all');
    assert.equal(notes.listedOn, 'this thread');
    assert.deepEqual(texts(notes.notesFor(root, { path: 'src/f0.ts' })), ['first']);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /worker thread stopped \(.*(broken notes worker|exited).*\); listing them on this thread/);
    // Later changes are listed here too, without another warning.
    const added = await addNote(root, { path: 'src/f2.ts', author: 'u', text: 'later' });
    assert.ok(added.ok);
    notes.changed(root, [added.value.file]);
    assert.deepEqual(await notes.refresh([root]), [[root, new Set(['src/f2.ts'])]]);
    assert.deepEqual(texts(notes.notesFor(root, { path: 'src/f2.ts' })), ['later']);
    assert.equal(warnings.length, 1);
  } finally {
    restore();
    notes.dispose();
  }
});

test('a worker that dies after its first listing: the next refresh lists every folder here and redraws everything', async () => {
  const a = folder();
  const b = folder();
  assert.ok((await addNote(a, { path: 'src/f0.ts', author: 'u', text: 'in a' })).ok);
  assert.ok((await addNote(b, { path: 'src/f1.ts', author: 'u', text: 'in b' })).ok);
  // Requests 1 and 2 are the first refresh's (one per folder); it dies at the third.
  const restore = tune({ notesWorkerScript: dyingWorker(3) });
  const warnings: string[] = [];
  const notes = new NoteIndexes((m) => warnings.push(m));
  try {
    assert.notEqual(await notes.refresh([a, b]), 'all');
    assert.equal(notes.listedOn, 'worker');
    const added = await addNote(a, { path: 'src/f2.ts', author: 'u', text: 'added in a' });
    assert.ok(added.ok);
    notes.changed(a, [added.value.file]);
    assert.equal(await notes.refresh([a, b]), 'all');
    assert.equal(notes.listedOn, 'this thread');
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.deepEqual(texts(notes.notesFor(a, { path: 'src/f0.ts' })), ['in a']);
    assert.deepEqual(texts(notes.notesFor(a, { path: 'src/f2.ts' })), ['added in a']);
    assert.deepEqual(texts(notes.notesFor(b, { path: 'src/f1.ts' })), ['in b']);
    // A folder closed in the editor is forgotten.
    assert.equal(await notes.refresh([a]), 'all');
    assert.deepEqual(notes.notesFor(b, { path: 'src/f1.ts' }), []);
  } finally {
    restore();
    notes.dispose();
  }
});
