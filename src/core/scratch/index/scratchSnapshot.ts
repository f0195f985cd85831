import { cacheFile } from '../../workspace/cacheFiles';
import { BAD_REL, markHot, parentOf, type Dir, type Item, type ScratchTree } from './scratchTree';

/*
 * The snapshot of a scratch index (`.agent/.cache/scratch-index.tsv`), as text, with no disk in
 * sight: snapshotLines() writes a tree out, SnapshotReader reads one back line by line into an
 * empty tree. The facade (scratchIndex.ts) moves the text to and from the file in blocks.
 *
 * Format: a header line (version, the full scan's start, the scratch folder's absolute path), then
 * per folder a `D` line (relative path, ino, mtime, ctime, when listed) followed by its files' `F` lines
 * (relative path, size, mtime, symlink 0/1, when stat'ed), and an `E` line counting folders and
 * files. Anything else (another version or folder, an old full scan, a cut or damaged file) is
 * refused as a whole: the caller scans instead.
 */

/** The snapshot's first line (with the scratch folder's path after a tab): another version or folder is not read. */
export const SNAPSHOT_HEADER = 'agent-context scratch index 3';
/** A snapshot descending from a full scan older than this is not used (see the known limit in scratchIndex.ts). */
export const SNAPSHOT_MAX_AGE_MS = 24 * 3600_000;

/** Where the snapshot of an `.agent/` folder's scratch index is kept. */
export function scratchSnapshotPath(agentDir: string): string {
  return cacheFile(agentDir, 'scratchIndex');
}

const ODD = /[\t\n\r]/;

/**
 * The snapshot's lines for a tree. A folder never listed whole, or holding a name with a tab or
 * newline, is written with a stamp that matches nothing (the next start lists it again); a name
 * the format cannot hold is left out.
 */
export function* snapshotLines(tree: ScratchTree, fullScanAt: number): Generator<string> {
  let nFiles = 0;
  let nDirs = 0;
  yield `${SNAPSHOT_HEADER}\t${fullScanAt}\t${tree.scratchDir}`;
  for (const [rel, d] of [...tree.dirs]) {
    if (ODD.test(rel)) continue; // not writable in this format: its parent gets no stamp below
    let odd = !d.listed;
    for (const sub of d.subdirs) if (ODD.test(sub)) odd = true;
    if (!odd) for (const r of d.files.keys()) if (ODD.test(r)) odd = true;
    const l = odd ? { ino: 0, mtimeMs: 0, ctimeMs: 0, at: 0 } : d.listed!;
    yield `D\t${rel}\t${l.ino}\t${l.mtimeMs}\t${l.ctimeMs}\t${l.at}`;
    nDirs++;
    for (const [r, it] of d.files) {
      if (ODD.test(r)) continue;
      yield `F\t${r}\t${it.size}\t${it.mtimeMs}\t${it.symlink ? 1 : 0}\t${it.statAt}`;
      nFiles++;
    }
  }
  yield `E\t${nDirs}\t${nFiles}`;
}

/** Reads a snapshot's lines into an empty tree; any line it does not expect makes the whole snapshot unusable. */
export class SnapshotReader {
  /** The full scan the snapshot descends from (from its header). */
  fullScanAt = 0;
  private cur: Dir | undefined;
  private curRel = '';
  /** Each folder's own files and bytes, added up once per folder at the end (not bubbled up per file). */
  private readonly own = new Map<Dir, [number, number]>();
  private header = false;
  private ended = false;
  private nFiles = 0;
  private nDirs = 0;

  constructor(
    private readonly tree: ScratchTree,
    private readonly now = Date.now(),
  ) {}

