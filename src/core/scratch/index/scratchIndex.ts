import * as fs from 'node:fs';
import * as path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { cacheHomeExists, createExclusive, writeFileAtomic, writeFileAtomicParts } from '../../fs/fsAtomic';
import type { FileError } from '../../result';
import { scratchDirOf, type ScratchEntry } from '../scratchEntry';
import { applyEvents, createdRel, foldersOf, noteOwnCreation, stampFollowed } from './scratchEvents';
import { scratchSnapshotPath, snapshotLines, SnapshotReader } from './scratchSnapshot';
import { parseSummary, scratchSummaryPath, summaryOf } from './scratchSummary';
import { applyEventsInSummary, loadSummaryInto, recheckSummary, relistSummary } from './scratchSummaryMode';
import { itemOf, parentOf, ScratchTree } from './scratchTree';
import type { FolderStamp } from '../../fs/stamps';
import { revalidateTree, scanAll, type IndexState } from './scratchWalk';
import { yieldNow } from '../../eventLoop';

export { scratchSnapshotPath } from './scratchSnapshot';

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

/*
 * This file is the facade: it queues changes one at a time and decides between the parts, which
 * a reviewer can read one by one:
 *   scratchTree.ts        the tree, the orders, the queries, and the one definition of "unchanged"
 *   scratchWalk.ts        the disk walk and revalidation
 *   scratchEvents.ts      file events and this process's own creations
 *   scratchSnapshot.ts    the snapshot's text format (no disk)
 *   scratchSummary.ts     the summary's format (no disk)
 *   scratchSummaryMode.ts an index holding only the newest files of big folders
 */

/** A build that stat'ed more files than this, or listed that many names of changed folders, writes a snapshot for the next start. */
const SNAPSHOT_AFTER_STATS = 2000;
/** The snapshot is read and written in blocks of this many bytes (characters), with a yield between two. */
const SNAPSHOT_BLOCK = 128 * 1024;

/** A background snapshot write abandoned because the index changed is tried this many times in all, this far apart. */
const SAVE_TRIES = 5;
const SAVE_RETRY_MS = 1000;

class SnapshotOutdated extends Error {}

const SUMMARY_ONLY = 'the scratch index holds only the newest files of big folders: loadEverything() first';

/** `.agent/scratch/` as an index that follows changes (see the comments at the top of the file). */
export class ScratchIndex {
  readonly scratchDir: string;
  private readonly tree: ScratchTree;
  private readonly s: IndexState;
  /** Changes (update / revalidate) running now, and how many have started: saveSnapshot() writes one state. */
  private busy = 0;
  private generation = 0;
  /** The end of the queue of changes: revalidate() and update() run one at a time, in call order. */
  private queue: Promise<void> = Promise.resolve();
  /** True while some folders hold only their newest files (started from the summary). */
  private summaryMode = false;
  /** Paths changed while in summary mode, applied again once everything is loaded. */
  private readonly touched = new Set<string>();

  private constructor(readonly agentDir: string) {
    this.scratchDir = scratchDirOf(agentDir);
    this.tree = new ScratchTree(this.scratchDir);
    this.s = { agentDir, tree: this.tree, errors: [], statted: 0, listedNames: 0, sinceYield: 0, fullScanAt: 0, followsEvents: false, noTrust: false };
  }

  /** Problems that did not stop the scan (unreadable folders, a symlinked scratch folder). */
  get errors(): FileError[] {
    return this.s.errors;
  }

  /**
   * True when every file event for the scratch folder reaches update() (an editor's watcher feeds
   * it): revalidate() may then trust events for folders they account for.
   */
  get followsEvents(): boolean {
    return this.s.followsEvents;
  }

  set followsEvents(v: boolean) {
    this.s.followsEvents = v;
  }

