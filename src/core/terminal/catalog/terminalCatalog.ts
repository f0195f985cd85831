/**
 * One catalog of every captured terminal, so questions about all of them ("N captured terminals",
 * the newest failure anywhere, which terminals failed last) cost about the same with 10 terminals
 * as with 10,000 (issue 22: a year of use is thousands of terminals, and each agent session starts a
 * new MCP server).
 *
 * Per terminal N it keeps the header facts of `N.txt` (keyed on its device, inode, size and mtime)
 * and a brief of `N.index.jsonl` (indexBrief.ts), folded with AppendFold, whose checkpoint (device,
 * inode, offset, fingerprint of the bytes before it) it keeps. It lives in memory per process and in
 * `.agent/.cache/terminal-catalog.json` (catalogFile.ts), loaded once per process.
 *
 * What a call checks, and why its answers stay exact:
 * - The terminals folder's stat. Creating, deleting or renaming a file in it changes its mtime and
 *   ctime (an append does not); while they are what they were when the folder was last listed, the
 *   listing stands. A listing is trusted this way only when the folder's mtime and ctime were
 *   already RACY_MS (fs/settledStamp.ts) old when it was read: a change within the same clock tick as the one seen could
 *   leave them unchanged (git's "racy clean" rule). Otherwise, or when the stat differs, the folder
 *   is listed again, and every terminal whose files appeared or vanished is checked.
 * - Every open terminal (no `# terminal closed` note yet, unreadable, or new): a stat of `N.txt` and
 *   of `N.index.jsonl`; what changed is read again, and of an index only appended to, only what was
 *   appended. Capture writes a terminal's last index record before its closing note, so a terminal
 *   seen closed has its final index.
 * - Closed terminals are never written by capture again, so they are not checked on every call:
 *   catalogClosedChecksPerCall (96, processState.ts) of them per call in turn, and all of them in a sweep that starts
 *   SWEEP_DELAY_MS (rollingCheck.ts) after a process's first call (in slices between calls, so it slows no call by
 *   more than a slice) and again, while calls come, once a minute. With catalogSweepOffThreadMin
 *   terminals or more, the sweep's stats run on the check worker (catalogStamps.ts), and this thread
 *   checks only the terminals it names.
 *   A closed terminal's file changed in place by something else (an editor, a script, a truncation,
 *   a file renamed over it) is therefore seen by every call that starts after the next sweep, or
 *   after ceil(terminals / catalogClosedChecksPerCall) calls, whichever comes first; until then that
 *   terminal's brief (its count in "closed with a failed last command", its last failure) may be the
 *   one from before the change. Callers read the terminals they name in an answer themselves and ask
 *   for a re-check (`check`) when what they read disagrees, so no answer names a command that is not
 *   there. docs/ARCHITECTURE.md states the same bound.
 *
 * A first build (no catalog file: the first session after an upgrade or a cache wipe) for a caller
 * that needs only each terminal's last commands (the briefing, the listing: `need: 'last'`) folds
 * only the end of each index: the last 4 KB are read, and the lines from settledStart on settle
 * `last` and `lastDone` once a scan of the bytes before them (not decoded) finds no higher command
 * number there (capture's order; anything else is folded whole). When the last line's tally holds
 * (indexTally.ts: the lines our writers write carry one), the end says the whole index's count and
 * last failure too, without that scan: the entry is then whole from the start, whatever the caller
 * needs (bench row 20). Otherwise the
 * entry keeps where that fold started (`from`); callers that need `lastFailed` or exact counts get
 * those indexes folded whole first (once: the entries then stay whole), and a terminal a caller asks
 * to re-check is folded whole. With `lazyInfo` (the briefing, which names a few terminals) no N.txt is
 * read either: an entry's info is read when first looked at, and the rest INFO_DELAY_MS after the
 * call once no tool call is answering (callsAnswering.ts), before the file is written. The listing
 * (need 'last', lazyInfo) reads N.txt for the terminals it shows and for those whose index does not
 * end with a closing record (terminalFormat.ts ClosingRecord: closed, and whose), isClosed and agentOf below. At 10,000 terminals this decodes and parses a few lines per
 * index instead of 276,000, and opens 10,000 fewer files in the call (bench row 14i).
 *
 * The MCP server starts that first build on a worker thread before the rest of it loads, when it
 * finds no catalog file (catalogWorker.ts, src/mcp/startEarly.ts), so that it runs on the other
 * core while the server loads and the agent decides on its first call. If by then the worker has
 * read at least a fifth of the terminals (WAIT_FROM), the first call waits for its entries and
 * listing and takes them as it takes a loaded file's, checking them the same way before it
 * answers; otherwise (or when the worker fails) it builds here, as above. The worker leaves N.txt
 * unread too, so every entry counts as an open terminal and its index is checked: once the call
 * has taken its build, the worker names the terminals whose files changed since it read them (from
 * its watch of the folder, or stats taken after the call came), and the call checks those itself
 * (every one, when the worker does not answer): a change made after the worker read a file is in
 * the first answer. At 10,000 terminals on 2 cores a first briefing 2 s after the start (the bundle) takes ~190
 * ms (S ~130). One that comes as soon as the server is up takes ~290 ms with the tsc build (the
 * worker had ~250 ms of its load) but still builds here with the bundle, which loads in ~60 ms:
 * ~600 ms, as before (bench rows 14i, 14j).
 *
 * Kept as one unit, over 600 lines: the catalog's state and every path that changes it (relist,
 * check, sweep, the first build's deferred reads). The bound above holds only if they agree, so
 * they are read together.
 * The first reads of an unknown terminal are in catalogColdRead.ts.
 *
 * The file is written atomically (temp + rename) by whichever process changed something; several
 * processes may write it and the last whole write wins. Since each process checks every entry
 * against the files when it loads the file, a stale or foreign entry only costs a re-read. A catalog
 * that is missing, unparsable, of another format or version is rebuilt from the files (malformed
 * entries alone are re-read).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { advanceFold, advanceFoldSync, type FoldCheckpoint } from '../../fs/appendFold';
import { writeCacheFile } from '../../fs/fsAtomic';
import { pool } from '../../fs/pool';
import { err, ok, type Result } from '../../result';
import { foldCommandSpool } from '../agentCommands/sessionFold';
import { catalogPath, decodeCatalogSliced, encodeCatalogSliced, standInInfo, type CatalogSnapshot, type DirSig, type Entry } from './catalogFile';
import { fileKeyOf, sameFileKey } from '../../fs/stamps';
import { foldIndexEnd, lazyView, readInfoCold } from './catalogColdRead';
import { stopCatalogWorkers, takeCatalogWorker, VERIFY_WAIT_MS, WAIT_FROM, WORKER_WAIT_MS, type CatalogWorkerRun } from './catalogWorker';
import { BRIEF_SPEC, briefFrom, type CompactState, type TerminalBrief } from './indexBrief';
import { agentBy, closedBy, previousFileOf, TERMINALS_DIR, withClosing, type TerminalInfo } from '../terminalFormat';
import { notRegularFile, OPEN_FLAGS, parseTerminalNames, readTerminalHeaderInfo, readTerminalHeaderInfoSync, unreadableTerminal } from '../terminalIndex';
import { settledStamp } from '../../fs/settledStamp';
import { onProcessReset, processCache, resetProcessState, tuning } from '../../processState';
import { RollingCheck, round } from '../../rollingCheck';
import { entryStamps, sameFoldKey, staleTerminals, staleTerminalsOffThread } from './catalogStamps';
import { afterCalls } from '../../callsAnswering';
import { yieldNow } from '../../eventLoop';

export type { BriefCommand, TerminalBrief } from './indexBrief';

/** One terminal of the catalog. */
export interface CatalogTerminal {
  /** Its number (as info.n; read here, `info` of a lazy catalog reads N.txt when first looked at). */
  n: number;
  info: TerminalInfo;
  brief: TerminalBrief;
}

