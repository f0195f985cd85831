import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { CleanupReport } from '../../../src/core/scratch/scratchCleanup';
import { describeCleanupPreview, PREVIEW_LINES } from '../../../src/core/scratch/cleanupPreview';
import { DEFAULT_RETENTION } from '../../../src/core/scratch/retention';


function report(removed: CleanupReport['removed'], kept: { pinned?: number; protected?: number } = {}): CleanupReport {
  return {
    dryRun: true, removed, removedCount: removed.length, removedBytes: removed.reduce((s, r) => s + r.size, 0),
    keptPinned: kept.pinned ?? 0, keptProtected: kept.protected ?? 0, noTrash: [], failed: [], summary: '',
  };
}

test('the confirmation names each file with the limit it breaks, what is kept, and a "Move N Files to Trash" button', () => {
  const p = describeCleanupPreview([{ report: report([
    { rel: 'old.log', path: '/w/.agent/scratch/old.log', size: 420, reason: 'age' },
    { rel: 'big/dump.txt', path: '/w/.agent/scratch/big/dump.txt', size: 9000, reason: 'size' },
  ], { pinned: 2, protected: 1 }), policy: { maxAgeHours: 48, maxFiles: 0, maxTotalMB: 10 } }]);
  assert.equal(p.count, 2);
  assert.equal(p.message, 'Move 2 scratch files (9.2 KB) to the trash?');
  assert.equal(p.button, 'Move 2 Files to Trash');
  assert.equal(p.detail, [
    'old.log (420 B, older than 2 days)',
    'big/dump.txt (8.8 KB, over 10 MB in all)',
    '',
    'Kept: 2 pinned, 1 protected (plans, evidence, open terminals); the limits remove files older than 2 days, beyond 10 MB (agentContext.scratch.* settings), and every other file is within them.',
  ].join('\n'));
});

test('one file reads in the singular; nothing to remove has no button and says which limits keep the files', () => {
  const one = describeCleanupPreview([{ report: report([{ rel: 'a', path: '/a', size: 1, reason: 'count' }]), policy: DEFAULT_RETENTION }]);
  assert.equal(one.message, 'Move 1 scratch file (1 B) to the trash?');
  assert.equal(one.button, 'Move 1 File to Trash');
  assert.match(one.detail, /^a \(1 B, over 500 files\)/);
  const none = describeCleanupPreview([{ report: report([], { pinned: 1 }), policy: DEFAULT_RETENTION }]);
  assert.equal(none.button, undefined);
  assert.equal(none.message, 'Nothing to clean up in scratch.');
  assert.equal(none.detail, 'Kept: 1 pinned; the limits remove files older than 24 hours, beyond 500 files, beyond 200 MB (agentContext.scratch.* settings), and every other file is within them.');
  const off = describeCleanupPreview([{ report: report([]), policy: { maxAgeHours: 0, maxFiles: 0, maxTotalMB: 0 } }]);
  assert.match(off.detail, /^No limits are set .*, so cleanup removes nothing\.$/);
});

test('a long list is cut with "… and N more files"; folders are named in a multi-root workspace', () => {
  const many = Array.from({ length: PREVIEW_LINES + 5 }, (_, i) => ({ rel: `f${i}`, path: `/a/f${i}`, size: 1, reason: 'age' as const }));
  const p = describeCleanupPreview([{ folder: 'alpha', report: report(many), policy: DEFAULT_RETENTION }, { folder: 'beta', report: report([]), policy: DEFAULT_RETENTION }]);
  const lines = p.detail.split('\n');
  assert.equal(lines[0], 'alpha: f0 (1 B, older than 24 hours)');
  assert.equal(lines[PREVIEW_LINES], '… and 5 more files');
  assert.ok(lines.some((l) => l.startsWith('beta: The limits remove')), p.detail);
});

test('closed terminal captures over agentContext.terminals.maxAgeDays are listed beside scratch files and asked about with one button; alone, they still get one', () => {
  const terminals = {
    dryRun: true, maxAgeDays: 30, keptOpen: 1, noTrash: [], failed: [],
    removed: [{ n: 3, name: 'bash', files: ['/w/.agent/terminals/3.txt', '/w/.agent/terminals/3.index.jsonl'], bytes: 2048, lastWriteMs: 0 }, { n: 7, name: 'Codex CLI · session s-1', agent: 'codex', files: ['/w/.agent/terminals/7.txt'], bytes: 1024, lastWriteMs: 0 }],
  };
  const both = describeCleanupPreview([{ report: report([{ rel: 'old.log', path: '/w/.agent/scratch/old.log', size: 420, reason: 'age' }]), policy: DEFAULT_RETENTION, terminals }]);
  assert.equal(both.count, 3);
  assert.equal(both.message, 'Move 1 scratch file (420 B) and 2 closed terminal captures (3.0 KB) to the trash?');
  assert.equal(both.button, 'Move to Trash');
  assert.deepEqual(both.detail.split('\n').slice(0, 4), [
    'old.log (420 B, older than 24 hours)',
    '',
    'terminals/3.txt, bash (2.0 KB, closed, not written for over 30 days)',
    'terminals/7.txt, Codex CLI · session s-1 (1.0 KB, closed, not written for over 30 days)',
  ]);
  const alone = describeCleanupPreview([{ report: report([]), policy: DEFAULT_RETENTION, terminals }]);
  assert.equal(alone.message, 'Move 2 closed terminal captures (3.0 KB) to the trash?');
  assert.equal(alone.button, 'Move to Trash');
});
