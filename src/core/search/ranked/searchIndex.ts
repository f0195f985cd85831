/*
 * The ranked-search index of one `.agent/` folder, as one process keeps it: the manifest as last
 * read, the runs open for reading, what is known of the folder's files, and what changed since.
 *
 * Freshness. Before a query the index is brought up to date with what changed (refresh):
 * - the first refresh of a process lists every searchable file and stats it (30,000 files: ~0.1 s);
 * - later ones relist only folders whose modification time changed (files added, removed,
 *   renamed), look at the files a watch or the caller named (an append leaves its folder's time as
 *   it was: the process watches the folders on Linux, and tools name what they wrote), and stat
 *   ROUND_FILES more in turn, a safety net for a change nothing reported;
 * - a folder watched since before its last listing is not relisted by a query when its time changes:
 *   its watch names every file made, replaced or removed in it, and those names are looked at. Its
 *   relisting waits for a refresh that allows it (the worker's upkeep, between queries), at most once
 *   per WATCHED_RELIST_MS: a safety net for an event the kernel dropped (an inotify queue overflow).
 *   At 1 GB every answer adds its list of windows beside 20,000 tool outputs, and that relisting was
 *   most of the next warm query's index time (row 24d);
 * - and whatever a query is about to quote is checked again against the file (rankedWindows.ts).
 *
 * Several processes (the editor and MCP servers) share the index: each refresh indexes under the
 * manifest's lock (fileLock.ts) in batches of at most BATCH_BYTES, re-planning each file against the
 * manifest it finds there, so a file indexed by another process meanwhile is not indexed twice.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { withFileLock } from '../../fs/fileLock';
import { toPosixRelative } from '../../workspace/relativePaths';
import { writeFileAtomic } from '../../fs/fsAtomic';
import { FolderWatch } from '../../fs/folderWatch';
import { BATCH_BYTES, fileStat, indexBatch, planFile, readAhead, type Planned } from './indexWriter';
import { tuning } from '../../processState';
import { chunkAt, chunkCount, copyManifest, emptyManifest, isLive, isRunName, liveSet, manifestBytes, manifestPath, parseManifest, searchDir, tooSparse, type LiveSet, type Manifest, type RunEntry } from './manifest';
import { equalFileKeys, fileKeyOf, sameStamp, type FileKey } from '../../fs/stamps';
import { mergeRuns, pickMerge } from './runMerge';
import { RunReader } from './runFile';
import { listFolder, listSearchable, scopeOf, SEARCH_FOLDERS, type FolderStamps, type Listed } from './sources';
import { searchedByPrefix } from './terms';

/** Files stat-checked per refresh beyond those reported changed: all of them in turn, over many refreshes. */
const ROUND_FILES_WATCHED = 256;
const ROUND_FILES_UNWATCHED = 2048;
/** A watched folder whose time changed is relisted by a refresh that allows it at most this often (the safety net above). */
export const WATCHED_RELIST_MS = 30_000;
/** A run replaced by a merge is deleted this long after (a reader in another process may be about to open it). */
const RETIRE_MS = 60_000;
const ORPHAN_MS = 10 * 60_000;

/** What a refresh did and what is left. */
export interface RefreshReport {
  indexedBytes: number;
  indexedFiles: number;
  /** Files still to index (a backlog larger than the refresh's time allowed). */
  pendingFiles: number;
  pendingBytes: number;
  failed: { rel: string; why: string }[];
  /** Files whose state was compared with the index (a stat each) to plan this refresh. */
  looked: number;
  /** Searchable names read by the folders listed again for this refresh (0 when none was). */
  relisted: number;
}

export interface SearchIndexOptions {
  /** Masks secrets in a text, lines kept. */
  mask: (text: string) => string;
  /** Watch the folders for changes (fs.watch; Linux). */
  watch?: boolean;
  log?: (message: string) => void;
  now?: () => number;
  /** Ids the live set may span beyond SPARSE_SPAN times its chunks (default SPARSE_SLACK; tests lower it). */
  sparseSlack?: number;
}

/** Words a query term starts, looked up per run at most. */
const PREFIX_MAX = 48;