/**
 * Whether terminal t is closed, by closingState (terminalFormat.ts): its index's closing record says
 * so without N.txt, else N.txt's `# terminal closed` note (its info, read when looked at). The same as
 * `t.info.closed`, which the catalog's answer corrects by the same rule, but without reading a lazy N.txt.
 */
export function isClosed(t: CatalogTerminal): boolean {
  return closedBy(t.brief.closed, t);
}

/** The agent whose own commands terminal t holds (undefined: an integrated terminal), by closingState; as `t.info.agent` without reading a lazy N.txt. */
export function agentOf(t: CatalogTerminal): string | undefined {
  return agentBy(t.brief.closed, t);
}

/** Re-read this many terminals in one call and the catalog is written at once; fewer changes are written within WRITE_DELAY_MS. */
const WRITE_NOW_CHANGES = 20;
const WRITE_DELAY_MS = 2000;
/** Changes to open terminals alone (appended output) are written within this: a new process checks them anyway. */
const WRITE_DELAY_OPEN_MS = 30_000;
/** Files read at once when many terminals changed (a first build). */
const READ_CONCURRENCY = 32;
/** Synchronous reads of changed terminals go on for at most this long between yields to the event loop. */
const SLICE_MS = 20;
/** An index with more than this to fold is read asynchronously (a sync read of it would block too long). */
const SYNC_FOLD_MAX = 256 * 1024;
/** N.txt left unread by a lazyInfo call are read this long after it (its answer is out by then). */
const INFO_DELAY_MS = 200;
/** Sync stats between yields to the event loop (the extension host must not block for long). */
const STATS_PER_SLICE = 2000;

export { catalogPath };

const sigOf = (st: fs.Stats): DirSig => [st.dev, st.ino, st.mtimeMs, st.ctimeMs];
const sameSig = (a: DirSig, st: fs.Stats): boolean => a[0] === st.dev && a[1] === st.ino && a[2] === st.mtimeMs && a[3] === st.ctimeMs;
const sameFold = (cp: FoldCheckpoint<CompactState>, st: fs.Stats): boolean => sameFoldKey(cp.dev, cp.ino, cp.size, cp.mtimeMs, st);

const EMPTY: CompactState = BRIEF_SPEC.init();
const EMPTY_BRIEF: TerminalBrief = briefFrom(EMPTY);

