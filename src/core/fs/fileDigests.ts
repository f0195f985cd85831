/**
 * What was parsed from many small files (notes, skills, plans), remembered per file with the stat
 * it was read at, so a listing of thousands of them costs a readdir and a stat per file instead of a
 * read and a parse of each (issue 22 §1: 10,000 notes took seconds per briefing).
 *
 * Each file's digest is keyed on its device, inode, size, mtime and ctime: an edit in place (size or
 * mtime), a replacement by rename (inode), a change of permissions (ctime), a truncation or a
 * deletion is seen by the stat, and only that file is read again. `get` checks a whole listing,
 * `refresh` only the files named (a watcher reported them). The digests live in memory per process and in one file per kind,
 * `.agent/.cache/<name>.json`, loaded once per process and rewritten atomically (temp + rename) by a
 * process once 1/64 of the entries changed since it last wrote (so a cache of one file is written at
 * each change, and one of 10,000 is not rewritten whole for one file added: a new process re-reads
 * at most that 1/64); several processes may write it, the last whole write wins, and
 * since every entry is checked against its file's stat before use, a stale or foreign entry only
 * costs a re-read. A cache file that is missing, unparsable, of another format or version, or whose
 * entries do not have the shape `valid` accepts is rebuilt from the files (bad entries alone are
 * re-read). Files that cannot be read are never remembered: they are reported on every call.
 *
 * A process's first check of a large cache (10,000 notes) is done by a worker thread while this
 * one parses the file (digestCheck.ts): the first get then stats only the files the worker found
 * changed, so the extension host's thread does not pay 10,000 stats at every editor start.
 *
 * The file is a header line and one JSON line per entry. A load keeps each line as text under its
 * path, and parses (and checks) it when that file is first asked for: the Plan view's first page
 * of 21 plans does not parse the 1,000 others (~10 ms at every start), and 10,000 notes are parsed
 * a slice at a time by the pass that asks for them all (their single JSON.parse blocked the editor
 * ~30 ms, bench row 19b). A line cut short (a truncated file) or malformed is dropped when it is
 * parsed, and its file read again.
 *
 * A kind whose spec says `watch` (plans: 1,000 files in a few folders) is not stat'ed file by file
 * at every `get` either, where a watch tells what changed (Linux; FolderWatch, one inotify watch per
 * folder that holds files of the list, up to MAX_WATCHED_FOLDERS). A file is trusted unchecked when
 * its folder is watched, was checked whole since, its stamp (inode, mtime, ctime) is the one of that
 * check, and no event named the file since. An edit in place is seen from its event (a get first
 * lets the events already queued arrive: two turns of the event loop, so even this process's own
 * write of a moment ago is heard); a file added, removed or replaced by rename (every atomic write)
 * changes the folder's stamp, seen at once, events or not. A folder watched anew, or whose watch
 * was lost, is checked whole; and as a safety net (an event the kernel dropped) one round of
 * WATCHED_ROUND files is stat'ed at most every WATCHED_REFRESH_MS.
 * A watch costs ~25 µs to set up, so a kind with a folder per file (skills: 500 SKILL.md in 500
 * folders) is not watched: its watches would cost a process's first call more than the stats they
 * spare its few later ones.
 * At 1,000 plans the per-file stats were ~4 ms of every briefing (bench row 19n).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CACHE_FILES, cacheFile, type CacheName } from '../workspace/cacheFiles';
import { FolderWatch, queuedEventsHeard } from './folderWatch';
import { fileKeyOf, isFileKey, sameFileKey, sameStamp, settledStamp, stampOf, type FileKey, type FolderStamp } from './stamps';
import { writeCacheFile } from './fsAtomic';
import { cacheLines, entryLinePath, entryPath, startDigestCheck } from './digestCheck';
import { tuning } from '../processState';
import { round } from '../rollingCheck';
import { yieldNow } from '../eventLoop';

/** What kind of digest a cache holds, and how to tell a well-formed one. */
export interface DigestSpec<T> {
  /** Its cache file in `.agent/.cache/` (workspace/cacheFiles.ts); the file's name without `.json` is the header's name. */
  cache: CacheName;
  /** Bump when the digest's shape or meaning changes: older files are then rebuilt. */
  version: number;
  /** True for a value this code could have written. */
  valid: (v: unknown) => v is T;
  /** Watch the folders of the files `get` is given, and stat only what their events and stamps name (see above). */
  watch?: boolean;
}

