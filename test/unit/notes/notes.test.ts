import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NOTES_DIR, addNote, parseNote } from '../../../src/core/notes/noteFile';
import { listNotes, notesFor, notesReportedByCaller, recheckNotes, withCurrentOrphans } from '../../../src/core/notes/notes';
import { formatNotesSection } from '../../../src/core/notes/noteText';
import { resetProcessState, tune } from '../../../src/core/processState';

// The listing's own rounds and the caller's reports, counted exactly: no watch of the module's own
// joins in, except in the tests of that watch below.
tune({ ownNotesWatch: false });

function workspace(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-notes-'));
  fs.mkdirSync(path.join(root, '.agent/terminals'), { recursive: true });
  fs.mkdirSync(path.join(root, '.agent/scratch'), { recursive: true });
  const lines = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
  fs.writeFileSync(path.join(root, '.agent/terminals/3.txt'), lines);
  fs.writeFileSync(path.join(root, '.agent/scratch/findings.md'), '# findings\n');
  fs.writeFileSync(path.join(root, '.agent/plan.yaml'), 'objective: ship\nsteps:\n  - id: build\n    status: pending\n  - id: "test"\n    status: pending\n');
  return root;
}

test('a note round-trips through its file: target, lines, terminal command, author, time, text', async () => {
  const root = workspace();
  const now = new Date('2026-11-29T19:20:00.000Z');
  const added = await addNote(root, {
    path: '.agent/terminals/3.txt', startLine: 10, endLine: 20, terminal: 3, command: 2,
    author: 'alice', text: 'This failure is a flaky network: ignore it.\nSecond line: "quoted"', now,
  });
  assert.ok(added.ok, JSON.stringify(added));
  const file = path.join(root, added.value.file);
  assert.ok(added.value.file.startsWith(`${NOTES_DIR}/`) && fs.existsSync(file));
  const { notes, errors } = await listNotes(root);
  assert.deepEqual(errors, []);
  assert.equal(notes.length, 1);
  assert.deepEqual(notes[0], {
    id: added.value.id, path: '.agent/terminals/3.txt', startLine: 10, endLine: 20, terminal: 3, command: 2,
    author: 'alice', created: '2026-11-29T19:20:00.000Z', text: 'This failure is a flaky network: ignore it.\nSecond line: "quoted"',
    file: added.value.file,
  });
  const text = fs.readFileSync(file, 'utf8');
  assert.match(text, /^---\nid: /);
  assert.match(text, /\nlines: 10-20\n/);
});

test('notesFor finds notes by overlapping lines, whole-file notes, and terminal command', async () => {
  const root = workspace();
  const a = await addNote(root, { path: '.agent/terminals/3.txt', startLine: 10, endLine: 20, terminal: 3, command: 2, author: 'u', text: 'cmd note' });
  const b = await addNote(root, { path: '.agent/scratch/findings.md', author: 'u', text: 'file note' });
  assert.ok(a.ok && b.ok);
  const texts = (ns: { text: string }[]) => ns.map((n) => n.text);
  assert.deepEqual(texts(await notesFor(root, '.agent/terminals/3.txt', 20, 25)), ['cmd note']);
  assert.deepEqual(texts(await notesFor(root, '.agent/terminals/3.txt', 21, 30)), []);
  assert.deepEqual(texts(await notesFor(root, '.agent/terminals/3.txt')), ['cmd note']);
  // The same command after rotation lives in another file: the terminal and command index still match.
  assert.deepEqual(texts(await notesFor(root, '.agent/terminals/3.1.txt', 1, 5, { terminal: 3, command: 2 })), ['cmd note']);
  assert.deepEqual(texts(await notesFor(root, '.agent/scratch/findings.md', 1, 1)), ['file note']);
  assert.deepEqual(texts(await notesFor(root, './.agent/scratch/../scratch/findings.md')), ['file note']);
  // A plan step's note follows the step id, not the lines it had when the note was written.
  assert.ok((await addNote(root, { path: '.agent/plan.yaml', startLine: 3, endLine: 3, step: 'build', author: 'u', text: 'step note' })).ok);
  assert.deepEqual(texts(await notesFor(root, '.agent/plan.yaml', 9, 9, { step: 'build' })), ['step note']);
  assert.deepEqual(texts(await notesFor(root, '.agent/plan.yaml', 3, 3, { step: 'test' })), []);
});

