/**
 * One catalog of every captured terminal, so questions about all of them ("N captured terminals",
 * the newest failure anywhere, which terminals failed last) cost a readdir and a stat per file, not
 * a read of every terminal's files (issue 22: a year of use is thousands of terminals, and each
 * agent session starts a new MCP server).
 *
 * Per terminal N it keeps the header facts of `N.txt` (keyed on its device, inode, size and mtime)
 * and a compact summary of `N.index.jsonl` (count, last command, last finished command, last
 * failure) folded with AppendFold, whose checkpoint (device, inode, offset, fingerprint of the
 * bytes before it) it keeps. It lives in memory per process and in one file,
 * `.agent/.cache/terminal-catalog.json`, loaded once per process. Every call checks each file
 * against what the catalog says (one sync stat each, about 2 µs), so only terminals that changed
 * are read again, and only what was appended to them: a file truncated, rotated (N.1.txt),
 * deleted or rewritten under it is read again (AppendFold starts over when the inode, size or
 * fingerprint says so).
 *
 * The file is written atomically (temp + rename) by whichever process changed something; several
 * processes may write it, the last whole write wins, and since each reader validates every entry
 * against the files, a stale or foreign entry only costs a re-read. A catalog that is missing,
 * unparsable, of another format or version, or whose entries are malformed is rebuilt from the
 * files (malformed entries alone are re-read).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { advanceFold, advanceFoldSync, CACHE_DIR, isFoldCheckpoint, type FoldCheckpoint, type FoldSpec } from '../fs/appendFold';
import { createExclusive, writeFileAtomic } from '../fs/fsAtomic';
import { err, ok, type Result } from '../result';
import { notRegularFile, readTerminalHeaderInfo, readTerminalHeaderInfoSync, terminalFileNumber, TERMINALS_DIR, unreadableTerminal, type IndexRecord, type TerminalInfo } from './terminalIndex';

/** A command as the catalog keeps it: what ordering and counting across terminals needs. */
export interface BriefCommand {
  command: number;
  status: 'running' | 'done';
  exitCode: number | null;
  /** On a done command without an exit code: why (as TerminalCommand.exitUnknown). */
  exitUnknown: string | null;
  /** Start + duration (commandEndMs of the same command). */
  endMs: number;
}

/** What the catalog knows of one terminal's index. */
export interface TerminalBrief {
  /** Commands in the index (as TerminalSummary.commands). */
  commands: number;
  /** The highest-numbered command (as TerminalSummary.last). */
  last: BriefCommand | null;
  /** The highest-numbered finished command. */
  lastDone: BriefCommand | null;
  /** The latest command (in index order) that finished with a non-zero exit code (as TerminalSummary.lastFailed). */
  lastFailed: BriefCommand | null;
}

/** One terminal of the catalog. */
export interface CatalogTerminal {
  info: TerminalInfo;
  brief: TerminalBrief;
}

interface CompactState {
  count: number;
  maxCommand: number;
  last: BriefCommand | null;
  /** The highest-numbered finished command below `last`. */
  prevDone: BriefCommand | null;
  lastFailed: BriefCommand | null;
}

function briefOf(r: IndexRecord): BriefCommand {
  const exitCode = r.exitCode ?? null;
  const done = r.status === 'done';
  const t = Date.parse(r.started);
  return {
    command: r.command,
    status: done ? 'done' : 'running',
    exitCode,
    exitUnknown: done && exitCode === null ? (typeof r.exitUnknown === 'string' ? r.exitUnknown : 'not recorded') : null,
    endMs: (Number.isNaN(t) ? 0 : t) + (r.durationMs ?? 0),
  };
}

function isRecord(r: unknown): r is IndexRecord {
  const o = r as IndexRecord;
  return typeof o === 'object' && o !== null && typeof o.command === 'number' && typeof o.file === 'string' && typeof o.firstLine === 'number';
}

/** The compact fold of an index: a command's latest record decides its state, as in commandFromRecords. */
const SPEC: FoldSpec<CompactState> = {
  version: 1,
  init: () => ({ count: 0, maxCommand: 0, last: null, prevDone: null, lastFailed: null }),
  line(s, text) {
    if (text.trim() === '') return;
    let r: unknown;
    try {
      r = JSON.parse(text);
    } catch {
      return;
    }
    if (!isRecord(r)) return;
    if (r.command > s.maxCommand || s.count === 0) s.count++;
    s.maxCommand = Math.max(s.maxCommand, r.command);
    const b = briefOf(r);
    if (!s.last || r.command > s.last.command) {
      if (s.last?.status === 'done') s.prevDone = s.last;
      s.last = b;
    } else if (r.command === s.last.command) s.last = b;
    else if (b.status === 'done' && (!s.prevDone || r.command >= s.prevDone.command)) s.prevDone = b;
    if (r.status === 'done' && r.exitCode !== null && r.exitCode !== undefined && r.exitCode !== 0) s.lastFailed = b;
  },
};

