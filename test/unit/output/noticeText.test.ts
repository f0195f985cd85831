import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { noticeDetail, noticeText } from '../../../src/core/output/text';
import { formatInstructionReports } from '../../../src/core/setup/instructions';

test('notifications: plain text without literal backticks, "Agent Context: " once on toasts, none on modal dialogs', () => {
  assert.equal(noticeText('The `.agent/` folder was created'), 'Agent Context: The .agent/ folder was created');
  assert.equal(noticeText('Agent Context: could not read `plan.yaml`'), 'Agent Context: Could not read plan.yaml');
  // One capitalisation for every message ("Moved …", "Added …", not "removed …" beside them); names keep theirs.
  assert.equal(noticeText('moved a.txt to the trash.'), 'Agent Context: Moved a.txt to the trash.');
  assert.equal(noticeText('chat.useHooks is off'), 'Agent Context: chat.useHooks is off');
  assert.equal(noticeText('`.agent/` was created'), 'Agent Context: .agent/ was created');
  assert.equal(noticeText('npm2 failed'), 'Agent Context: npm2 failed');
  assert.equal(noticeText('open a folder first', { modal: true }), 'Open a folder first');
  assert.equal(noticeText('Delete memory "x"?', { modal: true }), 'Delete memory "x"?');
  assert.equal(noticeText('Agent Context: Delete `x`?', { modal: true }), 'Delete x?');
  // A dialog's detail is often the user's own data: plain, its case kept.
  assert.equal(noticeDetail('old fact\n\nA copy is kept in `.agent/history/`.'), 'old fact\n\nA copy is kept in .agent/history/.');
});

test('the instructions report reads as sentences, not "Agent Context: AGENTS.md: created"', () => {
  const text = formatInstructionReports([
    { file: 'AGENTS.md', action: 'created' },
    { file: 'CLAUDE.md', action: 'optedOut', message: 'deleted after the block was added; not recreated' },
  ]);
  assert.equal(text, 'created AGENTS.md with the Agent Context section; CLAUDE.md left alone, opted out (deleted after the block was added; not recreated)');
  assert.equal(noticeText(text), `Agent Context: C${text.slice(1)}`);
});