  /** Takes one line (without its newline); false when it makes the snapshot unusable. */
  line(l: string): boolean {
    if (!this.header) {
      this.header = true;
      const h = l.split('\t');
      const scanAt = num(h[1]);
      if (h.length < 3 || h[0] !== SNAPSHOT_HEADER || h.slice(2).join('\t') !== this.tree.scratchDir) return false;
      if (!(scanAt <= this.now && this.now - scanAt < SNAPSHOT_MAX_AGE_MS)) return false;
      this.fullScanAt = scanAt;
      return true;
    }
    if (this.ended) return false; // nothing may follow the end line
    if (l.charCodeAt(0) === 70 /* F */ && l.charCodeAt(1) === 9 && this.cur) return this.fileLine(l);
    const f = l.split('\t');
    if (f[0] === 'D' && f.length === 6) {
      const ino = num(f[2]);
      const mtimeMs = num(f[3]);
      const ctimeMs = num(f[4]);
      const at = num(f[5]);
      const rel = f[1];
      if (![ino, mtimeMs, ctimeMs, at].every(Number.isFinite) || (rel !== '' && BAD_REL.test(rel))) return false;
      if (this.tree.dirs.get(rel)?.listed || this.tree.dirs.get(parentOf(rel))?.files.has(rel)) return false; // twice, or also a file
      this.curRel = rel;
      this.cur = this.tree.ensureDir(rel);
      this.cur.listed = { ino, mtimeMs, ctimeMs, at };
      this.own.set(this.cur, [0, 0]);
      this.nDirs++;
      return true;
    }
    if (f[0] === 'E' && f.length === 3) {
      this.ended = true;
      return num(f[1]) === this.nDirs && num(f[2]) === this.nFiles;
    }
    return false;
  }

  /**
   * Ends the reading: true when the snapshot was whole (its end line came last, with the right
   * counts, and the scratch folder itself was in it); the folders' totals are then set.
   */
  finish(): boolean {
    if (!this.ended || this.tree.dirs.get('')?.listed === undefined) return false;
    for (const [rel, d] of this.tree.dirs) {
      const t = this.own.get(d);
      if (t && (t[0] || t[1])) this.tree.bubble(rel, t[0], t[1]);
    }
    return true;
  }

  /** A file line (F, path, size, mtime, symlink 0/1, stat time), the bulk of the snapshot: read by position, not split into six strings. */
  private fileLine(l: string): boolean {
    const t1 = l.indexOf('\t', 2);
    const t2 = l.indexOf('\t', t1 + 1);
    const t3 = l.indexOf('\t', t2 + 1);
    const t4 = l.indexOf('\t', t3 + 1);
    if (t1 < 0 || t2 < 0 || t3 < 0 || t4 !== t3 + 2 || l.indexOf('\t', t4 + 1) !== -1) return false;
    const size = num(l.slice(t1 + 1, t2));
    const mtimeMs = num(l.slice(t2 + 1, t3));
    const statAt = num(l.slice(t4 + 1));
    const sym = l.charCodeAt(t3 + 1) - 48;
    if (!(size >= 0 && Number.isFinite(mtimeMs) && Number.isFinite(statAt)) || (sym !== 0 && sym !== 1)) return false;
    // The file must sit directly in the current folder, under a name that is not '.', '..' or odd.
    const curRel = this.curRel;
    const base = curRel === '' ? 2 : 2 + curRel.length + 1;
    if (t1 <= base || (curRel !== '' && (!l.startsWith(curRel, 2) || l.charCodeAt(base - 1) !== 47))) return false;
    const slash = l.indexOf('/', base);
    if (slash !== -1 && slash < t1) return false;
    const name = l.slice(base, t1);
    if (name === '.' || name === '..' || name.includes('\r')) return false;
    const rel = l.slice(2, t1);
    const cur = this.cur!;
    const files = cur.files;
    const had = files.size;
    const it: Item = { size, mtimeMs, symlink: sym === 1, statAt, seen: 0 };
    files.set(rel, it);
    if (files.size === had || this.tree.dirs.has(rel)) return false; // twice, or also a folder
    markHot(cur, rel, it);
    const t = this.own.get(cur)!;
    t[0]++;
    t[1] += size;
    this.nFiles++;
    return true;
  }
}

const num = (x: string | undefined): number => (x === undefined || x === '' ? NaN : Number(x));
