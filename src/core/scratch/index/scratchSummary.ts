import { cacheFile } from '../../workspace/cacheFiles';
import { parentOf, RESTAT_ALL_MAX, selectNewest, type ScratchTree } from './scratchTree';

/*
 * The scratch index's summary (`.agent/.cache/scratch-summary.json`): what an editor needs to draw
 * the Scratch view and the tools need for totals, without the 100,000 entries of the snapshot. Per
 * folder: its stamp when listed, its subtree totals, its subfolders, and its files: all of them in a
 * small folder, the newest SUMMARY_FILES in a big one, with a Bloom filter of all its names (is a
 * file an event reports new, or one of the folder's files not loaded yet?). Small (about 150 KB at
 * 100,000 files), so it is written often; trusted at start-up only when every folder still has the
 * stamp it was listed with (see ScratchIndex.loadSummary).
 */

/** Where the summary of an `.agent/` folder's scratch index is kept. */
export function scratchSummaryPath(agentDir: string): string {
  return cacheFile(agentDir, 'scratchSummary');
}

/** Files of a big folder kept in the summary (its newest). */
export const SUMMARY_FILES = 256;
const VERSION = 3; // 2: the filter's probes changed; 3: folders' ctime

/** One file: relative path, size, mtime, symlink (0/1), when stat'ed. */
export type SummaryFile = [rel: string, size: number, mtimeMs: number, symlink: 0 | 1, statAt: number];

export interface SummaryDir {
  rel: string;
  ino: number;
  mtimeMs: number;
  ctimeMs: number;
  /** When listed. */
  at: number;
  /** Files and bytes in the subtree. */
  count: number;
  bytes: number;
  subdirs: string[];
  /** Files directly inside (all of them listed in `files` unless `bloom` is given). */
  own: number;
  files: SummaryFile[];
  /** Base64 Bloom filter of every file's relative path, for a folder whose `files` holds only its newest. */
  bloom?: string;
}

export interface Summary {
  v: number;
  scratchDir: string;
  fullScanAt: number;
  dirs: SummaryDir[];
}

export function summaryText(scratchDir: string, fullScanAt: number, dirs: SummaryDir[]): string {
  const s: Summary = { v: VERSION, scratchDir, fullScanAt, dirs };
  return JSON.stringify(s);
}

const isNum = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
const isRel = (x: unknown): x is string => typeof x === 'string' && !/^\/|\/$|\/\/|(^|\/)\.\.?(\/|$)|[\r\n\t]/.test(x);

/** Parses a summary for a scratch folder; undefined for anything unexpected (another version or folder, a damaged file). */
export function parseSummary(text: string, scratchDir: string): Summary | undefined {
  let s: Summary;
  try {
    s = JSON.parse(text) as Summary;
  } catch {
    return undefined;
  }
  if (!s || s.v !== VERSION || s.scratchDir !== scratchDir || !isNum(s.fullScanAt) || !Array.isArray(s.dirs)) return undefined;
  const rels = new Set<string>();
  for (const d of s.dirs) {
    if (!d || (d.rel !== '' && !isRel(d.rel)) || rels.has(d.rel)) return undefined;
    rels.add(d.rel);
    if (![d.ino, d.mtimeMs, d.ctimeMs, d.at, d.count, d.bytes, d.own].every(isNum) || !Array.isArray(d.subdirs) || !Array.isArray(d.files)) return undefined;
    if (!d.subdirs.every((x) => isRel(x) && parentOf(x) === d.rel)) return undefined;
    if (d.bloom !== undefined && typeof d.bloom !== 'string') return undefined;
    if (d.bloom === undefined && d.files.length !== d.own) return undefined;
    for (const f of d.files) {
      if (!Array.isArray(f) || f.length !== 5 || !isRel(f[0]) || parentOf(f[0]) !== d.rel || !(f[1] >= 0) || !isNum(f[2]) || (f[3] !== 0 && f[3] !== 1) || !isNum(f[4])) return undefined;
    }
  }
  if (!rels.has('')) return undefined;
  for (const d of s.dirs) for (const sub of d.subdirs) if (!rels.has(sub)) return undefined;
  return s;
}

/**
 * The summary's text for a tree as it is, or undefined when a folder was never listed whole or has
 * a name the format cannot hold. A folder holding only its newest files (summary mode) keeps its
 * filter; a big folder held whole gets a new one, sized with room to grow. The tree is read in one
 * go (the summary is of one state); the filters of big folders are then built with `pause()` every
 * BLOOM_SLICE names (75,000 names were one ~75 ms block of the extension host's thread).
 */