/** A digest under the key of the file it was read from (fs/stamps.ts). */
type Entry<T> = { key: FileKey; value: T };
/** The first line of a cache file; each further line is [path relative to the `.agent/` folder, stat key, digest]. */
interface DigestHeader {
  format: typeof FORMAT;
  name: string;
  v: number;
  count: number;
}
const FORMAT = 'agent-context-digests/lines';


/** Sync stats between yields to the event loop (the extension host must not block for long). */
const STATS_PER_SLICE = 1000;
/** Cache lines parsed between yields to the event loop. */
const LINES_PER_SLICE = 1000;
/** The cache file is rewritten once 1/SAVE_SLACK of its entries changed (see saveIfDue). */
const SAVE_SLACK = 64;
/** Where a watch reports changes: files re-checked per round of the safety net... */
const WATCHED_ROUND = 500;
/** ...and a round at most this often: tuning.digestWatchedRefreshMs (processState.ts). */
/** Folders watched per kind at most (each is an inotify watch, a resource the user's whole session shares); files in others are stat'ed. */
const MAX_WATCHED_FOLDERS = 512;

/**
 * A watched folder of a `watch` kind: whether it was checked whole since it was watched (false:
 * check it whole next time), its stamp at that check, the files its events named since.
 */
interface WatchedFolder {
  watch: FolderWatch;
  checked: boolean;
  stamp?: FolderStamp;
  named: Set<string>;
}

/** The digests of one kind for one `.agent/` folder (FileDigests.of keeps one per process). */
export class FileDigests<T> {
  private static readonly all = new Map<string, FileDigests<unknown>>();
  /** Remembered digests by absolute path; a string is a cache file's line not parsed yet (see known()). */
  private readonly entries = new Map<string, Entry<T> | string>();
  private loaded = false;
  /** Entries read, changed or dropped since the cache file was last written. */
  private unsaved = 0;
  /** Counts every change to `entries`: while it stands, the last answer of `get` for the same files stands. */
  private generation = 0;
  private last: { generation: number; files: string[]; values: Map<string, T> } | undefined;
  /** After a load whose check ran off the thread: the files whose stat differed from their entry (digestCheck.ts). */
  private checkedOffThread: Set<string> | undefined;
  /** How the last get or refresh checked the remembered entries: on a worker (the first after a large cache's load) or on this thread (tests). */
  lastCheck: 'worker' | 'thread' | undefined;
  /** Files the last get or refresh stat'ed (tests: a watched kind stats only what changed). */
  lastStats = 0;
  /** A `watch` kind's folders, by absolute path. */
  private readonly watched = new Map<string, WatchedFolder>();
  /** The safety net's next round: where it starts in the list, and when it is due. */
  private roundFrom = 0;
  private roundAt = 0;

  /** `agentDir` resolved, with a trailing separator: entries are stored relative to it (a prefix, not path.relative: thousands of entries). */
  private readonly prefix: string;

  private constructor(private readonly agentDir: string, private readonly spec: DigestSpec<T>) {
    this.prefix = path.resolve(agentDir) + path.sep;
  }

  /** The process-wide digests of `spec` for `agentDir`. */
  static of<T>(agentDir: string, spec: DigestSpec<T>): FileDigests<T> {
    const id = `${spec.cache}\0${path.resolve(agentDir)}`;
    let d = FileDigests.all.get(id) as FileDigests<T> | undefined;
    if (!d) {
      d = new FileDigests(agentDir, spec);
      FileDigests.all.set(id, d as FileDigests<unknown>);
    }
    return d;
  }