  /**
   * Indexes the scratch folder of an `.agent/` folder: from the snapshot of a previous start
   * revalidated against the disk when there is one (`snapshot: false` scans everything), else by a
   * full scan. Writes a new snapshot in the background when the build had to stat many files.
   * `firstScan`: with neither a summary nor a snapshot (a first start), scans every file elsewhere
   * and writes the snapshot and summary, true when it did (the editor: on the check worker,
   * firstScanOnWorker); the index then starts from that summary, else it scans here.
   */
  static async build(agentDir: string, opts: { snapshot?: boolean; summary?: boolean; firstScan?: (agentDir: string) => Promise<boolean> } = {}): Promise<ScratchIndex> {
    const ix = new ScratchIndex(agentDir);
    const useSnapshot = opts.snapshot !== false;
    // From the summary when nothing changed since it was written: the newest files of big folders only.
    const fromSummary = async (): Promise<boolean> => {
      if (!(await ix.loadSummary())) return false;
      // Folders changed since the summary were listed and taken in: a new summary spares the next start that.
      if (ix.s.listedNames > 0) void ix.queue.then(() => ix.saveSummary()).catch(() => undefined);
      return true;
    };
    if (useSnapshot && opts.summary && (await fromSummary())) return ix;
    if (useSnapshot && opts.summary && opts.firstScan && !fs.existsSync(scratchSnapshotPath(agentDir)) && (await opts.firstScan(agentDir)) && (await fromSummary())) return ix;
    if (useSnapshot && (await ix.loadSnapshot())) await ix.revalidate();
    else await scanAll(ix.s);
    if (useSnapshot) ix.saveSnapshotIfWorthIt();
    return ix;
  }

  /** Writes the snapshot (and summary) in the background when this index had to stat or list many files to get here. */
  private saveSnapshotIfWorthIt(): void {
    if (this.s.statted + this.s.listedNames > SNAPSHOT_AFTER_STATS) {
      this.s.statted = 0;
      this.s.listedNames = 0;
      // Not awaited: the index is usable now; a failed write only means a full scan next time. Queued
      // after the change in progress, if any (a snapshot is never written while the index is changing).
      this.saveSoon(SAVE_TRIES);
    }
  }

  /**
   * Writes the snapshot after the change in progress; a write abandoned because the index changed
   * meanwhile (the next call's update, at once) is tried again a little later, a few times: without
   * it, every new process loaded everything until some process happened to save.
   */
  private saveSoon(tries: number): void {
    void this.queue
      .then(() => this.saveSnapshot())
      .then((saved) => {
        if (saved || tries <= 1 || this.summaryMode) return;
        setTimeout(() => this.saveSoon(tries - 1), SAVE_RETRY_MS).unref?.();
      })
      .catch(() => undefined);
  }

  /**
   * Starts from the summary: true when it exists, is whole, names this folder and its folders, and
   * every folder in it is as the index knows it or lists as the summary and new files explain.
   */
  private async loadSummary(): Promise<boolean> {
    let text: string;
    try {
      text = await fs.promises.readFile(scratchSummaryPath(this.agentDir), 'utf8');
    } catch {
      return false;
    }
    const sum = parseSummary(text, this.scratchDir);
    if (!sum || !loadSummaryInto(this.s, sum)) return false;
    this.summaryMode = true;
    try {
      if (await recheckSummary(this.s)) return true;
    } catch {
      // falls back below
    }
    this.summaryMode = false;
    this.touched.clear();
    this.tree.clear();
    return false;
  }

