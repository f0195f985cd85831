import { test, mock } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import fsModule = require('node:fs');
import * as os from 'node:os';
import * as path from 'node:path';
import { scanScratch } from '../../../src/core/scratch/index/inventory';
import type { ScratchEntry } from '../../../src/core/scratch/scratchEntry';
import { planRetention, DEFAULT_RETENTION } from '../../../src/core/scratch/retention';
import { loadPins, setPinned } from '../../../src/core/scratch/pins';
import { cleanupScratch, summarizeCleanup } from '../../../src/core/scratch/scratchCleanup';

const HOUR = 3_600_000;
const NOW = Date.UTC(2026, 0, 10, 12, 0, 0);

function tmp(prefix: string): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

/** Writes a file under root with a given size and age (hours before NOW). */
function put(root: string, rel: string, size: number, ageHours: number): string {
  const f = path.join(root, rel);
  fs.mkdirSync(path.dirname(f), { recursive: true });
  fs.writeFileSync(f, 'x'.repeat(size));
  const t = new Date(NOW - ageHours * HOUR);
  fs.utimesSync(f, t, t);
  return f;
}

function entry(rel: string, size: number, ageHours: number): ScratchEntry {
  return { path: `/ws/.agent/scratch/${rel}`, rel, size, mtimeMs: NOW - ageHours * HOUR, symlink: false };
}

test('scanScratch lists files newest first with folders, sizes and totals; symlinks listed, not followed', async () => {
  const ws = tmp('ac-scan-');
  const outside = tmp('ac-outside-');
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'do not touch');
  const scratch = path.join(ws, '.agent/scratch');
  put(scratch, 'old.txt', 10, 5);
  put(scratch, 'tool_outputs/new.log', 20, 1);
  put(scratch, 'a/b/deep.md', 30, 3);
  fs.mkdirSync(path.join(scratch, 'empty'));
  fs.symlinkSync(outside, path.join(scratch, 'link-out'));
  const inv = await scanScratch(path.join(ws, '.agent'));
  const names = inv.files.filter((f) => !f.symlink).map((f) => f.rel);
  assert.deepEqual(names, ['tool_outputs/new.log', 'a/b/deep.md', 'old.txt']);
  const link = inv.files.find((f) => f.rel === 'link-out');
  assert.ok(link?.symlink, 'the symlink is listed as a symlink');
  assert.ok(!inv.files.some((f) => f.rel.includes('secret')), 'the symlinked folder is not entered');
  assert.deepEqual(inv.dirs, ['a', 'a/b', 'empty', 'tool_outputs']);
  assert.equal(inv.totalBytes, 60 + link.size);
  assert.deepEqual((await scanScratch(path.join(ws, 'nothing'))).files, []);
});

test('scanScratch skips files deleted while it runs', async () => {
  const ws = tmp('ac-race-');
  const scratch = path.join(ws, '.agent/scratch');
  for (let i = 0; i < 50; i++) put(scratch, `f${i}.txt`, 1, 1);
  const realLstat = fs.lstatSync;
  // Delete every other file between listing and lstat, as an agent cleaning up would (on the
  // module object itself: the index reads fs.lstatSync from it at each call).
  const m = mock.method(fsModule, 'lstatSync', (p: fs.PathLike, o?: fs.StatSyncOptions) => {
    const s = String(p);
    if (/f\d*[02468]\.txt$/.test(s)) fs.rmSync(s, { force: true });
    return realLstat(p, o);
  });
  try {
    const inv = await scanScratch(path.join(ws, '.agent'));
    assert.equal(inv.files.length, 25);
    assert.ok(inv.files.every((f) => /[13579]\.txt$/.test(f.rel)));
    assert.deepEqual(inv.errors, []);
  } finally {
    m.mock.restore();
  }
});

test('planRetention removes files older than maxAgeHours, oldest first', () => {
  const files = [entry('new', 1, 1), entry('old', 1, 30), entry('older', 1, 50)];
  const d = planRetention({ files, pinned: [], protectedPaths: [], policy: DEFAULT_RETENTION, now: NOW });
  assert.deepEqual(d.remove.map((r) => [r.entry.rel, r.reason]), [['older', 'age'], ['old', 'age']]);
  assert.deepEqual(d.keep.map((f) => f.rel), ['new']);
});