interface Catalog {
  entries: Map<number, Entry>;
  loaded: boolean;
  /** One refresh, sweep slice or write at a time per folder, and the sweeps (rollingCheck.ts). */
  rolling: RollingCheck<number>;
  writtenOnce: boolean;
  timer?: NodeJS.Timeout;
  timerDue: number;
  /** Changes not written to the file yet, and whether any is more than an open terminal's appended output. */
  unsaved: number;
  unsavedClosed: boolean;
  /** `volatile` has been worked out for the current entries. */
  volatileKnown: boolean;
  /** Some entry may have only its index's end folded (`from` > 0): a call that needs more folds them whole. */
  partialLeft: boolean;
  /** Some entry's N.txt was not read yet (`txt` null): read just after the call that left it (completeInfoSoon), or by the next call that needs it. */
  infoLeft: boolean;
  infoTimer?: NodeJS.Timeout;
  /** The folder's listing: the stat it stands for (null: list again), every N with an N.txt (ascending), those with an N.1.txt or an index. */
  dir: DirSig | null;
  listed: boolean;
  numbers: number[];
  previous: Set<number>;
  indexed: Set<number>;
  /** Terminals checked every call: open, unreadable, or without an entry. */
  volatile: Set<number>;
  /**
   * Terminals of a worker's build whose files the worker found unchanged after this thread took
   * the build (catalogWorker.ts): the check of the call that took it leaves them unchecked.
   */
  verified?: ReadonlySet<number>;
  /** N.txt exists but cannot be read: how the answer shows it. */
  unreadable: Map<number, TerminalInfo>;
  /** Where the turn of closed terminals goes on (an index into `numbers`). */
  cursor: number;
  /** The last answer, while nothing changed. */
  answer: readonly CatalogTerminal[] | undefined;
}

const catalogs = processCache<string, Catalog>((c) => {
  if (c.timer) clearTimeout(c.timer);
  if (c.infoTimer) clearTimeout(c.infoTimer);
  c.rolling.stop(); // a sweep or write still under way stops
});
onProcessReset(stopCatalogWorkers);

async function load(agentDir: string, c: Catalog): Promise<void> {
  c.loaded = true;
  const worker = takeCatalogWorker(agentDir);
  if (worker) {
    const built = await awaitPrebuild(worker);
    if (built) {
      adopt(c, built.snapshot);
      if (built.changed) {
        const changed = built.changed;
        c.verified = new Set(built.snapshot.entries.filter((e) => !changed.has(e.n)).map((e) => e.n));
      }
      return;
    }
  }
  let text: string;
  try {
    text = await fs.promises.readFile(catalogPath(agentDir), 'utf8');
  } catch {
    return; // missing or unreadable: built from the files
  }
  const s = await decodeCatalogSliced(text);
  if (!s) return; // garbage, cut short, another format or version: built from the files
  c.writtenOnce = true; // a catalog is there: small changes can wait
  adopt(c, s);
}

/** Takes a snapshot's entries and listing as the last ones seen (checked against the files like any: refresh). */
function adopt(c: Catalog, s: CatalogSnapshot): void {
  const listed = new Set(s.numbers);
  for (const e of s.entries) {
    if (s.listed && !listed.has(e.n)) continue;
    c.entries.set(e.n, e);
    if (e.from > 0) c.partialLeft = true;
    if (!e.txt) c.infoLeft = true; // a worker's lazyInfo build: read after the call (completeInfoSoon)
  }
  if (s.listed) {
    // The listing is used as the last one seen: trusted by the folder's stat only if that was trustworthy, diffed against a new listing otherwise.
    c.dir = s.dir;
    c.listed = true;
    c.numbers = s.numbers;
    c.previous = new Set(s.previous);
    c.indexed = new Set(s.indexed);
  }
}

/**
 * What a first build on a worker thread found, and the terminals whose files changed since it read
 * them (undefined: the worker did not say; every file is then checked here); undefined: this thread
 * builds. Waited for only when the worker has read WAIT_FROM of the terminals (else building here
 * is sooner: the worker's rest, the hand-over and a stat per terminal take longer), and for
 * WORKER_WAIT_MS at most (its answer on the changed files, VERIFY_WAIT_MS more); a worker not
 * waited for is stopped.
 */
async function awaitPrebuild(w: CatalogWorkerRun): Promise<{ snapshot: CatalogSnapshot; changed?: ReadonlySet<number> } | undefined> {
  if (w.progress() < WAIT_FROM) {
    w.stop();
    return undefined;
  }
  // Asked now: the worker answers once its build is done (its watch's events, or stats taken then), all after this call came.
  const verified = w.verify();
  const within = <T>(p: Promise<T>, ms: number): Promise<T | undefined> => {
    let timer: NodeJS.Timeout | undefined;
    return Promise.race([p, new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), ms)))]).finally(() => clearTimeout(timer));
  };
  try {
    const snapshot = await within(w.done, WORKER_WAIT_MS);
    if (!snapshot) return undefined;
    return { snapshot, changed: await within(verified, VERIFY_WAIT_MS) };
  } finally {
    w.stop();
  }
}