  /** An instance of its own, as a new process would start (tests; every caller in a process shares `of`). */
  static unshared<T>(agentDir: string, spec: DigestSpec<T>): FileDigests<T> {
    return new FileDigests(agentDir, spec);
  }

  /** `<agentDir>/.cache/<name>.json`. */
  get file(): string {
    return cacheFile(this.agentDir, this.spec.cache);
  }

  /** The name its file's header carries. */
  private get name(): string {
    return CACHE_FILES[this.spec.cache].file('').replace(/\.json$/, '');
  }

  private async load(): Promise<void> {
    this.loaded = true;
    let text: string;
    let h: DigestHeader;
    let stamp: FileKey;
    // A large cache's entries are checked against their files on a worker meanwhile (digestCheck.ts).
    const check = startDigestCheck(this.file, this.agentDir);
    try {
      const fh = await fs.promises.open(this.file, 'r');
      try {
        stamp = fileKeyOf(await fh.stat());
        text = await fh.readFile('utf8');
      } finally {
        await fh.close();
      }
      h = JSON.parse(text.slice(0, text.indexOf('\n') >>> 0)) as DigestHeader;
    } catch {
      return; // missing or unparsable: built from the files
    }
    if (typeof h !== 'object' || h === null || h.format !== FORMAT || h.name !== this.name || h.v !== this.spec.version) return;
    await this.parseEntries(text);
    if (check) this.checkedOffThread = await check.result(stamp);
  }

  /** Keeps each entry line under its file, unparsed (known() parses it when asked for). */
  private async parseEntries(text: string): Promise<void> {
    let n = 0;
    for (const line of cacheLines(text)) {
      if (++n % LINES_PER_SLICE === 0) await yieldNow();
      const rel = entryLinePath(line);
      if (rel !== undefined) this.entries.set(entryPath(this.agentDir, this.prefix, rel), line);
    }
  }

  /** The remembered entry of `file`, its cache line parsed and checked now if not yet; a line that is not a well-formed entry is dropped (the file is read again). */
  private known(file: string): Entry<T> | undefined {
    const e = this.entries.get(file);
    if (typeof e !== 'string') return e;
    let v: unknown;
    try {
      v = JSON.parse(e);
    } catch {
      v = undefined; // cut short
    }
    if (Array.isArray(v) && isFileKey(v[1]) && this.spec.valid(v[2])) {
      const entry = { key: v[1], value: v[2] as T };
      this.entries.set(file, entry);
      return entry;
    }
    this.entries.delete(file);
    return undefined;
  }

  private async save(): Promise<void> {
    // No .agent/ folder (skills of a workspace without one): nothing is created for a cache.
    if (!fs.existsSync(this.agentDir)) return;
    const header: DigestHeader = { format: FORMAT, name: this.name, v: this.spec.version, count: this.entries.size };
    const lines = [JSON.stringify(header)];
    // A line never asked for is written back as it was read (it is checked when it is parsed).
    for (const [f, e] of this.entries) lines.push(typeof e === 'string' ? e : JSON.stringify([f.startsWith(this.prefix) ? f.slice(this.prefix.length) : path.relative(this.agentDir, f), e.key, e.value]));
    try {
      // The folder ignores itself, so the cache never shows up in git.
      await writeCacheFile(this.file, lines.join('\n') + '\n');
    } catch {
      // a read-only or full disk: the digests in memory still work, and the next process rebuilds what it lacks
    }
  }