test('planRetention enforces maxFiles and maxTotalMB, oldest first, never pinned or protected', () => {
  const files = [entry('a', 1, 1), entry('b', 1, 2), entry('c', 1, 3), entry('d', 1, 4), entry('evidence/e', 1, 5)];
  const d = planRetention({
    files,
    pinned: ['/ws/.agent/scratch/d'],
    protectedPaths: ['/ws/.agent/scratch/evidence'],
    policy: { maxAgeHours: 0, maxFiles: 3, maxTotalMB: 0 },
    now: NOW,
  });
  // Five files, limit three (pinned and protected count): d is pinned, e protected, so c and b go (oldest removable first); a stays.
  assert.deepEqual(d.remove.map((r) => [r.entry.rel, r.reason]), [['c', 'count'], ['b', 'count']]);
  assert.equal(d.keptPinned, 1);
  assert.equal(d.keptProtected, 1);
  const mb = 1024 * 1024;
  const big = [entry('x', 3 * mb, 1), entry('y', 3 * mb, 2), entry('z', 3 * mb, 3)];
  const s = planRetention({ files: big, pinned: [], protectedPaths: [], policy: { maxAgeHours: 24, maxFiles: 500, maxTotalMB: 5 }, now: NOW });
  assert.deepEqual(s.remove.map((r) => [r.entry.rel, r.reason]), [['z', 'size'], ['y', 'size']]);
  assert.equal(s.removeBytes, 6 * mb);
  const none = planRetention({ files: big, pinned: big.map((f) => f.path), protectedPaths: [], policy: { maxAgeHours: 1, maxFiles: 1, maxTotalMB: 1 }, now: NOW });
  assert.deepEqual([none.remove.length, none.keptPinned], [0, 3]);
});

test('pins persist in .agent/pins.json; a broken pins file is an error', async () => {
  const ws = tmp('ac-pins-');
  const agent = path.join(ws, '.agent');
  const f = put(agent, 'scratch/keep.md', 1, 1);
  assert.ok((await setPinned(agent, f, true)).ok);
  assert.deepEqual(JSON.parse(fs.readFileSync(path.join(agent, 'pins.json'), 'utf8')), { pinned: ['scratch/keep.md'] });
  const loaded = await loadPins(agent);
  assert.ok(loaded.ok && loaded.value.has(f));
  assert.ok((await setPinned(agent, f, false)).ok);
  const after = await loadPins(agent);
  assert.ok(after.ok && after.value.size === 0);
  assert.ok(!(await setPinned(agent, path.join(ws, 'outside.txt'), true)).ok);
  fs.writeFileSync(path.join(agent, 'pins.json'), '{"pinned": [');
  const broken = await loadPins(agent);
  assert.ok(!broken.ok);
  assert.match(broken.error.message, /invalid JSON/);
});