async function save(agentDir: string, c: Catalog): Promise<void> {
  if (c.timer) {
    clearTimeout(c.timer);
    c.timer = undefined;
  }
  if (c.rolling.dead) return;
  const dir = path.join(agentDir, TERMINALS_DIR);
  let st: fs.Stats;
  try {
    st = await fs.promises.stat(dir);
  } catch {
    return; // the folder went away meanwhile (a removed workspace): nothing to keep, and nothing to re-create
  }
  const file = catalogPath(agentDir);
  const text = await encodeCatalogSliced({ dir: c.dir, numbers: c.numbers, previous: [...c.previous], indexed: [...c.indexed], entries: [...c.entries.values()] }, st.dev);
  c.unsaved = 0;
  c.unsavedClosed = false;
  try {
    // The folder ignores itself, so the catalog never shows up in git.
    await writeCacheFile(file, text);
    c.writtenOnce = true;
  } catch {
    // a read-only or full disk: the catalog in memory still works, and the next process rebuilds what it lacks
  }
}

/** Writes the catalog after `ms` (sooner if already due sooner); `ref`: keep the process alive for it (a first build). */
function saveIn(agentDir: string, c: Catalog, ms: number, ref = false): void {
  const due = Date.now() + ms;
  if (c.timer && c.timerDue <= due) return;
  if (c.timer) clearTimeout(c.timer);
  c.timerDue = due;
  c.timer = setTimeout(() => void c.rolling.run(() => save(agentDir, c)), ms);
  if (!ref) c.timer.unref?.();
}

/**
 * Lists the folder again when its stat says its entries changed (or the last listing cannot be
 * trusted by the stat); returns the terminals whose files appeared or vanished, which must be checked.
 */
async function relist(dir: string, c: Catalog, st: fs.Stats): Promise<Result<number[]>> {
  if (c.listed && c.dir && sameSig(c.dir, st)) return ok([]);
  let names: string[];
  try {
    names = await fs.promises.readdir(dir);
  } catch (e) {
    return err({ file: dir, message: `cannot list captured terminals: ${(e as Error).message}` });
  }
  const now = Date.now();
  const l = parseTerminalNames(names);
  const changed: number[] = [];
  const before = new Set(c.numbers);
  const now_ = new Set(l.numbers);
  for (const n of l.numbers) {
    if (!c.listed || !before.has(n) || c.previous.has(n) !== l.previous.has(n) || c.indexed.has(n) !== l.indexed.has(n)) changed.push(n);
    const e = c.entries.get(n);
    if (e && c.previous.has(n) !== l.previous.has(n)) c.entries.set(n, { ...e, info: { ...e.info, previousFile: previousFileOf(n, l.previous) }, view: undefined });
  }
  let gone = false;
  for (const n of c.numbers) {
    if (now_.has(n)) continue;
    c.entries.delete(n);
    c.unreadable.delete(n);
    c.volatile.delete(n);
    gone = true;
  }
  for (const n of c.entries.keys()) if (!now_.has(n)) c.entries.delete(n); // loaded from a file, never listed here
  if (gone || changed.length || l.numbers.length !== c.numbers.length) {
    c.answer = undefined;
    c.unsaved++;
    c.unsavedClosed = true;
  }
  c.numbers = l.numbers;
  c.previous = l.previous;
  c.indexed = l.indexed;
  c.listed = true;
  // The stat was taken before the listing, so a change after it gives another stat; one within the
  // same clock tick as the last change seen would not, hence the age rule.
  c.dir = settledStamp(st, now) ? sigOf(st) : null;
  return ok(changed);
}

/**
 * How a check reads: `tail`, a terminal it does not know has only its index's end folded (see
 * settledStart); `lazyInfo`, its N.txt is not read (a stand-in info until it is: answer()); `complete`,
 * these terminals' indexes folded whole if only their end was.
 */
interface CheckOpts {
  tail?: boolean;
  lazyInfo?: boolean;
  complete?: ReadonlySet<number>;
  /** [terminals read, terminals to read], kept up to date for another thread (a first build on a worker: catalogWorker.ts). */
  progress?: Int32Array;
  /** Terminals whose files a worker found unchanged since its build read them, after this call came (Catalog.verified): not checked again. */
  verified?: ReadonlySet<number>;
}

/**
 * Checks terminals `ns` against their files (a stat of N.txt and N.index.jsonl each) and reads
 * again what changed; returns how many entries changed. A terminal without an entry (a first
 * build) is opened and fstat'ed instead (one path lookup per file, not two).
 */
