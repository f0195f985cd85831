// The note file format (src/core/notes/noteFile.ts): what addNote writes and refuses, and what
// parseNote reads, with and without the YAML parser.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NOTES_DIR, addNote, parseNote } from '../../../src/core/notes/noteFile';

function workspace(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'ac-note-file-'));
}

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

test('a note file with CRLF endings written by hand parses', () => {
  const r = parseNote('---\r\nid: n1\r\ntarget: src/a.ts\r\nlines: 4\r\nauthor: bob\r\ncreated: 2026-01-01T00:00:00Z\r\n---\r\nCareful here.\r\n', 'n1.md');
  assert.ok(r.ok, JSON.stringify(r));
  assert.equal(r.value.startLine, 4);
  assert.equal(r.value.endLine, 4);
  assert.equal(r.value.text, 'Careful here.');
});

test('frontmatter read without the YAML parser means what YAML says; anything unusual goes to YAML', () => {
  const fm = (body: string) => parseNote(`---\n${body}\n---\nthe text\n`, '.agent/human/notes/x.md');
  const base = 'id: 01KB2Y3Z4A5B6C7D8E9F0G1H2J\ntarget: .agent/terminals/3.txt\nauthor: Jane Doe\ncreated: 2026-11-29T19:20:00.000Z';
  const plain = fm(`${base}\nlines: 120-148\nterminal: 3\ncommand: 7\nstep: build-2`);
  assert.ok(plain.ok);
  assert.deepEqual({ ...plain.value }, { id: '01KB2Y3Z4A5B6C7D8E9F0G1H2J', path: '.agent/terminals/3.txt', author: 'Jane Doe', created: '2026-11-29T19:20:00.000Z', text: 'the text', file: '.agent/human/notes/x.md', startLine: 120, endLine: 148, terminal: 3, command: 7, step: 'build-2' });
  // What YAML reads as no string is refused as before; quoted, commented or odd values parse as YAML does.
  assert.match((fm(base.replace('author: Jane Doe', 'author: null')) as { error: { message: string } }).error.message, /"author" is required/);
  assert.match((fm(base.replace('author: Jane Doe', 'author: 12')) as { error: { message: string } }).error.message, /"author" is required/);
  assert.match((fm(base.replace('author: Jane Doe', 'author: a: b')) as { error: { message: string } }).error.message, /./);
  const quoted = fm(base.replace('author: Jane Doe', 'author: "Jane: Doe" # who') + '\nstep: 1\nterminal: 03');
  assert.ok(quoted.ok);
  assert.equal(quoted.value.author, 'Jane: Doe');
  assert.equal(quoted.value.step, '1');
  assert.equal(quoted.value.terminal, 3);
  assert.match((fm(`${base}\nterminal: three`) as { error: { message: string } }).error.message, /"terminal" must be a whole number/);
  assert.ok(!fm(`${base}\nauthor: again`).ok, 'a key given twice is an error, as in YAML');
});
