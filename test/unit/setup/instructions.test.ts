import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  BEGIN_MARKER,
  END_MARKER,
  INSTRUCTIONS_RECORD,
  applyInstructions,
  instructionBlock,
  upsertInstructionBlock,
} from '../../../src/core/setup/instructions';
import { countTokens } from '../../../src/core/output/tokens';

function upsert(text: string, previouslyAdded = false): { text: string; changed: boolean } {
  const r = upsertInstructionBlock(text, previouslyAdded);
  if (r.optedOut || 'error' in r) throw new Error(`unexpected outcome ${JSON.stringify(r)}`);
  return r;
}

function count(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

test('the block, markers included, is at most 250 tokens and names every place and tool', () => {
  const block = instructionBlock();
  const t = countTokens(block);
  assert.equal(t.approximate, false);
  assert.ok(t.tokens <= 250, `block is ${t.tokens} tokens`);
  for (const s of ['.agent/plan.yaml', '.agent/scratch/', '.agent/terminals/', '.agent/skills/', '.agent/memory/',
    'agentContext_run', 'agentContext_terminal', 'agentContext_briefing', 'agentContext_grep', 'agentContext_read', 'status']) {
    assert.ok(block.includes(s), `block mentions ${s}`);
  }
});

test('an empty file gets the block and a final newline', () => {
  assert.equal(upsert('').text, instructionBlock() + '\n');
});

test('added once: a second run changes nothing and never duplicates', () => {
  const first = upsert('# My project\n\nBe nice.\n');
  assert.equal(first.changed, true);
  assert.ok(first.text.startsWith('# My project\n\nBe nice.\n\n' + BEGIN_MARKER));
  const second = upsert(first.text, true);
  assert.equal(second.changed, false);
  assert.equal(second.text, first.text);
  assert.equal(count(second.text, BEGIN_MARKER), 1);
  assert.equal(count(second.text, END_MARKER), 1);
});

test('an outdated block is replaced in place; text before and after stays byte-identical', () => {
  const before = '# Title\n\nintro  \t\n\n';
  const after = '\n## Mine\n  keep   this\n';
  const old = before + BEGIN_MARKER + '\nold advice\nmore old advice\n' + END_MARKER + after;
  const r = upsert(old, true);
  assert.equal(r.changed, true);
  assert.equal(r.text, before + instructionBlock() + after);
});

test('CRLF files stay CRLF, the block included, and surrounding bytes are identical', () => {
  const before = '# Title\r\n\r\nline with trailing space \r\n';
  const first = upsert(before);
  assert.ok(first.text.startsWith(before));
  assert.equal(first.text, before + '\r\n' + instructionBlock('\r\n') + '\r\n');
  assert.equal(first.text.replace(/\r\n/g, '').includes('\n'), false, 'no bare LF anywhere');
  // Stale CRLF block in the middle of a file.
  const stale = 'a\r\n' + BEGIN_MARKER + '\r\nold\r\n' + END_MARKER + '\r\nz\r\n';
  assert.equal(upsert(stale, true).text, 'a\r\n' + instructionBlock('\r\n') + '\r\nz\r\n');
});

test('a file without a trailing newline keeps ending without one', () => {
  const r = upsert('no newline at end');
  assert.equal(r.text, 'no newline at end\n\n' + instructionBlock());
  assert.equal(r.text.endsWith('\n'), false);
  assert.equal(upsert(r.text, true).changed, false);
  // Block at the very end of a file with no final newline is updated in place, still without one.
  const stale = 'x\n' + BEGIN_MARKER + '\nold\n' + END_MARKER;
  assert.equal(upsert(stale, true).text, 'x\n' + instructionBlock());
});

test('removing the markers opts out for good; a file never given the block gets it', () => {
  const edited = '# Title\nI removed the block.\n';
  assert.deepEqual(upsertInstructionBlock(edited, true), { optedOut: true });
  assert.equal(upsert(edited, false).changed, true);
});

test('mismatched markers are an error naming the line, not a guess', () => {
  const r = upsertInstructionBlock('a\n' + BEGIN_MARKER + '\nb\n');
  assert.ok(!r.optedOut && 'error' in r);
  assert.equal(r.error.line, 2);
  const two = upsertInstructionBlock([BEGIN_MARKER, END_MARKER, BEGIN_MARKER, END_MARKER].join('\n'));
  assert.ok(!two.optedOut && 'error' in two);
  assert.match(two.error.message, /line 3/);
});

test('a marker quoted inside a line is not a marker', () => {
  const text = `Use \`${BEGIN_MARKER}\` to mark things.\n`;
  const r = upsert(text);
  assert.ok(r.text.startsWith(text));
  assert.equal(count(r.text, BEGIN_MARKER), 2);
  assert.equal(upsert(r.text, true).changed, false);
});

function tmpWorkspace(): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ac-instr-')));
}