async function check(dir: string, c: Catalog, ns: Iterable<number>, opts: CheckOpts = {}): Promise<number> {
  type Slot = { n: number; txtSt?: fs.Stats; idxSt?: fs.Stats; needInfo: boolean; needIdx: boolean; cold?: boolean; whole?: boolean };
  const slots: Slot[] = [];
  let changed = 0;
  const touched = (n: number): void => {
    changed++;
    c.answer = undefined;
    const e = c.entries.get(n);
    if (!e || !e.info.closed) c.volatile.add(n);
    else c.volatile.delete(n);
    if (e?.info.closed !== false) c.unsavedClosed = true;
  };
  const verified = opts.verified;
  let i = 0;
  for (const n of ns) {
    if (++i % STATS_PER_SLICE === 0) await yieldNow();
    const entry = c.entries.get(n);
    if (!entry && !c.unreadable.has(n)) {
      slots.push({ n, needInfo: true, needIdx: true, cold: true });
      continue;
    }
    // Found unchanged by the worker after this call came, and nothing more to read for this caller.
    if (verified?.has(n) && (entry?.txt || opts.lazyInfo) && !opts.complete?.has(n)) continue;
    const slot: Slot = { n, needInfo: false, needIdx: false };
    const base = `${dir}${path.sep}${n}`;
    // N.txt not read yet, for a caller that does not need it: only the index is checked. One that
    // could not be read (no entry) is checked again whatever the caller needs.
    if (entry?.txt || !opts.lazyInfo || !entry) {
      try {
        const txtSt = fs.statSync(`${base}.txt`, { throwIfNoEntry: false });
        if (!txtSt) {
          // Removed since the listing (cleanup, rotation): the folder's stat changed, so it is listed again next time.
          if (c.entries.delete(n) || c.unreadable.delete(n)) touched(n);
          c.volatile.delete(n);
          continue;
        }
        if (!txtSt.isFile()) throw notRegularFile(txtSt);
        if (!entry || !sameFileKey(entry.txt, txtSt)) {
          slot.needInfo = true;
          slot.txtSt = txtSt;
        }
      } catch (e) {
        // Unreadable (a folder in its place, no permission): shown with its error, checked every call.
        if (c.entries.delete(n) || !c.unreadable.has(n)) {
          c.unreadable.set(n, unreadableTerminal(n, null, e));
          touched(n);
        }
        continue;
      }
      if (c.unreadable.delete(n)) touched(n);
    }
    try {
      const idxSt = fs.statSync(`${base}.index.jsonl`, { throwIfNoEntry: false });
      // Not a regular file (a folder, a FIFO: opening one would block): no index.
      if (!idxSt || !idxSt.isFile()) {
        if (entry?.idx) {
          entry.idx = null; // the index was removed
          entry.from = 0;
          entry.view = undefined;
          touched(n);
        }
      } else if (!entry?.idx || !sameFold(entry.idx, idxSt) || (entry.from > 0 && opts.complete?.has(n))) {
        slot.needIdx = true;
        slot.idxSt = idxSt;
        // Only its end was folded, and the whole is asked for: folded from the start.
        if (entry?.from && opts.complete?.has(n)) slot.whole = true;
      }
    } catch {
      slot.needIdx = true; // cannot even stat it: the read decides
    }
    if (slot.needInfo || slot.needIdx) slots.push(slot);
  }
  // N.txt of terminals first seen are left for later only when there are many (a first build): a
  // few are read at once, so a short-lived process (a hook) is not kept waiting for completeInfoSoon.
  const lazyInfo = opts.lazyInfo === true && slots.filter((x) => x.cold).length >= tuning.catalogLazyInfoMin;
  // Read what changed (of an index only appended to, only what was appended). Synchronous reads in
  // slices of SLICE_MS (a first build reads 20,000 small files: async dispatch alone took seconds);
  // an index with more than SYNC_FOLD_MAX bytes to fold is read asynchronously afterwards.
  const big: Slot[] = [];
  /** A terminal the catalog does not know: N.txt and N.index.jsonl opened and fstat'ed, N.txt's header and tail read, and the index's end folded (or the whole index). */
  const readCold = (s: Slot): 'done' | 'fold' => {
    const base = `${dir}${path.sep}${s.n}`;
    let fd: number | undefined;
    let kept: Pick<Entry, 'txt' | 'info'>;
    if (lazyInfo) {
      kept = { txt: null, info: standInInfo(s.n, c.previous) };
      c.infoLeft = true;
    } else {
      try {
        kept = readInfoCold(`${base}.txt`, s.n, c.previous);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
          // Removed since the listing: listed again next time (the folder's stat changed).
          c.volatile.delete(s.n);
          return 'done';
        }
        c.unreadable.set(s.n, unreadableTerminal(s.n, null, e));
        touched(s.n);
        return 'done';
      }
    }
    let idx: FoldCheckpoint<CompactState> | null = null;
    let from = 0;
    try {
      fd = fs.openSync(`${base}.index.jsonl`, OPEN_FLAGS);
      const st = fs.fstatSync(fd);
      if (st.isFile()) {
        const r = opts.tail ? foldIndexEnd(fd, st) : 'whole';
        if (r === 'whole') {
          // Folded whole by the usual path (with this stat), sync or async by its size.
          c.entries.set(s.n, { n: s.n, txt: kept.txt, info: kept.info, idx: null, from: 0 });
          s.needInfo = false;
          s.idxSt = st;
          s.whole = true;
          return 'fold';
        }
        idx = r.cp;
        from = r.from;
        if (from > 0) c.partialLeft = true;
      }
    } catch {
      // No index (no shell integration) or an unreadable one: no commands known (the terminal tool names the problem when asked for that terminal).
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
    c.entries.set(s.n, { n: s.n, txt: kept.txt, info: kept.info, idx, from });
    touched(s.n);
    return 'done';
  };
  const read = async (s: Slot, sync: boolean): Promise<void> => {
    if (s.cold) {
      s.cold = false;
      if (readCold(s) === 'done') return;
    }
    const old = c.entries.get(s.n);
    let kept: Pick<Entry, 'txt' | 'info'> | undefined = old && !s.needInfo ? old : undefined;
    if (s.needInfo) {
      try {
        const file = `${dir}${path.sep}${s.n}.txt`;
        const info = sync ? readTerminalHeaderInfoSync(file, s.n, s.txtSt!) : await readTerminalHeaderInfo(file, s.n, s.txtSt!);
        kept = { txt: fileKeyOf(s.txtSt!), info: { ...info, previousFile: previousFileOf(s.n, c.previous) } };
      } catch (e) {
        c.entries.delete(s.n);
        c.unreadable.set(s.n, unreadableTerminal(s.n, null, e));
        touched(s.n);
        return;
      }
      s.needInfo = false;
    }
    let idx = old?.idx ?? null;
    let from = old?.from ?? 0;
    if (s.needIdx) {
      // The fold continues from the catalog's checkpoint when the file was only appended to; it starts over otherwise.
      const file = `${dir}${path.sep}${s.n}.index.jsonl`;
      // Without a fingerprint (the file keeps none for closed terminals) the fold cannot tell an append from a rewrite: it starts over.
      // So does an index that ended with its closing record: nothing appends to a closed terminal's index, so a change is a rewrite
      // (one of the same size would keep the fingerprint of its last 64 bytes, the closing record's).
      const prior = !s.whole && old?.idx && (old.idx.offset === 0 || old.idx.tail !== '') && !old.idx.state.closing ? old.idx : undefined;
      const priorFrom = old?.from ?? 0;
      if (old) old.idx = null; // folded in place: never kept half-updated if the read fails
      try {
        const st = s.idxSt ?? fs.statSync(file);
        const r = sync ? advanceFoldSync(file, BRIEF_SPEC, prior, st, SYNC_FOLD_MAX) : await advanceFold(file, BRIEF_SPEC, prior, st);
        if (!r) {
          // More to fold than one sync read takes: the async pass does it.
          if (old) old.idx = prior ?? null;
          if (kept) c.entries.set(s.n, { n: s.n, txt: kept.txt, info: kept.info, idx: prior ?? null, from: prior ? priorFrom : 0 });
          big.push(s);
          return;
        }
        idx = r.cp;
        // A fold that went on from an end-only checkpoint still covers only the end.
        from = prior && !r.rebuilt ? priorFrom : 0;
      } catch {
        // Gone since the stat, or unreadable: no commands known (the terminal tool names the problem when asked for that terminal).
        idx = null;
        from = 0;
      }
      s.needIdx = false;
    }
    c.entries.set(s.n, { n: s.n, txt: kept!.txt, info: kept!.info, idx, from });
    touched(s.n);
  };
  const progress = opts.progress;
  if (progress) Atomics.store(progress, 1, slots.length);
  let sliceStart = performance.now();
  for (const s of slots) {
    if (performance.now() - sliceStart > SLICE_MS) {
      await yieldNow();
      sliceStart = performance.now();
    }
    await read(s, true);
    if (progress) Atomics.add(progress, 0, 1);
  }
  await pool(big, READ_CONCURRENCY, (s) => read(s, false));
  return changed;
}

