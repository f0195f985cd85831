// The ceiling of every answer a tool call returns (INLINE_MAX_BYTES, 6 KB): the notes invokeTool adds
// after a tool's answer (secrets masked, a call the ledger could not record) never push it over, and a
// tool that fills its answer to TOOL_ANSWER_MAX_BYTES is never cut for them.
import { after, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { invokeTool, withinCeiling } from '../../../src/core/tools/invokeTool';
import { ANSWER_NOTES_BYTES, INLINE_MAX_BYTES, TOOL_ANSWER_MAX_BYTES } from '../../../src/core/output/inline';
import { maskedNote } from '../../../src/core/tools/maskToolText';
import { toolContext } from '../../faultKit';

const made: string[] = [];
after(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
});
const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

test('an answer with notes stays within 6 KB: a long one is cut and says so, the notes come whole', () => {
  const note = maskedNote(12, 345)!;
  const ledger = 'Note: this call was not recorded in the ledger: disk full (ENOSPC) writing .agent/history/tools-2026-12.jsonl.';
  for (const size of [100, TOOL_ANSWER_MAX_BYTES, INLINE_MAX_BYTES - 10, INLINE_MAX_BYTES, 20_000]) {
    for (const notes of [[], [note], [note, ledger]]) {
      const body = 'é'.repeat(size / 2);
      const out = withinCeiling(body, notes);
      assert.ok(bytes(out) <= INLINE_MAX_BYTES, `${size} bytes with ${notes.length} notes: ${bytes(out)}`);
      for (const n of notes) assert.ok(out.endsWith(n) || out.includes(`\n${n}\n`), 'every note whole');
      const cut = bytes(body) + notes.reduce((a, n) => a + 1 + bytes(n), 0) > INLINE_MAX_BYTES;
      assert.equal(out.includes('[result cut to stay under 6 KB]'), cut, `${size} bytes with ${notes.length} notes`);
      assert.ok(out.startsWith(cut ? body.slice(0, 100) : body));
    }
  }
});

test('the room kept for notes holds the masking note at its longest, so a full tool answer is never cut for it', () => {
  assert.ok(bytes(maskedNote(99_999, 99_999)!) + 1 <= ANSWER_NOTES_BYTES);
  const full = 'x'.repeat(TOOL_ANSWER_MAX_BYTES);
  assert.ok(!withinCeiling(full, [maskedNote(99_999, 99_999)!]).includes('[result cut'));
});

test('a real call that masks a secret in a file read near the ceiling: under 6 KB, the note and the secret masked', async () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ac-ceiling-')));
  made.push(root);
  fs.mkdirSync(path.join(root, '.agent'));
  const lines = Array.from({ length: 400 }, (_, i) => `line ${i} ${'w'.repeat(40)}`);
  lines[3] = 'AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
  fs.writeFileSync(path.join(root, 'big.txt'), lines.join('\n'));
  const r = await invokeTool('agentContext_read', { path: 'big.txt', limit: 400 }, toolContext(root));
  assert.ok(bytes(r.text) <= INLINE_MAX_BYTES, `${bytes(r.text)} bytes`);
  assert.doesNotMatch(r.text, /wJalrXUtnFEMI/);
  assert.match(r.text, /masked/);
  assert.doesNotMatch(r.text, /\[result cut/);
});