test('cleanupScratch trashes by policy and keeps pinned files, plan files, evidence and symlink targets', async () => {
  const ws = tmp('ac-clean-');
  const data = tmp('ac-xdg-');
  const outside = tmp('ac-outside-');
  fs.writeFileSync(path.join(outside, 'target.txt'), 'keep me');
  const agent = path.join(ws, '.agent');
  const scratch = path.join(agent, 'scratch');
  put(agent, 'plan.yaml', 0, 0);
  fs.writeFileSync(path.join(agent, 'plan.yaml'), 'objective: x\nsteps:\n  - id: 1\n    description: d\n    status: completed\n    evidence: [.agent/scratch/proof.txt]\n');
  put(scratch, 'proof.txt', 100, 100);
  put(scratch, 'current_plan.yaml', 0, 100);
  fs.writeFileSync(path.join(scratch, 'current_plan.yaml'), 'objective: y\n');
  fs.utimesSync(path.join(scratch, 'current_plan.yaml'), new Date(NOW - 100 * HOUR), new Date(NOW - 100 * HOUR));
  const pinnedFile = put(scratch, 'pinned.md', 100, 100);
  put(scratch, 'old one.txt', 1000, 48);
  put(scratch, 'sub/old2.txt', 2000, 30);
  put(scratch, 'fresh.txt', 10, 1);
  fs.symlinkSync(path.join(outside, 'target.txt'), path.join(scratch, 'link.txt'));
  const t = new Date(NOW - 200 * HOUR);
  fs.lutimesSync(path.join(scratch, 'link.txt'), t, t);
  assert.ok((await setPinned(agent, pinnedFile, true)).ok);

  const dry = await cleanupScratch({ workspaceRoot: ws, policy: DEFAULT_RETENTION, now: NOW, dryRun: true, trash: { xdgDataHome: data } });
  assert.ok(dry.ok, dry.ok ? '' : dry.error.message);
  assert.deepEqual(dry.value.removed.map((r) => r.rel), ['link.txt', 'old one.txt', 'sub/old2.txt']);
  assert.ok(fs.existsSync(path.join(scratch, 'old one.txt')), 'a dry run removes nothing');
  assert.match(dry.value.summary, /^Would remove 3 files \(3\.0 KB\)/);

  const r = await cleanupScratch({ workspaceRoot: ws, policy: DEFAULT_RETENTION, now: NOW, trash: { xdgDataHome: data } });
  assert.ok(r.ok, r.ok ? '' : r.error.message);
  assert.equal(r.value.summary, 'Moved 3 files (3.0 KB) to the trash, kept 1 pinned and 2 protected (plans, evidence)');
  assert.deepEqual(fs.readdirSync(scratch).sort(), ['current_plan.yaml', 'fresh.txt', 'pinned.md', 'proof.txt', 'sub']);
  assert.equal(fs.readFileSync(path.join(outside, 'target.txt'), 'utf8'), 'keep me');
  const trashed = fs.readdirSync(path.join(data, 'Trash/files')).sort();
  assert.deepEqual(trashed, ['link.txt', 'old one.txt', 'old2.txt']);
  assert.ok(fs.lstatSync(path.join(data, 'Trash/files/link.txt')).isSymbolicLink(), 'the link itself was moved, not its target');
  const info = fs.readFileSync(path.join(data, 'Trash/info/old one.txt.trashinfo'), 'utf8');
  assert.match(info, new RegExp(`^\\[Trash Info\\]\\nPath=${path.join(scratch, 'old%20one.txt').replace(/[.]/g, '\\.')}\\nDeletionDate=\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\n$`));
});

test('cleanupScratch refuses when a plan cannot be read, naming file and line', async () => {
  const ws = tmp('ac-badplan-');
  const agent = path.join(ws, '.agent');
  put(agent, 'scratch/old.txt', 1, 100);
  fs.writeFileSync(path.join(agent, 'plan.yaml'), 'objective: x\nsteps:\n  - id: 1\n  - id: 1\n');
  const r = await cleanupScratch({ workspaceRoot: ws, policy: DEFAULT_RETENTION, now: NOW, trash: { xdgDataHome: tmp('ac-xdg-') } });
  assert.ok(!r.ok);
  assert.equal(r.error.line, 4);
  assert.match(r.error.message, /cleanup skipped/);
  assert.ok(fs.existsSync(path.join(agent, 'scratch/old.txt')));
});

test('cleanupScratch with no usable trash removes nothing and says so, for the caller to ask', async () => {
  const ws = tmp('ac-notrash-');
  const old = put(path.join(ws, '.agent/scratch'), 'old.txt', 5, 100);
  const r = await cleanupScratch({ workspaceRoot: ws, policy: DEFAULT_RETENTION, now: NOW, trash: { platform: 'win32' } });
  assert.ok(r.ok);
  assert.deepEqual(r.value.removed, []);
  assert.deepEqual(r.value.noTrash.map((f) => f.rel), ['old.txt']);
  assert.equal(r.value.summary, 'Removed nothing, kept 0 pinned; 1 not removed because no trash is available');
  assert.ok(fs.existsSync(old));
  // The user agreed to delete it permanently (the command's modal): the summary says it is gone for good.
  const agreed = { ...r.value, removed: [...r.value.noTrash], noTrash: [], deletedPermanently: 1 };
  assert.equal(summarizeCleanup(agreed).summary, 'Deleted 1 file (5 B) permanently, kept 0 pinned');
});