/**
 * What is left of a file to index up to which it counts as small: small files are indexed before
 * large ones, so a large log (a batch of its own, cut at BATCH_TERMS) cannot keep the note or build
 * output written a moment ago out of a query's answer (the copilot run's search test: a 2.7 MB
 * terminal capture written just after the cargo log the question was about).
 */
export const SMALL_FILE_BYTES = 256 * 1024;

export class SearchIndex {
  private m: Manifest = emptyManifest();
  /** The manifest file's key when it was read (stamps.ts): another process's write changes it. */
  private key: FileKey | undefined;
  /** The live chunks of `m`, made when first asked for (a refresh of many batches replaces `m` after each). */
  private liveOf: LiveSet | undefined;
  private readonly readers = new Map<string, RunReader>();
  private listed = false;
  private readonly known = new Map<string, string>();
  private readonly folders: FolderStamps = new Map();
  private readonly dirty = new Set<string>();
  private relistAll = false;
  private roundAt = 0;
  /** Files found changed that a refresh had no time left for, newest first. */
  private backlog: Planned[] = [];
  private orphansSwept = 0;
  /**
   * Folders listed while their watch was live (armed before the listing): every name that changes in
   * them since is reported, so a changed time alone does not call for a relisting before a query.
   */
  private readonly trusted = new Set<string>();
  /** When the watched folders whose time changed were last relisted (the safety net). */
  private watchedRelistAt = 0;
  /** The names of `known`, in turn for the safety net's round (remade when `known` changes). */
  private knownNames: string[] | undefined;
  /** Files the last plan() compared with the index; names read by the folders relisted. */
  private looked = 0;
  private relisted = 0;
  private watch: FolderWatch | undefined;
  private readonly dir: string;

  constructor(readonly agentDir: string, private opts: SearchIndexOptions) {
    this.dir = searchDir(agentDir);
  }

  private now(): number {
    return this.opts.now?.() ?? Date.now();
  }

  /** The manifest as this process last read or wrote it. */
  get manifest(): Manifest {
    return this.m;
  }

  get totals(): { files: number; chunks: number; bytes: number } {
    return { files: this.live.rels.length, chunks: this.live.chunks, bytes: this.live.bytes };
  }

  private get live(): LiveSet {
    return (this.liveOf ??= liveSet(this.m));
  }

  /** The masking of the next texts indexed (the user's patterns may have changed since the last query). */
  setMask(mask: (text: string) => string): void {
    this.opts = { ...this.opts, mask };
  }

  /** A path relative to `.agent/` (POSIX) that changed: looked at by the next refresh. */
  hint(rel: string): void {
    if (scopeOf(rel)) this.dirty.add(rel);
    else if (SEARCH_FOLDERS.some((f) => rel === f || rel.startsWith(`${f}/`))) {
      // Not a searchable file: a folder made, moved or removed, or a file not searched (a tool's own
      // list). Its folder is listed again (its names diffed: relist), not every folder; a folder
      // watched since its listing only by a refresh that allows it (candidates): each answer of
      // agentContext_search writes such a list, and at 1 GB that relisting was most of the next
      // query's index time (row 24d).
      const parent = rel.slice(0, Math.max(0, rel.lastIndexOf('/')));
      if (this.folders.has(parent)) this.folders.set(parent, undefined);
      else this.relistAll = true;
    }
  }

  /** Re-reads the manifest if another process replaced it (or it is gone: an empty index). */
  load(): void {
    const file = manifestPath(this.agentDir);
    const st = fs.statSync(file, { throwIfNoEntry: false });
    const key = st ? fileKeyOf(st) : undefined;
    if (equalFileKeys(key, this.key)) return;
    let m: Manifest | undefined;
    if (st) {
      try {
        m = parseManifest(fs.readFileSync(file));
      } catch {
        m = undefined;
      }
      if (!m) this.opts.log?.(`search index: ${file} could not be read as an index; it is built anew`);
    }
    this.setManifest(m ?? emptyManifest(), key);
  }

