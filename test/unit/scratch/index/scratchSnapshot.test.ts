// The scratch index's snapshot and summary formats, with no disk: a tree written out and read back
// is the same tree, and anything damaged is refused as a whole.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { SNAPSHOT_HEADER, snapshotLines, SnapshotReader } from '../../../../src/core/scratch/index/scratchSnapshot';
import { NameBloom, parseSummary, summaryOf } from '../../../../src/core/scratch/index/scratchSummary';
import { ScratchTree, type Item } from '../../../../src/core/scratch/index/scratchTree';

const DIR = '/ws/.agent/scratch';
const NOW = Date.UTC(2026, 11, 1, 12);

function sampleTree(files = 700): ScratchTree {
  const t = new ScratchTree(DIR);
  for (const [rel, at] of [['', 1], ['tool_outputs', 2], ['notes', 3], ['notes/deep', 4]] as const) {
    t.ensureDir(rel).listed = { ino: 100 + at, mtimeMs: NOW - 3_600_000, ctimeMs: NOW - 3_500_000, at: NOW - 1_800_000 };
  }
  const item = (i: number): Item => ({ size: i * 3, mtimeMs: NOW - 3_600_000 + i, symlink: i % 50 === 0, statAt: NOW - 60_000, seen: 0 });
  for (let i = 0; i < files; i++) t.setFile(`tool_outputs/out-${i}.txt`, item(i));
  t.setFile('plan-notes.md', item(7));
  t.setFile('notes/a.md', item(8));
  t.setFile('notes/deep/b.md', item(9));
  return t;
}

function readBack(lines: string[], now = NOW): { tree: ScratchTree; ok: boolean } {
  const tree = new ScratchTree(DIR);
  const r = new SnapshotReader(tree, now);
  const ok = lines.every((l) => r.line(l)) && r.finish();
  return { tree, ok };
}

function shape(t: ScratchTree): unknown {
  return {
    totals: t.totals(),
    folders: [...t.dirs.keys()].sort().map((rel) => ({ ...t.folder(rel), listed: t.dirs.get(rel)!.listed })),
    order: t.newestFirst().map(([rel, it]) => [rel, it.size, it.mtimeMs, it.symlink, it.statAt]),
  };
}

test('a tree written as a snapshot and read back is the same tree: folders, stamps, totals and every file in order', () => {
  const t = sampleTree();
  const lines = [...snapshotLines(t, NOW - 7_200_000)];
  assert.equal(lines[0], `${SNAPSHOT_HEADER}\t${NOW - 7_200_000}\t${DIR}`);
  assert.match(lines[lines.length - 1], /^E\t4\t703$/);
  const back = readBack(lines);
  assert.ok(back.ok);
  assert.deepEqual(shape(back.tree), shape(t));
});

test('a damaged snapshot is refused whole: cut short, a wrong count, another folder or version, a line twice, an odd name, an old scan', () => {
  const lines = [...snapshotLines(sampleTree(50), NOW - 7_200_000)];
  const refused = (what: string, ls: string[], now = NOW): void => assert.equal(readBack(ls, now).ok, false, what);
  refused('cut at a line boundary', lines.slice(0, -1));
  refused('cut inside the files', lines.slice(0, 20));
  refused('a wrong count', [...lines.slice(0, -1), 'E\t4\t999']);
  refused('another scratch folder', [lines[0].replace(DIR, '/other/.agent/scratch'), ...lines.slice(1)]);
  refused('another version', [lines[0].replace(SNAPSHOT_HEADER, 'agent-context scratch index 1'), ...lines.slice(1)]);
  refused('a file line twice', [...lines.slice(0, 5), lines[4], ...lines.slice(5)]);
  refused('a line after the end', [...lines, lines[3]]);
  refused('a name that leaves its folder', lines.map((l) => l.replace('F\ttool_outputs/out-3.txt', 'F\ttool_outputs/../../x')));
  refused('a non-number size', lines.map((l) => l.replace(/^(F\ttool_outputs\/out-4\.txt\t)\d+/, '$1x')));
  refused('a scan older than a day', lines, NOW + 2 * 86_400_000);
  assert.ok(readBack(lines).ok, 'the same lines whole are accepted');
});

test('the summary keeps the newest files of a big folder with a filter of every name, and all files of a small one', async () => {
  const t = sampleTree(700);
  const text = await summaryOf(t, NOW - 7_200_000);
  assert.ok(text !== undefined);
  const sum = parseSummary(text, DIR);
  assert.ok(sum);
  const big = sum.dirs.find((d) => d.rel === 'tool_outputs')!;
  assert.equal(big.own, 700);
  assert.ok(big.bloom && big.files.length < 700, 'only the newest of a big folder');
  assert.deepEqual(big.files[0][0], 'tool_outputs/out-699.txt');
  const notes = sum.dirs.find((d) => d.rel === 'notes')!;
  assert.deepEqual(notes.files.map((f) => f[0]), ['notes/a.md']);
  assert.equal(notes.bloom, undefined);
  assert.equal(parseSummary(text, '/other/.agent/scratch'), undefined, 'another folder');
  assert.equal(parseSummary(text.slice(0, -10), DIR), undefined, 'cut short');
  const unlisted = sampleTree(10);
  unlisted.ensureDir('new');
  assert.equal(await summaryOf(unlisted, NOW), undefined, 'a folder never listed whole: no summary');
});

test('the summary of a folder of 20,000 files builds its filter in slices, and the filter holds every name', async () => {
  const t = sampleTree(20_000);
  let pauses = 0;
  const text = await summaryOf(t, NOW - 7_200_000, async () => {
    pauses++;
  });
  assert.ok(pauses >= 2, `${pauses} pauses`);
  const big = parseSummary(text!, DIR)!.dirs.find((d) => d.rel === 'tool_outputs')!;
  const bloom = NameBloom.fromBase64(big.bloom!)!;
  for (let i = 0; i < 20_000; i++) assert.ok(bloom.has(`tool_outputs/out-${i}.txt`), `out-${i}.txt`);
  // About 1% false positives at 10 bits per name (sized for twice the names): well under 5%.
  let claimed = 0;
  for (let i = 0; i < 10_000; i++) if (bloom.has(`tool_outputs/other-${i}.txt`)) claimed++;
  assert.ok(claimed < 500, `${claimed} of 10,000 absent names claimed`);
});
