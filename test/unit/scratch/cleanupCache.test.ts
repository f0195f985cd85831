// A new process (each agent session starts an MCP server) answers the briefing's scratch totals and
// cleanup's dry run from the scratch summary and the stored dry run (cleanupCache.ts), without
// loading every file, when nothing changed; after any change, and once time moves an answer, it
// answers as a fresh scan does.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { scanScratch } from '../../../src/core/scratch/index/inventory';
import { planRetention, DEFAULT_RETENTION } from '../../../src/core/scratch/retention';
import { ScratchIndex } from '../../../src/core/scratch/index/scratchIndex';
import { cleanupCachePath } from '../../../src/core/scratch/cleanupCache';
import { RACY_MS } from '../../../src/core/fs/stamps';

// Resolved here, so a renamed module fails at once (a path written as a string kept the old name working in a build folder that still held it).
const MODULES = {
  sharedIndex: require.resolve('../../../src/core/scratch/index/sharedIndex'),
  scratchCleanup: require.resolve('../../../src/core/scratch/scratchCleanup'),
  retention: require.resolve('../../../src/core/scratch/retention'),
};

interface Answer {
  totals: { files: number; bytes: number };
  removedCount: number;
  removedBytes: number;
  removed: string[];
  keptPinned: number;
  summary: string;
  /** Whether the process still held only the newest files of big folders after the calls. */
  partial: boolean;
}

/** Runs the briefing's totals and (unless `dryRun` is false) a dry run in a new node process, at `now` (default: its clock). */
function newProcess(root: string, now?: number, dryRun = true): Answer {
  const script = `
    const { currentScratchIndex } = require(${JSON.stringify(MODULES.sharedIndex)});
    const { cleanupScratch } = require(${JSON.stringify(MODULES.scratchCleanup)});
    const { DEFAULT_RETENTION } = require(${JSON.stringify(MODULES.retention)});
    (async () => {
      const agentDir = ${JSON.stringify(path.join(root, '.agent'))};
      const totals = (await currentScratchIndex(agentDir)).totals();
      if (!${dryRun}) return process.stdout.write(JSON.stringify({ totals }));
      const r = await cleanupScratch({ workspaceRoot: ${JSON.stringify(root)}, policy: DEFAULT_RETENTION, dryRun: true, listLimit: 5${now === undefined ? '' : `, now: ${now}`} });
      if (!r.ok) throw new Error(r.error.message);
      const partial = (await currentScratchIndex(agentDir)).partial;
      const v = r.value;
      process.stdout.write(JSON.stringify({ totals, removedCount: v.removedCount, removedBytes: v.removedBytes, removed: v.removed.map((i) => i.rel + ' ' + i.reason), keptPinned: v.keptPinned, summary: v.summary, partial }));
    })().catch((e) => { console.error(e); process.exit(1); });`;
  const p = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  assert.equal(p.status, 0, p.stderr);
  return JSON.parse(p.stdout) as Answer;
}

/** What a fresh scan decides at `now`, with the listed files' reasons. */
async function fresh(root: string, now: number, pinned: string[] = []): Promise<Omit<Answer, 'summary' | 'partial'>> {
  const inv = await scanScratch(path.join(root, '.agent'));
  const d = planRetention({ files: inv.files, protectedPaths: [], pinned, policy: DEFAULT_RETENTION, now });
  return { totals: { files: inv.files.length, bytes: inv.totalBytes }, removedCount: d.remove.length, removedBytes: d.removeBytes, removed: d.remove.slice(0, 5).map((r) => `${r.entry.rel} ${r.reason}`), keptPinned: d.keptPinned };
}

const strip = (a: Answer): Omit<Answer, 'summary' | 'partial'> => ({ totals: a.totals, removedCount: a.removedCount, removedBytes: a.removedBytes, removed: a.removed, keptPinned: a.keptPinned });