type StatKey = [number, number, number, number];

interface Entry {
  n: number;
  /** dev, ino, size, mtimeMs of N.txt when `info` was read. */
  txt: StatKey;
  info: Omit<TerminalInfo, 'previousFile'>;
  /** Where the compact fold of N.index.jsonl stands; null when there is no index file. */
  idx: FoldCheckpoint<CompactState> | null;
}

interface CatalogFile {
  format: string;
  v: number;
  spec: number;
  terminals: Entry[];
}

const FORMAT = 'agent-context/terminal-catalog';
const VERSION = 1;
/** Re-read this many terminals in one call and the catalog is written at once; fewer changes are written within WRITE_DELAY_MS. */
const WRITE_NOW_CHANGES = 20;
const WRITE_DELAY_MS = 2000;
/** Files read at once when many terminals changed (a first build). */
const READ_CONCURRENCY = 32;
/** Synchronous reads of changed terminals go on for at most this long between yields to the event loop. */
const SLICE_MS = 20;
/** An index with more than this to fold is read asynchronously (a sync read of it would block too long). */
const SYNC_FOLD_MAX = 256 * 1024;
/** Sync stats between yields to the event loop (the extension host must not block for long). */
const STATS_PER_SLICE = 2000;

/** `<agentDir>/.cache/terminal-catalog.json`. */
export function catalogPath(agentDir: string): string {
  return path.join(agentDir, CACHE_DIR, 'terminal-catalog.json');
}

const keyOf = (st: fs.Stats): StatKey => [st.dev, st.ino, st.size, st.mtimeMs];
const sameKey = (a: StatKey, st: fs.Stats): boolean => a[0] === st.dev && a[1] === st.ino && a[2] === st.size && a[3] === st.mtimeMs;

const isNum = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
const strOrNull = (x: unknown): boolean => x === null || typeof x === 'string';

function isBrief(b: unknown): boolean {
  if (b === null) return true;
  const o = b as BriefCommand;
  return typeof o === 'object' && isNum(o.command) && (o.status === 'running' || o.status === 'done') && (o.exitCode === null || isNum(o.exitCode)) && strOrNull(o.exitUnknown) && isNum(o.endMs);
}

/** An entry read from the file is used only when every field has the shape this code writes. */
function validEntry(e: unknown): e is Entry {
  const o = e as Entry;
  if (typeof o !== 'object' || o === null || !Number.isInteger(o.n) || o.n < 0) return false;
  if (!Array.isArray(o.txt) || o.txt.length !== 4 || !o.txt.every(isNum)) return false;
  const i = o.info;
  if (typeof i !== 'object' || i === null || i.n !== o.n || i.file !== `${TERMINALS_DIR}/${o.n}.txt` || typeof i.name !== 'string'
    || !strOrNull(i.shell) || !strOrNull(i.cwd) || !strOrNull(i.started) || typeof i.shellIntegration !== 'boolean' || typeof i.closed !== 'boolean' || !isNum(i.sizeBytes) || i.error !== undefined) return false;
  if (o.idx === null) return true;
  if (!isFoldCheckpoint<CompactState>(o.idx, SPEC) || typeof o.idx.state !== 'object') return false;
  const s = o.idx.state;
  return isNum(s.count) && isNum(s.maxCommand) && isBrief(s.last) && isBrief(s.prevDone) && isBrief(s.lastFailed);
}

interface Catalog {
  entries: Map<number, Entry>;
  loaded: boolean;
  busy: Promise<unknown>;
  writtenOnce: boolean;
  timer?: NodeJS.Timeout;
}

const catalogs = new Map<string, Catalog>();

async function load(agentDir: string, c: Catalog): Promise<void> {
  c.loaded = true;
  let o: CatalogFile;
  try {
    o = JSON.parse(await fs.promises.readFile(catalogPath(agentDir), 'utf8')) as CatalogFile;
  } catch {
    return; // missing or unparsable: built from the files
  }
  if (typeof o !== 'object' || o === null || o.format !== FORMAT || o.v !== VERSION || o.spec !== SPEC.version || !Array.isArray(o.terminals)) return;
  for (const e of o.terminals) if (validEntry(e)) c.entries.set(e.n, e);
}

