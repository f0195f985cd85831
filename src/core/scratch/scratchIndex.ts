import * as fs from 'node:fs';
import * as path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { createExclusive, writeFileAtomic, writeFileAtomicParts } from '../fs/fsAtomic';
import { CACHE_DIR } from '../fs/appendFold';
import { FileError } from '../result';
import { scratchDirOf, type ScratchEntry } from './inventory';
import { NameBloom, parseSummary, scratchSummaryPath, SUMMARY_FILES, summaryText, type SummaryDir } from './scratchSummary';

/*
 * An in-memory index of `.agent/scratch/` for the Scratch view, kept up to date from file events
 * instead of re-scanning: one offload into a folder of 100,000 files costs one lstat, not 100,000.
 * Pages of a folder's files come newest first without sorting the folder (a bounded selection of
 * the newest offset+count), and every folder knows its subtree's file count and bytes.
 * The first scan lstat()s in small synchronous batches and yields to the event loop between them,
 * so it never blocks the extension host for long. Symlinks are listed, never followed.
 *
 * revalidate() (the view's Refresh, a batch of changes too big or too vague to apply path by path)
 * costs what changed, not the folder's size: a folder whose inode and mtime are those it had when
 * listed (adding, removing or renaming an entry always changes them) is not listed again, and in a
 * big folder only recently written files are stat'ed again (files there are written once:
 * tool_outputs/); small folders are stat'ed whole, so a file rewritten in place is seen.
 *
 * A snapshot of the index (`.agent/.cache/scratch-index.tsv`) lets the next editor start the same
 * way: build() loads it and revalidates, so a start-up lists and stats what changed since, not the
 * 100,000 files of a long-lived folder. It is written after a build that had to stat many files
 * (the first start on a folder, or many new files since the snapshot) or list a big folder again
 * (tool_outputs/ after a session's offloads), never on every change: a folder changed since the
 * snapshot is listed again at the next start, only its new names are stat'ed, and the snapshot
 * written then spares the start after it the listing. It is read and written in blocks with yields between them (never one 7 MB string), is
 * versioned and names its scratch folder in the first line, and ends with a line counting its
 * folders and files: anything else (another version or folder, a cut or damaged file) is not used,
 * a full scan is. Two windows may write it; each write is atomic and whole, and an index that
 * changed while being written does not write it.
 *
 * Known limit: in a folder of more than RESTAT_ALL_MAX files, a file last written more than
 * HOT_MS before it was last stat'ed and then rewritten in place (same name, so the folder's mtime
 * does not change) keeps its old size and date in the view until a full scan, which happens at
 * the latest SNAPSHOT_MAX_AGE_MS (a day) after the previous one: a snapshot descending from an
 * older full scan is not used. While the editor runs, a watcher event for the file corrects it at
 * once. Cleanup's dry run reads the index; cleanup itself stats every file afresh (a new index
 * built without the snapshot) before removing anything.
 *
 * An index fed every file event of the folder (`followsEvents`: the editor's watcher) need not list
 * a changed folder again when the events account for the change: after applying events for a
 * folder, its stamp is taken; while the folder still has that stamp, nothing happened there that
 * has no event. A lost event is corrected at the next real listing, at most TRUST_LISTING_MS after
 * the previous one. The MCP server has no watcher: it lists every folder whose mtime changed.
 *
 * All files newest first (newestFirst()) are sorted once when first asked for, then kept in order
 * change by change; `orderEpoch` tells a reader (cleanup's dry run) when the order changed other
 * than by a new newest file, so it can continue where it stopped instead of starting over.
 */

interface Item {
  size: number;
  mtimeMs: number;
  symlink: boolean;
  /** When it was stat'ed (ms since epoch). */
  statAt: number;
  /** The listing of its folder that last saw it (revalidate() marks instead of collecting a set of 100,000 names). */
  seen: number;
}

type Ranked = [rel: string, item: Item];

interface Dir {
  subdirs: Set<string>;
  /** The files directly inside, by relative path. */
  files: Map<string, Item>;
  /**
   * The newest files, newest first (a prefix of the folder's files in that order), kept up to date
   * on changes while it stays long enough; undefined until a page is asked for, or after a change
   * that left it too short.
   */
  newest?: Ranked[];
  /**
   * The files that were modified less than HOT_MS before they were last stat'ed (something may still
   * be writing them): the only ones a check of an unchanged big folder stats again, found without
   * going through the folder's 75,000 others.
   */
  hot: Set<string>;
  /** Files and bytes in the whole subtree. */
  count: number;
  bytes: number;
  /** The folder's identity and mtime when it was last listed, and when (undefined: never listed whole). */
  listed?: { ino: number; mtimeMs: number; at: number };
  /**
   * The folder's identity and mtime right after the last file events for it were applied (only in
   * an index that follows events): while the folder still has that stamp, events have told every
   * change since it was listed, and revalidate() need not list it again (see TRUST_LISTING_MS).
   */
  followed?: { ino: number; mtimeMs: number; own?: boolean };
  /**
   * Set while only the newest files of a big folder are loaded (from the summary): how many files
   * it has directly inside, and a filter of all their names. `files` and `newest` then hold the
   * loaded ones, which are the newest: a page within them is right; anything else loads the rest.
   */
  partial?: { own: number; bloom: NameBloom };
}

/** The smallest kept "newest" list (one page) and the extra kept so a few deletions need no new pass. */
const PAGE_MIN = 200;
const SLACK = 64;
/** Files lstat()ed between two yields to the event loop during a scan. */
const BATCH = 256;
/** A folder whose mtime is this close to when it was listed may have changed again within the same timestamp: list it again. */
const RACY_MS = 1000;
/** Files modified this recently (when last stat'ed) are stat'ed again by revalidate(): something may still be writing them. */
const HOT_MS = 10 * 60_000;
/** Folders with at most this many files are stat'ed whole by revalidate() (a file rewritten in place changes no folder mtime). */
const RESTAT_ALL_MAX = 500;
/** A build that stat'ed more files than this, or listed that many names of changed folders, writes a snapshot for the next start. */
const SNAPSHOT_AFTER_STATS = 2000;
/** The snapshot's first line (with the scratch folder's path after a tab): another version or folder is not read. */
const SNAPSHOT_HEADER = 'agent-context scratch index 2';
/** The snapshot is read and written in blocks of this many bytes (characters), with a yield between two. */
const SNAPSHOT_BLOCK = 128 * 1024;
/** A snapshot descending from a full scan older than this is not used (see the known limit at the top of the file). */
const SNAPSHOT_MAX_AGE_MS = 24 * 3600_000;
/**
 * In an index fed by file events, a folder changed since its listing is not listed again while the
 * events account for its current mtime, for at most this long after its last real listing: a lost
 * event is corrected within this time.
 */