test('applyInstructions creates AGENTS.md when no instruction file exists, then records it', async () => {
  const root = tmpWorkspace();
  const r = await applyInstructions(root);
  assert.ok(r.ok);
  assert.deepEqual(r.value.map((x) => [x.file, x.action]), [['AGENTS.md', 'created']]);
  assert.equal(fs.readFileSync(path.join(root, 'AGENTS.md'), 'utf8'), instructionBlock() + '\n');
  assert.deepEqual(JSON.parse(fs.readFileSync(path.join(root, INSTRUCTIONS_RECORD), 'utf8')).files, ['AGENTS.md']);
  const again = await applyInstructions(root);
  assert.ok(again.ok);
  assert.deepEqual(again.value.map((x) => x.action), ['unchanged']);
});

test('applyInstructions writes only into the files that exist and respects an opt-out', async () => {
  const root = tmpWorkspace();
  fs.mkdirSync(path.join(root, '.github'));
  fs.writeFileSync(path.join(root, '.github/copilot-instructions.md'), 'Copilot rules\r\n');
  fs.writeFileSync(path.join(root, 'CLAUDE.md'), 'Claude rules');
  const r = await applyInstructions(root);
  assert.ok(r.ok);
  assert.deepEqual(r.value.map((x) => [x.file, x.action]), [['.github/copilot-instructions.md', 'added'], ['CLAUDE.md', 'added']]);
  assert.equal(fs.existsSync(path.join(root, 'AGENTS.md')), false);
  assert.equal(fs.readFileSync(path.join(root, '.github/copilot-instructions.md'), 'utf8'), 'Copilot rules\r\n\r\n' + instructionBlock('\r\n') + '\r\n');

  // The user deletes the block from CLAUDE.md: later runs leave the file alone.
  fs.writeFileSync(path.join(root, 'CLAUDE.md'), 'Claude rules, my way');
  const again = await applyInstructions(root);
  assert.ok(again.ok);
  assert.deepEqual(again.value.map((x) => [x.file, x.action]), [['.github/copilot-instructions.md', 'unchanged'], ['CLAUDE.md', 'optedOut']]);
  assert.equal(fs.readFileSync(path.join(root, 'CLAUDE.md'), 'utf8'), 'Claude rules, my way');
});

test('applyInstructions does not recreate an AGENTS.md the user deleted', async () => {
  const root = tmpWorkspace();
  assert.ok((await applyInstructions(root)).ok);
  fs.rmSync(path.join(root, 'AGENTS.md'));
  const r = await applyInstructions(root);
  assert.ok(r.ok);
  assert.deepEqual(r.value.map((x) => x.action), ['optedOut']);
  assert.equal(fs.existsSync(path.join(root, 'AGENTS.md')), false);
});

test('a CLAUDE.md symlinked to AGENTS.md stays a symlink and gets one block', async () => {
  const root = tmpWorkspace();
  fs.writeFileSync(path.join(root, 'AGENTS.md'), '# Shared\n');
  fs.symlinkSync('AGENTS.md', path.join(root, 'CLAUDE.md'));
  const r = await applyInstructions(root);
  assert.ok(r.ok);
  assert.deepEqual(r.value.map((x) => [x.file, x.action]), [['AGENTS.md', 'added'], ['CLAUDE.md', 'unchanged']]);
  assert.ok(fs.lstatSync(path.join(root, 'CLAUDE.md')).isSymbolicLink());
  assert.equal(count(fs.readFileSync(path.join(root, 'AGENTS.md'), 'utf8'), BEGIN_MARKER), 1);
});

test('an instruction file linking outside the workspace is refused and left alone', async () => {
  const root = tmpWorkspace();
  const outside = path.join(tmpWorkspace(), 'elsewhere.md');
  fs.writeFileSync(outside, 'outside\n');
  fs.symlinkSync(outside, path.join(root, 'AGENTS.md'));
  const r = await applyInstructions(root);
  assert.ok(r.ok);
  assert.equal(r.value[0].action, 'error');
  assert.match(r.value[0].message ?? '', /outside the workspace/);
  assert.equal(fs.readFileSync(outside, 'utf8'), 'outside\n');
});

test('a broken record is reported with its path and nothing is written', async () => {
  const root = tmpWorkspace();
  fs.mkdirSync(path.join(root, '.agent'));
  fs.writeFileSync(path.join(root, INSTRUCTIONS_RECORD), '{ not json');
  const r = await applyInstructions(root);
  assert.ok(!r.ok);
  assert.equal(r.error.file, INSTRUCTIONS_RECORD);
  assert.equal(fs.existsSync(path.join(root, 'AGENTS.md')), false);
});
