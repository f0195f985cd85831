import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { noticeText } from '../../../src/core/output/text';
import { formatInstructionReports } from '../../../src/core/setup/instructions';

test('notifications: plain text without literal backticks, "Agent Context: " once on toasts, none on modal dialogs', () => {
  assert.equal(noticeText('The `.agent/` folder was created'), 'Agent Context: The .agent/ folder was created');
  assert.equal(noticeText('Agent Context: could not read `plan.yaml`'), 'Agent Context: could not read plan.yaml');
  assert.equal(noticeText('Delete memory "x"?', { modal: true }), 'Delete memory "x"?');
  assert.equal(noticeText('Agent Context: Delete `x`?', { modal: true }), 'Delete x?');
});

test('the instructions report reads as sentences, not "Agent Context: AGENTS.md: created"', () => {
  const text = formatInstructionReports([
    { file: 'AGENTS.md', action: 'created' },
    { file: 'CLAUDE.md', action: 'optedOut', message: 'deleted after the block was added; not recreated' },
  ]);
  assert.equal(text, 'created AGENTS.md with the Agent Context section; CLAUDE.md left alone, opted out (deleted after the block was added; not recreated)');
  assert.equal(noticeText(text), `Agent Context: ${text}`);
});