const TRUST_LISTING_MS = 10 * 60_000;
/** A folder walked with more files than this drops the global order (rebuilt once when next asked for) instead of inserting each file. */
const ORDER_BULK = 1000;
/** A relative path that could leave the scratch folder or is not how the index spells one. */
const BAD_REL = /^\/|\/$|\/\/|(^|\/)\.\.?(\/|$)|\r/;

class SnapshotOutdated extends Error {}

/** A folder's identity and mtime (an lstat's ino and mtimeMs). */
export interface FolderStamp {
  ino: number;
  mtimeMs: number;
}

/** Where the snapshot of an `.agent/` folder's scratch index is kept. */
export function scratchSnapshotPath(agentDir: string): string {
  return path.join(agentDir, CACHE_DIR, 'scratch-index.tsv');
}

const parentOf = (rel: string): string => {
  const i = rel.lastIndexOf('/');
  return i === -1 ? '' : rel.slice(0, i);
};

const yieldNow = (): Promise<void> => new Promise((r) => setImmediate(r));

/** `.agent/scratch/` as an index that follows changes (see the comment at the top of the file). */
export class ScratchIndex {
  readonly scratchDir: string;
  private readonly dirs = new Map<string, Dir>();
  /** Problems that did not stop the scan (unreadable folders, a symlinked scratch folder). */
  errors: FileError[] = [];
  private sinceYield = 0;
  /** Files lstat()ed so far (decides whether a snapshot is worth writing). */
  private statted = 0;
  /** Names read by listings of folders that had changed (a big one listed again is worth a new snapshot too). */
  private listedNames = 0;
  /** Changes (update / revalidate) running now, and how many have started: saveSnapshot() writes one state. */
  private busy = 0;
  private generation = 0;
  /** When the last full scan this index descends from started (kept through snapshots). */
  private fullScanAt = 0;
  /** Listings made by revalidate() (marks the files each one found). */
  private listings = 0;
  /** Every file, newest first (ties by path), kept up to date on changes once asked for (retention). */
  private all?: Ranked[];
  /**
   * Counts changes to the order other than a file added as the newest of all (the common case: an
   * offload): while it stays the same, every file in the order keeps its position counted from the
   * oldest, and what was decided about the oldest files still holds (cleanup's dry run).
   */
  private orderEpochCounter = 0;
  /** The end of the queue of changes: revalidate() and update() run one at a time, in call order. */
  private queue: Promise<void> = Promise.resolve();
  /**
   * True when every file event for the scratch folder reaches update() (an editor's watcher feeds
   * it): revalidate() may then trust events for folders they account for (see TRUST_LISTING_MS).
   */
  followsEvents = false;
  /** True while some folders hold only their newest files (started from the summary). */
  private summaryMode = false;
  /** Set by relist(): folders are listed even when events or own creations account for their changes. */
  private noTrust = false;
  /** Paths changed while in summary mode, applied again once everything is loaded. */
  private readonly touched = new Set<string>();

  private constructor(readonly agentDir: string) {
    this.scratchDir = scratchDirOf(agentDir);
  }

  /** A folder's or file's absolute path ('' is the scratch folder itself). */
  private absOf(rel: string): string {
    return rel ? path.join(this.scratchDir, rel) : this.scratchDir;
  }

  /**
   * Indexes the scratch folder of an `.agent/` folder: from the snapshot of a previous start
   * revalidated against the disk when there is one (`snapshot: false` scans everything), else by a
   * full scan. Writes a new snapshot in the background when the build had to stat many files.
   */
  static async build(agentDir: string, opts: { snapshot?: boolean; summary?: boolean } = {}): Promise<ScratchIndex> {
    const ix = new ScratchIndex(agentDir);
    const useSnapshot = opts.snapshot !== false;
    // From the summary when nothing changed since it was written: the newest files of big folders only.
    if (useSnapshot && opts.summary && (await ix.loadSummary())) {
      // Folders changed since the summary were listed and taken in: a new summary spares the next start that.
      if (ix.listedNames > 0) void ix.queue.then(() => ix.saveSummary()).catch(() => undefined);
      return ix;
    }
    if (useSnapshot && (await ix.loadSnapshot())) await ix.revalidate();
    else await ix.scanAll();
    if (useSnapshot) ix.saveSnapshotIfWorthIt();
    return ix;
  }

  /** Writes the snapshot (and summary) in the background when this index had to stat or list many files to get here. */
  private saveSnapshotIfWorthIt(): void {
    if (this.statted + this.listedNames > SNAPSHOT_AFTER_STATS) {
      this.statted = 0;
      this.listedNames = 0;
      // Not awaited: the index is usable now; a failed write only means a full scan next time. Queued
      // after the change in progress, if any (a snapshot is never written while the index is changing).
      void this.queue.then(() => this.saveSnapshot()).catch(() => undefined);
    }
  }

  /**
   * Starts from the summary (see scratchSummary.ts): true when it exists, is whole, names this
   * folder and its folders, and every folder in it either still has the stamp it was listed with
   * (no file added, removed or renamed since) or lists as the summary and new files explain
   * (absorbListing); the loaded files are stat'ed again (all of a small folder).
   */
  private async loadSummary(): Promise<boolean> {
    let text: string;
    try {
      text = await fs.promises.readFile(scratchSummaryPath(this.agentDir), 'utf8');
    } catch {
      return false;
    }
    const sum = parseSummary(text, this.scratchDir);
    const now = Date.now();
    if (!sum || !(sum.fullScanAt <= now && now - sum.fullScanAt < SNAPSHOT_MAX_AGE_MS)) return false;
    for (const sd of sum.dirs) {
      const st = fs.lstatSync(this.absOf(sd.rel), { throwIfNoEntry: false });
      // The same folders (a folder changed since is listed by recheckSummary below).
      if (!st?.isDirectory() || st.ino !== sd.ino) return this.forget();
    }
    for (const sd of sum.dirs) {
      const d = this.ensureDir(sd.rel);
      d.listed = { ino: sd.ino, mtimeMs: sd.mtimeMs, at: sd.at };
      for (const sub of sd.subdirs) this.ensureDir(sub);
      let ownBytes = 0;
      for (const [rel, size, mtimeMs, sym, statAt] of sd.files) {
        const it: Item = { size, mtimeMs, symlink: sym === 1, statAt, seen: 0 };
        d.files.set(rel, it);
        markHot(d, rel, it);
        ownBytes += size;
      }
      if (sd.bloom !== undefined) {
        const bloom = NameBloom.fromBase64(sd.bloom);
        if (!bloom) return this.forget();
        d.partial = { own: sd.own, bloom };
        d.newest = selectNewest(d.files, d.files.size);
      }
      // Subtree totals as written (the loaded files are part of them).
      d.count = sd.count;
      d.bytes = sd.bytes;
      if (ownBytes > sd.bytes) return this.forget();
    }
    this.fullScanAt = sum.fullScanAt;
    this.summaryMode = true;
    try {
      if (await this.recheckSummary()) return true;
    } catch {
      // falls back below
    }
    this.summaryMode = false;
    this.touched.clear();
    return this.forget();
  }

