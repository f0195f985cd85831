// Row 8: the Scratch view's data with 10,000 files — time to the first page of tree items, and the
// retention pass choosing what to remove. The view itself (src/features/scratch/scratchView.ts) imports vscode,
// so its core part is measured: ScratchIndex.build + loadPins + the first page of items (the
// top-level folders with their totals and the newest files), against `find -printf | sort | head`
// listing the newest 200 files with sizes, interleaved. (Row 10 renders the real view in the editor.)
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { failedRow, fmtMs, loadBuilt, measure, measurePair, rng, type Row } from './harness';

interface Entry {
  path: string;
  rel: string;
  size: number;
  mtimeMs: number;
}
interface InventoryModule {
  scanScratch(agentDir: string): Promise<{ files: Entry[]; dirs: string[]; totalBytes: number }>;
}
interface IndexModule {
  ScratchIndex: {
    build(agentDir: string, opts?: { snapshot?: boolean }): Promise<{
      folder(rel: string): { subdirs: string[]; count: number; bytes: number } | undefined;
      filesPage(rel: string, offset: number, count: number): { entries: Entry[]; total: number };
    }>;
  };
}
interface PinsModule {
  loadPins(agentDir: string): Promise<unknown>;
}
interface RetentionModule {
  planRetention(input: { files: readonly Entry[]; protectedPaths: Iterable<string>; pinned: Iterable<string>; policy: unknown; now: number }): { remove: unknown[] };
  DEFAULT_RETENTION: unknown;
}

const FILES = 10_000;
const PAGE = 100;
/** Fixed clock: the generated mtimes spread over the 72 hours before it. */
const NOW = Date.UTC(2026, 10, 29, 12, 0, 0);

function ensureScratchTree(workDir: string): string {
  const agentDir = path.join(workDir, 'scratch-tree', '.agent');
  const stamp = path.join(workDir, 'scratch-tree', 'complete.json');
  if (fs.existsSync(stamp)) return agentDir;
  fs.rmSync(path.dirname(agentDir), { recursive: true, force: true });
  const r = rng(8);
  const folders = ['tool_outputs', 'notes', 'experiments/a', 'experiments/b', 'downloads', 'runs'];
  for (let i = 0; i < FILES; i++) {
    const dir = path.join(agentDir, 'scratch', folders[i % folders.length]);
    if (i < folders.length) fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `item-${String(i).padStart(5, '0')}.txt`);
    fs.writeFileSync(file, 'x'.repeat(Math.floor(r() * 4096)));
    const t = (NOW - r() * 72 * 3600 * 1000) / 1000;
    fs.utimesSync(file, t, t);
  }
  fs.writeFileSync(stamp, JSON.stringify({ files: FILES }));
  return agentDir;
}

/** Measures row 8 (two sub-rows). */
export async function rowScratch(workDir: string): Promise<Row[]> {
  const inv = loadBuilt<InventoryModule>('core/scratch/index/inventory', ['scanScratch']);
  const pins = loadBuilt<PinsModule>('core/scratch/pins', ['loadPins']);
  const ret = loadBuilt<RetentionModule>('core/scratch/retention', ['planRetention', 'DEFAULT_RETENTION']);
  const whatA = `Scratch view, ${FILES.toLocaleString('en-US')} files: first page of tree items`;
  const whatB = `Scratch retention pass over ${FILES.toLocaleString('en-US')} files`;
  const rows: Row[] = [];
  let agentDir: string;
  try {
    agentDir = ensureScratchTree(workDir);
  } catch (e) {
    return [failedRow('8', 'scratch tree generation', '—', e)];
  }
  const ix = loadBuilt<IndexModule>('core/scratch/index/scratchIndex', ['ScratchIndex']);
  let page: string[] = [];
  try {
    // What the view does for its first page: build the index, then the top level's folders (with totals) and newest files.
    const ours = async (): Promise<void> => {
      const [index] = await Promise.all([ix.ScratchIndex.build(agentDir, { snapshot: false }), pins.loadPins(agentDir)]);
      const top = index.folder('');
      const dirs = (top?.subdirs ?? []).map((d) => {
        const f = index.folder(d)!;
        return `${d} — ${f.count} files, ${(f.bytes / 1024).toFixed(1)} KB`;
      });
      page = [...dirs, ...index.filesPage('', 0, PAGE).entries.map((e) => e.rel)].slice(0, PAGE);
    };
    const reference = (): void => {
      const r = spawnSync('sh', ['-c', `find . -type f -printf '%T@ %s %p\\n' | sort -rn | head -n ${PAGE}`], { cwd: path.join(agentDir, 'scratch'), encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`find | sort failed: ${r.stderr}`);
    };
    const t = await measurePair(ours, reference);
    rows.push({
      id: '8a', what: whatA, ours: fmtMs(t.a), reference: `${fmtMs(t.b)} (find -printf | sort -rn | head)`, ratio: `${(t.a.median / t.b.median).toFixed(2)}×`, goal: '≤ 300 ms', met: t.a.median <= 300,
      note: `core part of the view: ScratchIndex.build without a snapshot (a first start: lstat in batches, yielding) + loadPins + the first page (${page.length} items: the top-level folders with totals, then the newest files); the reference lists the newest ${PAGE} files with sizes from the shell, interleaved`,
    });
  } catch (e) {
    rows.push(failedRow('8a', whatA, '≤ 300 ms', e));
  }
  try {
    let removed = 0;
    const t = await measure(async () => {
      const scan = await inv.scanScratch(agentDir);
      removed = ret.planRetention({ files: scan.files, protectedPaths: [], pinned: [], policy: ret.DEFAULT_RETENTION, now: NOW }).remove.length;
    });
    rows.push({ id: '8b', what: whatB, ours: `${fmtMs(t)}; ${removed} to remove`, reference: '—', ratio: '—', goal: '≤ 1 s', met: t.median <= 1000, note: 'scan + planRetention with the default policy (24 h, 500 files, 200 MB)' });
  } catch (e) {
    rows.push(failedRow('8b', whatB, '≤ 1 s', e));
  }
  return rows;
}