  /**
   * The digest of each file in `files` (absolute paths) that is a regular file: remembered ones
   * whose stat is unchanged, the others from `read` (which may throw: that file is then in
   * `failed`, and not remembered). Missing files and other kinds (folders, symlinks) are left out,
   * and so are, from now on, remembered files not in `files`.
   */
  async get(files: string[], read: (file: string) => Promise<T>): Promise<{ values: Map<string, T>; failed: Map<string, Error> }> {
    let unchanged: ReturnType<FileDigests<T>['unchanged']> | undefined;
    if (this.spec.watch && tuning.digestWatching) {
      // Events already queued (an edit in place a moment ago) are heard first.
      if (this.watched.size > 0) await queuedEventsHeard();
      unchanged = this.unchanged(files);
    }
    const r = await this.visit(files, read, unchanged);
    // Files gone since they were remembered (only then are there more entries than files listed).
    if (this.entries.size > r.values.size) {
      const wanted = new Set(files);
      for (const f of [...this.entries.keys()]) {
        if (!wanted.has(f)) {
          this.entries.delete(f);
          this.generation++;
          this.unsaved++;
        }
      }
    }
    await this.saveIfDue();
    // Nothing changed since the last answer for the same files: that answer's map itself, so a
    // caller can keep what it derives from it (the briefing's order of a thousand plans).
    const last = this.last;
    if (r.failed.size === 0 && last && last.generation === this.generation && sameList(last.files, files)) return { values: last.values, failed: r.failed };
    this.last = r.failed.size === 0 ? { generation: this.generation, files: files.slice(), values: r.values } : undefined;
    return r;
  }

  /**
   * As get, for the named files only (a watcher reported them, or a round re-checks some in turn):
   * the other remembered files are kept as they are, unchecked.
   */
  async refresh(files: string[], read: (file: string) => Promise<T>): Promise<{ values: Map<string, T>; failed: Map<string, Error> }> {
    const r = await this.visit(files, read);
    await this.saveIfDue();
    return r;
  }

  /**
   * For a `watch` kind's get: which of `files` need no stat (see above). Watches their folders (from
   * now on; folders no longer in the list are let go), takes each folder's stamp, and hands out the
   * files named by events (each once: an event during the pass names its file for the next one).
   * `done()` after the pass records the stamps it stands on.
   */
  private unchanged(files: string[]): { trusted: Uint8Array; done: () => void } {
    const now = Date.now();
    type Folder = { w?: WatchedFolder; trust: boolean; live?: boolean; st?: fs.Stats };
    const byFolder = new Map<string, Folder>();
    // The safety net: a round of files stat'ed whatever the events say, at most every watchedRefreshMs.
    const named = new Set<string>();
    if (now >= this.roundAt) {
      const r = round(files, this.roundFrom, WATCHED_ROUND);
      for (const f of r.items) named.add(f);
      this.roundFrom = r.next;
      this.roundAt = now + tuning.digestWatchedRefreshMs;
    }
    const trusted = new Uint8Array(files.length);
    let seenWatched = 0;
    let lastDir = '';
    let folder: Folder | undefined;
    for (let i = 0; i < files.length; i++) {
      const f = files[i];
      const dir = f.slice(0, f.lastIndexOf(path.sep));
      // Files come grouped by folder: a folder is looked up once per group, set up once per call.
      if (dir !== lastDir || !folder) {
        lastDir = dir;
        folder = byFolder.get(dir);
        if (!folder) {
          folder = this.watchedFolder(dir);
          byFolder.set(dir, folder);
          if (folder.w) seenWatched++;
          // The files its events named (each once: an event during this pass names its file for the next).
          if (folder.w?.named.size) {
            for (const n of folder.w.named) named.add(n);
            folder.w.named.clear();
          }
        }
      }
      if (folder.trust && !named.has(f)) trusted[i] = 1;
    }
    // Folders no longer listed are let go.
    if (seenWatched < this.watched.size) {
      for (const [dir, w] of this.watched) {
        if (byFolder.has(dir)) continue;
        w.watch.dispose();
        this.watched.delete(dir);
      }
    }
    return {
      trusted,
      done: () => {
        for (const { w, live, st } of byFolder.values()) {
          if (!w) continue;
          // Checked whole in this pass if it was watched before the pass began (what changed after the watch began is named by events).
          w.checked = !!live;
          // A stamp taken within RACY_MS of the folder's last change could hide a later one in the same tick.
          w.stamp = st && settledStamp(st, now) ? stampOf(st) : undefined;
        }
      },
    };
  }