  /**
   * revalidate() while in summary mode: true when every folder is unchanged since listed (or file
   * events account for its changes), after stat'ing the loaded files that may have been rewritten in
   * place; false when a folder changed otherwise (everything must then be loaded).
   */
  private async recheckSummary(): Promise<boolean> {
    const now = Date.now();
    for (const [rel, d] of this.dirs) {
      const st = fs.lstatSync(this.absOf(rel), { throwIfNoEntry: false });
      const l = d.listed;
      if (!st?.isDirectory() || !l) return false;
      const unchanged = l.ino === st.ino && l.mtimeMs === st.mtimeMs && l.at - st.mtimeMs > RACY_MS;
      const f = d.followed;
      const accounted = !unchanged && this.followsEvents && f !== undefined && f.ino === st.ino && f.mtimeMs === st.mtimeMs && now - l.at < TRUST_LISTING_MS;
      if (!unchanged && !accounted && !(await this.absorbListing(rel, d, st))) return false;
      const all = !d.partial && d.files.size <= RESTAT_ALL_MAX;
      const hot: [string, Item][] = [];
      if (all) for (const e of d.files) hot.push(e);
      else for (const r of d.hot) hot.push([r, d.files.get(r)!]);
      for (const [r, old] of hot) {
        const fst = fs.lstatSync(path.join(this.scratchDir, r), { throwIfNoEntry: false });
        await this.maybeYield();
        if (!fst || fst.isDirectory()) return false;
        if (fst.size !== old.size || fst.mtimeMs !== old.mtimeMs || fst.isSymbolicLink() !== old.symlink) {
          if (d.partial) return false; // the loaded newest may no longer be the newest
          this.setFile(r, itemOf(fst, now));
        } else {
          old.statAt = now;
          markHot(d, r, old);
        }
      }
    }
    return true;
  }

  /** Loads everything (snapshot, else a full scan) when started from the summary; then brought up to date with the disk. */
  private async loadAll(): Promise<void> {
    if (!this.summaryMode) return;
    const touched = [...this.touched];
    this.summaryMode = false;
    this.touched.clear();
    this.dirs.clear();
    this.dropOrder();
    if (await this.loadSnapshot()) {
      await this.revalidateNow();
      await this.updateNow(touched);
    } else await this.scanAll();
    this.saveSnapshotIfWorthIt();
  }

  /** Makes sure every file is loaded (cleanup, the retention order, a page past the newest). */
  async loadEverything(): Promise<void> {
    if (this.summaryMode) await this.changing(() => this.loadAll());
  }

  /**
   * Upkeep once things are quiet: lists again every folder whose listing events or own creations
   * stood in for, so the stamps a snapshot and summary record are real listings (a start from them
   * then need not list anything), and writes them when that was worth it. In summary mode a big
   * folder's listing is checked against what the index knows (its count, its loaded files and its
   * filter of names) without loading the rest; a mismatch loads everything.
   */
  async relist(): Promise<void> {
    let save = false;
    await this.changing(async () => {
      let listed = false;
      if (this.summaryMode) {
        const now = Date.now();
        for (const [rel, d] of this.dirs) {
          const st = fs.lstatSync(this.absOf(rel), { throwIfNoEntry: false });
          const l = d.listed;
          if (!st?.isDirectory() || !l) return this.loadAll();
          if (l.ino === st.ino && l.mtimeMs === st.mtimeMs && l.at - st.mtimeMs > RACY_MS) continue;
          if (now - st.mtimeMs <= RACY_MS) return; // still changing: next time
          if (!(await this.absorbListing(rel, d, st))) return this.loadAll();
          listed = true;
        }
      } else {
        const before = this.listedNames;
        this.noTrust = true;
        try {
          await this.revalidateNow();
        } finally {
          this.noTrust = false;
        }
        listed = this.listedNames > before;
      }
      if (!listed) return;
      if (this.summaryMode) await this.saveSummary();
      else save = true; // any real listing is worth a new snapshot here
    });
    // Written once the change is over (a snapshot is never written while the index is changing).
    if (save && (await this.saveSnapshot().catch(() => false))) {
      this.statted = 0;
      this.listedNames = 0;
    }
  }