test('a deleted target, vanished lines or a removed plan step mark the note orphaned, never drop it', async () => {
  const root = workspace();
  assert.ok((await addNote(root, { path: '.agent/scratch/findings.md', author: 'u', text: 'on a file' })).ok);
  assert.ok((await addNote(root, { path: '.agent/terminals/3.txt', startLine: 35, endLine: 40, author: 'u', text: 'on lines' })).ok);
  assert.ok((await addNote(root, { path: '.agent/plan.yaml', startLine: 3, endLine: 4, step: 'build', author: 'u', text: 'on build' })).ok);
  assert.ok((await addNote(root, { path: '.agent/plan.yaml', startLine: 5, endLine: 6, step: 'test', author: 'u', text: 'on test' })).ok);
  let { notes } = await listNotes(root);
  assert.deepEqual(notes.map((n) => n.orphaned), [undefined, undefined, undefined, undefined]);

  fs.rmSync(path.join(root, '.agent/scratch/findings.md'));
  fs.writeFileSync(path.join(root, '.agent/terminals/3.txt'), 'short\n');
  fs.writeFileSync(path.join(root, '.agent/plan.yaml'), 'objective: ship\nsteps:\n  - id: "test"\n    status: pending\n  - id: deploy\n');
  const expectOrphans = (ns: { text: string; orphaned?: string }[]): void => {
    assert.equal(ns.length, 4);
    const byText = new Map(ns.map((n) => [n.text, n.orphaned]));
    assert.match(byText.get('on a file') ?? '', /findings\.md no longer exists/);
    assert.match(byText.get('on lines') ?? '', /has 1 line now; lines 35-40 are gone/);
    assert.match(byText.get('on build') ?? '', /step "build" is no longer/);
    assert.equal(byText.get('on test'), undefined);
  };
  // The notes shown to an agent are checked against their targets as they are now...
  expectOrphans(await withCurrentOrphans(root, notes));
  // ...and a whole listing once it is checked again (the change feed asks for that; else within seconds).
  recheckNotes(root);
  ({ notes } = await listNotes(root));
  expectOrphans(notes);
  const section = formatNotesSection(notes);
  assert.match(section, /on a file.*\[orphaned: .agent\/scratch\/findings.md no longer exists\]/);
});

test('listing many notes: a note added or deleted by another process is seen at once, one edited in place after a recheck, and unchanged files are not read again', async () => {
  const root = workspace();
  for (let i = 0; i < 50; i++) assert.ok((await addNote(root, { path: '.agent/terminals/3.txt', startLine: 1 + (i % 40), author: 'u', text: `note ${i}` })).ok);
  let { notes } = await listNotes(root);
  assert.equal(notes.length, 50);
  // Another process adds one (the folder changes): listed at once.
  const other = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-notes-other-'));
  fs.mkdirSync(path.join(other, '.agent/terminals'), { recursive: true });
  const added = await addNote(other, { path: '.agent/terminals/3.txt', author: 'v', text: 'from the other window' });
  assert.ok(added.ok);
  fs.copyFileSync(path.join(other, added.value.file), path.join(root, added.value.file));
  ({ notes } = await listNotes(root));
  assert.equal(notes.length, 51);
  assert.equal(notes[notes.length - 1].text, 'from the other window');
  // Deleted: gone at once. (Notes added in the same millisecond have no set order: found by text.)
  fs.rmSync(path.join(root, notes.find((x) => x.text === 'note 0')!.file));
  ({ notes } = await listNotes(root));
  assert.equal(notes.length, 50);
  assert.ok(!notes.some((n) => n.text === 'note 0'));
  // Edited in place (the folder does not change): seen after a recheck.
  const edited = path.join(root, notes[0].file);
  fs.writeFileSync(edited, fs.readFileSync(edited, 'utf8').replace(/note \d+\n?$/, 'edited by hand\n'));
  recheckNotes(root);
  ({ notes } = await listNotes(root));
  assert.equal(notes[0].text, 'edited by hand');
  // A recheck reads only what changed: one note file edited, 49 answered from memory.
  fs.writeFileSync(edited, fs.readFileSync(edited, 'utf8').replace('edited by hand', 'edited twice'));
  const reads: string[] = [];
  // The module object itself (this file's `fs` is a copy of its bindings): notes.ts reads through it.
  const realFs = require('node:fs') as { readFileSync: typeof fs.readFileSync };
  const readFile = realFs.readFileSync;
  realFs.readFileSync = ((f: fs.PathOrFileDescriptor, ...rest: unknown[]) => {
    if (String(f).includes('human/notes')) reads.push(String(f));
    return (readFile as (...a: unknown[]) => unknown)(f, ...rest);
  }) as typeof fs.readFileSync;
  try {
    recheckNotes(root);
    ({ notes } = await listNotes(root));
  } finally {
    realFs.readFileSync = readFile;
  }
  assert.equal(notes[0].text, 'edited twice');
  assert.deepEqual(reads, [edited]);
  // A note file that breaks is named, and the others still listed.
  fs.writeFileSync(path.join(root, notes[1].file), 'no frontmatter\n');
  recheckNotes(root);
  const r = await listNotes(root);
  assert.equal(r.notes.length, 49);
  assert.equal(r.errors.length, 1);
  assert.match(r.errors[0].file, /human\/notes\/.*\.md$/);
});

