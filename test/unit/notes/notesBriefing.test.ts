import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { addNote } from '../../../src/core/notes/noteFile';
import { gatherBriefing } from '../../../src/core/briefing/briefingSources';
import { composeBriefing } from '../../../src/core/briefing/composeBriefing';

test('the briefing carries the user\'s notes, orphaned ones marked', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-nb-'));
  fs.mkdirSync(path.join(root, '.agent/terminals'), { recursive: true });
  fs.writeFileSync(path.join(root, '.agent/terminals/2.txt'), 'a\nb\nc\n');
  assert.ok((await addNote(root, { path: '.agent/terminals/2.txt', startLine: 1, endLine: 3, terminal: 2, command: 0, author: 'alice', text: 'flaky network, ignore it' })).ok);
  assert.ok((await addNote(root, { path: '.agent/scratch/gone.md', author: 'alice', text: 'about a deleted file' })).ok);
  const input = await gatherBriefing(path.join(root, '.agent'));
  const { text } = composeBriefing(input);
  assert.match(text, /Notes from the user \(2; follow them\):/);
  assert.match(text, /alice, .* on terminal 2 command 0: "flaky network, ignore it" \(\.agent\/human\/notes\/[0-9A-Z]{26}\.md\)/);
  assert.match(text, /"about a deleted file" .*\[orphaned: \.agent\/scratch\/gone\.md no longer exists\]/);
});

test('with many long notes the briefing stays within its cap and points at the notes folder', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-nb-'));
  fs.mkdirSync(path.join(root, '.agent'), { recursive: true });
  for (let i = 0; i < 40; i++) assert.ok((await addNote(root, { path: 'src/x.ts', author: 'u', text: `note ${i} ` + 'word '.repeat(300) })).ok);
  const { text, tokens } = composeBriefing(await gatherBriefing(path.join(root, '.agent')));
  assert.ok(tokens <= 1500, `${tokens} tokens`);
  assert.match(text, /Notes from the user \(40; follow them\):/);
  assert.match(text, /… \d+ more in \.agent\/human\/notes\//);
});