  /**
   * Lists a changed folder of a summary-mode index and takes the listing in without loading the
   * rest, when it can be told apart from what the index knows: the same subfolders; every loaded
   * file still there; names not loaded either in the folder's filter (one of its unloaded files) or
   * new, and then, in a big folder, newer than its loaded newest; and as many known names as the
   * folder had. New files are stat'ed and added, and the listing stamp is real again. False on
   * anything else (everything must then be loaded). Known limit: an unloaded file removed while a
   * new one whose name the filter wrongly claims (about 1 in 100) was added balance out; the next
   * full load corrects it.
   */
  private async absorbListing(rel: string, d: Dir, st: fs.Stats): Promise<boolean> {
    if (Date.now() - st.mtimeMs <= RACY_MS) return false; // still changing
    let names: fs.Dirent[];
    try {
      names = await listDir(this.absOf(rel));
    } catch {
      return false;
    }
    const now = Date.now();
    const mark = ++this.listings;
    let known = 0;
    let subdirs = 0;
    const fresh: [string, fs.Stats][] = [];
    for (let i = 0; i < names.length; i++) {
      if ((i & 4095) === 4095) await yieldNow();
      const e = names[i];
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (!d.subdirs.has(r)) return false;
        subdirs++;
        continue;
      }
      const old = d.files.get(r);
      if (old) {
        old.seen = mark;
        known++;
      } else if (d.partial?.bloom.has(r)) known++;
      else {
        const fst = fs.lstatSync(path.join(this.scratchDir, r), { throwIfNoEntry: false });
        if (fst?.isDirectory()) return false;
        if (fst) fresh.push([r, fst]);
      }
    }
    if (subdirs !== d.subdirs.size) return false;
    const gone: string[] = [];
    for (const [r, it] of d.files) if (it.seen !== mark) gone.push(r);
    if (d.partial) {
      if (gone.length > 0 || known !== d.partial.own) return false;
      const last = d.newest?.[d.newest.length - 1];
      for (const [r, fst] of fresh) if (!last || !newer([r, itemOf(fst, now)], last)) return false;
    }
    for (const r of gone) this.removeFile(r);
    for (const [r, fst] of fresh) {
      this.setFile(r, itemOf(fst, now));
      if (d.partial) {
        d.partial.own++;
        d.partial.bloom.add(r);
      }
    }
    d.listed = { ino: st.ino, mtimeMs: st.mtimeMs, at: now };
    d.followed = undefined;
    this.listedNames += names.length;
    return true;
  }

  /** Writes the summary of the index as it is (when it can be written). */
  private async saveSummary(): Promise<void> {
    const summary = this.summaryOf();
    if (summary !== undefined) await writeFileAtomic(scratchSummaryPath(this.agentDir), summary);
  }

  /** True while big folders hold only their newest files (started from the summary). */
  get partial(): boolean {
    return this.summaryMode;
  }

  /**
   * Fills the index from the snapshot file; false (and an empty index) when there is none or any
   * part of it is unreadable. Read in blocks and parsed line by line with a yield after each
   * block, so a 7 MB snapshot never holds the event loop for more than a few milliseconds.
   */
  private async loadSnapshot(): Promise<boolean> {
    let fh: fs.promises.FileHandle;
    try {
      fh = await fs.promises.open(scratchSnapshotPath(this.agentDir), 'r');
    } catch {
      return false;
    }
    try {
      return (await this.parseSnapshot(fh)) || this.forget();
    } catch {
      return this.forget();
    } finally {
      await fh.close().catch(() => undefined);
    }
  }

  private async parseSnapshot(fh: fs.promises.FileHandle): Promise<boolean> {
    // Each folder's line comes before its files; files go straight into that folder, and subtree
    // totals are added up once per folder at the end (not bubbled up per file).
    let cur: Dir | undefined;
    let curRel = '';
    const own = new Map<Dir, [number, number]>();
    const num = (x: string): number => (x === '' ? NaN : Number(x));
    const now = Date.now();
    let header = false;
    let ended = false;
    let nFiles = 0;
    let nDirs = 0;
    // A file line (F, path, size, mtime, symlink 0/1, stat time), the bulk of the snapshot: read by
    // position, not split into an array of six strings (100,000 of them at start-up).
    const fileLine = (l: string): boolean => {
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
      const base = curRel === '' ? 2 : 2 + curRel.length + 1;
      if (t1 <= base || (curRel !== '' && (!l.startsWith(curRel, 2) || l.charCodeAt(base - 1) !== 47))) return false;
      const slash = l.indexOf('/', base);
      if (slash !== -1 && slash < t1) return false;
      const name = l.slice(base, t1);
      if (name === '.' || name === '..' || name.includes('\r')) return false;
      const rel = l.slice(2, t1);
      const files = cur!.files;
      const had = files.size;
      const it: Item = { size, mtimeMs, symlink: sym === 1, statAt, seen: 0 };
      files.set(rel, it);
      if (files.size === had || this.dirs.has(rel)) return false; // twice, or also a folder
      markHot(cur!, rel, it);
      const t = own.get(cur!)!;
      t[0]++;
      t[1] += size;
      nFiles++;
      return true;
    };
    const line = (l: string): boolean => {
      if (!header) {
        header = true;
        const h = l.split('\t');
        const scanAt = num(h[1]);
        if (h.length < 3 || h[0] !== SNAPSHOT_HEADER || h.slice(2).join('\t') !== this.scratchDir) return false;
        if (!(scanAt <= now && now - scanAt < SNAPSHOT_MAX_AGE_MS)) return false;
        this.fullScanAt = scanAt;
        return true;
      }
      if (ended) return false; // nothing may follow the end line
      if (l.charCodeAt(0) === 70 /* F */ && l.charCodeAt(1) === 9 && cur) return fileLine(l);
      const f = l.split('\t');
      if (f[0] === 'D' && f.length === 5) {
        const ino = num(f[2]);
        const mtimeMs = num(f[3]);
        const at = num(f[4]);
        const rel = f[1];
        if (![ino, mtimeMs, at].every(Number.isFinite) || (rel !== '' && BAD_REL.test(rel))) return false;
        if (this.dirs.get(rel)?.listed || this.dirs.get(parentOf(rel))?.files.has(rel)) return false; // twice, or also a file
        curRel = rel;
        cur = this.ensureDir(rel);
        cur.listed = { ino, mtimeMs, at };
        own.set(cur, [0, 0]);
        nDirs++;
        return true;
      }
      if (f[0] === 'E' && f.length === 3) {
        ended = true;
        return num(f[1]) === nDirs && num(f[2]) === nFiles;
      }
      return false;
    };
    const buf = Buffer.alloc(SNAPSHOT_BLOCK);
    const decoder = new StringDecoder('utf8');
    let carry = '';
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      const text = carry + decoder.write(buf.subarray(0, bytesRead));
      let from = 0;
      for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', from)) {
        if (!line(text.slice(from, nl))) return false;
        from = nl + 1;
      }
      carry = text.slice(from);
      if (carry.length > SNAPSHOT_BLOCK) return false; // no line is that long
      await yieldNow();
    }
    // A snapshot cut short anywhere (even at a line boundary) has no end line, or a wrong count.
    if (carry + decoder.end() !== '' || !ended || this.dirs.get('')?.listed === undefined) return false;
    for (const [rel, d] of this.dirs) {
      const t = own.get(d);
      if (t && (t[0] || t[1])) this.bubble(rel, t[0], t[1]);
    }
    return true;
  }

  private forget(): false {
    this.dirs.clear();
    this.dropOrder();
    return false;
  }

  /**
   * Writes the snapshot the next build starts from, atomically (two windows writing it leave one
   * whole snapshot, the last renamed), in pieces with yields between them. Not written (false) while
   * the index is being changed, or when it changed during the write: a snapshot must be one state.
   * The file holds this machine's absolute scratch path; the cache folder ignores itself in git.
   */
  async saveSnapshot(): Promise<boolean> {
    if (this.busy > 0 || this.summaryMode) return false;
    const gen = this.generation;
    const file = scratchSnapshotPath(this.agentDir);
    await createExclusive(path.join(path.dirname(file), '.gitignore'), '*\n');
    try {
      await writeFileAtomicParts(file, this.snapshotParts(gen));
    } catch (e) {
      if (e instanceof SnapshotOutdated) return false;
      throw e;
    }
    // The summary of the same state, if it is still that state (built in one go: no yield inside).
    const summary = this.busy === 0 && this.generation === gen ? this.summaryOf() : undefined;
    if (summary !== undefined) await writeFileAtomic(scratchSummaryPath(this.agentDir), summary);
    return true;
  }

  /**
   * The summary's text for the index as it is (see scratchSummary.ts), or undefined when a folder
   * was never listed whole or has a name the format cannot hold.
   */
  private summaryOf(): string | undefined {
    const dirs: SummaryDir[] = [];
    for (const [rel, d] of this.dirs) {
      const l = d.listed;
      if (!l || /[\t\n\r]/.test(rel)) return undefined;
      if (d.partial) {
        const files = (d.newest ??= selectNewest(d.files, d.files.size)).slice(0, Math.max(SUMMARY_FILES, d.newest.length));
        dirs.push({ rel, ino: l.ino, mtimeMs: l.mtimeMs, at: l.at, count: d.count, bytes: d.bytes, subdirs: [...d.subdirs], own: d.partial.own, files: files.map(([r, it]) => [r, it.size, it.mtimeMs, it.symlink ? 1 : 0, it.statAt]), bloom: d.partial.bloom.toBase64() });
        continue;
      }
      const big = d.files.size > RESTAT_ALL_MAX;
      const files = big ? (d.newest && d.newest.length >= SUMMARY_FILES ? d.newest.slice(0, SUMMARY_FILES) : selectNewest(d.files, SUMMARY_FILES)) : [...d.files];
      let bloom: string | undefined;
      if (big) {
        const b = NameBloom.sized(d.files.size * 2); // room to grow before false positives climb
        for (const r of d.files.keys()) b.add(r);
        bloom = b.toBase64();
      }
      dirs.push({ rel, ino: l.ino, mtimeMs: l.mtimeMs, at: l.at, count: d.count, bytes: d.bytes, subdirs: [...d.subdirs], own: d.files.size, files: files.map(([r, it]) => [r, it.size, it.mtimeMs, it.symlink ? 1 : 0, it.statAt]), bloom });
    }
    return summaryText(this.scratchDir, this.fullScanAt, dirs);
  }

  /** The snapshot's text in pieces of about SNAPSHOT_BLOCK characters; throws SnapshotOutdated when the index changes in between. */
  private async *snapshotParts(gen: number): AsyncGenerator<string> {
    const pieces: string[] = [];
    let size = 0;
    let nFiles = 0;
    let nDirs = 0;
    const push = (l: string): void => {
      pieces.push(l);
      size += l.length + 1;
    };
    const flush = (): string => {
      const out = pieces.join('\n') + '\n';
      pieces.length = 0;
      size = 0;
      return out;
    };
    const check = (): void => {
      if (this.busy > 0 || this.generation !== gen) throw new SnapshotOutdated();
    };
    push(`${SNAPSHOT_HEADER}\t${this.fullScanAt}\t${this.scratchDir}`);
    for (const [rel, d] of [...this.dirs]) {
      if (/[\t\n\r]/.test(rel)) continue; // not writable in this format: its parent gets no stamp below
      // A folder never listed whole, or holding a name with a tab or newline, is written with a
      // stamp that matches nothing: the next start lists it again.
      let odd = !d.listed;
      for (const sub of d.subdirs) if (/[\t\n\r]/.test(sub)) odd = true;
      if (!odd) for (const r of d.files.keys()) if (/[\t\n\r]/.test(r)) odd = true;
      const l = odd ? { ino: 0, mtimeMs: 0, at: 0 } : d.listed!;
      push(`D\t${rel}\t${l.ino}\t${l.mtimeMs}\t${l.at}`);
      nDirs++;
      const files = d.files.entries();
      for (let done = false; !done; ) {
        while (size < SNAPSHOT_BLOCK) {
          const n = files.next();
          if (n.done) {
            done = true;
            break;
          }
          const [r, it] = n.value;
          if (/[\t\n\r]/.test(r)) continue;
          push(`F\t${r}\t${it.size}\t${it.mtimeMs}\t${it.symlink ? 1 : 0}\t${it.statAt}`);
          nFiles++;
        }
        if (size >= SNAPSHOT_BLOCK) {
          yield flush();
          await yieldNow();
          check();
        }
      }
    }
    push(`E\t${nDirs}\t${nFiles}`);
    yield flush();
    check();
  }

  private async scanAll(): Promise<void> {
    this.dirs.clear();
    this.dropOrder();
    this.fullScanAt = Date.now();
    this.errors = [];
    const top = await fs.promises.lstat(this.scratchDir).catch(() => undefined);
    if (!top) return;
    if (!top.isDirectory()) {
      this.errors.push({ file: this.scratchDir, message: top.isSymbolicLink() ? 'is a symbolic link; it is not followed out of .agent/' : 'is not a folder' });
      return;
    }
    this.ensureDir('');
    await this.walk('');
  }

  private ensureDir(rel: string): Dir {
    let d = this.dirs.get(rel);
    if (!d) {
      d = { subdirs: new Set(), files: new Map(), hot: new Set(), count: 0, bytes: 0 };
      this.dirs.set(rel, d);
      if (rel !== '') this.ensureDir(parentOf(rel)).subdirs.add(rel);
    }
    return d;
  }

  /** Adds `delta` files and `bytes` to a folder and every folder above it. */
  private bubble(dirRel: string, delta: number, bytes: number): void {
    for (let p = dirRel; ; p = parentOf(p)) {
      const d = this.dirs.get(p);
      if (d) {
        d.count += delta;
        d.bytes += bytes;
      }
      if (p === '') break;
    }
  }

  private setFile(rel: string, item: Item): void {
    const dir = parentOf(rel);
    const d = this.ensureDir(dir);
    const old = d.files.get(rel);
    if (old && old.size === item.size && old.mtimeMs === item.mtimeMs && old.symlink === item.symlink) {
      // Seen again as it was (a file this process created, then its event): nothing changed, the order stays.
      old.statAt = item.statAt;
      markHot(d, rel, old);
      return;
    }
    // Counts as found by a listing in progress (revalidate() removes the files a listing did not mark).
    item.seen = old ? old.seen : this.listings;
    d.files.set(rel, item);
    markHot(d, rel, item);
    this.bubble(dir, old ? 0 : 1, item.size - (old?.size ?? 0));
    if (this.all) {
      if (old) {
        dropRanked(this.all, rel, old);
        this.orderEpochCounter++;
      }
      const at = rankOf(this.all, [rel, item]);
      if (at !== 0) this.orderEpochCounter++;
      this.all.splice(at, 0, [rel, item]);
    }
    if (d.newest) {
      if (old) dropRanked(d.newest, rel, old);
      const last = d.newest[d.newest.length - 1];
      // A new file is usually the newest: it goes to the front of the kept order.
      if (!last || newer([rel, item], last) || d.newest.length >= d.files.size - 1) insertRanked(d.newest, [rel, item]);
      if (d.newest.length < Math.min(PAGE_MIN, d.files.size)) d.newest = undefined;
    }
  }

  private removeFile(rel: string): void {
    const dir = parentOf(rel);
    const d = this.dirs.get(dir);
    const old = d?.files.get(rel);
    if (!d || !old) return;
    d.files.delete(rel);
    d.hot.delete(rel);
    this.bubble(dir, -1, -old.size);
    if (this.all) {
      dropRanked(this.all, rel, old);
      this.orderEpochCounter++;
    }
    if (d.newest) {
      dropRanked(d.newest, rel, old);
      if (d.newest.length < Math.min(PAGE_MIN, d.files.size)) d.newest = undefined;
    }
  }

  private removeDir(rel: string): void {
    const d = this.dirs.get(rel);
    if (!d) return;
    for (const s of [...d.subdirs]) this.removeDir(s);
    for (const f of [...d.files.keys()]) this.removeFile(f);
    this.dirs.delete(rel);
    if (rel !== '') this.dirs.get(parentOf(rel))?.subdirs.delete(rel);
  }

  /** Scans one folder's subtree into the index. */
  private async walk(rel: string, walked?: Set<string>): Promise<void> {
    walked?.add(rel);
    const abs = this.absOf(rel);
    // The folder's stamp is taken before listing: a change during the listing makes it differ next time.
    const dst = fs.lstatSync(abs, { throwIfNoEntry: false });
    const at = Date.now();
    let names: fs.Dirent[];
    try {
      names = await listDir(abs);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') this.errors.push({ file: abs, message: (e as Error).message });
      return;
    }
    const dir = this.ensureDir(rel);
    dir.listed = dst ? { ino: dst.ino, mtimeMs: dst.mtimeMs, at } : undefined;
    dir.followed = undefined;
    if (names.length > ORDER_BULK) this.dropOrder(); // sorted once when next asked for, not inserted file by file
    const subdirs: string[] = [];
    // lstatSync in small batches with a yield between them: on a local disk this costs about a
    // fifth of the CPU of fs.promises.lstat (no thread-pool hand-off and promise per file), and no
    // batch holds the event loop for more than a few milliseconds.
    for (let i = 0; i < names.length; i++) {
      const d = names[i];
      const r = rel ? `${rel}/${d.name}` : d.name;
      if (d.isDirectory()) {
        subdirs.push(r);
        continue;
      }
      let st: fs.Stats | undefined;
      try {
        this.statted++;
        st = fs.lstatSync(path.join(this.scratchDir, r));
      } catch {
        st = undefined; // deleted while scanning
      }
      if (st?.isDirectory()) subdirs.push(r);
      else if (st) this.setFile(r, itemOf(st));
      await this.maybeYield();
    }
    for (const s of subdirs) {
      this.ensureDir(s);
      await this.walk(s, walked);
    }
  }

  private async maybeYield(): Promise<void> {
    if (++this.sinceYield >= BATCH) {
      this.sinceYield = 0;
      await yieldNow();
    }
  }

  /**
   * Brings the whole index up to date at the cost of what changed (see the comment at the top of
   * the file); the first call on an index that has nothing yet scans everything.
   */
  async revalidate(): Promise<void> {
    await this.changing(() => this.revalidateNow());
  }

  private changing(work: () => Promise<void>): Promise<void> {
    // One change at a time: two listings of a folder at once would each drop what the other marked.
    const run = this.queue.then(async () => {
      this.busy++;
      this.generation++;
      try {
        await work();
      } finally {
        this.busy--;
      }
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async revalidateNow(): Promise<void> {
    if (this.summaryMode) {
      if (await this.recheckSummary()) return;
      await this.loadAll();
      return;
    }
    const top = fs.lstatSync(this.scratchDir, { throwIfNoEntry: false });
    if (!top || !top.isDirectory() || !this.dirs.get('')?.listed) {
      await this.scanAll();
      return;
    }
    this.errors = [];
    await this.recheck('', top, new Set());
  }

  /** revalidate() for one folder (its stat given) and its subfolders. */
  private async recheck(rel: string, st: fs.Stats, walked: Set<string>): Promise<void> {
    const d = this.ensureDir(rel);
    const abs = this.absOf(rel);
    const l = d.listed;
    const now = Date.now();
    const restatAll = d.files.size <= RESTAT_ALL_MAX;
    const restat = async (r: string, old: Item): Promise<void> => {
      this.statted++;
      const fst = fs.lstatSync(path.join(this.scratchDir, r), { throwIfNoEntry: false });
      await this.maybeYield();
      if (!fst) this.removeFile(r);
      else if (fst.isDirectory()) {
        this.removeFile(r);
        this.ensureDir(r);
        await this.walk(r, walked);
      } else if (fst.size !== old.size || fst.mtimeMs !== old.mtimeMs || fst.isSymbolicLink() !== old.symlink) this.setFile(r, itemOf(fst, now));
      else {
        old.statAt = now;
        markHot(d, r, old);
      }
    };
    const unchanged = l !== undefined && l.ino === st.ino && l.mtimeMs === st.mtimeMs && l.at - st.mtimeMs > RACY_MS;
    // Changed since listed, but file events told what changed (its stamp is the one taken after they were applied).
    const f = d.followed;
    const accounted = !unchanged && !this.noTrust && (this.followsEvents || f?.own === true) && l !== undefined && f !== undefined && f.ino === st.ino && f.mtimeMs === st.mtimeMs && now - l.at < TRUST_LISTING_MS;
    if (unchanged || accounted) {
      // Same entries as when listed: only files that may have been rewritten in place are stat'ed.
      const hot: [string, Item][] = [];
      if (restatAll) for (const e of d.files) hot.push(e);
      else for (const r of d.hot) hot.push([r, d.files.get(r)!]);
      for (const [r, it] of hot) await restat(r, it);
    } else {
      let names: fs.Dirent[];
      try {
        names = await listDir(abs);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') this.errors.push({ file: abs, message: (e as Error).message });
        this.removeDir(rel);
        return;
      }
      d.listed = { ino: st.ino, mtimeMs: st.mtimeMs, at: now };
      d.followed = undefined;
      this.listedNames += names.length;
      // Files found are marked with this listing's number, folders collected: what is left unmarked is gone.
      const mark = ++this.listings;
      const presentDirs = new Set<string>();
      for (let i = 0; i < names.length; i++) {
        const e = names[i];
        // A folder of 100,000 names is gone through in slices, not in one stretch.
        if ((i & 4095) === 4095) await yieldNow();
        const r = rel ? `${rel}/${e.name}` : e.name;
        const old = d.files.get(r);
        if (old) old.seen = mark;
        if (e.isDirectory()) {
          presentDirs.add(r);
          if (old) this.removeFile(r);
          if (!this.dirs.has(r)) {
            this.ensureDir(r);
            await this.walk(r, walked);
          }
        } else if (!old) {
          this.statted++;
          const fst = fs.lstatSync(path.join(this.scratchDir, r), { throwIfNoEntry: false });
          await this.maybeYield();
          if (fst?.isDirectory()) {
            presentDirs.add(r);
            this.ensureDir(r);
            await this.walk(r, walked);
          } else if (fst) {
            this.removeDir(r);
            this.setFile(r, itemOf(fst, now));
          }
        } else if (restatAll || old.statAt - old.mtimeMs <= HOT_MS) {
          await restat(r, old);
          if (this.dirs.has(r)) presentDirs.add(r); // became a folder since listed
        }
      }
      const gone: string[] = [];
      for (const [r, it] of d.files) if (it.seen !== mark) gone.push(r);
      for (const r of gone) this.removeFile(r);
      for (const s of [...d.subdirs]) if (!presentDirs.has(s)) this.removeDir(s);
    }
    for (const s of [...d.subdirs]) {
      if (walked.has(s)) continue;
      const sst = fs.lstatSync(path.join(this.scratchDir, s), { throwIfNoEntry: false });
      if (sst?.isDirectory()) await this.recheck(s, sst, walked);
      else {
        this.removeDir(s);
        if (sst) this.setFile(s, itemOf(sst, now));
      }
    }
  }

  /**
   * Brings the index up to date for paths a file watcher reported (absolute). A folder that appeared
   * is walked; a path that is gone is removed with everything under it. Paths outside the scratch
   * folder are ignored; the scratch folder itself triggers a full scan.
   */
  async update(absPaths: Iterable<string>): Promise<void> {
    await this.changing(() => this.updateNow(absPaths));
  }

  private async updateNow(absPaths: Iterable<string>): Promise<void> {
    if (this.summaryMode) {
      const paths = [...absPaths];
      for (const p of paths) this.touched.add(p);
      if (!this.updateSummary(paths)) await this.loadAll();
      else {
        this.stampFollowed(paths);
        return;
      }
      absPaths = paths;
    }
    const parents = new Set<string>();
    for (const abs of absPaths) {
      const rel = path.relative(this.scratchDir, abs).split(path.sep).join('/');
      if (rel.startsWith('..') || path.isAbsolute(rel)) continue;
      if (rel === '') {
        await this.scanAll();
        return;
      }
      parents.add(parentOf(rel));
      let st: fs.Stats | undefined;
      try {
        st = await fs.promises.lstat(abs);
      } catch {
        st = undefined;
      }
      if (!st) {
        this.removeFile(rel);
        this.removeDir(rel);
      } else if (st.isDirectory()) {
        // Re-walk it: a folder moved in brings files that may fire no events of their own.
        this.removeDir(rel);
        this.removeFile(rel);
        this.ensureDir(rel);
        await this.walk(rel);
      } else {
        this.removeDir(rel);
        this.setFile(rel, itemOf(st));
      }
    }
    this.stampFollowed(parents, true);
  }

  /** After events were applied: each folder's stamp now (a later change has an event still to come). */
  private stampFollowed(paths: Iterable<string>, areFolders = false): void {
    if (!this.followsEvents) return;
    const folders = new Set<string>();
    for (const p of paths) {
      if (areFolders) folders.add(p);
      else {
        const rel = path.relative(this.scratchDir, p).split(path.sep).join('/');
        if (rel && !rel.startsWith('..') && !path.isAbsolute(rel)) folders.add(parentOf(rel));
      }
    }
    for (const rel of folders) {
      const d = this.dirs.get(rel);
      if (!d?.listed) continue;
      const st = fs.lstatSync(this.absOf(rel), { throwIfNoEntry: false });
      d.followed = st?.isDirectory() ? { ino: st.ino, mtimeMs: st.mtimeMs } : undefined;
    }
  }

  /**
   * Applies file events in summary mode where that is safe: a new file newer than a big folder's
   * loaded newest (its name not in the folder's filter), a loaded file changed or removed, a file of
   * a small (wholly loaded) folder. False when anything else happened: everything must be loaded.
   */
  private updateSummary(paths: string[]): boolean {
    const plan: (() => void)[] = [];
    for (const abs of paths) {
      const rel = path.relative(this.scratchDir, abs).split(path.sep).join('/');
      if (rel.startsWith('..') || path.isAbsolute(rel)) continue;
      if (rel === '' || BAD_REL.test(rel) || this.dirs.has(rel)) return false;
      const d = this.dirs.get(parentOf(rel));
      if (!d) return false;
      const st = fs.lstatSync(abs, { throwIfNoEntry: false });
      if (st?.isDirectory()) return false;
      const loaded = d.files.get(rel);
      if (!d.partial) {
        if (!d.listed || d.files.size + 1 > RESTAT_ALL_MAX) return false;
        plan.push(() => (st ? this.setFile(rel, itemOf(st)) : this.removeFile(rel)));
        continue;
      }
      const part = d.partial;
      if (loaded) {
        if (!st) {
          plan.push(() => {
            this.removeFile(rel);
            part.own--;
          });
        } else {
          const last = d.newest?.[d.newest.length - 1];
          if (!last || !newer([rel, itemOf(st)], last)) return false; // would leave the loaded newest
          plan.push(() => this.setFile(rel, itemOf(st)));
        }
        continue;
      }
      if (part.bloom.has(rel)) return false; // maybe one of the files not loaded
      if (!st) continue; // never there as far as the folder knows (a temporary file come and gone)
      const last = d.newest?.[d.newest.length - 1];
      if (!last || !newer([rel, itemOf(st)], last)) return false;
      plan.push(() => {
        this.setFile(rel, itemOf(st));
        part.own++;
        part.bloom.add(rel);
      });
    }
    for (const step of plan) step();
    return true;
  }

  /**
   * Changes whenever the order of newestFirst() changes other than by a file added as the newest:
   * while it is the same, the files counted from the oldest are the same files at the same positions.
   */
  get orderEpoch(): number {
    return this.orderEpochCounter;
  }

  private dropOrder(): void {
    this.all = undefined;
    this.orderEpochCounter++;
  }

  /** A file's size and mtime, or undefined when the index has no such file. */
  file(rel: string): { size: number; mtimeMs: number } | undefined {
    if (this.summaryMode) throw new Error('the scratch index holds only the newest files of big folders: loadEverything() first');
    return this.dirs.get(parentOf(rel))?.files.get(rel);
  }

  /**
   * Every file, newest first (ties by path), as [relative path, {size, mtimeMs}] pairs: sorted once,
   * then kept in order on each change (a new file is usually inserted at the front). Do not modify.
   */
  newestFirst(): readonly (readonly [rel: string, file: { readonly size: number; readonly mtimeMs: number; readonly symlink: boolean }])[] {
    if (this.summaryMode) throw new Error('the scratch index holds only the newest files of big folders: loadEverything() first');
    if (!this.all) {
      const all: Ranked[] = [];
      for (const d of this.dirs.values()) for (const e of d.files) all.push(e);
      all.sort((a, b) => (newer(a, b) ? -1 : newer(b, a) ? 1 : 0));
      this.all = all;
    }
    return this.all;
  }

  /** Every folder known (relative paths; '' is the scratch folder itself). */
  folders(): string[] {
    return [...this.dirs.keys()];
  }

  /**
   * Records a file this process just created (absolute path), with its folder's stamp right before
   * the creation and right after it. When the index knew the folder as it was before, the creation
   * accounts for the new stamp and revalidate() need not list the folder again (an MCP server after
   * its own offload); a change by someone else in between is corrected at the next real listing,
   * within TRUST_LISTING_MS.
   */
  async noteCreated(abs: string, before: FolderStamp | undefined, after: FolderStamp | undefined): Promise<void> {
    await this.changing(async () => {
      const rel = path.relative(this.scratchDir, abs).split(path.sep).join('/');
      if (!rel || rel.startsWith('../') || rel === '..' || path.isAbsolute(rel) || BAD_REL.test(rel)) return;
      const st = fs.lstatSync(abs, { throwIfNoEntry: false });
      if (!st || st.isDirectory()) return;
      if (this.summaryMode) {
        this.touched.add(abs);
        if (!this.updateSummary([abs])) await this.loadAll();
      }
      if (!this.summaryMode) {
        this.removeDir(rel);
        this.setFile(rel, itemOf(st));
      }
      const d = this.dirs.get(parentOf(rel));
      const l = d?.listed;
      if (!d || !l || !before || !after) return;
      const knewBefore = (l.ino === before.ino && l.mtimeMs === before.mtimeMs && l.at - before.mtimeMs > RACY_MS) || (d.followed?.ino === before.ino && d.followed.mtimeMs === before.mtimeMs);
      if (knewBefore) d.followed = { ino: after.ino, mtimeMs: after.mtimeMs, own: !this.followsEvents };
    });
  }

  /** Files and bytes under the scratch folder. */
  totals(): { files: number; bytes: number } {
    const d = this.dirs.get('');
    return { files: d?.count ?? 0, bytes: d?.bytes ?? 0 };
  }

  /** A folder's subtree totals and its subfolders (sorted by name), or undefined when unknown. */
  folder(rel: string): { rel: string; count: number; bytes: number; subdirs: string[]; files: number } | undefined {
    const d = this.dirs.get(rel);
    return d ? { rel, count: d.count, bytes: d.bytes, subdirs: [...d.subdirs].sort(), files: d.partial ? d.partial.own : d.files.size } : undefined;
  }

  /** Makes sure filesPage(rel, ...) can serve files up to `upTo` (loads everything when they are past a big folder's loaded newest). */
  async ensureFiles(rel: string, upTo: number): Promise<void> {
    const d = this.dirs.get(rel);
    if (d?.partial && upTo > (d.newest?.length ?? 0) && d.partial.own > (d.newest?.length ?? 0)) await this.loadEverything();
  }

  /** A page of a folder's own files, newest first (ties by path): entries offset .. offset+count-1. */
  filesPage(rel: string, offset: number, count: number): { entries: ScratchEntry[]; total: number } {
    const d = this.dirs.get(rel);
    if (!d) return { entries: [], total: 0 };
    if (d.partial) {
      // The loaded files are the newest: a page within them is right (ensureFiles loads the rest first).
      const newest = (d.newest ??= selectNewest(d.files, d.files.size));
      const entries = newest.slice(offset, offset + count).map(([r, it]) => ({ path: path.join(this.scratchDir, r), rel: r, size: it.size, mtimeMs: it.mtimeMs, symlink: it.symlink }));
      return { entries, total: d.partial.own };
    }
    const k = Math.min(offset + count, d.files.size);
    if (!d.newest || d.newest.length < k) d.newest = selectNewest(d.files, Math.max(k, PAGE_MIN) + SLACK);
    const entries = d.newest.slice(offset, offset + count).map(([r, it]) => ({ path: path.join(this.scratchDir, r), rel: r, size: it.size, mtimeMs: it.mtimeMs, symlink: it.symlink }));
    return { entries, total: d.files.size };
  }
}

/**
 * A folder's entries, read 1,024 at a time with a yield between two reads: readdir() of a folder of
 * 100,000 names builds all their entries in one stretch on the event loop (30-40 ms). Each read is
 * synchronous (one getdents call for 1,024 names): awaiting an entry at a time costs a promise per
 * name, four times the CPU.
 */
async function listDir(abs: string): Promise<fs.Dirent[]> {
  const dir = fs.opendirSync(abs, { bufferSize: 1024 });
  const out: fs.Dirent[] = [];
  try {
    for (;;) {
      let e: fs.Dirent | null = null;
      for (let i = 0; i < 1024 && (e = dir.readSync()); i++) out.push(e);
      if (!e) break;
      await yieldNow();
    }
  } finally {
    dir.closeSync();
  }
  return out;
}

/** Keeps a folder's hot set right for a file just (re)stat'ed. */
function markHot(d: Dir, rel: string, it: Item): void {
  if (it.statAt - it.mtimeMs <= HOT_MS) d.hot.add(rel);
  else d.hot.delete(rel);
}

function itemOf(st: fs.Stats, at = Date.now()): Item {
  return { size: st.size, mtimeMs: st.mtimeMs, symlink: st.isSymbolicLink(), statAt: at, seen: 0 };
}

/** The order of a folder's files: newest first, ties by path. */
function newer(a: Ranked, b: Ranked): boolean {
  return a[1].mtimeMs > b[1].mtimeMs || (a[1].mtimeMs === b[1].mtimeMs && a[0] < b[0]);
}

/** Where `e` goes in a list kept in that order (binary search). */
function rankOf(list: Ranked[], e: Ranked): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (newer(list[mid], e)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function insertRanked(list: Ranked[], e: Ranked): void {
  list.splice(rankOf(list, e), 0, e);
}

function dropRanked(list: Ranked[], rel: string, item: Item): void {
  const i = rankOf(list, [rel, item]);
  if (list[i]?.[0] === rel) list.splice(i, 1);
}

/** The newest `k` files without sorting the folder: one pass keeping a sorted buffer of at most k. */
function selectNewest(files: Map<string, Item>, k: number): Ranked[] {
  const best: Ranked[] = [];
  for (const [r, it] of files) {
    if (best.length === k) {
      const last = best[k - 1][1];
      if (it.mtimeMs < last.mtimeMs || (it.mtimeMs === last.mtimeMs && r > best[k - 1][0])) continue;
    }
    insertRanked(best, [r, it]);
    if (best.length > k) best.pop();
  }
  return best;
}
