/**
 * The readers of terminal capture's files (their formats: terminalFormat.ts): each terminal's header
 * facts, the folder's listing (kept in `.agent/.cache/` under the folder's stamp), and a terminal's
 * index, whole or its last commands.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { err, ok, type FileError, type Result } from '../result';
import { fsCause } from '../fs/fsErrors';
import { sameStamp, settledStamp, stampOf, type FolderStamp } from '../fs/settledStamp';
import { cacheFile } from '../workspace/cacheFiles';
import { writeCacheFile } from '../fs/fsAtomic';
import { parseTerminalHeader, parseTerminalIndex, previousFileOf, TERMINALS_DIR, type TerminalCommand, type TerminalIndex, type TerminalInfo } from './terminalFormat';
import { processCache, processSet } from '../processState';
import { yieldNow } from '../eventLoop';

/**
 * The last reads of terminal files, keyed on each file's device, inode, size and mtime: a list or
 * view refresh re-reads only the terminals written since (one command in one terminal costs one
 * terminal's reads, not the page's), and a file changed by anyone (another window, the MCP server)
 * has another key. Bounded: the oldest entries go first.
 */
class StatMemo<T> {
  private readonly m = new Map<string, { key: string; value: T }>();
  constructor(private readonly max: number) {}
  get(id: string, st: fs.Stats): T | undefined {
    const hit = this.m.get(id);
    return hit && hit.key === statKey(st) ? hit.value : undefined;
  }
  set(id: string, st: fs.Stats, value: T): void {
    this.m.delete(id);
    this.m.set(id, { key: statKey(st), value });
    if (this.m.size > this.max) this.m.delete(this.m.keys().next().value as string);
  }
}

function statKey(st: fs.Stats): string {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
}

const infoMemo = new StatMemo<Omit<TerminalInfo, 'previousFile'>>(1000);
const tailMemo = new StatMemo<TerminalIndexPage>(1000);
/** Pages of at most this many commands are kept in tailMemo (about 1 KB each). */
const TAIL_MEMO_MAX_COUNT = 5;

/** How terminal files are opened for synchronous reads: O_NONBLOCK, so a FIFO put in a file's place cannot hang the thread in open(). */
export const OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0);

/** The error that `N.txt` exists but is not a regular file (a folder in its place). */
export function notRegularFile(st: fs.Stats): Error {
  return Object.assign(new Error('not a regular file'), { code: st.isDirectory() ? 'EISDIR' : 'EINVAL' });
}

/** The header facts of terminal file `file` (`N.txt`, a regular file whose stat is `st`): reads its head and tail. */
export async function readTerminalHeaderInfo(file: string, n: number, st: fs.Stats): Promise<Omit<TerminalInfo, 'previousFile'>> {
  const known = infoMemo.get(file, st);
  if (known) return known;
  // Synchronous reads of a head and a tail (4 KB and 200 bytes): the promise API cost ~10x the CPU.
  const info = readTerminalHeaderInfoSync(file, n, st);
  infoMemo.set(file, st, info);
  return info;
}

/**
 * readTerminalHeaderInfo with synchronous reads (a few µs each), for a caller that reads thousands
 * in slices and keeps what it read by the file's stat itself (the terminal catalog: no memo here).
 */
export function readTerminalHeaderInfoSync(file: string, n: number, st: fs.Stats): Omit<TerminalInfo, 'previousFile'> {
  return headerInfo(file, n, st, readEdgesSync(file, st.size));
}

/** One buffer for the synchronous reads (they never overlap): thousands of small reads allocate nothing. */
const edges = Buffer.allocUnsafe(4096 + 200);

/** readTerminalHeaderInfoSync of a file the caller opened (`fd`, left open) and fstat'ed (one path lookup for both: the catalog's first build opens 10,000 of them). */
export function readTerminalHeaderInfoFdSync(fd: number, file: string, n: number, st: fs.Stats): Omit<TerminalInfo, 'previousFile'> {
  return headerInfo(file, n, st, readEdgesFd(fd, st.size));
}

/** What headerInfo reads of a terminal file: its header lines, its last 200 bytes, and whether its head or tail holds the note that shell integration became active. */
interface Edges {
  head: string;
  tail: string;
  becameActive: boolean;
}

function readEdgesSync(file: string, size: number): Edges {
  const fd = fs.openSync(file, OPEN_FLAGS);
  try {
    return readEdgesFd(fd, size);
  } finally {
    fs.closeSync(fd);
  }
}

const BECAME_ACTIVE = Buffer.from('# shell integration became active');

