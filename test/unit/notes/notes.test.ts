import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  NOTES_DIR,
  addNote,
  formatNotesSection,
  listNotes,
  notesFor,
  notesTooltipMarkdown,
  parseNote,
} from '../../../src/core/notes/notes';

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
  ({ notes } = await listNotes(root));
  assert.equal(notes.length, 4);
  const byText = new Map(notes.map((n) => [n.text, n.orphaned]));
  assert.match(byText.get('on a file') ?? '', /findings\.md no longer exists/);
  assert.match(byText.get('on lines') ?? '', /has 1 lines now; lines 35-40 are gone/);
  assert.match(byText.get('on build') ?? '', /step "build" is no longer/);
  assert.equal(byText.get('on test'), undefined);
  const section = formatNotesSection(notes);
  assert.match(section, /on a file.*\[orphaned: .agent\/scratch\/findings.md no longer exists\]/);
});

test('addNote refuses empty text, paths outside the workspace and bad ranges, writing nothing', async () => {
  const root = workspace();
  for (const [input, re] of [
    [{ path: 'a.txt', text: '  ' }, /empty/],
    [{ path: '../outside.txt', text: 'x' }, /outside the workspace/],
    [{ path: '/etc/passwd', text: 'x' }, /relative to the workspace/],
    [{ path: 'a.txt', startLine: 5, endLine: 2, text: 'x' }, /not a valid/],
    [{ path: 'a.txt', startLine: 0, text: 'x' }, /not a valid/],
  ] as const) {
    const r = await addNote(root, { author: 'u', ...input });
    assert.ok(!r.ok);
    assert.match(r.error, re);
  }
  assert.equal(fs.existsSync(path.join(root, NOTES_DIR)), false);
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

test('a note file with CRLF endings written by hand parses', () => {
  const r = parseNote('---\r\nid: n1\r\ntarget: src/a.ts\r\nlines: 4\r\nauthor: bob\r\ncreated: 2026-01-01T00:00:00Z\r\n---\r\nCareful here.\r\n', 'n1.md');
  assert.ok(r.ok, JSON.stringify(r));
  assert.equal(r.value.startLine, 4);
  assert.equal(r.value.endLine, 4);
  assert.equal(r.value.text, 'Careful here.');
});

test('the notes section stays within its byte budget and says how many more there are', async () => {
  const root = workspace();
  for (let i = 0; i < 20; i++) assert.ok((await addNote(root, { path: '.agent/plan.yaml', author: 'u', text: `note ${i} ${'é'.repeat(200)}` })).ok);
  const { notes } = await listNotes(root);
  const section = formatNotesSection(notes, 1024);
  assert.ok(Buffer.byteLength(section) <= 1024, `${Buffer.byteLength(section)} bytes`);
  assert.match(section, /and \d+ more in \.agent\/human\/notes\//);
  assert.match(notesTooltipMarkdown(notes.slice(0, 1)), /\*\*Note from u\*\*/);
});