  private setManifest(m: Manifest, key: FileKey | undefined): void {
    this.m = m;
    this.key = key;
    this.liveOf = undefined;
    const names = new Set(m.runs.map((r) => r.name));
    for (const [name, r] of this.readers) {
      if (names.has(name)) continue;
      r.close();
      this.readers.delete(name);
    }
  }

  /** The files whose state must be compared with the index now. */
  private candidates(relistWatched: boolean): Map<string, string> {
    const out = new Map<string, string>();
    this.relisted = 0;
    if (!this.listed || this.relistAll) {
      this.folders.clear();
      const all = listSearchable(this.agentDir, this.folders, this.now());
      for (const rel of this.known.keys()) out.set(rel, path.join(this.agentDir, rel));
      this.known.clear();
      this.knownNames = undefined;
      this.trusted.clear();
      for (const f of all) {
        this.known.set(f.rel, f.abs);
        out.set(f.rel, f.abs);
      }
      for (const rel in this.m.files) if (!out.has(rel)) out.set(rel, path.join(this.agentDir, rel));
      this.listed = true;
      this.relistAll = false;
      this.startWatch();
      this.dirty.clear();
      return out;
    }
    // Folders whose time changed: files added, removed or renamed in them. A folder watched since its
    // listing waits for a refresh that may relist it (its watch named what changed); the others are relisted now.
    const changed: string[] = [];
    const watchedDue = relistWatched && this.now() - this.watchedRelistAt >= WATCHED_RELIST_MS;
    let watchedChanged = false;
    for (const [dirRel, kept] of this.folders) {
      const abs = path.join(this.agentDir, dirRel);
      const st = fs.lstatSync(abs, { throwIfNoEntry: false });
      if (st?.isDirectory() && sameStamp(kept, st)) continue;
      if (st?.isDirectory() && this.trusted.has(dirRel) && this.watch?.isWatching(abs)) {
        watchedChanged = true;
        if (!watchedDue) continue;
      }
      changed.push(dirRel);
    }
    if (watchedChanged && watchedDue) this.watchedRelistAt = this.now();
    if (changed.length > 0) this.relist(changed, out);
    for (const rel of this.dirty) out.set(rel, path.join(this.agentDir, rel));
    this.dirty.clear();
    // The safety net: the next files in turn.
    const names = (this.knownNames ??= [...this.known.keys()]);
    const n = Math.min(names.length, this.watch ? ROUND_FILES_WATCHED : ROUND_FILES_UNWATCHED);
    for (let k = 0; k < n; k++) {
      const rel = names[(this.roundAt + k) % names.length];
      out.set(rel, this.known.get(rel)!);
    }
    this.roundAt = names.length ? (this.roundAt + n) % names.length : 0;
    return out;
  }

  /**
   * Lists the folders whose stamp changed again and puts into `out` the names that changed: files new
   * to the listing or to the manifest, and files gone from it (the listing and the manifest both
   * diffed). A file whose name stayed is stat-checked only where no watch reports it: a file moved
   * onto an existing name (an editor's save, writeFileAtomic) changes its folder's listing but not its
   * names, and in a watched folder its watch names it (a dirty hint) as it names an in-place edit.
   * (At 1 GB every answer of agentContext_search adds its list of windows to scratch/tool_outputs/,
   * next to 20,000 outputs: a stat of each of them made most of a warm query's time, row 24d.)
   */
  private relist(changed: readonly string[], out: Map<string, string>): void {
    this.knownNames = undefined;
    for (const dirRel of changed) {
      this.folders.delete(dirRel);
      const abs = path.join(this.agentDir, dirRel);
      // Watched before it is listed: whatever changes after the listing is reported.
      const trustNames = this.watch?.isWatching(abs) ?? false;
      if (trustNames) this.trusted.add(dirRel);
      else this.trusted.delete(dirRel);
      const found: Listed[] = [];
      const stamps: FolderStamps = new Map();
      listFolder(this.agentDir, dirRel, stamps, found, this.now());
      this.relisted += found.length;
      for (const [d, t] of stamps) if (d === dirRel || !this.folders.has(d)) this.folders.set(d, t);
      const listed = new Set<string>();
      for (const f of found) {
        listed.add(f.rel);
        if (!trustNames || !this.known.has(f.rel) || !this.m.files[f.rel]) out.set(f.rel, f.abs);
        if (!this.known.has(f.rel)) this.known.set(f.rel, f.abs);
      }
      // Gone: the folder's own files (its sub-folders have stamps of their own) known or indexed but not listed now.
      const prefix = `${dirRel}/`;
      const own = (rel: string): boolean => rel.startsWith(prefix) && !rel.includes('/', prefix.length) && !listed.has(rel);
      for (const rel of this.known.keys()) {
        if (!own(rel)) continue;
        out.set(rel, this.known.get(rel)!);
        this.known.delete(rel);
      }
      for (const rel in this.m.files) if (own(rel)) out.set(rel, path.join(this.agentDir, rel));
    }
  }