/** Where the header lines of buf[0, len) end: at the first line that does not start with "# " (parseTerminalHeader's rule). */
function headerEnd(buf: Buffer, len: number): number {
  let at = 0;
  while (at + 1 < len && buf[at] === 35 /* # */ && buf[at + 1] === 32) {
    const nl = buf.indexOf(10, at);
    if (nl < 0 || nl >= len) return len;
    at = nl + 1;
  }
  return at;
}

function readEdgesFd(fd: number, size: number): Edges {
  // A file of up to 4 KB (most terminals an agent opened) is one read, its head and tail at once.
  // Only the header lines become a string (at 10,000 terminals, the rest of 4 KB each was most of a first build's garbage).
  const headLen = fs.readSync(fd, edges, 0, Math.min(size, 4096), 0);
  const head = edges.toString('utf8', 0, headerEnd(edges, headLen));
  const inHead = edges.subarray(0, headLen).indexOf(BECAME_ACTIVE) >= 0;
  if (size <= 4096) return { head, tail: edges.toString('utf8', Math.max(0, headLen - 200), headLen), becameActive: inHead };
  const tailLen = fs.readSync(fd, edges, 4096, 200, size - 200);
  return { head, tail: edges.toString('utf8', 4096, 4096 + tailLen), becameActive: inHead || edges.subarray(4096, 4096 + tailLen).indexOf(BECAME_ACTIVE) >= 0 };
}

function headerInfo(file: string, n: number, st: fs.Stats, { head, tail, becameActive }: Edges): Omit<TerminalInfo, 'previousFile'> {
  const h = parseTerminalHeader(head);
  return {
    n,
    name: h['terminal'] ?? `terminal ${n}`,
    shell: h['shell'] ?? null,
    cwd: h['cwd'] ?? null,
    started: h['started'] ?? null,
    shellIntegration: (h['shell integration'] ?? '').startsWith('active') || becameActive,
    file: `${TERMINALS_DIR}/${path.basename(file)}`,
    closed: /# terminal closed at [^\n]*\n?$/.test(tail),
    sizeBytes: st.size,
    ...(h['agent'] ? { agent: h['agent'], session: h['session'] ?? 'unknown' } : {}),
  };
}

/** What the lists show for a terminal file that exists but cannot be read. */
export function unreadableTerminal(n: number, previousFile: string | null, e: unknown): TerminalInfo {
  return {
    n, name: `terminal ${n}`, shell: null, cwd: null, started: null, shellIntegration: false, file: `${TERMINALS_DIR}/${n}.txt`, previousFile, closed: true, sizeBytes: 0,
    error: `cannot be read: ${fsCause(e)}`,
  };
}

/** The header facts of terminal n's `N.txt` (undefined when it vanished); `rotated`: the numbers that have an `N.1.txt`. */
async function readTerminalInfo(dir: string, n: number, rotated: ReadonlySet<number>): Promise<TerminalInfo | undefined> {
  const file = `${dir}${path.sep}${n}.txt`;
  const previousFile = previousFileOf(n, rotated);
  try {
    const st = await fs.promises.stat(file);
    if (!st.isFile()) throw notRegularFile(st);
    return { ...(await readTerminalHeaderInfo(file, n, st)), previousFile };
  } catch (e) {
    // Removed between readdir and stat (cleanup, rotation): skip it. Anything else is a terminal that cannot be read: say so.
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return unreadableTerminal(n, previousFile, e);
  }
}

/** What a listing of the terminals folder holds: N of every `N.txt` (ascending), and the N that have an `N.1.txt` or an `N.index.jsonl`. */
export interface TerminalNames {
  numbers: number[];
  previous: Set<number>;
  indexed: Set<number>;
}

/** Reads a listing of the terminals folder (other names are left out; each terminal number once). */
export function parseTerminalNames(names: readonly string[]): TerminalNames {
  const numbers: number[] = [];
  const previous = new Set<number>();
  const indexed = new Set<number>();
  for (const name of names) {
    // `<digits>.txt`, `<digits>.1.txt` or `<digits>.index.jsonl` (30,000 names at 10,000 terminals: read by hand, not by a regular expression).
    let d = 0;
    while (d < name.length && name.charCodeAt(d) >= 48 && name.charCodeAt(d) <= 57) d++;
    // Only the names capture writes: no leading zero (`007.txt` would be a second name for 7), at most 15 digits (exact as a number).
    if (d === 0 || d > 15 || (d > 1 && name.charCodeAt(0) === 48) || name.charCodeAt(d) !== 46 /* . */) continue;
    const rest = name.length - d;
    const kind = rest === 4 && name.endsWith('.txt') ? 0 : rest === 6 && name.endsWith('.1.txt') ? 1 : rest === 12 && name.endsWith('.index.jsonl') ? 2 : -1;
    if (kind < 0) continue;
    const n = Number(name.slice(0, d));
    if (kind === 0) numbers.push(n);
    else if (kind === 1) previous.add(n);
    else indexed.add(n);
  }
  numbers.sort((a, b) => a - b);
  return { numbers, previous, indexed };
}

