// The editor's index of one folder's notes (src/core/notes/noteIndex.ts): each tree item and file
// decoration looks up its own notes, and a listing redraws only the files whose notes changed.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { addNote, type ListedNote } from '../../../src/core/notes/noteFile';
import { listNotes, recheckNotes } from '../../../src/core/notes/notes';
import { matchNotes } from '../../../src/core/notes/noteText';
import { columns, diffListing, jsonOf, NoteIndex, type NotesDiff } from '../../../src/core/notes/noteIndex';

const note = (id: string, p: string, created: string, more: Partial<ListedNote> = {}): ListedNote => ({ id, path: p, author: 'u', created, text: id, file: `.agent/human/notes/${id}.md`, ...more });

test('candidates are the notes on the path and those naming the terminal command, oldest first; matchNotes on them picks what it picks on all', async () => {
  const all = [
    note('n1', '.agent/terminals/3.txt', '2026-01-01T00:00:03Z', { terminal: 3, command: 2, startLine: 10, endLine: 20 }),
    note('n2', '.agent/terminals/3.1.txt', '2026-01-01T00:00:01Z', { terminal: 3, command: 2 }),
    note('n3', '.agent/terminals/3.txt', '2026-01-01T00:00:02Z'),
    note('n4', 'src/a.ts', '2026-01-01T00:00:00Z', { startLine: 1, endLine: 1 }),
  ].sort((a, b) => a.created.localeCompare(b.created)); // as listNotes gives them
  const index = new NoteIndex();
  await index.update(all);
  assert.deepEqual(index.candidates('.agent/terminals/3.txt').map((n) => n.id), ['n3', 'n1']);
  assert.deepEqual(index.candidates('.agent/terminals/3.txt', 3, 2).map((n) => n.id), ['n2', 'n3', 'n1']);
  assert.deepEqual(index.candidates('src/b.ts'), []);
  for (const q of [{ path: '.agent/terminals/3.txt', startLine: 15, endLine: 15, terminal: 3, command: 2 }, { path: 'src/a.ts', startLine: 1 }, { path: '.agent/terminals/3.1.txt' }]) {
    assert.deepEqual(matchNotes(index.candidates(q.path, q.terminal, q.command), q), matchNotes(all, q), JSON.stringify(q));
  }
});

test('after one note is added, only its file is redrawn: unchanged notes, orphaned ones too, are the same objects in the next listing', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-noteindex-'));
  fs.mkdirSync(path.join(root, '.agent/scratch'), { recursive: true });
  fs.writeFileSync(path.join(root, '.agent/scratch/kept.md'), 'x\n');
  assert.ok((await addNote(root, { path: '.agent/scratch/kept.md', author: 'u', text: 'on a file' })).ok);
  assert.ok((await addNote(root, { path: '.agent/scratch/gone.md', author: 'u', text: 'on a deleted file' })).ok);
  const index = new NoteIndex();
  assert.deepEqual([...(await index.update((await listNotes(root)).notes))].sort(), ['.agent/scratch/gone.md', '.agent/scratch/kept.md']);
  assert.deepEqual([...(await index.update((await listNotes(root)).notes))], []);
  const added = await addNote(root, { path: 'src/new.ts', author: 'u', text: 'a new one' });
  assert.ok(added.ok);
  recheckNotes(root, [path.join(root, added.value.file)]);
  const { notes } = await listNotes(root);
  assert.equal(notes.length, 3);
  assert.deepEqual([...(await index.update(notes))], ['src/new.ts']);
  fs.rmSync(path.join(root, added.value.file));
  recheckNotes(root, [path.join(root, added.value.file)]);
  assert.deepEqual([...(await index.update((await listNotes(root)).notes))], ['src/new.ts']);
  assert.deepEqual(index.candidates('src/new.ts'), []);
});

test('an index built from a whole listing at once answers as one built note by note', async () => {
  const all: ListedNote[] = [];
  for (let i = 0; i < 300; i++) {
    const t = i % 7;
    all.push(note(`n${String(i).padStart(3, '0')}`, i % 3 ? `.agent/terminals/${t}.txt` : `src/f${i % 11}.ts`, `2026-01-01T00:${String(59 - (i % 60)).padStart(2, '0')}:00Z`, i % 3 ? { terminal: t, command: i % 5 } : {}));
  }
  all.sort((a, b) => a.created.localeCompare(b.created) || a.id.localeCompare(b.id));
  const atOnce = new NoteIndex();
  const touched = await atOnce.update(all);
  assert.equal(touched.size, new Set(all.map((n) => n.path)).size);
  // Added newest first: every note lands in a list that holds newer ones.
  const oneByOne = new NoteIndex();
  for (let k = all.length - 1; k >= 0; k--) await oneByOne.update(all.slice(k));
  for (const n of all) {
    const ids = (ix: NoteIndex) => ix.candidates(n.path, n.terminal, n.command).map((x) => x.id);
    assert.deepEqual(ids(atOnce), ids(oneByOne), n.path);
  }
});