  /** Loads everything (snapshot, else a full scan) when started from the summary; then brought up to date with the disk. */
  private async loadAll(): Promise<void> {
    if (!this.summaryMode) return;
    const touched = [...this.touched];
    this.summaryMode = false;
    this.touched.clear();
    this.tree.clear();
    if (await this.loadSnapshot()) {
      await this.revalidateNow();
      await this.updateNow(touched);
    } else await scanAll(this.s);
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
      if (this.summaryMode) {
        const r = await relistSummary(this.s);
        if (r === 'load') return this.loadAll();
        if (r === true) await this.saveSummary();
        return;
      }
      const before = this.s.listedNames;
      this.s.noTrust = true;
      try {
        await this.revalidateNow();
      } finally {
        this.s.noTrust = false;
      }
      save = this.s.listedNames > before; // any real listing is worth a new snapshot here
    });
    // Written once the change is over (a snapshot is never written while the index is changing).
    if (save && (await this.saveSnapshot().catch(() => false))) {
      this.s.statted = 0;
      this.s.listedNames = 0;
    }
  }

  /** Writes the summary of the index as it is (when it can be written). */
  private async saveSummary(): Promise<void> {
    const summary = await summaryOf(this.tree, this.s.fullScanAt, yieldNow);
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
      if (await this.readSnapshot(fh)) return true;
    } catch {
      // unusable: scanned instead
    } finally {
      await fh.close().catch(() => undefined);
    }
    this.tree.clear();
    return false;
  }

  private async readSnapshot(fh: fs.promises.FileHandle): Promise<boolean> {
    const reader = new SnapshotReader(this.tree);
    const buf = Buffer.alloc(SNAPSHOT_BLOCK);
    const decoder = new StringDecoder('utf8');
    let carry = '';
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      const text = carry + decoder.write(buf.subarray(0, bytesRead));
      let from = 0;
      for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', from)) {
        if (!reader.line(text.slice(from, nl))) return false;
        from = nl + 1;
      }
      carry = text.slice(from);
      if (carry.length > SNAPSHOT_BLOCK) return false; // no line is that long
      await yieldNow();
    }
    // A snapshot cut short anywhere (even at a line boundary) has no end line, or a wrong count.
    if (carry + decoder.end() !== '' || !reader.finish()) return false;
    this.s.fullScanAt = reader.fullScanAt;
    return true;
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
    if (!cacheHomeExists(file)) return false; // .agent/ deleted meanwhile: not created again for a cache
    await createExclusive(path.join(path.dirname(file), '.gitignore'), '*\n');
    let whole = true;
    try {
      await writeFileAtomicParts(file, this.snapshotParts(gen));
    } catch (e) {
      if (!(e instanceof SnapshotOutdated)) throw e;
      whole = false;
    }
    // The summary, whether or not the snapshot could be written: while an agent works, scratch changes
    // more often than a 100,000-line snapshot takes to write, and without a summary the next start
    // loaded everything. It is of the index between two changes (queued as a change is), so it need
    // not be of the snapshot's state: each is checked against the disk when a start reads it.
    // Awaited: no caller holds the queue (saveSoon and relist call this outside a change).
    await this.between(() => this.saveSummary()).catch(() => undefined);
    return whole;
  }

  /** The snapshot's text in pieces of about SNAPSHOT_BLOCK characters; throws SnapshotOutdated when the index changes in between. */
  private async *snapshotParts(gen: number): AsyncGenerator<string> {
    const check = (): void => {
      if (this.busy > 0 || this.generation !== gen) throw new SnapshotOutdated();
    };
    let pieces: string[] = [];
    let size = 0;
    for (const l of snapshotLines(this.tree, this.s.fullScanAt)) {
      pieces.push(l);
      size += l.length + 1;
      if (size >= SNAPSHOT_BLOCK) {
        yield pieces.join('\n') + '\n';
        pieces = [];
        size = 0;
        await yieldNow();
        check();
      }
    }
    yield pieces.join('\n') + '\n';
    check();
  }

  /**
   * Brings the whole index up to date at the cost of what changed (see the comment at the top of
   * the file); the first call on an index that has nothing yet scans everything.
   * `trustEvents: false`: events were dropped or are unknown (a batch too big to apply path by path,
   * `.agent/` replaced, the user's Refresh), so a folder's stamp recorded after earlier events proves
   * nothing: every folder changed since it was listed is listed again.
   */
  async revalidate(opts: { trustEvents?: boolean } = {}): Promise<void> {
    await this.changing(async () => {
      if (opts.trustEvents !== false) return this.revalidateNow();
      this.s.noTrust = true;
      try {
        await this.revalidateNow();
      } finally {
        this.s.noTrust = false;
      }
    });
  }

  /** Runs `work` between changes, queued as one is, without counting as one (a read of the whole tree). */
  private between(work: () => Promise<void>): Promise<void> {
    const run = this.queue.then(work);
    this.queue = run.catch(() => undefined);
    return run;
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
      if (await recheckSummary(this.s)) return;
      await this.loadAll();
      return;
    }
    await revalidateTree(this.s);
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
      if (applyEventsInSummary(this.s, paths)) {
        stampFollowed(this.s, foldersOf(this.s, paths));
        return;
      }
      await this.loadAll();
      absPaths = paths;
    }
    await applyEvents(this.s, absPaths);
  }

  /**
   * Changes whenever the order of newestFirst() changes other than by a file added as the newest:
   * while it is the same, the files counted from the oldest are the same files at the same positions.
   */
  get orderEpoch(): number {
    return this.tree.orderEpoch;
  }

  /** A file's size and mtime, or undefined when the index has no such file. */
  file(rel: string): { size: number; mtimeMs: number } | undefined {
    if (this.summaryMode) throw new Error(SUMMARY_ONLY);
    return this.tree.dirs.get(parentOf(rel))?.files.get(rel);
  }

  /**
   * Every file, newest first (ties by path), as [relative path, {size, mtimeMs}] pairs: sorted once,
   * then kept in order on each change (a new file is usually inserted at the front). Do not modify.
   */
  newestFirst(): readonly (readonly [rel: string, file: { readonly size: number; readonly mtimeMs: number; readonly symlink: boolean }])[] {
    if (this.summaryMode) throw new Error(SUMMARY_ONLY);
    return this.tree.newestFirst();
  }

  /** Every folder known (relative paths; '' is the scratch folder itself). */
  folders(): string[] {
    return [...this.tree.dirs.keys()];
  }

  /**
   * Records a file this process just created (absolute path), with its folder's stamp right before
   * the creation and right after it. When the index knew the folder as it was before, the creation
   * accounts for the new stamp and revalidate() need not list the folder again (an MCP server after
   * its own offload); a change by someone else in between is corrected at the next real listing.
   */
  async noteCreated(abs: string, before: FolderStamp | undefined, after: FolderStamp | undefined): Promise<void> {
    await this.changing(async () => {
      const rel = createdRel(this.s, abs);
      if (!rel) return;
      const st = fs.lstatSync(abs, { throwIfNoEntry: false });
      if (!st || st.isDirectory()) return;
      if (this.summaryMode) {
        this.touched.add(abs);
        if (!applyEventsInSummary(this.s, [abs])) await this.loadAll();
      }
      if (!this.summaryMode) {
        this.tree.removeDir(rel);
        this.tree.setFile(rel, itemOf(st));
      }
      noteOwnCreation(this.s, rel, before, after);
    });
  }

  /** Files and bytes under the scratch folder. */
  totals(): { files: number; bytes: number } {
    return this.tree.totals();
  }

  /**
   * A digest of the index's state, the same whether it holds every file or started from the summary
   * (ScratchTree.digest): what a result computed from the index (cleanup's dry run) is stored under.
   */
  stateDigest(): string {
    return this.tree.digest();
  }

  /** A folder's subtree totals and its subfolders (sorted by name), or undefined when unknown. */
  folder(rel: string): { rel: string; count: number; bytes: number; subdirs: string[]; files: number } | undefined {
    return this.tree.folder(rel);
  }

  /** Makes sure filesPage(rel, ...) can serve files up to `upTo` (loads everything when they are past a big folder's loaded newest). */
  async ensureFiles(rel: string, upTo: number): Promise<void> {
    const d = this.tree.dirs.get(rel);
    if (d?.partial && upTo > (d.newest?.length ?? 0) && d.partial.own > (d.newest?.length ?? 0)) await this.loadEverything();
  }

  /** A page of a folder's own files, newest first (ties by path): entries offset .. offset+count-1. */
  filesPage(rel: string, offset: number, count: number): { entries: ScratchEntry[]; total: number } {
    return this.tree.filesPage(rel, offset, count);
  }
}