  private startWatch(): void {
    if (!this.opts.watch || this.watch) return;
    const folders = [this.agentDir, ...[...this.folders.keys()].slice(0, 1000).map((d) => path.join(this.agentDir, d))];
    this.watch = new FolderWatch(
      folders,
      (file, kind) => {
        const rel = toPosixRelative(this.agentDir, file);
        if (kind === 'rewatched') this.relistAll = true;
        else this.hint(rel);
      },
      { deep: SEARCH_FOLDERS.map((f) => path.join(this.agentDir, f)) },
    );
  }

  /**
   * The changes to index, small files before large ones and newest first (deletions first of all): those found now, and those a
   * refresh before ran out of time for (the backlog of a first build).
   */
  plan(relistWatched = false): Planned[] {
    this.load();
    const plans = new Map<string, Planned>();
    for (const p of this.backlog) plans.set(p.rel, p);
    const candidates = this.candidates(relistWatched);
    this.looked = candidates.size;
    for (const [rel, abs] of candidates) {
      const st = fileStat(abs);
      // A file a watch or a caller named, new or gone: the safety net's round covers it from now, or no more.
      if (st ? !this.known.has(rel) : this.known.has(rel)) {
        if (st) this.known.set(rel, abs);
        else this.known.delete(rel);
        this.knownNames = undefined;
      }
      const p = planFile(rel, abs, st, this.m.files[rel]);
      if (p) plans.set(rel, p);
      else plans.delete(rel);
    }
    const time = (p: Planned): number => (p.st ? p.st.mtimeMs : Infinity);
    // Small files first (a batch takes many of them), then large ones; newest first within each.
    const large = (p: Planned): number => (p.st && p.st.size - p.fromByte > SMALL_FILE_BYTES ? 1 : 0);
    return [...plans.values()].sort((a, b) => large(a) - large(b) || time(b) - time(a) || (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  }

  /**
   * Brings the index up to date, indexing newest first until `deadline` (a time from `now`); what
   * is left is counted in the report and indexed by later refreshes.
   */
  async refresh(deadline: number, opts: { relistWatched?: boolean } = {}): Promise<RefreshReport> {
    let todo = this.plan(opts.relistWatched ?? false);
    const report: RefreshReport = { indexedBytes: 0, indexedFiles: 0, pendingFiles: 0, pendingBytes: 0, failed: [], looked: this.looked, relisted: this.relisted };
    this.backlog = todo;
    while (todo.length > 0 && this.now() < deadline) {
      todo = await withFileLock(manifestPath(this.agentDir), async () => {
        this.load();
        // The plan made before the lock was only a list of files to look at: planned again against the manifest as it is now.
        const batch: Planned[] = [];
        let bytes = 0;
        let k = 0;
        for (; k < todo.length && bytes < batchBytes(); k++) {
          const t = todo[k];
          const p = planFile(t.rel, t.abs, fileStat(t.abs), this.m.files[t.rel]);
          if (!p) continue;
          batch.push(p);
          if (p.st) bytes += p.st.size - p.fromByte;
        }
        readAhead(todo.slice(k), batchBytes());
        const m = copyManifest(this.m);
        const out = indexBatch(this.dir, m, batch, this.opts.mask, batchBytes());
        report.indexedBytes += out.bytes;
        report.indexedFiles += out.done.length;
        report.failed.push(...out.failed);
        this.sweepRetired(m);
        await this.writeManifest(m);
        // What the batch left (a file indexed in part, files past the budget) is looked at again.
        const left = todo.slice(k);
        const handled = new Set([...out.done, ...out.failed.map((f) => f.rel)]);
        for (const p of batch) if (!handled.has(p.rel)) left.unshift(p);
        return left;
      });
      this.backlog = todo;
    }
    for (const t of todo) {
      report.pendingFiles++;
      if (!t.st) continue;
      // A file indexed in part by this refresh: what is left of it (its plan was made before).
      const e = this.m.files[t.rel];
      const done = e && e.ino === t.st.ino && e.size <= t.st.size ? Math.max(e.size, t.fromByte) : t.fromByte;
      report.pendingBytes += t.st.size - done;
    }
    return report;
  }

  private async writeManifest(m: Manifest): Promise<void> {
    const st = await writeFileAtomic(manifestPath(this.agentDir), manifestBytes(m));
    // The stats of the written file are this content's: the next load() knows it needs no read.
    this.setManifest(m, fileKeyOf(fs.statSync(manifestPath(this.agentDir), { throwIfNoEntry: false }) ?? st));
  }

  /**
   * Deletes the runs retired long enough ago, and run files no manifest names that are older than
   * ORPHAN_MS (a process killed between writing a run and the manifest; a merge in progress elsewhere
   * is younger). Called under the lock.
   */
  private sweepRetired(m: Manifest): void {
    const now = this.now();
    m.retired = m.retired.filter((r) => {
      if (now - r.at < RETIRE_MS) return true;
      fs.rmSync(path.join(this.dir, r.name), { force: true });
      return false;
    });
    if (now - this.orphansSwept < ORPHAN_MS) return;
    this.orphansSwept = now;
    const named = new Set([...m.runs.map((r) => r.name), ...m.retired.map((r) => r.name)]);
    let names: string[] = [];
    try {
      names = fs.readdirSync(this.dir);
    } catch {
      return;
    }
    for (const n of names) {
      if (!isRunName(n) || named.has(n)) continue;
      const st = fs.statSync(path.join(this.dir, n), { throwIfNoEntry: false });
      if (st && Date.now() - st.mtimeMs > ORPHAN_MS) fs.rmSync(path.join(this.dir, n), { force: true });
    }
  }

  /** Merges runs when the tiers call for it; false when none needed it (or another process changed them meanwhile). */
  async mergeOnce(): Promise<boolean> {
    this.load();
    const live = this.live;
    const group = pickMerge(this.m.runs, (r) => {
      let n = 0;
      for (let id = Math.max(r.lo, live.base); id <= r.hi && id - live.base < live.chunkFile.length; id++) if (isLive(live, id)) n++;
      return n;
    });
    if (!group) return false;
    const merged = mergeRuns(this.dir, group, (id) => isLive(live, id));
    return withFileLock(manifestPath(this.agentDir), async () => {
      this.load();
      const names = new Set(group.map((r) => r.name));
      if (this.m.runs.filter((r) => names.has(r.name)).length !== group.length) {
        fs.rmSync(path.join(this.dir, merged.name), { force: true });
        return false;
      }
      const m = copyManifest(this.m);
      m.runs = [...m.runs.filter((r) => !names.has(r.name)), merged].sort((a, b) => a.lo - b.lo);
      m.retired.push(...group.map((r) => ({ name: r.name, at: this.now() })));
      this.sweepRetired(m);
      await this.writeManifest(m);
      return true;
    });
  }

  /**
   * Indexes the files holding the oldest live chunks again, one batch, when the live set spans too
   * many ids for its live chunks (manifest.ts tooSparse): they take new ids, and the ids below them
   * leave the live set's arrays. False when the span is within bound (or nothing could be done).
   * A step of the worker's upkeep, like mergeOnce; never of a query.
   */
  async compactOnce(): Promise<boolean> {
    this.load();
    if (!tooSparse(this.live, this.opts.sparseSlack)) return false;
    return withFileLock(manifestPath(this.agentDir), async () => {
      this.load();
      const live = this.live;
      if (!tooSparse(live, this.opts.sparseSlack)) return false;
      // Oldest first: a file's chunks are in id order, so its first chunk is its oldest.
      const oldest = live.entries
        .map((e, f) => ({ f, first: e.c.length > 0 ? e.c[0] : Infinity }))
        .filter((x) => x.first < Infinity)
        .sort((a, b) => a.first - b.first);
      const batch: Planned[] = [];
      let bytes = 0;
      for (const { f } of oldest) {
        if (bytes >= batchBytes()) break;
        const rel = live.rels[f];
        const abs = path.join(this.agentDir, rel);
        const st = fileStat(abs);
        // Changed meanwhile: indexed as any change is; unchanged: indexed again whole.
        const p = planFile(rel, abs, st, this.m.files[rel]) ?? { rel, abs, st, keep: 0, fromByte: 0, fromLine: 1 };
        batch.push(p);
        if (p.st) bytes += p.st.size - p.fromByte;
      }
      if (batch.length === 0) return false;
      const m = copyManifest(this.m);
      indexBatch(this.dir, m, batch, this.opts.mask, batchBytes());
      this.sweepRetired(m);
      await this.writeManifest(m);
      return true;
    });
  }

  private reader(r: RunEntry): RunReader | undefined {
    let rd = this.readers.get(r.name);
    if (rd) return rd;
    try {
      rd = RunReader.open(path.join(this.dir, r.name));
    } catch (e) {
      this.opts.log?.(`search index: run ${r.name} cannot be read (${(e as Error).message}); its files are indexed again`);
      return undefined;
    }
    this.readers.set(r.name, rd);
    return rd;
  }

  /** Runs that could not be opened: dropped, and the files with chunks in them indexed anew. */
  async repair(broken: RunEntry[]): Promise<void> {
    if (broken.length === 0) return;
    await withFileLock(manifestPath(this.agentDir), async () => {
      this.load();
      const m = copyManifest(this.m);
      const names = new Set(broken.map((r) => r.name));
      m.runs = m.runs.filter((r) => !names.has(r.name));
      for (const [rel, e] of Object.entries(m.files)) {
        for (let i = 0; i < chunkCount(e); i++) {
          const id = chunkAt(e, i).id;
          if (broken.some((r) => id >= r.lo && id <= r.hi)) {
            delete m.files[rel];
            break;
          }
        }
      }
      await this.writeManifest(m);
    });
  }

  /** The live chunks and the totals BM25 needs. */
  get liveChunks(): LiveSet {
    return this.live;
  }

  /**
   * The postings of a query term over all runs, encoded (runFile.ts decodePostingsInto): of the term
   * itself and, for a term searchedByPrefix allows, of the words it starts (up to PREFIX_MAX per run),
   * each with its document frequency. Runs that cannot be read are named in `broken`.
   */
  lookup(q: string): { found: Map<string, { df: number; lists: Buffer[] }>; broken: RunEntry[] } {
    const broken: RunEntry[] = [];
    const found = new Map<string, { df: number; lists: Buffer[] }>();
    for (const r of this.m.runs) {
      const rd = this.reader(r);
      if (!rd) {
        broken.push(r);
        continue;
      }
      const entries = searchedByPrefix(q) ? rd.withPrefix(q, PREFIX_MAX) : [rd.entry(q)].filter((e) => e !== undefined);
      const lists = rd.rawPostings(entries);
      entries.forEach((e, k) => {
        let f = found.get(e.term);
        if (!f) found.set(e.term, (f = { df: 0, lists: [] }));
        f.df += e.df;
        f.lists.push(lists[k]);
      });
    }
    return { found, broken };
  }

  /** Closes the runs and stops watching. */
  dispose(): void {
    this.watch?.dispose();
    this.watch = undefined;
    for (const r of this.readers.values()) r.close();
    this.readers.clear();
  }
}

/** The bytes indexed per batch (tests tune it: processState.ts). */
const batchBytes = (): number => tuning.searchBatchBytes ?? BATCH_BYTES;