test('a first listing applied in slices gives what one pass gives, and the event loop gets turns meanwhile (10,000 notes)', async () => {
  const listing: ListedNote[] = [];
  for (let i = 0; i < 10_000; i++) {
    const t = 1 + (i % 700);
    listing.push(note(`n${String(i).padStart(5, '0')}`, i % 3 ? `.agent/terminals/${t}.txt` : `src/f${i % 50}.ts`, `2026-01-01T00:${String(59 - (i % 60)).padStart(2, '0')}:00Z`, i % 2 ? { terminal: t, command: i % 9 } : {}));
  }
  listing.sort((a, b) => (a.created < b.created ? -1 : a.created > b.created ? 1 : a.id < b.id ? -1 : 1));
  const whole = new NoteIndex();
  const touchedWhole = await whole.apply(diffListing(new Map(), listing, []), Infinity);
  let turns = 0;
  let counting = true;
  const tick = (): void => {
    if (!counting) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  const index = new NoteIndex();
  const touched = await index.update(listing);
  counting = false;
  assert.ok(turns >= 5, `other work ran ${turns} times while it was built`);
  assert.deepEqual([...touched].sort(), [...touchedWhole].sort());
  for (const [p, t, c] of [['.agent/terminals/5.txt', 5, 3], ['src/f7.ts', undefined, undefined], ['.agent/terminals/700.txt', 700, 1], ['nowhere', 1, 1]] as const) {
    assert.deepEqual(index.candidates(p, t, c).map((n) => n.id), whole.candidates(p, t, c).map((n) => n.id), p);
  }
  // Later listings update it as any index.
  const more = note('n-new', 'src/f7.ts', '2026-01-02T00:00:00Z');
  assert.deepEqual([...(await index.update([...listing, more]))], ['src/f7.ts']);
  assert.equal(index.candidates('src/f7.ts').at(-1)?.id, 'n-new');
});

test('a diff from another thread (columns and JSON) answers as the notes themselves, parsing only the notes asked for', async () => {
  const listing: ListedNote[] = [];
  for (let i = 0; i < 500; i++) {
    const t = 1 + (i % 40);
    listing.push(note(`n${String(i).padStart(3, '0')}`, i % 4 ? `.agent/terminals/${t}.txt` : `src/g${i % 13}.ts`, `2026-02-01T00:${String(59 - (i % 60)).padStart(2, '0')}:00Z`, i % 2 ? { terminal: t, command: i % 6, startLine: i, endLine: i + 3 } : { orphaned: i % 8 ? undefined : 'the file is gone' }));
  }
  listing.sort((a, b) => (a.created < b.created ? -1 : a.created > b.created ? 1 : a.id < b.id ? -1 : 1));
  const here = new NoteIndex();
  await here.update(listing);
  const fromJson = (notes: ListedNote[], removed: string[] = []): NotesDiff => ({ ...columns(notes), json: jsonOf(notes), removed, errors: [] });
  const there = new NoteIndex();
  const touched = await there.apply(fromJson(listing));
  assert.equal(touched.size, new Set(listing.map((n) => n.path)).size);
  const plain = (ns: ListedNote[]) => JSON.parse(JSON.stringify(ns)) as unknown;
  for (const [p, t, c] of [['.agent/terminals/5.txt', 5, 3], ['src/g4.ts', undefined, undefined], ['.agent/terminals/40.txt', 40, 1], ['nowhere', 2, 2]] as const) {
    assert.deepEqual(plain(there.candidates(p, t, c)), plain(here.candidates(p, t, c)), p);
  }
  // Later diffs: an older note added to a list, one edited (moved to another file), one removed.
  const older = note('n-old', 'src/g4.ts', '2025-12-31T00:00:00Z');
  const moved = { ...listing[10], path: 'src/moved.ts' };
  const gone = listing[20];
  const next = [older, ...listing.filter((n) => n !== listing[10] && n !== gone), moved];
  next.sort((a, b) => (a.created < b.created ? -1 : a.created > b.created ? 1 : a.id < b.id ? -1 : 1));
  const hereTouched = await here.update(next);
  const thereTouched = await there.apply(fromJson([older, moved].sort((a, b) => (a.created < b.created ? -1 : 1)), [gone.file]));
  assert.deepEqual([...thereTouched].sort(), [...hereTouched].sort());
  assert.deepEqual([...thereTouched].sort(), [...new Set(['src/g4.ts', listing[10].path, 'src/moved.ts', gone.path])].sort());
  for (const p of ['src/g4.ts', 'src/moved.ts', listing[10].path, gone.path]) assert.deepEqual(plain(there.candidates(p)), plain(here.candidates(p)), p);
  assert.equal(there.candidates('src/g4.ts')[0].id, 'n-old');
  assert.equal(there.size, next.length);
});