test('a broken note file is reported with its path and line; the others still list', async () => {
  const root = workspace();
  assert.ok((await addNote(root, { path: '.agent/plan.yaml', author: 'u', text: 'good' })).ok);
  fs.writeFileSync(path.join(root, NOTES_DIR, 'zz-broken.md'), '---\nid: x\ntarget: a\nauthor: u\ncreated: now\nlines: 9-3\n---\ntext\n');
  fs.writeFileSync(path.join(root, NOTES_DIR, 'zz-nofm.md'), 'just text\n');
  const { notes, errors } = await listNotes(root);
  assert.deepEqual(notes.map((n) => n.text), ['good']);
  assert.deepEqual(errors.map((e) => [e.file, e.line]), [[`${NOTES_DIR}/zz-broken.md`, 6], [`${NOTES_DIR}/zz-nofm.md`, 1]]);
  const bad = parseNote('---\nid: [\n---\n', 'n.md');
  assert.ok(!bad.ok && bad.error.file === 'n.md' && bad.error.line !== undefined);
});

test('a new process reads the note files only where .agent/.cache/notes.json lacks them or is stale; a corrupt cache is rebuilt', async () => {
  const root = workspace();
  for (let i = 0; i < 30; i++) assert.ok((await addNote(root, { path: '.agent/terminals/3.txt', startLine: 1 + i, author: 'u', text: `note ${i}` })).ok);
  assert.equal((await listNotes(root)).notes.length, 30);
  const cache = path.join(root, '.agent/.cache/notes.json');
  assert.ok(fs.existsSync(cache));
  // A fresh process (as each agent session's MCP server): counts the note files it reads.
  const fresh = (): { reads: number; notes: number; texts: string[] } => {
    const notesJs = require.resolve('../../../src/core/notes/notes');
    const script = `const fs = require('node:fs'); let reads = 0; const rf = fs.readFileSync;
fs.readFileSync = (f, ...a) => { if (String(f).includes('human/notes')) reads++; return rf(f, ...a); };
require(${JSON.stringify(notesJs)}).listNotes(${JSON.stringify(root)}).then((r) => console.log(JSON.stringify({ reads, notes: r.notes.length, texts: r.notes.map((n) => n.text) })));`;
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout) as { reads: number; notes: number; texts: string[] };
  };
  assert.deepEqual({ ...fresh(), texts: undefined }, { reads: 0, notes: 30, texts: undefined });
  // A note edited in place since: that one file is read.
  const { notes } = await listNotes(root);
  // Notes added in the same millisecond have no set order: find the note by its text.
  const edited = path.join(root, notes.find((x) => x.text === 'note 5')!.file);
  fs.writeFileSync(edited, fs.readFileSync(edited, 'utf8').replace('note 5', 'note five, edited'));
  const after = fresh();
  assert.equal(after.reads, 1);
  assert.ok(after.texts.includes('note five, edited'));
  // Garbage, or another version's file: every note is read, the answer is whole, the cache written anew.
  for (const bad of ['{"v":1,"files":[["x"', '{"v":99,"files":[]}', '[1,2,3]']) {
    fs.writeFileSync(cache, bad);
    const r = fresh();
    assert.equal(r.notes, 30, bad);
    assert.equal(r.reads, 30, bad);
    assert.equal(fresh().reads, 0, `rewritten after ${bad}`);
  }
});