/**
 * The answer: every terminal by number, from the per-terminal views kept since they last changed;
 * made once per change. A process's first answer makes every terminal's view
 * and brief (10,000 at a heavy user's), catalogRowsPerSlice per turn of the event loop: in one step
 * that was one long block of the extension host at start-up (bench row 21x). It runs inside
 * c.rolling (refresh), so no check, sweep or write changes the catalog between those turns.
 */
async function answer(dir: string, c: Catalog): Promise<readonly CatalogTerminal[]> {
  if (c.answer) return c.answer;
  const out: CatalogTerminal[] = [];
  let made = 0;
  for (const n of c.numbers) {
    const e = c.entries.get(n);
    if (e) {
      if (!e.view && ++made % tuning.catalogRowsPerSlice === 0) await yieldNow();
      out.push(e.view ?? viewOf(dir, c, e));
    } else {
      const bad = c.unreadable.get(n);
      if (bad) out.push({ n, info: { ...bad, previousFile: previousFileOf(n, c.previous) }, brief: EMPTY_BRIEF });
      // else: vanished since the listing
    }
  }
  c.answer = out;
  return out;
}

/** What answers show of entry e, kept on it until it changes (a change makes a new entry or drops its view). */
function viewOf(dir: string, c: Catalog, e: Entry): CatalogTerminal {
  const brief = e.idx ? briefFrom(e.idx.state, e.from) : EMPTY_BRIEF;
  e.view = e.txt
    ? { n: e.n, info: withClosing(e.info, brief.closed), brief }
    : lazyView(`${dir}${path.sep}${e.n}.txt`, e, brief, c.previous, () => c.unsaved++); // still checked every call until a check sees it (its index may have changed since)
  return e.view;
}

async function refresh(agentDir: string, c: Catalog, force: readonly number[], need: Need, lazyInfo: boolean): Promise<Result<readonly CatalogTerminal[]>> {
  const r = await update(agentDir, c, force, need, lazyInfo);
  if (!r.ok) return r;
  if (r.value === null) return ok([]);
  const out = await answer(path.join(agentDir, TERMINALS_DIR), c);
  noteChanges(agentDir, c, r.value);
  if (c.infoLeft) completeInfoSoon(agentDir, c);
  c.rolling.sweepIfDue();
  return ok(out);
}