test('a new process answers the scratch totals and an unchanged dry run without loading every file, and as a fresh scan after each change', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-cleanup-cache-'));
  const agentDir = path.join(root, '.agent');
  const big = path.join(agentDir, 'scratch', 'tool_outputs');
  fs.mkdirSync(big, { recursive: true });
  const now = Date.now();
  // 2,400 outputs 30 s apart (the oldest 20 h old): the 1,900 oldest go by count, none by age yet.
  const N = 2400;
  for (let i = 0; i < N; i++) {
    const f = path.join(big, `out-${String(i).padStart(5, '0')}.txt`);
    fs.writeFileSync(f, 'x'.repeat(100 + (i % 7)));
    const t = (now - (N - i) * 30_000) / 1000;
    fs.utimesSync(f, t, t);
  }
  // A folder changed within RACY_MS may change again unseen in the same tick: its stamp is not relied
  // on, and the second answer below would load every file. (Waiting 1.1 s, from before RACY_MS was
  // 2 s, failed 2 of 12 runs at load 6-9; RACY_MS + 100 ms, 0 of 12.)
  await new Promise((r) => setTimeout(r, RACY_MS + 100));
  try {
    // A first process scans for the briefing's totals and writes the snapshot and summary; the
    // next one computes the dry run and stores it.
    assert.equal(newProcess(root, undefined, false).totals.files, N);
    assert.ok(fs.existsSync(path.join(agentDir, '.cache', 'scratch-summary.json')));
    const first = newProcess(root);
    assert.deepEqual(strip(first), await fresh(root, Date.now()));
    assert.equal(first.removedCount, N - 500);
    assert.match(first.removed[0], / count$/);
    assert.ok(fs.existsSync(cleanupCachePath(agentDir)), 'the dry run is stored');
    // The next one: the same answer from the summary and the stored dry run.
    const second = newProcess(root);
    assert.deepEqual(strip(second), strip(first));
    assert.equal(second.partial, true, 'answered without loading every file');

    // Time passes until listed files removed for the count pass the age limit: their reason changes,
    // from the stored answer (the same files go).
    // The oldest passes the age limit 4 h from now; the newest file kept (the 500th newest, 250 min old) in 20 h.
    const later = now + 243 * 60_000;
    const fifth = newProcess(root, later);
    assert.deepEqual(strip(fifth), await fresh(root, later));
    assert.match(fifth.removed[0], / age$/);
    assert.equal(fifth.partial, true, 'told from the stored answer');
    // Until the newest file it keeps passes the age limit too: then more go.
    const muchLater = now + 1240 * 60_000;
    const sixth = newProcess(root, muchLater);
    assert.deepEqual(strip(sixth), await fresh(root, muchLater));
    assert.ok(sixth.removedCount > fifth.removedCount, `${sixth.removedCount} > ${fifth.removedCount}`);

    // Another process adds an output and removes an old one: the totals and the dry run follow.
    fs.writeFileSync(path.join(big, 'out-new.txt'), 'fresh output');
    fs.rmSync(path.join(big, 'out-00000.txt'));
    const third = newProcess(root);
    assert.deepEqual(strip(third), await fresh(root, Date.now()));
    assert.equal(third.totals.files, N);

    // A file pinned since: the stored answer is for other pins.
    const pinned = path.join(big, 'out-00001.txt');
    fs.writeFileSync(path.join(agentDir, 'pins.json'), JSON.stringify({ pinned: [path.relative(agentDir, pinned).split(path.sep).join('/')] }));
    const fourth = newProcess(root);
    assert.equal(fourth.keptPinned, 1);
    assert.deepEqual(strip(fourth), await fresh(root, Date.now(), [pinned]));

  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('a stored dry run for another state of the index is not used', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-cleanup-digest-'));
  const agentDir = path.join(root, '.agent');
  const dir = path.join(agentDir, 'scratch');
  fs.mkdirSync(dir, { recursive: true });
  for (let i = 0; i < 20; i++) fs.writeFileSync(path.join(dir, `f${i}.txt`), 'abc');
  try {
    const a = (await ScratchIndex.build(agentDir, { snapshot: false })).stateDigest();
    assert.equal((await ScratchIndex.build(agentDir, { snapshot: false })).stateDigest(), a, 'the same files give the same digest');
    // Rewritten in place with the same size: only the date differs.
    fs.writeFileSync(path.join(dir, 'f3.txt'), 'xyz');
    const t = Date.now() / 1000 + 5;
    fs.utimesSync(path.join(dir, 'f3.txt'), t, t);
    assert.notEqual((await ScratchIndex.build(agentDir, { snapshot: false })).stateDigest(), a);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
