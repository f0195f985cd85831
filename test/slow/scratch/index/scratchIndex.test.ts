// The scratch index (issue 15, split in issue 23) against an independent walker written here: a
// deliberately simple lstat walk, so a bug in the index's own walk cannot pass on both sides.
import { mock, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import fsModule = require('node:fs');
import * as os from 'node:os';
import * as path from 'node:path';
import { plainScan } from './plainScan';
import { RACY_MS } from '../../../../src/core/fs/stamps';

function tmpAgent(): string {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-scale-'));
  fs.mkdirSync(path.join(ws, '.agent'));
  return path.join(ws, '.agent');
}

/** `n` files of a day ago in scratch/tool_outputs (one second apart, varied names and sizes), the folder dated with them. */
function bigToolOutputs(a: string, n: number): { big: string; old: number } {
  const big = path.join(a, 'scratch', 'tool_outputs');
  fs.mkdirSync(big, { recursive: true });
  const old = Date.now() / 1000 - 86_400;
  for (let i = 0; i < n; i++) {
    const f = path.join(big, `o${i}-${'q'.repeat(i % 80)}.txt`);
    fs.writeFileSync(f, 'z'.repeat(i % 30));
    fs.utimesSync(f, old + i, old + i);
  }
  fs.utimesSync(big, old, old);
  return { big, old };
}

/** An .agent/ folder with scratch/small/sub and scratch/tool_outputs, and a writer that back-dates files (a day old by default). */
function scratchFixture(): { a: string; s: string; big: string; old: number; write: (f: string, text: string, mtime?: number) => void } {
  const a = tmpAgent();
  const s = path.join(a, 'scratch');
  const big = path.join(s, 'tool_outputs');
  fs.mkdirSync(path.join(s, 'small', 'sub'), { recursive: true });
  fs.mkdirSync(big, { recursive: true });
  const old = Date.now() / 1000 - 86_400;
  const write = (f: string, text: string, mtime = old): void => {
    fs.writeFileSync(f, text);
    fs.utimesSync(f, mtime, mtime);
  };
  return { a, s, big, old, write };
}

test('the scratch index revalidates to what a fresh scan finds after adds, deletions, renames and rewrites', async () => {
  const { ScratchIndex } = await import('../../../../src/core/scratch/index/scratchIndex.js');
  const { a, s, big, old, write } = scratchFixture();
  for (let i = 0; i < 600; i++) write(path.join(big, `out-${String(i).padStart(3, '0')}.txt`), 'x'.repeat(i), old + i);
  for (let i = 0; i < 20; i++) write(path.join(s, 'small', `n${i}.md`), 'y'.repeat(i), old + i);
  write(path.join(s, 'small', 'sub', 'deep.txt'), 'deep');
  // Folders listed more than a second after their last change count as unchanged until they change.
  for (const d of [s, big, path.join(s, 'small'), path.join(s, 'small', 'sub')]) fs.utimesSync(d, old, old);
  await new Promise((r) => setTimeout(r, RACY_MS + 100)); // the folders' ctime (the utimes) settled: their listings can be trusted
  const ix = await ScratchIndex.build(a);
  const order = (x: { newestFirst(): readonly (readonly [string, { size: number; mtimeMs: number; symlink: boolean }])[] }) => x.newestFirst().map(([rel, f]) => [rel, f.size, f.mtimeMs, f.symlink]);
  order(ix); // from now on kept in order change by change, not sorted again
  const same = async (what: string): Promise<void> => {
    await ix.revalidate();
    const fresh = plainScan(a);
    assert.deepEqual(ix.totals(), fresh.totals(), what);
    assert.deepEqual(order(ix), order(fresh), `${what}: every file, newest first`);
    for (const rel of ['', 'tool_outputs', 'small', 'small/sub', 'small/new', 'gone']) {
      assert.deepEqual(ix.folder(rel), fresh.folder(rel), `${what}: folder ${rel}`);
      for (const off of [0, 200, 400]) assert.deepEqual(ix.filesPage(rel, off, 200), fresh.filesPage(rel, off, 200), `${what}: ${rel} page ${off}`);
    }
  };
  await same('nothing changed');
  // Another process: a new output, one removed, a small file truncated in place (no folder mtime change).
  write(path.join(big, 'out-new.txt'), 'newest', Date.now() / 1000);
  fs.rmSync(path.join(big, 'out-005.txt'));
  fs.truncateSync(path.join(s, 'small', 'n7.md'), 0);
  await same('add, remove, truncate');
  // A folder replaced by a file of the same name, a new folder with files, a file renamed.
  fs.rmSync(path.join(s, 'small', 'sub'), { recursive: true });
  write(path.join(s, 'small', 'sub'), 'now a file');
  fs.mkdirSync(path.join(s, 'small', 'new'));
  write(path.join(s, 'small', 'new', 'a.txt'), 'aa');
  fs.renameSync(path.join(big, 'out-010.txt'), path.join(big, 'renamed.txt'));
  await same('folder to file, new folder, rename');
  // A recently written file in the big folder grows in place (a writer still appending).
  fs.appendFileSync(path.join(big, 'out-new.txt'), ' and more');
  await same('append to a recent file');
  // The scratch folder removed and created again.
  fs.rmSync(s, { recursive: true });
  await same('scratch gone');
  fs.mkdirSync(path.join(s, 'gone'), { recursive: true });
  write(path.join(s, 'gone', 'back.txt'), 'back');
  await same('scratch back');
});

test('an index fed by file events (or told of its own process\'s new files) does not list a folder they account for, and lists it when a change had no event', async () => {
  const { ScratchIndex } = await import('../../../../src/core/scratch/index/scratchIndex.js');
  const { a, big, old, write } = scratchFixture();
  for (let i = 0; i < 600; i++) write(path.join(big, `out-${String(i).padStart(3, '0')}.txt`), 'x'.repeat(i), old + i);
  fs.utimesSync(big, old, old);
  const ix = await ScratchIndex.build(a, { snapshot: false });
  ix.followsEvents = true;
  let listings = 0;
  const realOpendir = fsModule.opendirSync;
  const m = mock.method(fsModule, 'opendirSync', (p: fs.PathLike, o?: fs.OpenDirOptions) => {
    if (String(p) === big) listings++;
    return realOpendir(p, o);
  });
  try {
    // An offload and its event: the folder's new mtime is accounted for, nothing is listed.
    const added = path.join(big, 'out-new.txt');
    write(added, 'newest', Date.now() / 1000);
    await ix.update([added]);
    await ix.revalidate();
    assert.equal(listings, 0, 'the event told what changed');
    assert.equal(ix.folder('tool_outputs')!.count, 601);
    // A file removed by another process whose event has not arrived yet: the folder is listed.
    fs.rmSync(path.join(big, 'out-007.txt'));
    await ix.revalidate();
    assert.equal(listings, 1, 'a change no event accounts for');
    const fresh = plainScan(a);
    assert.deepEqual(ix.totals(), fresh.totals());
    // The same in an index that is not fed events (the MCP server): every change is listed.
    const plain = await ScratchIndex.build(a, { snapshot: false });
    const before = listings;
    const again = path.join(big, 'out-newer.txt');
    write(again, 'newer', Date.now() / 1000);
    await plain.update([again]);
    await plain.revalidate();
    assert.equal(listings, before + 1);
    // Its own creation, with the folder's stamps from right before and after: nothing to list
    // (once the folder's listing is trusted: listed once its stamp is settled, fs/stamps.ts).
    const { folderStamp } = await import('../../../../src/core/scratch/index/sharedIndex.js');
    fs.utimesSync(big, old, old);
    await new Promise((r) => setTimeout(r, RACY_MS + 100));
    await plain.revalidate();
    assert.equal(listings, before + 2);
    const own = path.join(big, 'own.txt');
    const pre = folderStamp(big);
    fs.writeFileSync(own, 'mine');
    plain.newestFirst(); // keep the order from now on
    const epoch = plain.orderEpoch;
    await plain.noteCreated(own, pre, folderStamp(big));
    await plain.update([own]); // its event, later
    assert.equal(plain.orderEpoch, epoch, 'a new newest file, then its event: the order only grew at the front');
    await plain.revalidate();
    assert.equal(listings, before + 2, 'its own file: the folder is not listed again');
    assert.equal(plain.folder('tool_outputs')!.count, 602);
    // A file someone else removed before our creation: the stamp before ours is unknown, so the folder is listed.
    fs.rmSync(path.join(big, 'out-008.txt'));
    const pre2 = folderStamp(big);
    const own2 = path.join(big, 'own2.txt');
    fs.writeFileSync(own2, 'mine too');
    await plain.noteCreated(own2, pre2, folderStamp(big));
    await plain.revalidate();
    assert.equal(listings, before + 3, 'an unknown change before ours');
    assert.deepEqual(plain.totals(), plainScan(a).totals());
  } finally {
    m.mock.restore();
  }
});

test('events dropped after earlier ones were applied: a revalidation that does not trust events finds every file', async () => {
  const { ScratchIndex } = await import('../../../../src/core/scratch/index/scratchIndex.js');
  const { a, s } = scratchFixture();
  const bulk = path.join(s, 'bulk');
  fs.mkdirSync(bulk);
  const ix = await ScratchIndex.build(a, { snapshot: false });
  ix.followsEvents = true;
  // 1,000 files written in one go; the watcher's first batch names 300 of them and is applied after
  // all were written, so the folder's stamp recorded then already counts the other 700, whose events
  // came in a batch too big to apply path by path (the feed passes no paths then).
  const files = Array.from({ length: 1000 }, (_, i) => path.join(bulk, `f${i}.txt`));
  for (const f of files) fs.writeFileSync(f, 'data');
  await ix.update(files.slice(0, 300));
  const fresh = plainScan(a).totals();
  await ix.revalidate();
  const trusted = ix.totals();
  await ix.revalidate({ trustEvents: false });
  assert.deepEqual(ix.totals(), fresh);
  // Trusting the recorded stamp would have kept the 700 out (why the feed's unknown batches do not trust).
  assert.equal(trusted.files, 300);
});

/**
 * The summary-mode scenario below, with changed folders listed on this thread ('here'), on the check
 * worker ('worker': every folder, however small; a marker file proves the worker listed), or with a
 * check worker that fails ('failing': listed here after all). The answers must be the same.
 */
async function summaryScenario(where: 'here' | 'worker' | 'failing'): Promise<void> {
  const { tune } = await import('../../../../src/core/processState.js');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-listing-worker-'));
  const marker = path.join(dir, 'listed');
  const entry = path.join(__dirname, '..', '..', '..', '..', 'src', 'core', 'fs', 'digestCheckEntry.js');
  const script = path.join(dir, 'check.js');
  fs.writeFileSync(script, where === 'failing'
    ? "throw new Error('no check worker');"
    : `const d = require('node:worker_threads').workerData; if (d && d.agentContextScratchListing) require('node:fs').appendFileSync(${JSON.stringify(marker)}, d.agentContextScratchListing + '\\n');\nrequire(${JSON.stringify(entry)});`);
  const restore = tune({ listingOffThreadMinNames: where === 'here' ? Number.POSITIVE_INFINITY : 0, digestCheckScript: script });
  try {
    await summaryScenarioBody();
  } finally {
    restore();
  }
  if (where === 'worker') assert.ok(fs.existsSync(marker) && fs.readFileSync(marker, 'utf8').includes('tool_outputs'), 'the changed folders were listed on the check worker');
  else assert.equal(fs.existsSync(marker), false);
}

for (const where of ['here', 'worker', 'failing'] as const) {
  test(`an index started from the summary shows the newest files and totals of a fresh scan, takes new files in, and loads the rest when something needs it (changed folders listed ${where === 'here' ? 'on this thread' : where === 'worker' ? 'on the check worker' : 'here when the check worker fails'})`, () => summaryScenario(where));
}

async function summaryScenarioBody(): Promise<void> {
  const { ScratchIndex } = await import('../../../../src/core/scratch/index/scratchIndex.js');
  const { scratchSummaryPath } = await import('../../../../src/core/scratch/index/scratchSummary.js');
  const { a, s, big, old, write } = scratchFixture();
  for (let i = 0; i < 1500; i++) write(path.join(big, `out-${String(i).padStart(4, '0')}.txt`), 'x'.repeat(i % 70), old + i);
  for (let i = 0; i < 30; i++) write(path.join(s, 'small', `n${i}.md`), 'y'.repeat(i), old + i);
  write(path.join(s, 'small', 'sub', 'deep.txt'), 'deep');
  for (const d of [s, big, path.join(s, 'small'), path.join(s, 'small', 'sub')]) fs.utimesSync(d, old, old);
  await new Promise((r) => setTimeout(r, RACY_MS + 100)); // the folders' ctime (the utimes) settled: their listings can be trusted
  const first = await ScratchIndex.build(a, { snapshot: false });
  assert.equal(await first.saveSnapshot(), true);
  assert.ok(fs.existsSync(scratchSummaryPath(a)), 'the summary is written with the snapshot');
  assert.ok(fs.statSync(scratchSummaryPath(a)).size < 40 * 1024, 'the summary holds the newest files of the big folder, not all 1,500');
  const same = async (ix: Awaited<ReturnType<typeof ScratchIndex.build>>, what: string, pages = [0]): Promise<void> => {
    const fresh = plainScan(a);
    assert.deepEqual(ix.totals(), fresh.totals(), what);
    for (const rel of ['', 'tool_outputs', 'small', 'small/sub']) {
      assert.deepEqual(ix.folder(rel), fresh.folder(rel), `${what}: folder ${rel}`);
      for (const off of pages) {
        await ix.ensureFiles(rel, off + 200);
        assert.deepEqual(ix.filesPage(rel, off, 200), fresh.filesPage(rel, off, 200), `${what}: ${rel} page ${off}`);
      }
    }
  };
  const ix = await ScratchIndex.build(a, { summary: true });
  ix.followsEvents = true;
  assert.equal(ix.partial, true, 'started from the summary');
  await same(ix, 'from the summary');
  // An offload and its event: taken in without loading the rest; the next check lists nothing.
  const added = path.join(big, 'out-new.txt');
  write(added, 'newest', Date.now() / 1000);
  await ix.update([added]);
  await ix.revalidate();
  assert.equal(ix.partial, true, 'a new newest file keeps the summary mode');
  await same(ix, 'a new file');
  // A small folder's file rewritten in place (no folder change): seen by the check, still partial.
  write(path.join(s, 'small', 'n3.md'), 'rewritten', old + 3);
  await ix.revalidate();
  assert.equal(ix.partial, true);
  await same(ix, 'a small file rewritten');
  // An old output removed (not among the loaded newest): everything is loaded, and equals a fresh scan.
  fs.rmSync(path.join(big, 'out-0005.txt'));
  await ix.update([path.join(big, 'out-0005.txt')]);
  assert.equal(ix.partial, false, 'a file the summary did not load: everything loaded');
  await same(ix, 'an old file removed', [0, 200, 1400]);
  // A page past the newest loads everything too.
  const ix2 = await ScratchIndex.build(a, { summary: true });
  if (ix2.partial) {
    await ix2.ensureFiles('tool_outputs', 600);
    assert.equal(ix2.partial, false);
  }
  await same(ix2, 'a later page', [0, 400, 1400]);
  // Changed with no event since the summary (files added while no editor ran, the last session's
  // offloads): the folder is listed and the new files taken in, still from the summary.
  fs.utimesSync(big, old, old);
  const again = await ScratchIndex.build(a, { snapshot: false });
  assert.equal(await again.saveSnapshot(), true);
  write(path.join(big, 'out-later.txt'), 'later', Date.now() / 1000);
  write(path.join(big, 'out-later-b.txt'), 'later too', Date.now() / 1000);
  await new Promise((r) => setTimeout(r, RACY_MS + 100)); // a folder whose stamp is not settled (fs/stamps.ts) is not listed at start
  const ix3 = await ScratchIndex.build(a, { summary: true });
  assert.equal(ix3.partial, true, 'new files since the summary: listed and taken in');
  await same(ix3, 'files added since the summary');
  // An old file removed while no editor ran: the listing has one known name too few, everything is loaded.
  fs.rmSync(path.join(big, 'out-0900.txt'));
  await new Promise((r) => setTimeout(r, RACY_MS + 100));
  const ix3b = await ScratchIndex.build(a, { summary: true });
  assert.equal(ix3b.partial, false, 'a file gone that the summary did not load: loaded whole');
  await same(ix3b, 'an old file removed since the summary', [0, 1200]);
  // Upkeep after a session's offloads: the folders events accounted for are listed for real, so the next start uses the summary.
  await new Promise((r) => setTimeout(r, RACY_MS + 100)); // listed once its stamp is settled
  assert.equal(await (await ScratchIndex.build(a, { snapshot: false })).saveSnapshot(), true);
  const ix5 = await ScratchIndex.build(a, { summary: true });
  ix5.followsEvents = true;
  assert.equal(ix5.partial, true);
  const later = path.join(big, 'out-later2.txt');
  write(later, 'later', Date.now() / 1000);
  await ix5.update([later]);
  assert.equal((await ScratchIndex.build(a, { summary: true })).partial, false, 'before upkeep: the folder changed since the summary');
  await new Promise((r) => setTimeout(r, RACY_MS + 100));
  await ix5.relist();
  assert.equal(ix5.partial, true, 'the listing matched what the summary and events said: nothing loaded');
  const ix6 = await ScratchIndex.build(a, { summary: true });
  assert.equal(ix6.partial, true, 'after upkeep: started from the summary again');
  await same(ix6, 'after upkeep');
  // The same for an index holding everything (the MCP server after its own offload): a new snapshot and summary.
  const { folderStamp } = await import('../../../../src/core/scratch/index/sharedIndex.js');
  const whole = await ScratchIndex.build(a, { snapshot: false });
  const mine = path.join(big, 'mine.txt');
  const pre = folderStamp(big);
  write(mine, 'mine', Date.now() / 1000);
  await whole.noteCreated(mine, pre, folderStamp(big));
  await new Promise((r) => setTimeout(r, RACY_MS + 100));
  await whole.relist();
  const ix7 = await ScratchIndex.build(a, { summary: true });
  assert.equal(ix7.partial, true, 'a start after the upkeep of a whole index uses the summary');
  await same(ix7, 'after upkeep of a whole index');
  // A damaged summary is not used.
  fs.writeFileSync(scratchSummaryPath(a), fs.readFileSync(scratchSummaryPath(a), 'utf8').slice(0, 500));
  const ix4 = await ScratchIndex.build(a, { summary: true });
  assert.equal(ix4.partial, false);
  await same(ix4, 'a damaged summary');
}

test('a first start without snapshot or summary scans on the check worker when asked, then starts from the summary it wrote; a failing worker leaves the scan here', async () => {
  const { ScratchIndex } = await import('../../../../src/core/scratch/index/scratchIndex.js');
  const { firstScanOnWorker } = await import('../../../../src/core/scratch/index/firstScan.js');
  const { scratchSummaryPath } = await import('../../../../src/core/scratch/index/scratchSummary.js');
  const { scratchSnapshotPath } = await import('../../../../src/core/scratch/index/scratchSnapshot.js');
  const { tune } = await import('../../../../src/core/processState.js');
  const { a, s, big, old, write } = scratchFixture();
  for (let i = 0; i < 1500; i++) write(path.join(big, `out-${String(i).padStart(4, '0')}.txt`), 'x'.repeat(i % 70), old + i);
  for (let i = 0; i < 30; i++) write(path.join(s, 'small', `n${i}.md`), 'y'.repeat(i), old + i);
  write(path.join(s, 'small', 'sub', 'deep.txt'), 'deep');
  for (const d of [s, big, path.join(s, 'small'), path.join(s, 'small', 'sub')]) fs.utimesSync(d, old, old);
  await new Promise((r) => setTimeout(r, RACY_MS + 100)); // the folders' ctime (the utimes) settled: their listings can be trusted
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-first-scan-'));
  const marker = path.join(dir, 'scanned');
  const entry = path.join(__dirname, '..', '..', '..', '..', 'src', 'core', 'fs', 'digestCheckEntry.js');
  const marking = path.join(dir, 'check.js');
  fs.writeFileSync(marking, `const d = require('node:worker_threads').workerData; if (d && d.agentContextScratchScan) require('node:fs').appendFileSync(${JSON.stringify(marker)}, 'scan\\n');\nrequire(${JSON.stringify(entry)});`);
  const failing = path.join(dir, 'fail.js');
  fs.writeFileSync(failing, "throw new Error('no check worker');");
  const same = async (ix: Awaited<ReturnType<typeof ScratchIndex.build>>, what: string): Promise<void> => {
    const fresh = plainScan(a);
    assert.deepEqual(ix.totals(), fresh.totals(), what);
    for (const rel of ['', 'tool_outputs', 'small', 'small/sub']) {
      assert.deepEqual(ix.folder(rel), fresh.folder(rel), `${what}: folder ${rel}`);
      for (const off of [0, 1400]) {
        await ix.ensureFiles(rel, off + 200);
        assert.deepEqual(ix.filesPage(rel, off, 200), fresh.filesPage(rel, off, 200), `${what}: ${rel} page ${off}`);
      }
    }
  };
  const noCaches = (): void => {
    fs.rmSync(scratchSnapshotPath(a), { force: true });
    fs.rmSync(scratchSummaryPath(a), { force: true });
  };
  const restore = tune({ digestCheckScript: marking });
  try {
    noCaches();
    const ix = await ScratchIndex.build(a, { summary: true, firstScan: firstScanOnWorker });
    assert.equal(fs.readFileSync(marker, 'utf8'), 'scan\n', 'the check worker scanned');
    assert.ok(fs.existsSync(scratchSnapshotPath(a)) && fs.existsSync(scratchSummaryPath(a)), 'it wrote the snapshot and summary');
    assert.equal(ix.partial, true, 'this index started from that summary');
    await same(ix, 'after a scan on the worker');
    // A snapshot without a summary is loaded here: no scan on the worker.
    fs.rmSync(scratchSummaryPath(a));
    await same(await ScratchIndex.build(a, { summary: true, firstScan: firstScanOnWorker }), 'from the snapshot');
    assert.equal(fs.readFileSync(marker, 'utf8'), 'scan\n', 'no second scan on the worker');
    // A worker that fails: the scan runs here, with the same answers.
    tune({ digestCheckScript: failing });
    noCaches();
    const here = await ScratchIndex.build(a, { summary: true, firstScan: firstScanOnWorker });
    assert.equal(here.partial, false, 'scanned here');
    await same(here, 'a failing check worker');
  } finally {
    restore();
  }
});

test('a scratch index built from the snapshot of a previous start equals a full scan after changes made in between; a bad snapshot means a full scan', async () => {
  const { ScratchIndex, scratchSnapshotPath } = await import('../../../../src/core/scratch/index/scratchIndex.js');
  const { a, s, big, old, write } = scratchFixture();
  // Long names with multi-byte characters: the snapshot spans several read blocks, cut inside characters.
  for (let i = 0; i < 2100; i++) write(path.join(big, `out-${String(i).padStart(4, '0')}-ünïcödé-${'p'.repeat(i % 60)}.txt`), 'x'.repeat(i % 50), old + i);
  for (let i = 0; i < 20; i++) write(path.join(s, 'small', `n${i}.md`), 'y'.repeat(i), old + i);
  write(path.join(s, 'small', 'sub', 'deep.txt'), 'deep');
  for (const d of [s, big, path.join(s, 'small'), path.join(s, 'small', 'sub')]) fs.utimesSync(d, old, old);
  await new Promise((r) => setTimeout(r, RACY_MS + 100)); // the folders' ctime (the utimes) settled: their listings can be trusted
  const first = await ScratchIndex.build(a);
  // A first build that stat'ed thousands of files writes the snapshot by itself (in the background).
  const snap = scratchSnapshotPath(a);
  for (let i = 0; i < 100 && !fs.existsSync(snap); i++) await new Promise((r) => setTimeout(r, 20));
  assert.ok(fs.existsSync(snap), 'snapshot written');
  // The snapshot names this machine's folder: it must stay out of git.
  assert.equal(fs.readFileSync(path.join(path.dirname(snap), '.gitignore'), 'utf8'), '*\n');
  assert.equal(await first.saveSnapshot(), true); // the same content, now surely complete
  assert.ok(fs.statSync(snap).size > 160 * 1024, 'spans more than one read block');
  const folders = ['', 'tool_outputs', 'small', 'small/sub', 'small/new', 'again'];
  const equalToScan = async (what: string, expectSnapshotUsed?: boolean): Promise<void> => {
    const before = fs.readFileSync(snap, 'utf8');
    const ix = await ScratchIndex.build(a);
    const scan = plainScan(a);
    assert.deepEqual(ix.totals(), scan.totals(), what);
    for (const rel of folders) {
      assert.deepEqual(ix.folder(rel), scan.folder(rel), `${what}: folder ${rel}`);
      for (const off of [0, 200, 2000]) assert.deepEqual(ix.filesPage(rel, off, 200), scan.filesPage(rel, off, 200), `${what}: ${rel} page ${off}`);
    }
    // A snapshot used (few stats) is left as it was; a rejected one means a full scan, which writes a new one.
    if (expectSnapshotUsed !== undefined) {
      for (let i = 0; i < 500 && expectSnapshotUsed === false && fs.readFileSync(snap, 'utf8') === before; i++) await new Promise((r) => setTimeout(r, 20));
      assert.equal(fs.readFileSync(snap, 'utf8') === before, expectSnapshotUsed, `${what}: snapshot ${expectSnapshotUsed ? 'used' : 'replaced'}`);
    }
  };
  await equalToScan('unchanged', true);
  // While no editor ran: new and removed outputs, one renamed, a small file truncated in place, a folder replaced by a file, a new folder.
  write(path.join(big, 'out-new.txt'), 'newest', Date.now() / 1000);
  fs.rmSync(path.join(big, 'out-0007-ünïcödé-ppppppp.txt'));
  fs.renameSync(path.join(big, 'out-0008-ünïcödé-pppppppp.txt'), path.join(big, 'renamed.txt'));
  fs.truncateSync(path.join(s, 'small', 'n3.md'), 0);
  fs.rmSync(path.join(s, 'small', 'sub'), { recursive: true });
  write(path.join(s, 'small', 'sub'), 'a file now');
  fs.mkdirSync(path.join(s, 'small', 'new'));
  write(path.join(s, 'small', 'new', 'b.txt'), 'bb');
  // The big folder changed: listed again (2,100 names), then a new snapshot spares the next start
  // that listing (listed once its stamp is settled, so it is trusted).
  await new Promise((r) => setTimeout(r, RACY_MS + 100));
  await equalToScan('changed between starts', false);
  await equalToScan('unchanged since', true);
  const good = fs.readFileSync(snap, 'utf8');
  const lines = good.split('\n');
  // Damaged, foreign, cut (inside a line, or at a line end: no end line), another version, expired, or with a path leaving scratch: not used.
  const bad: [string, string][] = [
    ['a damaged line', good.replace(/\nF\t[^\n]*/, '\nF\tbroken')],
    ['another folder', good.replace(a, '/elsewhere/.agent')],
    ['cut in a line', good.slice(0, Math.floor(good.length / 2))],
    ['cut at a line end', lines.slice(0, Math.floor(lines.length / 2)).join('\n') + '\n'],
    ['end line missing', lines.slice(0, -2).join('\n') + '\n'],
    ['wrong count', good.replace(/\nE\t(\d+)\t(\d+)\n$/, (_m, d, f) => `\nE\t${d}\t${Number(f) + 1}\n`)],
    ['a line after the end', good + 'F\ttool_outputs/x\t1\t1\t0\t1\n'],
    ['version 2', good.replace('agent-context scratch index 3\t', 'agent-context scratch index 2\t')],
    ['expired', good.replace(/^(agent-context scratch index 3)\t\d+/, (_m, h) => `${h}\t${Date.now() - 2 * 86_400_000}`)],
    ['a path out of scratch', good.replace(/\nF\ttool_outputs\/[^\t]*/, '\nF\ttool_outputs/../../../etc')],
    ['not a snapshot', 'not a snapshot'],
    ['empty', ''],
  ];
  for (const [what, text] of bad) {
    assert.notEqual(text, good, what);
    fs.writeFileSync(snap, text);
    await equalToScan(what, false);
  }
  // The scratch folder removed and created again (other inodes, or reused ones with new mtimes).
  fs.writeFileSync(snap, good);
  fs.rmSync(s, { recursive: true });
  fs.mkdirSync(path.join(s, 'again'), { recursive: true });
  write(path.join(s, 'again', 'back.txt'), 'back');
  await equalToScan('scratch recreated');
  fs.rmSync(s, { recursive: true });
  await equalToScan('scratch gone');
  fs.rmSync(path.join(a, '..'), { recursive: true, force: true });
});

test('two windows writing the scratch snapshot at once leave one whole snapshot; an index changing while it writes does not write', async () => {
  const { ScratchIndex, scratchSnapshotPath } = await import('../../../../src/core/scratch/index/scratchIndex.js');
  const a = tmpAgent();
  const { big, old } = bigToolOutputs(a, 3000);
  fs.utimesSync(path.join(a, 'scratch'), old, old);
  await new Promise((r) => setTimeout(r, RACY_MS + 100)); // the folders' stamps settled: a listing can stand on them
  const w1 = await ScratchIndex.build(a, { snapshot: false });
  const w2 = await ScratchIndex.build(a, { snapshot: false });
  const snap = scratchSnapshotPath(a);
  for (let round = 0; round < 3; round++) {
    assert.deepEqual(await Promise.all([w1.saveSnapshot(), w2.saveSnapshot()]), [true, true]);
    const ix = await ScratchIndex.build(a);
    assert.deepEqual(ix.totals(), w1.totals());
    assert.deepEqual(ix.filesPage('tool_outputs', 0, 300), w1.filesPage('tool_outputs', 0, 300));
    assert.equal(fs.readdirSync(path.dirname(snap)).filter((n) => n.endsWith('.tmp')).length, 0, 'no temp files left');
  }
  // A save racing with changes to the index writes nothing rather than a mix of two states.
  const before = fs.readFileSync(snap, 'utf8');
  fs.writeFileSync(path.join(big, 'late.txt'), 'late');
  const [saved] = await Promise.all([w1.saveSnapshot(), w1.update([path.join(big, 'late.txt')])]);
  const [savedDuring] = await Promise.all([w1.saveSnapshot(), w1.revalidate()]);
  assert.deepEqual([saved, savedDuring], [false, false], 'a save overlapping a change to the index is not written');
  assert.equal(fs.readFileSync(snap, 'utf8'), before);
  const ix = await ScratchIndex.build(a);
  const scan = plainScan(a);
  assert.deepEqual(ix.totals(), scan.totals());
  assert.deepEqual(ix.filesPage('tool_outputs', 0, 300), scan.filesPage('tool_outputs', 0, 300));
  fs.rmSync(path.join(a, '..'), { recursive: true, force: true });
});

test("the summary's name filter never misses a name it was given, and rarely claims one it was not", async () => {
  const { NameBloom } = await import('../../../../src/core/scratch/index/scratchSummary.js');
  const b = NameBloom.sized(20_000);
  const names = Array.from({ length: 20_000 }, (_, i) => `tool_outputs/npm-test-${i.toString(36)}-ünï.txt`);
  for (const n of names) b.add(n);
  const back = NameBloom.fromBase64(b.toBase64())!;
  assert.ok(names.every((n) => back.has(n)), 'no false negatives after a round trip');
  let claimed = 0;
  for (let i = 0; i < 20_000; i++) if (back.has(`tool_outputs/other-${i}.txt`)) claimed++;
  assert.ok(claimed / 20_000 < 0.03, `false positives ${claimed} of 20,000`);
});

test('a background snapshot abandoned because the index changed at once is written a little later', async () => {
  const { ScratchIndex, scratchSnapshotPath } = await import('../../../../src/core/scratch/index/scratchIndex.js');
  const a = tmpAgent();
  const { big } = bigToolOutputs(a, 2500);
  // The first build stats every file and queues a snapshot; the caller's next change comes at once,
  // and keeps coming for a while (an agent offloading): each abandons the write in progress.
  const ix = await ScratchIndex.build(a);
  const snap = scratchSnapshotPath(a);
  for (let k = 0; k < 10; k++) {
    const f = path.join(big, `late-${k}.txt`);
    fs.writeFileSync(f, 'late');
    await ix.update([f]);
    await new Promise((r) => setTimeout(r, 5));
  }
  for (let i = 0; i < 150 && !fs.existsSync(snap); i++) await new Promise((r) => setTimeout(r, 20));
  assert.ok(fs.existsSync(snap), 'the snapshot is written once the changes pause');
  // And it is the index's current state: a start from it equals a fresh scan.
  const next = await ScratchIndex.build(a);
  assert.deepEqual(next.totals(), plainScan(a).totals());
  assert.equal(next.totals().files, 2510);
  fs.rmSync(path.join(a, '..'), { recursive: true, force: true });
});

test('while an agent keeps adding files during the snapshot\'s write, the summary is still written, and the next index starts from it', async () => {
  const { ScratchIndex } = await import('../../../../src/core/scratch/index/scratchIndex.js');
  const { scratchSummaryPath } = await import('../../../../src/core/scratch/index/scratchSummary.js');
  const { a, s, big, old, write } = scratchFixture();
  // Long names: the snapshot spans several 128 KB blocks, with a yield after each.
  for (let i = 0; i < 4000; i++) write(path.join(big, `out-${String(i).padStart(4, '0')}-${'n'.repeat(60)}.txt`), 'x'.repeat(i % 50), old + i);
  for (const d of [s, big, path.join(s, 'small'), path.join(s, 'small', 'sub')]) fs.utimesSync(d, old, old);
  await new Promise((r) => setTimeout(r, RACY_MS + 100)); // the folders' ctime (the utimes) settled: their listings can be trusted
  const ix = await ScratchIndex.build(a, { snapshot: false });
  ix.followsEvents = true;
  // Offloads and their events, one after the other, for as long as the snapshot is being written.
  let writing = true;
  let n = 0;
  const offloads = (async () => {
    while (writing) {
      const f = path.join(big, `new-${n++}.txt`);
      write(f, 'new', Date.now() / 1000);
      await ix.update([f]);
      await new Promise((r) => setImmediate(r));
    }
  })();
  const whole = await ix.saveSnapshot();
  writing = false;
  await offloads;
  assert.equal(whole, false, 'the snapshot was outdated by the offloads (the case this test is about)');
  assert.ok(fs.existsSync(scratchSummaryPath(a)), 'the summary is written all the same');
  // The folder settled (its stamp older than the 2 s a listing needs to be trusted): a new process starts from the summary.
  fs.utimesSync(big, old + 10, old + 10);
  await new Promise((r) => setTimeout(r, RACY_MS + 100));
  const next = await ScratchIndex.build(a, { summary: true });
  assert.equal(next.partial, true, 'started from the summary, not from a full scan');
  assert.deepEqual(next.totals(), plainScan(a).totals());
  assert.ok(n > 0);
});