/** Brings the catalog up to date for a call (refresh) without making its answer: how many entries changed; null when there is no terminals folder. */
async function update(agentDir: string, c: Catalog, force: readonly number[], need: Need, lazyInfo: boolean, progress?: Int32Array): Promise<Result<number | null>> {
  if (!c.loaded) await load(agentDir, c);
  // Taken at once: it stands for this call only, whatever happens below.
  const verified = c.verified;
  c.verified = undefined;
  const dir = path.join(agentDir, TERMINALS_DIR);
  let st: fs.Stats;
  try {
    st = await fs.promises.stat(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      c.entries.clear();
      c.unreadable.clear();
      c.volatile.clear();
      c.numbers = [];
      c.listed = false;
      c.dir = null;
      c.answer = [];
      return ok(null);
    }
    return err({ file: dir, message: `cannot list captured terminals: ${(e as Error).message}` });
  }
  const listing = await relist(dir, c, st);
  if (!listing.ok) return listing;
  if (!c.volatileKnown) {
    // Terminals the file knows as closed wait for their turn or the sweep; every other one is checked now.
    for (const n of c.numbers) if (!c.entries.get(n)?.info.closed) c.volatile.add(n);
    c.volatileKnown = true;
  }
  const toCheck = new Set<number>(listing.value);
  for (const n of c.volatile) toCheck.add(n);
  for (const n of force) toCheck.add(n);
  const len = c.numbers.length;
  const turn = round(c.numbers, c.cursor, tuning.catalogClosedChecksPerCall);
  for (const n of turn.items) toCheck.add(n);
  c.cursor = turn.next;
  // A terminal checked because a caller read it and found it disagrees is folded whole. A terminal
  // the catalog does not know has its index's end folded first, whatever the caller needs: when its
  // last line's tally holds (indexTally.ts), that fold is the whole one's; the rest are folded whole below.
  // A caller that reads a few terminals' info leaves N.txt unread (lazyInfo), unless it needs every field.
  const infoLazy = lazyInfo && need !== 'all';
  let changed = await check(dir, c, toCheck, { tail: true, lazyInfo: infoLazy, complete: new Set(force), progress, verified });
  // Checked everything (a first build, a small folder): that was a sweep.
  if (toCheck.size >= len) c.rolling.swept();
  if (need !== 'last' && c.partialLeft) {
    // Whole folds where only the end was folded and the caller needs more than `last` and `lastDone`.
    const whole = new Set<number>();
    for (const n of c.numbers) {
      const e = c.entries.get(n);
      if (e && e.from > 0 && (need === 'all' || e.idx?.state.lastFailed === null)) whole.add(n);
    }
    if (whole.size) changed += await check(dir, c, whole, { complete: whole, lazyInfo: infoLazy });
    if (need === 'all') c.partialLeft = false;
  }
  return ok(changed);
}

/**
 * Reads the N.txt left unread by a `lazyInfo` call, INFO_DELAY_MS later and once no tool call is
 * answering (a call that comes meanwhile and needs them reads them itself), and then writes the
 * catalog. Keeps the process alive until done: the next process then finds whole entries.
 */
function completeInfoSoon(agentDir: string, c: Catalog): void {
  if (c.infoTimer) return;
  // Not while a tool call is still answering (its own reads would wait behind these).
  c.infoTimer = setTimeout(() => void afterCalls().then(() => completeInfo(agentDir, c)), INFO_DELAY_MS);
}

function completeInfo(agentDir: string, c: Catalog): Promise<void> {
  if (c.infoTimer) clearTimeout(c.infoTimer);
  c.infoTimer = undefined;
  return c.rolling.run(async () => {
    if (c.rolling.dead || !c.infoLeft) return;
    c.infoLeft = false;
    const left: number[] = [];
    for (const e of c.entries.values()) if (!e.txt) left.push(e.n);
    noteChanges(agentDir, c, await check(path.join(agentDir, TERMINALS_DIR), c, left));
  });
}

/** Counts changes for the file and schedules its write. */
function noteChanges(agentDir: string, c: Catalog, changed: number): void {
  c.unsaved += changed;
  // Written once every N.txt is read (completeInfoSoon): a file without them would make the next process read them.
  if (c.unsaved === 0 || c.infoLeft) return;
  // A first build is written as soon as the answer is out; later changes within a few seconds,
  // changes to open terminals alone (their output) within half a minute.
  if (!c.writtenOnce || c.unsaved >= WRITE_NOW_CHANGES) saveIn(agentDir, c, 0, true);
  else saveIn(agentDir, c, c.unsavedClosed ? WRITE_DELAY_MS : WRITE_DELAY_OPEN_MS);
}

function catalogOf(agentDir: string): Catalog {
  const key = path.resolve(agentDir);
  let c = catalogs.get(key);
  if (!c) {
    const made: Catalog = {
      entries: new Map(), loaded: false, rolling: undefined as unknown as RollingCheck<number>, writtenOnce: false, timerDue: 0, unsaved: 0, unsavedClosed: false, volatileKnown: false, partialLeft: false, infoLeft: false,
      dir: null, listed: false, numbers: [], previous: new Set(), indexed: new Set(), volatile: new Set(), unreadable: new Map(), cursor: 0, answer: undefined,
    };
    // A sweep checks the terminals of its start (one created meanwhile is checked by the call that
    // lists it). Indexes of which only the end was folded stay so (folding 10,000 whole would hold
    // up the calls that come meanwhile): the first call that needs more folds them.
    const dir = path.join(agentDir, TERMINALS_DIR);
    made.rolling = new RollingCheck(
      () => made.numbers,
      async (slice) => noteChanges(agentDir, made, await check(dir, made, slice)),
      (ns) => sweepOffThread(dir, made, ns),
    );
    catalogs.set(key, (c = made));
  }
  return c;
}