test('the dry run follows changes: a new file, a grown file, a removed folder, time passing the age limit', async () => {
  const ws = tmp('ac-scratch-inc-');
  const scratch = path.join(ws, '.agent', 'scratch');
  for (let i = 0; i < 30; i++) put(ws, `.agent/scratch/tool_outputs/out-${i}.txt`, 10, 30 - i * 0.5); // 30 h … 15.5 h old
  put(ws, '.agent/scratch/sub/a.txt', 5, 2);
  // Folders just written are listed again on the next look anyway: age them so the index's stamps are trusted.
  const old = new Date(Date.now() - 10_000);
  for (const d of ['', 'tool_outputs', 'sub']) fs.utimesSync(path.join(scratch, d), old, old);
  const dry = async (now: number, policy = { maxAgeHours: 24, maxFiles: 0, maxTotalMB: 0 }) => {
    const r = await cleanupScratch({ workspaceRoot: ws, policy, now, dryRun: true });
    assert.ok(r.ok);
    return r.value;
  };
  assert.equal((await dry(NOW)).removedCount, 12); // older than 24 h: 30, 29.5, … 24.5 (24.0 is not older)
  assert.equal((await dry(NOW)).removed.length, 12);
  // An hour later two more files are past the limit: the cached answer is not reused.
  assert.equal((await dry(NOW + HOUR)).removedCount, 14);
  const count = { maxAgeHours: 0, maxFiles: 20, maxTotalMB: 0 };
  assert.deepEqual((await dry(NOW, count)).removed.map((x) => x.rel), Array.from({ length: 11 }, (_, i) => `tool_outputs/out-${i}.txt`));
  // Another writer adds a file and appends to a recent one (mtime = now: stat'ed again on each look).
  fs.writeFileSync(path.join(scratch, 'tool_outputs', 'new.txt'), 'new');
  fs.appendFileSync(path.join(scratch, 'sub', 'a.txt'), 'more');
  const grown = await dry(NOW, count);
  assert.equal(grown.removedCount, 12, 'one more file: one more over the count limit');
  const sizeOnly = await dry(NOW, { maxAgeHours: 0, maxFiles: 0, maxTotalMB: (30 * 10 + 9 + 3 - 1) / (1024 * 1024) });
  assert.deepEqual(sizeOnly.removed.map((x) => x.rel), ['tool_outputs/out-0.txt'], 'the grown file counts with its new size: one byte over, the oldest goes');
  const inv = await scanScratch(path.join(ws, '.agent'));
  assert.equal(inv.files.length, 32);
  assert.equal(inv.files.find((f) => f.rel === 'sub/a.txt')!.size, 9);
  assert.equal(inv.totalBytes, 30 * 10 + 9 + 3);
  // A whole folder removed.
  fs.rmSync(path.join(scratch, 'sub'), { recursive: true });
  assert.equal((await dry(NOW, count)).removedCount, 11);
  const gone = await scanScratch(path.join(ws, '.agent'));
  assert.equal(gone.files.length, 31);
  assert.deepEqual(gone.dirs, ['tool_outputs']);
  fs.rmSync(ws, { recursive: true });
});