async function save(agentDir: string, c: Catalog): Promise<void> {
  if (c.timer) {
    clearTimeout(c.timer);
    c.timer = undefined;
  }
  // The folder went away meanwhile (a removed workspace): nothing to keep, and nothing to re-create.
  if (!fs.existsSync(path.join(agentDir, TERMINALS_DIR))) return;
  const file = catalogPath(agentDir);
  const body: CatalogFile = { format: FORMAT, v: VERSION, spec: SPEC.version, terminals: [...c.entries.values()] };
  try {
    // The folder ignores itself, so the catalog never shows up in git.
    await createExclusive(path.join(path.dirname(file), '.gitignore'), '*\n');
    await writeFileAtomic(file, JSON.stringify(body));
    c.writtenOnce = true;
  } catch {
    // a read-only or full disk: the catalog in memory still works, and the next process rebuilds what it lacks
  }
}

/** Runs `f` over `items` with at most `limit` at once. */
async function pool<T>(items: T[], limit: number, f: (x: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await f(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

const EMPTY: CompactState = SPEC.init();

function briefFrom(s: CompactState): TerminalBrief {
  return { commands: s.count, last: s.last, lastDone: s.last?.status === 'done' ? s.last : s.prevDone, lastFailed: s.lastFailed };
}

async function refresh(agentDir: string, c: Catalog): Promise<Result<CatalogTerminal[]>> {
  if (!c.loaded) await load(agentDir, c);
  const dir = path.join(agentDir, TERMINALS_DIR);
  let names: string[];
  try {
    names = await fs.promises.readdir(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      c.entries.clear();
      return ok([]);
    }
    return err({ file: dir, message: `cannot list captured terminals: ${(e as Error).message}` });
  }
  const set = new Set(names);
  const numbers: number[] = [];
  for (const name of names) {
    const n = terminalFileNumber(name);
    if (n !== undefined) numbers.push(n);
  }
  numbers.sort((a, b) => a - b);
  // Pass 1: a stat of each N.txt and N.index.jsonl against the catalog; what differs is read in pass 2.
  type Slot = { n: number; info?: TerminalInfo; txtSt?: fs.Stats; idxSt?: fs.Stats; needInfo: boolean; needIdx: boolean; brief?: CompactState };
  const slots: Slot[] = [];
  let changed = 0;
  for (let i = 0; i < numbers.length; i++) {
    if (i > 0 && i % STATS_PER_SLICE === 0) await new Promise((r) => setImmediate(r));
    const n = numbers[i];
    const previousFile = set.has(`${n}.1.txt`) ? `${TERMINALS_DIR}/${n}.1.txt` : null;
    const entry = c.entries.get(n);
    const slot: Slot = { n, needInfo: false, needIdx: false };
    let txtSt: fs.Stats | undefined;
    try {
      txtSt = fs.statSync(path.join(dir, `${n}.txt`), { throwIfNoEntry: false });
      if (!txtSt) {
        c.entries.delete(n); // removed since the readdir (cleanup, rotation)
        continue;
      }
      if (!txtSt.isFile()) throw notRegularFile(txtSt);
      if (entry && sameKey(entry.txt, txtSt)) slot.info = { ...entry.info, previousFile };
      else {
        slot.needInfo = true;
        slot.txtSt = txtSt;
      }
    } catch (e) {
      slot.info = unreadableTerminal(n, previousFile, e);
    }
    let idxSt: fs.Stats | undefined;
    try {
      idxSt = fs.statSync(path.join(dir, `${n}.index.jsonl`), { throwIfNoEntry: false });
      if (!idxSt) {
        slot.brief = EMPTY;
        if (entry?.idx) {
          entry.idx = null; // the index was removed
          changed++;
        }
      } else if (entry?.idx && entry.idx.dev === idxSt.dev && entry.idx.ino === idxSt.ino && entry.idx.size === idxSt.size && entry.idx.mtimeMs === idxSt.mtimeMs) slot.brief = entry.idx.state;
      else {
        slot.needIdx = true;
        slot.idxSt = idxSt;
      }
    } catch {
      slot.needIdx = true; // cannot even stat it: the read in pass 2 decides
    }
    if (slot.needInfo || slot.needIdx) changed++;
    slots.push(slot);
  }
  // Terminals gone from the folder leave the catalog.
  const present = new Set(slots.map((s) => s.n));
  for (const n of [...c.entries.keys()]) {
    if (!present.has(n)) {
      c.entries.delete(n);
      changed++;
    }
  }
  // Pass 2: read what changed (of an index only appended to, only what was appended). Synchronous
  // reads in slices of SLICE_MS (a first build reads 20,000 small files: async dispatch alone took
  // seconds); an index with more than SYNC_FOLD_MAX bytes to fold is read asynchronously afterwards.
  const read = async (s: Slot, sync: boolean): Promise<void> => {
    const old = c.entries.get(s.n);
    const previousFile = set.has(`${s.n}.1.txt`) ? `${TERMINALS_DIR}/${s.n}.1.txt` : null;
    // An unreadable N.txt (s.info set with its error in pass 1) is not kept: it is checked again next time.
    let kept: Pick<Entry, 'txt' | 'info'> | undefined = old && !s.needInfo && !s.info?.error ? old : undefined;
    if (s.needInfo) {
      try {
        const file = path.join(dir, `${s.n}.txt`);
        const info = sync ? readTerminalHeaderInfoSync(file, s.n, s.txtSt!) : await readTerminalHeaderInfo(file, s.n, s.txtSt!);
        kept = { txt: keyOf(s.txtSt!), info };
        s.info = { ...info, previousFile };
      } catch (e) {
        s.info = unreadableTerminal(s.n, previousFile, e);
      }
      s.needInfo = false;
    }
    let idx = old?.idx ?? null;
    if (s.needIdx) {
      // The fold continues from the catalog's checkpoint when the file was only appended to; it starts over otherwise.
      const file = path.join(dir, `${s.n}.index.jsonl`);
      const from = old?.idx ?? undefined;
      if (old) old.idx = null; // folded in place: never kept half-updated if the read fails
      try {
        const st = s.idxSt ?? fs.statSync(file);
        const r = sync ? advanceFoldSync(file, SPEC, from, st, SYNC_FOLD_MAX) : await advanceFold(file, SPEC, from, st);
        if (!r) {
          // More to fold than one sync read takes: the async pass does it.
          if (old) old.idx = from ?? null;
          if (kept) c.entries.set(s.n, { n: s.n, txt: kept.txt, info: kept.info, idx: from ?? null });
          big.push(s);
          return;
        }
        s.brief = r.cp.state;
        idx = r.cp;
      } catch {
        // Gone since the stat, or unreadable: no commands known (the terminal tool names the problem when asked for that terminal).
        s.brief = EMPTY;
        idx = null;
      }
      s.needIdx = false;
    }
    if (kept) c.entries.set(s.n, { n: s.n, txt: kept.txt, info: kept.info, idx });
    else c.entries.delete(s.n);
  };
  const big: Slot[] = [];
  let sliceStart = performance.now();
  for (const s of slots) {
    if (!s.needInfo && !s.needIdx) continue;
    if (performance.now() - sliceStart > SLICE_MS) {
      await new Promise((r) => setImmediate(r));
      sliceStart = performance.now();
    }
    await read(s, true);
  }
  await pool(big, READ_CONCURRENCY, (s) => read(s, false));
  const out: CatalogTerminal[] = [];
  for (const s of slots) if (s.info) out.push({ info: s.info, brief: briefFrom(s.brief ?? EMPTY) });
  if (changed > 0) {
    if (!c.writtenOnce || changed >= WRITE_NOW_CHANGES) await save(agentDir, c);
    else if (!c.timer) {
      c.timer = setTimeout(() => void run(agentDir, () => save(agentDir, c)), WRITE_DELAY_MS);
      c.timer.unref?.();
    }
  }
  return ok(out);
}

function catalogOf(agentDir: string): Catalog {
  const key = path.resolve(agentDir);
  let c = catalogs.get(key);
  if (!c) {
    c = { entries: new Map(), loaded: false, busy: Promise.resolve(), writtenOnce: false };
    catalogs.set(key, c);
  }
  return c;
}

/** Runs `f` after whatever the catalog of agentDir is doing (one refresh or write at a time per folder). */
function run<T>(agentDir: string, f: () => Promise<T>): Promise<T> {
  const c = catalogOf(agentDir);
  const p = c.busy.then(f);
  c.busy = p.catch(() => undefined);
  return p;
}

/**
 * Every captured terminal (`.agent/terminals/N.txt`) with its header facts and a brief of its
 * index, by number, as the files are now: costs a readdir and two stats per terminal, plus reading
 * what changed since this process (or any process, through the catalog file) last looked.
 */
export function terminalCatalog(agentDir: string): Promise<Result<CatalogTerminal[]>> {
  return run(agentDir, () => refresh(agentDir, catalogOf(agentDir)));
}

/** Forgets the in-memory catalogs (tests: a new process). */
export function resetTerminalCatalogs(): void {
  for (const c of catalogs.values()) if (c.timer) clearTimeout(c.timer);
  catalogs.clear();
}
