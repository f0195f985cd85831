// How agents and tooltips show notes (src/core/notes/noteText.ts).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { addNote, type Note } from '../../../src/core/notes/noteFile';
import { formatNotesSection, notesTooltipMarkdown } from '../../../src/core/notes/noteText';

test('the notes section stays within its byte budget and says how many more there are', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-note-text-'));
  const notes: Note[] = [];
  for (let i = 0; i < 20; i++) {
    const r = await addNote(root, { path: '.agent/plan.yaml', author: 'u', text: `note ${i} ${'é'.repeat(200)}` });
    assert.ok(r.ok);
    notes.push(r.value);
  }
  const section = formatNotesSection(notes, 1024);
  assert.ok(Buffer.byteLength(section) <= 1024, `${Buffer.byteLength(section)} bytes`);
  assert.match(section, /and \d+ more in \.agent\/human\/notes\//);
  assert.match(notesTooltipMarkdown(notes.slice(0, 1)), /\*\*Note from u\*\*/);
});