/**
 * A page of captured terminals for a list that leads with what matters now: the terminals in
 * `first` (live ones), then the others newest (highest number) first; only the page's files are
 * opened. `total` counts every `N.txt`.
 */
export async function listTerminalsPage(agentDir: string, opts: { count: number; skip?: number; first?: readonly number[] }): Promise<Result<{ terminals: TerminalInfo[]; total: number }>> {
  const dir = path.join(agentDir, TERMINALS_DIR);
  const listed = await terminalNames(dir);
  if (!listed.ok) return listed;
  const { present, previous, newestFirst: numbers } = listed.value;
  // Live ones first, then the rest; newest first within each.
  const first = [...new Set(opts.first ?? [])].filter((n) => present.has(n)).sort((a, b) => b - a);
  const firstSet = new Set(first);
  const skip = opts.skip ?? 0;
  const page: number[] = [];
  let at = 0; // position in that order
  for (const n of first) if (at++ >= skip && page.length < opts.count) page.push(n);
  for (const n of numbers) {
    if (page.length >= opts.count) break;
    if (!firstSet.has(n) && at++ >= skip) page.push(n);
  }
  const infos = await Promise.all(page.map((k) => readTerminalInfo(dir, k, previous)));
  return ok({ terminals: infos.filter((i): i is TerminalInfo => i !== undefined), total: numbers.length });
}

/**
 * The terminal folder's terminal numbers (newest first) and those with an `N.1.txt`, listed again only when
 * the folder itself changed (a file created, removed or renamed; appends leave it as it is), so a
 * view refreshed for each command does not list 10,000 files each time. A listing is kept only when
 * the folder's stamp was settled as it was read (fs/settledStamp.ts: a file created in the same clock
 * tick as the one seen could leave the stamp unchanged).
 *
 * The kept listing is also written to `.agent/.cache/terminal-names.json` (its numbers, not the
 * 20,000 names), so a new process (each editor start, each agent session's server) whose folder
 * still has that stamp takes it instead of listing and parsing the folder again (~20 ms of the
 * editor's start at 10,000 terminals: bench row 19a). A file that is missing, unparsable, of another
 * format, or for another stamp or folder is ignored, and the folder listed.
 */
type Listing = { present: ReadonlySet<number>; previous: ReadonlySet<number>; newestFirst: number[]; /** The highest N of any N.txt, N.1.txt or N.index.jsonl (0: none). */ highest: number };
const folderListings = processCache<string, FolderStamp & Listing>();
/** Folders whose listing file this process has looked at (once each). */
const listingFilesRead = processSet<string>();
const LISTING_FORMAT = 'agent-context/terminal-names';

/** `.agent/.cache/terminal-names.json` for a terminals folder. */
export function listingFileOf(dir: string): string {
  return cacheFile(path.dirname(dir), 'terminalNames');
}

/** The listing kept in the file, when it is for this folder as it is now (`st`). */
function listingFromFile(dir: string, st: fs.Stats): (FolderStamp & Listing) | undefined {
  let v: { format?: unknown; dev?: unknown; ino?: unknown; mtimeMs?: unknown; ctimeMs?: unknown; numbers?: unknown; previous?: unknown; highest?: unknown };
  try {
    v = JSON.parse(fs.readFileSync(listingFileOf(dir), 'utf8')) as typeof v;
  } catch {
    return undefined;
  }
  const nums = (x: unknown): x is number[] => Array.isArray(x) && x.every((n) => Number.isSafeInteger(n) && n >= 0);
  if (!v || v.format !== LISTING_FORMAT || v.dev !== st.dev || v.ino !== st.ino || v.mtimeMs !== st.mtimeMs || v.ctimeMs !== st.ctimeMs || !nums(v.numbers) || !nums(v.previous) || !nums([v.highest])) return undefined;
  const ascending = [...v.numbers].sort((a, b) => a - b);
  return { ...stampOf(st), present: new Set(ascending), previous: new Set(v.previous), newestFirst: ascending.reverse(), highest: v.highest as number };
}