/** Counts what the notes listing does to the note files while `f` runs: reads, stats and listings of the folder. */
async function watchingNoteFiles<T>(f: () => Promise<T>): Promise<{ value: T; reads: string[]; stats: number; readdirs: number }> {
  // The module objects themselves (this file's `fs` is a copy of their bindings): notes.ts and fileDigests.ts go through them.
  const realFs = require('node:fs') as { readFileSync: typeof fs.readFileSync; lstatSync: typeof fs.lstatSync; promises: { readdir: typeof fs.promises.readdir } };
  const { readFileSync, lstatSync } = realFs;
  const readdir = realFs.promises.readdir;
  const seen = { reads: [] as string[], stats: 0, readdirs: 0 };
  realFs.readFileSync = ((p: fs.PathOrFileDescriptor, ...rest: unknown[]) => {
    if (String(p).includes('human/notes/')) seen.reads.push(path.basename(String(p)));
    return (readFileSync as (...a: unknown[]) => unknown)(p, ...rest);
  }) as typeof fs.readFileSync;
  realFs.lstatSync = ((p: fs.PathLike, ...rest: unknown[]) => {
    if (String(p).includes('human/notes/')) seen.stats++;
    return (lstatSync as (...a: unknown[]) => unknown)(p, ...rest);
  }) as typeof fs.lstatSync;
  realFs.promises.readdir = ((p: fs.PathLike, ...rest: unknown[]) => {
    if (String(p).endsWith('human/notes')) seen.readdirs++;
    return (readdir as (...a: unknown[]) => unknown)(p, ...rest);
  }) as typeof fs.promises.readdir;
  try {
    return { value: await f(), ...seen };
  } finally {
    Object.assign(realFs, { readFileSync, lstatSync });
    realFs.promises.readdir = readdir;
  }
}

/** Runs `f` with Date.now() moved `ms` ahead (the listing's periodic rounds go by it). */
async function later<T>(ms: number, f: () => Promise<T>): Promise<T> {
  const now = Date.now;
  const at = now() + ms;
  Date.now = () => at;
  try {
    return await f();
  } finally {
    Date.now = now;
  }
}

test('the change feed names the note files that changed: the listing reads those alone, without listing the folder, and sees each add, edit and delete', async () => {
  const root = workspace();
  for (let i = 0; i < 50; i++) assert.ok((await addNote(root, { path: '.agent/scratch/findings.md', author: 'u', text: `note ${i}` })).ok);
  let { notes } = await listNotes(root);
  const dir = path.join(root, NOTES_DIR);
  const edited = path.join(root, notes.find((n) => n.text === 'note 7')!.file);
  const deleted = path.join(root, notes.find((n) => n.text === 'note 8')!.file);
  const added = path.join(dir, '01KZZZZZZZZZZZZZZZZZZZZZZZ.md');
  fs.writeFileSync(added, '---\nid: 01KZZZZZZZZZZZZZZZZZZZZZZZ\ntarget: .agent/plan.yaml\nauthor: v\ncreated: 2099-01-01T00:00:00.000Z\n---\nfrom another process\n');
  fs.writeFileSync(edited, fs.readFileSync(edited, 'utf8').replace('note 7', 'note seven, edited'));
  fs.rmSync(deleted);
  recheckNotes(root, [added, edited, deleted, path.join(root, '.agent/plan.yaml')]);
  // No time passes: no periodic round joins in.
  const seen = await later(0, () => watchingNoteFiles(() => listNotes(root)));
  ({ notes } = seen.value);
  assert.equal(notes.length, 50);
  assert.equal(notes[notes.length - 1].text, 'from another process');
  assert.ok(notes.some((n) => n.text === 'note seven, edited'));
  assert.ok(!notes.some((n) => n.text === 'note 8'));
  assert.deepEqual(seen.reads.sort(), [path.basename(added), path.basename(edited)].sort());
  assert.equal(seen.readdirs, 0);
  assert.equal(seen.stats, 3);
  // Naming the folder itself (deleted and made again, say): everything is listed again.
  fs.rmSync(added);
  recheckNotes(root, [dir]);
  const again = await later(0, () => watchingNoteFiles(() => listNotes(root)));
  assert.equal(again.value.notes.length, 49);
  assert.equal(again.readdirs, 1);
});