export async function summaryOf(tree: ScratchTree, fullScanAt: number, pause: () => Promise<void> = async () => undefined): Promise<string | undefined> {
  const dirs: SummaryDir[] = [];
  const toFilter: { dir: SummaryDir; names: string[] }[] = [];
  for (const [rel, d] of tree.dirs) {
    const l = d.listed;
    if (!l || /[\t\n\r]/.test(rel)) return undefined;
    const stamp = { rel, ino: l.ino, mtimeMs: l.mtimeMs, ctimeMs: l.ctimeMs, at: l.at, count: d.count, bytes: d.bytes, subdirs: [...d.subdirs] };
    if (d.partial) {
      const files = (d.newest ??= selectNewest(d.files, d.files.size)).slice(0, Math.max(SUMMARY_FILES, d.newest.length));
      dirs.push({ ...stamp, own: d.partial.own, files: files.map(([r, it]) => [r, it.size, it.mtimeMs, it.symlink ? 1 : 0, it.statAt]), bloom: d.partial.bloom.toBase64() });
      continue;
    }
    const big = d.files.size > RESTAT_ALL_MAX;
    const files = big ? (d.newest && d.newest.length >= SUMMARY_FILES ? d.newest.slice(0, SUMMARY_FILES) : selectNewest(d.files, SUMMARY_FILES)) : [...d.files];
    const dir: SummaryDir = { ...stamp, own: d.files.size, files: files.map(([r, it]) => [r, it.size, it.mtimeMs, it.symlink ? 1 : 0, it.statAt]) };
    if (big) toFilter.push({ dir, names: [...d.files.keys()] });
    dirs.push(dir);
  }
  for (const { dir, names } of toFilter) {
    const b = NameBloom.sized(names.length * 2); // room to grow before false positives climb
    for (let i = 0; i < names.length; i++) {
      if (i > 0 && i % BLOOM_SLICE === 0) await pause();
      b.add(names[i]);
    }
    dir.bloom = b.toBase64();
  }
  return summaryText(tree.scratchDir, fullScanAt, dirs);
}

/** Names added to a filter between pauses (about 2 ms of work). */
const BLOOM_SLICE = 8192;

/**
 * A Bloom filter of names: "certainly not present" or "maybe present" (about 1% false positives at
 * 10 bits a name). Names are only ever added: a removed name stays "maybe", which only costs a load.
 */
export class NameBloom {
  private constructor(readonly bits: Uint8Array) {}

  /** A filter sized for `n` names. */
  static sized(n: number): NameBloom {
    return new NameBloom(new Uint8Array(Math.max(64, Math.ceil((Math.max(n, 1) * 10) / 8))));
  }

  /** A filter from the bits of another (a copy made on another thread). */
  static fromBits(bits: Uint8Array): NameBloom | undefined {
    return bits.length >= 64 ? new NameBloom(bits) : undefined;
  }

  static fromBase64(s: string): NameBloom | undefined {
    const b = Buffer.from(s, 'base64');
    return b.length >= 64 ? new NameBloom(new Uint8Array(b.buffer, b.byteOffset, b.length)) : undefined;
  }

  toBase64(): string {
    return Buffer.from(this.bits.buffer, this.bits.byteOffset, this.bits.length).toString('base64');
  }

  add(name: string): void {
    hashes(name);
    const m = this.bits.length * 8;
    for (let k = 0; k < 4; k++) {
      const bit = (h[0] + k * h[1]) % m;
      this.bits[bit >> 3] |= 1 << (bit & 7);
    }
  }

  has(name: string): boolean {
    hashes(name);
    const m = this.bits.length * 8;
    for (let k = 0; k < 4; k++) {
      const bit = (h[0] + k * h[1]) % m;
      if ((this.bits[bit >> 3] & (1 << (bit & 7))) === 0) return false;
    }
    return true;
  }
}

/**
 * A name's two hashes, written to `h` (no array per name: 75,000 names per filter). The four bits
 * of a name in a filter of m bits are (h1 + k·h2) mod m for k = 0..3 (double hashing); h1 + 3·h2
 * stays below 2^53, so the sums are exact.
 */
const h = [0, 0];

/** Two 32-bit FNV-1a hashes with different offsets, into `h`. */
function hashes(s: string): void {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  h[0] = a >>> 0;
  h[1] = (b | 1) >>> 0;
}