test('the dry run over the shared index decides as a fresh scan does, with pinned and protected files, and lists only what it is asked to', async () => {
  const ws = tmp('ac-scratch-eq-');
  const agentDir = path.join(ws, '.agent');
  let seed = 7;
  const r = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const files: string[] = [];
  for (let i = 0; i < 400; i++) files.push(put(ws, `.agent/scratch/${['', 'tool_outputs/', 'a/b/'][i % 3]}f${i}.txt`, 1 + Math.floor(r() * 5000), r() * 72));
  for (const f of files.filter((_, i) => i % 37 === 0)) assert.ok((await setPinned(agentDir, f, true)).ok);
  const evidence = path.join(agentDir, 'scratch', 'a'); // a protected folder
  const policy = { maxAgeHours: 48, maxFiles: 150, maxTotalMB: 0.3 };
  let added = 0;
  for (const [step, now] of [NOW, NOW, NOW + 5 * HOUR, NOW + 5 * HOUR, NOW + 30 * HOUR, NOW + 31 * HOUR].entries()) {
    // Between dry runs: new files (each the newest: the next dry run continues the previous one),
    // then once an old file removed (it starts over), then time passing alone.
    if (step === 1 || step === 2) for (let k = 0; k < 30; k++) fs.writeFileSync(path.join(ws, `.agent/scratch/${k % 2 ? 'tool_outputs/' : ''}new-${added++}.txt`), 'n'.repeat(100 * k));
    if (step === 3) fs.rmSync(files[1]);
    const dry = await cleanupScratch({ workspaceRoot: ws, policy, now, dryRun: true, extraProtected: [evidence] });
    assert.ok(dry.ok);
    const scan = await scanScratch(agentDir);
    const pins = await loadPins(agentDir);
    assert.ok(pins.ok);
    const want = planRetention({ files: scan.files, pinned: pins.value, protectedPaths: [evidence], policy, now });
    assert.ok(want.remove.length > 0 && want.keptPinned > 0 && want.keptProtected > 0, 'the case exercises every rule');
    assert.deepEqual(dry.value.removed.map((x) => [x.rel, x.reason]), want.remove.map((x) => [x.entry.rel, x.reason]));
    assert.equal(dry.value.removedBytes, want.removeBytes);
    assert.deepEqual([dry.value.keptPinned, dry.value.keptProtected], [want.keptPinned, want.keptProtected]);
    const cut = await cleanupScratch({ workspaceRoot: ws, policy, now, dryRun: true, extraProtected: [evidence], listLimit: 5 });
    assert.ok(cut.ok);
    assert.deepEqual(cut.value.removed, dry.value.removed.slice(0, 5));
    assert.equal(cut.value.removedCount, want.remove.length);
    assert.match(cut.value.summary, new RegExp(`^Would remove ${want.remove.length} files`));
  }
  fs.rmSync(ws, { recursive: true });
});

test('a dry run with nothing to remove says which limits keep the files, sizes under 1 KB in bytes', async () => {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-clean-none-'));
  const scratch = path.join(ws, '.agent', 'scratch');
  put(scratch, 'a.txt', 300, 2);
  put(scratch, 'b.txt', 120, 1);
  const pinned = put(scratch, 'old-pinned.txt', 0, 100);
  assert.ok((await setPinned(path.join(ws, '.agent'), pinned, true)).ok);
  const dry = await cleanupScratch({ workspaceRoot: ws, policy: DEFAULT_RETENTION, now: NOW, dryRun: true });
  assert.ok(dry.ok, dry.ok ? '' : dry.error.message);
  // Not "Would remove 0 files (0.0 MB)": the old file is pinned, the oldest other one is 2 h old.
  assert.equal(dry.value.summary, 'Would remove nothing; every limit is met: the oldest unpinned file changed 2 h ago (limit 24 h), 3 files (limit 500), 420 B (limit 200 MB); keep 1 pinned');
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-clean-empty-'));
  fs.mkdirSync(path.join(empty, '.agent', 'scratch'), { recursive: true });
  const e = await cleanupScratch({ workspaceRoot: empty, policy: DEFAULT_RETENTION, now: NOW, dryRun: true });
  assert.ok(e.ok);
  assert.equal(e.value.summary, 'Would remove nothing: .agent/scratch/ is empty; keep 0 pinned');
});

test('cleanupScratch with `only` (a confirmed preview) moves just those files, even if the policy now selects more', async () => {
  const ws = tmp('ac-only-');
  const data = tmp('ac-only-xdg-');
  const scratch = path.join(ws, '.agent/scratch');
  const listed = put(scratch, 'listed.txt', 10, 48);
  put(scratch, 'aged-since.txt', 10, 30);
  const r = await cleanupScratch({ workspaceRoot: ws, policy: DEFAULT_RETENTION, now: NOW, only: new Set([listed]), trash: { xdgDataHome: data } });
  assert.ok(r.ok, r.ok ? '' : r.error.message);
  assert.deepEqual(r.value.removed.map((x) => x.rel), ['listed.txt']);
  assert.deepEqual(fs.readdirSync(scratch), ['aged-since.txt']);
});