test('with no watcher, an edit in place and a deleted target are seen within a few listings, each re-checking at most 500 note files', async () => {
  const root = workspace();
  for (const t of ['a', 'b', 'c']) fs.writeFileSync(path.join(root, `.agent/scratch/${t}.md`), `${t}\n`);
  for (let i = 0; i < 1200; i++) assert.ok((await addNote(root, { path: `.agent/scratch/${'abc'[i % 3]}.md`, author: 'u', text: `note ${i}` })).ok);
  let { notes } = await listNotes(root);
  assert.equal(notes.length, 1200);
  const edited = path.join(root, notes.find((n) => n.text === 'note 601')!.file);
  fs.writeFileSync(edited, fs.readFileSync(edited, 'utf8').replace('note 601', 'note 601, edited by hand'));
  fs.rmSync(path.join(root, '.agent/scratch/a.md'));
  // Listings seconds apart: each checks its round of note files and targets.
  const stats: number[] = [];
  for (let round = 1; round <= 3 && !notes.some((n) => n.text === 'note 601, edited by hand'); round++) {
    const seen = await later(3000 * round, () => watchingNoteFiles(() => listNotes(root)));
    stats.push(seen.stats);
    ({ notes } = seen.value);
  }
  assert.ok(notes.some((n) => n.text === 'note 601, edited by hand'), `not seen after ${stats.length} listings`);
  assert.ok(stats.every((s) => s <= 500), `note files checked per listing: ${stats.join(', ')}`);
  assert.equal(notes.filter((n) => /a\.md no longer exists/.test(n.orphaned ?? '')).length, 400);
  assert.equal(notes.filter((n) => n.orphaned).length, 400);
});

test('a watched notes folder (Linux): an edit in place is seen at the next listing with no round of note files, and the rounds become a safety net every 30 s', { skip: process.platform !== 'linux' && 'inotify watches: Linux only' }, async () => {
  const restore = tune({ ownNotesWatch: true });
  try {
    const root = workspace();
    for (let i = 0; i < 1200; i++) assert.ok((await addNote(root, { path: '.agent/scratch/findings.md', author: 'u', text: `note ${i}` })).ok);
    let { notes } = await listNotes(root);
    const edited = path.join(root, notes.find((n) => n.text === 'note 601')!.file);
    fs.writeFileSync(edited, fs.readFileSync(edited, 'utf8').replace('note 601', 'note 601, edited in place'));
    // Nobody calls recheckNotes; the folder's stamp does not change. Within a few ms the watch has the event.
    let seen = await later(3000, () => watchingNoteFiles(() => listNotes(root)));
    for (let i = 0; i < 50 && !seen.value.notes.some((n) => n.text === 'note 601, edited in place'); i++) {
      await new Promise((r) => setTimeout(r, 20));
      seen = await later(3000, () => watchingNoteFiles(() => listNotes(root)));
    }
    assert.ok(seen.value.notes.some((n) => n.text === 'note 601, edited in place'), 'the edit is seen without a round');
    assert.deepEqual(seen.reads, [path.basename(edited)]);
    assert.ok(seen.stats <= 2, `note files stat'ed: ${seen.stats} (no round while watched)`);
    // Half a minute on: the safety round checks its share of note files after all.
    const round = await later(31_000, () => watchingNoteFiles(() => listNotes(root)));
    assert.equal(round.stats, 500);
    // A note added, and one deleted, reach the listing through the folder's stamp and the watch alike.
    assert.ok((await addNote(root, { path: '.agent/plan.yaml', author: 'u', text: 'added last' })).ok);
    fs.rmSync(edited);
    ({ notes } = await listNotes(root));
    assert.equal(notes.length, 1200);
    assert.ok(notes.some((n) => n.text === 'added last'));
    assert.ok(!notes.some((n) => n.text.startsWith('note 601')));
  } finally {
    restore();
    resetProcessState(); // stops the watches set up meanwhile
  }
});