function writeListingFile(dir: string, st: fs.Stats, numbers: readonly number[], previous: ReadonlySet<number>, highest: number): void {
  const file = listingFileOf(dir);
  const text = JSON.stringify({ format: LISTING_FORMAT, dev: st.dev, ino: st.ino, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, numbers, previous: [...previous], highest });
  // A read-only or full disk only costs the next process a listing.
  void writeCacheFile(file, text).catch(() => undefined);
}

async function terminalNames(dir: string): Promise<Result<Listing>> {
  let names: string[];
  let st: fs.Stats;
  try {
    st = await fs.promises.stat(dir);
    const had = folderListings.get(dir);
    if (had && sameStamp(had, st)) return ok(had);
    if (!listingFilesRead.has(dir)) {
      listingFilesRead.add(dir);
      const kept = settledStamp(st, Date.now()) ? listingFromFile(dir, st) : undefined;
      if (kept) {
        folderListings.set(dir, kept);
        return ok(kept);
      }
    }
    names = await fs.promises.readdir(dir);
  } catch (e) {
    folderListings.delete(dir);
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return ok({ present: new Set(), previous: new Set(), newestFirst: [], highest: 0 });
    return err({ file: dir, message: `cannot list captured terminals: ${(e as Error).message}` });
  }
  const { numbers, previous, indexed } = parseTerminalNames(names);
  let highest = numbers.length ? numbers[numbers.length - 1] : 0;
  for (const n of previous) if (n > highest) highest = n;
  for (const n of indexed) if (n > highest) highest = n;
  // Kept (here and in the file) only when the folder's stamp can stand for this listing.
  const settled = settledStamp(st, Date.now());
  if (settled) writeListingFile(dir, st, numbers, previous, highest);
  const entry = { ...stampOf(st), present: new Set(numbers), previous, newestFirst: numbers.reverse(), highest };
  if (settled) folderListings.set(dir, entry);
  else folderListings.delete(dir);
  return ok(entry);
}

/**
 * The highest terminal number used in `dir` by any `N.txt`, `N.1.txt` or `N.index.jsonl` (0: none),
 * from the kept listing while the folder is as it was (capture numbers a new terminal after it).
 */
export async function highestTerminalNumber(dir: string): Promise<Result<number>> {
  const listed = await terminalNames(dir);
  return listed.ok ? ok(listed.value.highest) : listed;
}

/** Terminal N alone (its `N.txt` header facts), without listing the folder; undefined when there is no `N.txt`. */
export async function readOneTerminal(agentDir: string, n: number): Promise<TerminalInfo | undefined> {
  const dir = path.join(agentDir, TERMINALS_DIR);
  return readTerminalInfo(dir, n, new Set(fs.existsSync(path.join(dir, `${n}.1.txt`)) ? [n] : []));
}

/** Lists the captured terminals under `<agentDir>/terminals`, by number. A missing folder is an empty list. */
export async function listTerminals(agentDir: string): Promise<Result<TerminalInfo[]>> {
  const dir = path.join(agentDir, TERMINALS_DIR);
  const listed = await terminalNames(dir);
  if (!listed.ok) return listed;
  const { previous, newestFirst } = listed.value;
  const out: TerminalInfo[] = [];
  for (let i = newestFirst.length - 1; i >= 0; i--) {
    const info = await readTerminalInfo(dir, newestFirst[i], previous);
    if (info) out.push(info);
  }
  return ok(out);
}

/** Reads `<agentDir>/terminals/N.index.jsonl` into commands (oldest first); unreadable lines come back as problems. */
export async function readTerminalIndex(agentDir: string, n: number): Promise<Result<TerminalIndex>> {
  const file = path.join(agentDir, TERMINALS_DIR, `${n}.index.jsonl`);
  let text: string;
  try {
    text = await fs.promises.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return ok({ commands: [], problems: [] });
    return err({ file, message: `cannot read the terminal index: ${(e as Error).message}` });
  }
  return ok(parseTerminalIndex(text, file));
}

/** A page of a terminal's commands read from the end of its index (see readTerminalIndexTail). */
export interface TerminalIndexPage {
  /** The newest `count` commands numbered below `before`, oldest first. */
  commands: TerminalCommand[];
  /** The highest command number in the index (commands are numbered 1, 2, ... per terminal). */
  total: number;
  /** How many commands are older than the first one returned. */
  older: number;
  problems: FileError[];
}