/**
 * The terminals of a sweep (`ns`) that may have changed: those whose files the check worker found
 * different from their entries (catalogStamps.ts), with those it cannot judge (no entry, N.txt not
 * read yet). Undefined, for the sweep to check every terminal here: fewer than
 * catalogSweepOffThreadMin (a worker costs more than their stats), or no worker answered.
 */
async function sweepOffThread(dir: string, c: Catalog, ns: readonly number[]): Promise<number[] | undefined> {
  if (ns.length < tuning.catalogSweepOffThreadMin) return undefined;
  // Taken between calls, so no entry is caught halfway through a read.
  const { stamps, here } = await c.rolling.run(() => {
    const known: Entry[] = [];
    const unsure: number[] = [];
    for (const n of ns) {
      const e = c.entries.get(n);
      if (e?.txt) known.push(e);
      else unsure.push(n);
    }
    return { stamps: entryStamps(known), here: unsure };
  });
  const stale = await staleTerminalsOffThread(dir, stamps);
  return stale && [...here, ...stale];
}

/**
 * What a caller reads of the briefs: 'all' (the default), every field exact; 'lastFailed', all but
 * `commands` (which may be a lower bound); 'last', `last` and `lastDone` and whether there is any
 * command (`commands` > 0): a terminal first read then has only its index's end folded (`lastFailed`
 * undefined unless that end holds one), so a first build reads 4 KB of each index instead of all of it.
 */
export type Need = 'all' | 'lastFailed' | 'last';

/**
 * Every captured terminal (`.agent/terminals/N.txt`) with its header facts and a brief of its
 * index, by number (see the file's header for what is checked and how fresh a closed terminal's
 * brief is). `check`: terminals to check against their files now, whatever their turn (a caller
 * that read one and found it disagrees with its brief); their indexes are folded whole. `need`:
 * which fields of the briefs the caller reads (Need). `lazyInfo` (with need 'last' or 'lastFailed'): the caller
 * looks at the `info` of a few terminals only; a terminal first seen by this call then has its N.txt
 * read when its `info` is first looked at (the rest are read just after the call). The array is
 * shared: do not change it.
 */
export function terminalCatalog(agentDir: string, opts: { check?: readonly number[]; need?: Need; lazyInfo?: boolean } = {}): Promise<Result<readonly CatalogTerminal[]>> {
  const c = catalogOf(agentDir);
  return c.rolling.run(async () => {
    await foldAgentCommands(agentDir);
    return refresh(agentDir, c, opts.check ?? [], opts.need ?? 'all', opts.lazyInfo ?? false);
  });
}

/**
 * Agents' own commands waiting in the spool go into their session captures first, so every answer
 * about terminals includes the command an agent ran a moment ago (a listing of the spool folder
 * when there is nothing to fold). A fold that fails is left for the next call: the terminals are
 * still answered.
 */
async function foldAgentCommands(agentDir: string): Promise<void> {
  await foldCommandSpool(agentDir).catch(() => undefined);
}

/**
 * Resolves when the catalog of agentDir has checked every terminal and written what is due now
 * (tests: what a process does just after a call); `sweep: false`, without the sweep (what a process
 * that exits within a second of its call leaves).
 */
export async function settleTerminalCatalog(agentDir: string, opts: { sweep?: boolean } = {}): Promise<void> {
  const c = catalogOf(agentDir);
  if (c.infoTimer) await completeInfo(agentDir, c);
  if (opts.sweep !== false) await c.rolling.settleSweep();
  if (c.timer && c.timerDue <= Date.now() + 50) await new Promise((r) => setTimeout(r, Math.max(0, c.timerDue - Date.now()) + 1));
  await c.rolling.run(async () => undefined);
}

/**
 * A first build of agentDir's catalog as a briefing's first call makes it (need 'last', lazyInfo),
 * as a snapshot for the thread that started this one (catalogWorkerEntry.ts); undefined when the
 * terminals folder cannot be listed. `progress`: [terminals read, terminals to read] as it goes. The catalog is forgotten here afterwards: this thread reads
 * and writes nothing more.
 */
export async function firstBuildSnapshot(agentDir: string, progress?: Int32Array): Promise<CatalogSnapshot | undefined> {
  const c = catalogOf(agentDir);
  try {
    const r = await c.rolling.run(() => update(agentDir, c, [], 'last', true, progress));
    if (!r.ok || r.value === null || !c.listed) return undefined;
    return { dir: c.dir, listed: true, numbers: c.numbers, previous: [...c.previous], indexed: [...c.indexed], entries: [...c.entries.values()] };
  } finally {
    resetProcessState();
  }
}

/**
 * The terminals of a first build's snapshot whose files differ from what the build read, by a stat
 * of each file it read (as check() compares them): asked of the worker by the thread that takes
 * the build, which then checks only these (catalogWorker.ts).
 */
export function changedSince(agentDir: string, s: CatalogSnapshot): number[] {
  return staleTerminals(path.join(agentDir, TERMINALS_DIR), entryStamps(s.entries));
}