  /** `dir`'s watch (set up now if new and under the cap), and whether its files can be trusted unchecked in this pass. */
  private watchedFolder(dir: string): { w?: WatchedFolder; trust: boolean; live?: boolean; st?: fs.Stats } {
    let w = this.watched.get(dir);
    if (!w && this.watched.size >= MAX_WATCHED_FOLDERS) return { trust: false };
    if (!w) {
      const made: WatchedFolder = { checked: false, named: new Set(), watch: undefined as unknown as FolderWatch };
      made.watch = new FolderWatch([dir], (file, kind) => {
        // The folder itself gone, replaced or watched anew: what happened meanwhile is unknown.
        if (kind === 'rewatched' || file === dir) made.checked = false;
        else made.named.add(file);
      });
      this.watched.set(dir, (w = made));
    }
    const live = w.watch.live;
    let st: fs.Stats | undefined;
    if (live) {
      try {
        st = fs.statSync(dir, { throwIfNoEntry: false });
      } catch {
        st = undefined;
      }
    }
    return { w, trust: live && w.checked && !!st && sameStamp(w.stamp, st), live, st };
  }

  private async visit(files: string[], read: (file: string) => Promise<T>, unchanged?: { trusted: Uint8Array; done: () => void }): Promise<{ values: Map<string, T>; failed: Map<string, Error> }> {
    if (!this.loaded) await this.load();
    // The worker's check stands for this one pass after the load: the entries it did not name are as it found them.
    const stale = this.checkedOffThread;
    this.checkedOffThread = undefined;
    this.lastCheck = stale ? 'worker' : 'thread';
    this.lastStats = 0;
    const values = new Map<string, T>();
    const failed = new Map<string, Error>();
    for (let i = 0; i < files.length; i++) {
      if (i > 0 && i % STATS_PER_SLICE === 0) await yieldNow();
      const f = files[i];
      if ((stale && !stale.has(f)) || unchanged?.trusted[i] === 1) {
        const known = this.known(f);
        if (known) {
          values.set(f, known.value);
          continue;
        }
      }
      this.lastStats++;
      let st: fs.Stats | undefined;
      try {
        st = fs.lstatSync(f, { throwIfNoEntry: false });
      } catch (e) {
        failed.set(f, e as Error);
        continue;
      }
      if (!st || !st.isFile()) {
        if (this.entries.delete(f)) {
          this.unsaved++;
          this.generation++;
        }
        continue;
      }
      const known = this.known(f);
      if (known && sameFileKey(known.key, st)) {
        values.set(f, known.value);
        continue;
      }
      try {
        const value = await read(f);
        // Remembered with the stat taken before the read: a write during the read shows as a change next time.
        this.entries.set(f, { key: fileKeyOf(st), value });
        values.set(f, value);
      } catch (e) {
        this.entries.delete(f);
        failed.set(f, e as Error);
      }
      this.generation++;
      this.unsaved++;
    }
    unchanged?.done();
    return { values, failed };
  }

  /**
   * Rewrites the cache file once the entries changed since it was last written reach 1/SAVE_SLACK
   * of them (at least one): a rewrite costs every entry, so with thousands of them one file added
   * must not pay it each time; a new process then re-reads at most that many files.
   */
  private async saveIfDue(): Promise<void> {
    if (this.unsaved === 0 || this.unsaved < this.entries.size / SAVE_SLACK) return;
    this.unsaved = 0;
    await this.save();
  }
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