/**
 * Reads only the end of `<agentDir>/terminals/N.index.jsonl`: the newest `count` commands (numbered
 * below `before` when given), oldest first, plus the total. The file is read backwards in growing
 * chunks until one more command than asked for has been seen, so the cost follows the page, not the
 * terminal's history (a terminal with 20,000 commands costs the same as one with 200). A command's
 * records sit together near its end (running at its start, done at its end), so every returned
 * command is complete; the extra, possibly incomplete one is dropped.
 */
export async function readTerminalIndexTail(agentDir: string, n: number, opts: { count: number; before?: number }): Promise<Result<TerminalIndexPage>> {
  const file = path.join(agentDir, TERMINALS_DIR, `${n}.index.jsonl`);
  const before = opts.before ?? Number.POSITIVE_INFINITY;
  // Synchronous reads of a few KB (a view's page reads 50 terminals' tails at every start: the
  // promise API's open, stat, read and close cost ~10x the CPU of the reads themselves).
  let fd: number;
  try {
    fd = fs.openSync(file, OPEN_FLAGS);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return ok({ commands: [], total: 0, older: 0, problems: [] });
    return err({ file, message: `cannot read the terminal index: ${(e as Error).message}` });
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw notRegularFile(st);
    // Only small pages are kept (a list's last command per terminal): a kept 200-command page would
    // hold ~100 KB, and a view's expanded terminal is read again only when it changed anyway.
    const memoId = opts.count <= TAIL_MEMO_MAX_COUNT ? `${file}|${opts.count}|${before}` : undefined;
    const known = memoId ? tailMemo.get(memoId, st) : undefined;
    if (known) return ok({ ...known, commands: [...known.commands], problems: [...known.problems] });
    const size = st.size;
    const lines: Buffer[] = []; // complete lines, newest first
    const seen = new Set<number>();
    let total = 0;
    let pos = size;
    let carry: Buffer = Buffer.alloc(0);
    // A record is about 300 bytes and a command has two: small pages start with a small read.
    let chunk = Math.min(16 * 1024, Math.max(4096, opts.count * 1024));
    const wanted = (): boolean => [...seen].filter((c) => c < before).length > opts.count;
    while (pos > 0 && !wanted()) {
      // Further chunks (a long page, or lines without a command) leave the event loop a turn between reads.
      if (pos < size) await yieldNow();
      const len = Math.min(chunk, pos);
      pos -= len;
      chunk = Math.min(chunk * 2, 1024 * 1024);
      const buf = Buffer.alloc(len);
      fs.readSync(fd, buf, 0, len, pos);
      const linesBefore = lines.length;
      let data = carry.length ? Buffer.concat([buf, carry]) : buf;
      let end = data.length;
      // lastIndexOf, not a loop over the bytes: a view's first page reads 50 tails of 4-16 KB at every start.
      for (let i = data.lastIndexOf(10, end - 1); i >= 0; i = i > 0 ? data.lastIndexOf(10, i - 1) : -1) {
        if (end > i + 1) lines.push(data.subarray(i + 1, end));
        end = i;
      }
      carry = Buffer.from(data.subarray(0, end));
      data = Buffer.alloc(0);
      // Note the command numbers of the lines read in this chunk (parsed properly below).
      for (let k = linesBefore; k < lines.length; k++) {
        const l = lines[k];
        const m = /"command":(\d+)/.exec(l.toString('latin1', 0, Math.min(l.length, 80)));
        if (m) {
          const c = Number(m[1]);
          seen.add(c);
          if (c > total) total = c;
        }
      }
    }
    if (pos === 0 && carry.length) lines.push(carry);
    const atStart = pos === 0;
    const text = lines.reverse().map((b) => b.toString('utf8')).join('\n');
    const parsed = parseTerminalIndex(text, file);
    for (const c of parsed.commands) if (c.command > total) total = c.command;
    let cmds = parsed.commands.filter((c) => c.command < before);
    // The oldest command read may be missing its earlier records unless the file start was reached.
    if (!atStart && cmds.length > opts.count) cmds = cmds.slice(1);
    cmds = cmds.slice(-opts.count);
    const problems = parsed.problems.map((p) => ({ file: p.file, message: `${p.message} (near the end of the file)` }));
    const page = { commands: cmds, total, older: cmds.length ? cmds[0].command - 1 : 0, problems };
    if (memoId) tailMemo.set(memoId, st, page);
    return ok({ ...page, commands: [...cmds], problems: [...problems] });
  } catch (e) {
    return err({ file, message: `cannot read the terminal index: ${(e as Error).message}` });
  } finally {
    fs.closeSync(fd);
  }
}