test('a folder whose caller reports every note change (the editor change feed): no round of note files until 30 s have passed, what it reports is seen at once', async () => {
  const root = workspace();
  notesReportedByCaller(root);
  for (let i = 0; i < 600; i++) assert.ok((await addNote(root, { path: '.agent/scratch/findings.md', author: 'u', text: `note ${i}` })).ok);
  const { notes } = await listNotes(root);
  const edited = path.join(root, notes.find((n) => n.text === 'note 9')!.file);
  fs.writeFileSync(edited, fs.readFileSync(edited, 'utf8').replace('note 9', 'note nine'));
  const quiet = await later(3000, () => watchingNoteFiles(() => listNotes(root)));
  assert.equal(quiet.stats, 0, 'no round while the caller reports changes');
  recheckNotes(root, [edited]);
  const reported = await later(3000, () => watchingNoteFiles(() => listNotes(root)));
  assert.ok(reported.value.notes.some((n) => n.text === 'note nine'));
  assert.deepEqual(reported.reads, [path.basename(edited)]);
  const round = await later(31_000, () => watchingNoteFiles(() => listNotes(root)));
  assert.equal(round.stats, 500);
});

test('a listing with marks off stats no target; the first listing with marks checks every target once, and later listings keep the marks current', async () => {
  const root = workspace();
  for (const t of ['a', 'b', 'c']) fs.writeFileSync(path.join(root, `.agent/scratch/${t}.md`), `${t}\n`);
  for (let i = 0; i < 90; i++) assert.ok((await addNote(root, { path: `.agent/scratch/${'abc'[i % 3]}.md`, author: 'u', text: `note ${i}` })).ok);
  assert.ok((await addNote(root, { path: '.agent/scratch/gone.md', author: 'u', text: 'on a deleted file' })).ok);
  // Target stats go through fs.statSync (orphans.ts statOf); count those under scratch/.
  const realFs = require('node:fs') as { statSync: typeof fs.statSync };
  const statSync = realFs.statSync;
  let targetStats = 0;
  realFs.statSync = ((p: fs.PathLike, ...rest: unknown[]) => {
    if (String(p).includes(`${path.sep}scratch${path.sep}`)) targetStats++;
    return (statSync as (...a: unknown[]) => unknown)(p, ...rest);
  }) as typeof fs.statSync;
  try {
    let { notes } = await listNotes(root, { marks: false });
    assert.equal(notes.length, 91);
    assert.equal(targetStats, 0, 'a listing without marks stats no target');
    assert.equal(notes.find((n) => n.text === 'on a deleted file')?.orphaned, undefined);
    // What a caller shows it checks itself.
    const [checked] = await withCurrentOrphans(root, notes.filter((n) => n.text === 'on a deleted file'));
    assert.match(checked.orphaned ?? '', /gone\.md no longer exists/);
    targetStats = 0;
    ({ notes } = await listNotes(root));
    assert.equal(targetStats, 4, 'each of the four targets stat\'ed once');
    assert.deepEqual(notes.filter((n) => n.orphaned).map((n) => n.text), ['on a deleted file']);
    fs.rmSync(path.join(root, '.agent/scratch/b.md'));
    recheckNotes(root);
    ({ notes } = await listNotes(root, { marks: false }));
    assert.equal(notes.filter((n) => /b\.md no longer exists/.test(n.orphaned ?? '')).length, 30, 'marks stay current once asked for');
  } finally {
    realFs.statSync = statSync;
  }
});
