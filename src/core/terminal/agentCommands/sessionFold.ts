/**
 * Folds the spool of agents' own shell commands (commandSpool.ts) into one capture per agent
 * session: `.agent/terminals/N.txt` and `N.index.jsonl` in the terminal captures' format, with
 * `# agent:` and `# session:` header lines (terminalFormat.ts), so the catalog, the Terminals view,
 * agentContext_terminal and the briefing read agents' commands exactly as they read terminals.
 *
 * Whoever reads the history next folds (the editor on the change feed, a tool call, the hook program
 * after its own record): one folder at a time, under the lock of `spool/sessions.json`, which holds
 * the sessions still open (their N, the bytes and lines of N.txt, their command count). A session's
 * capture is closed (`# terminal closed at …`, the same note as a terminal's) once its agent's
 * process is gone, once it has been idle for SESSION_IDLE_MS, or when its file is full; a later
 * command of the same session starts a new capture. A closed capture is never written again.
 *
 * Nothing is lost or doubled when a fold dies half-way: a record file is removed only after its
 * block and index line are on disk and sessions.json says so; a capture that grew past what
 * sessions.json says is re-counted, and the records its index already names are not added again.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { appendWhole, writeFileAtomic } from '../../fs/fsAtomic';
import { closingAtEnd, EMPTY_TALLY, endTally, readIndexEnd, talliedClosing, talliedLines, tallyAfterEnd } from '../indexTally';
import { withFileLock } from '../../fs/fileLock';
import { unwrapAgentResult } from '../../hooks/agentResults';
import { agentName } from '../../hooks/agentNames';
import { maskSecrets } from '../../secrets';
import { claimTerminalFile } from '../captureWriter';
import { EXIT_UNKNOWN } from '../commandExit';
import { renderPipeOutput } from '../screen/terminalRenderer';
import { formatCommandFooter, formatCommandHeader, formatHeader, oneLine, TERMINALS_DIR, type IndexRecord } from '../terminalFormat';
import { parseSpoolRecord, SPOOL_DIR, SPOOL_SUFFIX, type SpoolRecord } from './commandSpool';

/** A session with no command for this long is closed; its next command starts a new capture. */
export const SESSION_IDLE_MS = 30 * 60 * 1000;
/** A record still without its end line this long after it was written: its writer died mid-write. */
export const INCOMPLETE_GRACE_MS = 60 * 1000;
/** A session capture is closed past this size and the session goes on in a new one (terminal captures rotate at the same size). */
const MAX_CAPTURE_BYTES = 10 * 1024 * 1024;
/**
 * Records folded under one hold of the lock: a lock held longer than fileLock's stale age (10 s) would
 * be taken for a dead holder's, so a long backlog (an agent busy while nothing read the history) is
 * folded in passes, the lock released between them.
 */
const RECORDS_PER_PASS = 1000;
/** A record file larger than this was not written by a hook (their outputs are references or small). */
const MAX_RECORD_BYTES = 4 * 1024 * 1024;
const SESSIONS_FILE = 'sessions.json';
const SESSIONS_FORMAT = 'agent-context/agent-sessions';

/** An open session's capture as sessions.json keeps it. */
interface OpenSession {
  agent: string;
  session: string;
  n: number;
  /** Size and line count of N.txt after the last fold. */
  bytes: number;
  lines: number;
  commands: number;
  /** When its last command ended (ms since epoch). */
  lastMs: number;
  pid?: number;
  host: string;
}

export interface FoldOptions {
  now?: number;
  /** Records per pass under the lock (tests). */
  perPass?: number;
  idleMs?: number;
  maxCaptureBytes?: number;
  /** Whether a process of this machine is alive (tests). */
  alive?: (pid: number) => boolean;
}

export interface FoldOutcome {
  /** Records folded into captures. */
  folded: number;
  /** Terminal numbers written to (new commands or a closing note). */
  touched: number[];
  /** Sessions closed by this fold. */
  closed: number[];
  /** Files that could not be folded, and why (left in place, or set aside as `<name>.bad`). */
  problems: string[];
}

const HOST = os.hostname();

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const sessionKey = (agent: string, session: string): string => `${agent}\u0000${session}`;

/** The open sessions a sessions.json text names; undefined when it is not a sessions file (damaged or edited). */
function parseSessions(text: string): Map<string, OpenSession> | undefined {
  let v: { format?: unknown; open?: unknown };
  try {
    v = JSON.parse(text) as typeof v;
  } catch {
    return undefined;
  }
  if (v.format !== SESSIONS_FORMAT || !Array.isArray(v.open)) return undefined;
  const out = new Map<string, OpenSession>();
  for (const s of v.open as unknown[]) {
    const o = s as Partial<OpenSession>;
    if (typeof o?.agent !== 'string' || typeof o.session !== 'string' || !Number.isInteger(o.n) || !Number.isInteger(o.bytes) || !Number.isInteger(o.lines) || !Number.isInteger(o.commands) || typeof o.lastMs !== 'number') continue;
    out.set(sessionKey(o.agent, o.session), { agent: o.agent, session: o.session, n: o.n!, bytes: o.bytes!, lines: o.lines!, commands: o.commands!, lastMs: o.lastMs, pid: Number.isInteger(o.pid) ? o.pid : undefined, host: typeof o.host === 'string' ? o.host : HOST });
  }
  return out;
}

/** Read under the lock: a file that is not a sessions file is moved aside (never rewritten in place). */
async function loadSessions(file: string, problems: string[]): Promise<Map<string, OpenSession>> {
  let text: string;
  try {
    text = await fs.promises.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') problems.push(`${file}: cannot be read (${(e as Error).message}); open sessions start new captures`);
    return new Map();
  }
  const open = parseSessions(text);
  if (open) return open;
  // Kept for a look, never rewritten in place: the sessions it named go on in new captures.
  const aside = `${file}.damaged-${Date.now()}`;
  await fs.promises.rename(file, aside).catch(() => undefined);
  problems.push(`${file} was not a sessions file (damaged or edited): moved to ${path.basename(aside)}; open sessions start new captures`);
  return new Map();
}

/** How long a session may go without a command before it is closed. */
const idleMsOf = (opts: FoldOptions): number => opts.idleMs ?? SESSION_IDLE_MS;

/** Why open session s is closed at `now`: its agent's process (of this machine) is gone, or it has been idle idleMsOf(opts); undefined: it stays open. */
function closeReason(s: OpenSession, now: number, opts: FoldOptions): 'gone' | 'idle' | undefined {
  if (s.pid !== undefined && s.host === HOST && !(opts.alive ?? processAlive)(s.pid)) return 'gone';
  return now - s.lastMs >= idleMsOf(opts) ? 'idle' : undefined;
}

/**
 * With no record to fold, whether a fold has anything to do: a session to close, or a sessions.json
 * to set aside. Read without the lock (sessions.json is replaced whole), so the usual answer, nothing,
 * costs one read and leaves the spool folder untouched: the lock file a fold creates is a change in
 * `.agent/terminals/`, and the Terminals view, which folds on every refresh, must not refresh itself.
 */
async function closingDue(sessionsFile: string, opts: FoldOptions): Promise<boolean> {
  let text: string;
  try {
    text = await fs.promises.readFile(sessionsFile, 'utf8');
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== 'ENOENT'; // unreadable: the fold under the lock says so
  }
  const open = parseSessions(text);
  if (!open) return true;
  const now = opts.now ?? Date.now();
  return [...open.values()].some((s) => closeReason(s, now, opts) !== undefined);
}

function countLines(s: string): number {
  let n = 0;
  for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * A session's capture as it is on disk when it is not what sessions.json says (a fold that died
 * after writing, an edit): its real size and line count, its highest command number and the
 * records its index already holds. Undefined when the file is gone or closed (a new capture then).
 */
async function recount(dir: string, s: OpenSession): Promise<{ bytes: number; lines: number; commands: number; spooled: Set<string> } | undefined> {
  let text: string;
  try {
    text = await fs.promises.readFile(path.join(dir, `${s.n}.txt`), 'utf8');
  } catch {
    return undefined;
  }
  if (/# terminal closed at [^\n]*\n?$/.test(text)) return undefined;
  const spooled = new Set<string>();
  let commands = 0;
  const index = await fs.promises.readFile(path.join(dir, `${s.n}.index.jsonl`), 'utf8').catch(() => '');
  for (const line of index.split('\n')) {
    if (!line) continue;
    try {
      const r = JSON.parse(line) as Partial<IndexRecord>;
      if (typeof r.spool === 'string') spooled.add(r.spool);
      if (typeof r.command === 'number' && r.command > commands) commands = r.command;
    } catch {
      // a line cut short: the commands it named are counted from the text below
    }
  }
  for (const m of text.matchAll(/^>>> command (\d+)/gm)) commands = Math.max(commands, Number(m[1]));
  return { bytes: Buffer.byteLength(text), lines: countLines(text), commands, spooled };
}

/** The text of one command's block and its index record, appended at line `lines` + 1 of terminal n. */
export function formatAgentCommand(spooled: SpoolRecord, k: number, n: number, lines: number, spool: string): { text: string; record: IndexRecord } {
  const r = spooled.enc === 'json' ? fromJsonHook(spooled) : spooled;
  const out = r.output;
  const shown = renderPipeOutput(out);
  const masked = maskSecrets(shown);
  const body = masked.text === '' || masked.text.endsWith('\n') ? masked.text : `${masked.text}\n`;
  const outLines = countLines(body);
  const started = new Date(r.startedMs ?? r.endedMs);
  const durationMs = r.startedMs === undefined ? undefined : Math.max(0, r.endedMs - r.startedMs);
  const command = maskSecrets(r.command).text;
  const secrets = (r.masked ?? 0) + masked.count;
  const headerLine = lines + 1;
  const text =
    formatCommandHeader(k, started, r.cwd, command, undefined, r.startedMs === undefined ? 'start not reported by the agent; this is when it ended' : undefined) +
    '\n' +
    body +
    formatCommandFooter(k, r.exitCode, durationMs, secrets, undefined, r.exitCode === undefined ? EXIT_UNKNOWN.notReported : undefined) +
    '\n';
  const record: IndexRecord = {
    v: 1,
    command: k,
    status: 'done',
    file: `${n}.txt`,
    commandLine: oneLine(command),
    cwd: r.cwd ?? null,
    started: started.toISOString(),
    headerLine,
    firstLine: headerLine + 1,
    lastLine: headerLine + outLines,
    exitCode: r.exitCode ?? null,
    ...(r.exitCode === undefined ? { exitUnknown: EXIT_UNKNOWN.notReported } : {}),
    durationMs: durationMs ?? null,
    secretsMasked: secrets,
    ...(r.saved ? { saved: r.saved } : {}),
    spool,
  };
  return { text, record };
}

/** A JSON string body as its text (undefined when it is not one). */
function jsonBody(body: string | undefined): string | undefined {
  if (body === undefined) return undefined;
  try {
    return JSON.parse(`"${body}"`) as string;
  } catch {
    return undefined;
  }
}

/**
 * A record a hook's shell side took from the agent's JSON (Copilot, Gemini): its output, command
 * and folder decoded, and the agent's result text taken apart into the output and the exit code.
 */
function fromJsonHook(r: SpoolRecord): SpoolRecord {
  const text = jsonBody(r.output) ?? r.output;
  const result = unwrapAgentResult(r.agent, text);
  return { ...r, enc: 'raw', output: result.output, command: jsonBody(r.command) ?? r.command, cwd: jsonBody(r.cwd) ?? r.cwd, exitCode: r.exitCode ?? result.exitCode };
}

/** The name a session's capture shows: the agent and the start of its session id. */
export function sessionCaptureName(agent: string, session: string): string {
  return `${agentName(agent)} · session ${session.length > 12 ? session.slice(0, 12) : session}`;
}

/** Starts a capture for a session (claims the next N). */
async function openCapture(dir: string, first: SpoolRecord): Promise<OpenSession> {
  const started = new Date(first.startedMs ?? first.endedMs);
  const { n, fh, text } = await claimTerminalFile(dir, (k) =>
    formatHeader({ name: sessionCaptureName(first.agent, first.session), n: k, shell: first.shell, cwd: first.cwd, started, shellIntegration: true, agent: first.agent, session: first.session }),
  );
  await fh.close();
  return { agent: first.agent, session: first.session, n, bytes: Buffer.byteLength(text), lines: countLines(text), commands: 0, lastMs: first.endedMs, pid: first.pid, host: HOST };
}

/**
 * Closes a session's capture: its index's closing record (terminalFormat.ts ClosingRecord, with the
 * agent and session), then N.txt's note, each whole or not at all (a full disk). A fold killed (or
 * a disk full) between the two left the record: the next close writes only the note.
 */
async function closeCapture(dir: string, s: OpenSession, now: number, why: string): Promise<void> {
  const at = new Date(now).toISOString();
  const indexFile = path.join(dir, `${s.n}.index.jsonl`);
  // Only an index the fold wrote (one without lines has no commands to close); its end read once, for both.
  const end = await readIndexEnd(indexFile);
  if (end && end !== 'missing' && end.size > 0 && !closingAtEnd(end)) {
    const { line } = talliedClosing(tallyAfterEnd(end, s.commands), { v: 1, closed: at, agent: s.agent, session: s.session });
    await appendWhole(indexFile, line);
  }
  await appendWhole(path.join(dir, `${s.n}.txt`), `# terminal closed at ${at} (${why})\n`);
}

/** Reads the spool's record files in name order (when they ended); sets aside what is not a record. */
async function readSpool(spoolDir: string, names: string[], now: number, problems: string[]): Promise<{ name: string; record: SpoolRecord }[]> {
  const out: { name: string; record: SpoolRecord }[] = [];
  for (const name of names) {
    const file = path.join(spoolDir, name);
    let text: string;
    let mtimeMs: number;
    try {
      const st = await fs.promises.lstat(file);
      if (!st.isFile() || st.size > MAX_RECORD_BYTES) {
        await fs.promises.rename(file, `${file}.bad`).catch(() => undefined);
        problems.push(`${file}: ${st.isFile() ? `${st.size} bytes, larger than any record a hook writes` : 'not a regular file'}; set aside as ${name}.bad`);
        continue;
      }
      mtimeMs = st.mtimeMs;
      text = await fs.promises.readFile(file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') problems.push(`${file}: cannot be read (${(e as Error).message}); left for the next fold`);
      continue;
    }
    const r = parseSpoolRecord(text);
    if (r.ok) {
      out.push({ name, record: r.record });
      continue;
    }
    // Still being written: left for the next fold. Given up on once its writer has had a minute.
    if (r.incomplete && now - mtimeMs < INCOMPLETE_GRACE_MS) continue;
    await fs.promises.rename(file, `${file}.bad`).catch(() => undefined);
    problems.push(`${file} ${r.message}; set aside as ${name}.bad`);
  }
  return out;
}

/**
 * Folds every finished record of `.agent/terminals/spool/` into its session's capture and closes
 * the sessions that ended. Cheap when there is nothing to do (a listing of the spool folder and a
 * read of sessions.json). Never throws for a bad record (it is set aside and named in `problems`);
 * throws when the terminals folder cannot be written.
 */
export async function foldCommandSpool(agentDir: string, opts: FoldOptions = {}): Promise<FoldOutcome> {
  const spoolDir = path.join(agentDir, SPOOL_DIR);
  const outcome: FoldOutcome = { folded: 0, touched: [], closed: [], problems: [] };
  let names: string[];
  try {
    names = (await fs.promises.readdir(spoolDir)).filter((f) => f.endsWith(SPOOL_SUFFIX));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return outcome;
    throw e;
  }
  const sessionsFile = path.join(spoolDir, SESSIONS_FILE);
  if (names.length === 0 && !(await closingDue(sessionsFile, opts))) return outcome;
  for (;;) {
    const before = outcome.folded;
    const more = await withFileLock(sessionsFile, () => foldLocked(agentDir, spoolDir, sessionsFile, opts, outcome));
    if (!more || outcome.folded === before) return outcome;
  }
}

/** One pass under the lock; true when records were left for another pass. */
async function foldLocked(agentDir: string, spoolDir: string, sessionsFile: string, opts: FoldOptions, outcome: FoldOutcome): Promise<boolean> {
  const now = opts.now ?? Date.now();
  const maxBytes = opts.maxCaptureBytes ?? MAX_CAPTURE_BYTES;
  const dir = path.join(agentDir, TERMINALS_DIR);
  // Listed again under the lock: another folder may have taken some since.
  const all = (await fs.promises.readdir(spoolDir).catch(() => [] as string[])).filter((f) => f.endsWith(SPOOL_SUFFIX)).sort();
  const names = all.slice(0, opts.perPass ?? RECORDS_PER_PASS);
  const open = await loadSessions(sessionsFile, outcome.problems);
  const records = await readSpool(spoolDir, names, now, outcome.problems);
  records.sort((a, b) => a.record.endedMs - b.record.endedMs || (a.record.startedMs ?? 0) - (b.record.startedMs ?? 0) || (a.name < b.name ? -1 : 1));
  const groups = new Map<string, { name: string; record: SpoolRecord }[]>();
  for (const x of records) {
    const k = sessionKey(x.record.agent, x.record.session);
    const g = groups.get(k);
    if (g) g.push(x);
    else groups.set(k, [x]);
  }
  const done: string[] = [];
  let changed = false;
  for (const [key, list] of groups) {
    let s = open.get(key);
    let spooled = new Set<string>();
    if (s) {
      const size = (await fs.promises.stat(path.join(dir, `${s.n}.txt`)).catch(() => undefined))?.size;
      if (size !== s.bytes) {
        const real = await recount(dir, s);
        if (real) {
          s.bytes = real.bytes;
          s.lines = real.lines;
          s.commands = real.commands;
          spooled = real.spooled;
        } else s = undefined; // gone or closed by someone else: the session goes on in a new capture
      }
    }
    let text = '';
    const index: IndexRecord[] = [];
    // The index's tally to continue from (indexTally.ts); undefined: its lines go without one.
    let tally = s ? await endTally(path.join(dir, `${s.n}.index.jsonl`), s.commands) : undefined;
    const flush = async (): Promise<void> => {
      if (!s || !text) return;
      // The block first, then its index line: a reader never finds an index line ahead of its lines.
      // Each whole or not at all (a full disk): the records stay in the spool for the next fold.
      const txt = path.join(dir, `${s.n}.txt`);
      const at = await appendWhole(txt, text);
      const lines = talliedLines(tally, index);
      tally = undefined; // known again only once the append is whole
      try {
        await appendWhole(path.join(dir, `${s.n}.index.jsonl`), lines.text);
      } catch (e) {
        await fs.promises.truncate(txt, at).catch(() => undefined);
        throw e;
      }
      tally = lines.next;
      s.bytes += Buffer.byteLength(text);
      text = '';
      index.length = 0;
    };
    for (const { name, record } of list) {
      if (spooled.has(name)) {
        done.push(name); // folded by a fold that died before it could remove the file
        continue;
      }
      if (s && s.bytes + Buffer.byteLength(text) > maxBytes) {
        await flush();
        await closeCapture(dir, s, now, 'this session continues in a new capture: the file reached its size limit');
        outcome.closed.push(s.n);
        s = undefined;
      }
      if (!s) {
        s = await openCapture(dir, record);
        tally = { ...EMPTY_TALLY };
        open.set(key, s);
        outcome.touched.push(s.n);
      }
      const block = formatAgentCommand(record, s.commands + 1, s.n, s.lines, name);
      s.commands++;
      s.lines += countLines(block.text);
      s.lastMs = Math.max(s.lastMs, record.endedMs);
      if (record.pid !== undefined) s.pid = record.pid;
      text += block.text;
      index.push(block.record);
      done.push(name);
      outcome.folded++;
    }
    await flush();
    if (s) {
      open.set(key, s);
      if (!outcome.touched.includes(s.n)) outcome.touched.push(s.n);
    }
    changed = true;
  }
  // Sessions whose agent is gone, or that have been idle too long, are closed.
  const idle = idleMsOf(opts);
  for (const [key, s] of open) {
    const why = closeReason(s, now, opts);
    if (!why) continue;
    const gone = why === 'gone';
    if (groups.has(key) && !gone) continue;
    try {
      const size = (await fs.promises.stat(path.join(dir, `${s.n}.txt`)).catch(() => undefined))?.size;
      if (size !== undefined && (size === s.bytes || (await recount(dir, s)))) {
        await closeCapture(dir, s, now, gone ? "the agent's process ended" : `no command for ${Math.round(idle / 60000)} minutes`);
        outcome.closed.push(s.n);
        if (!outcome.touched.includes(s.n)) outcome.touched.push(s.n);
      }
    } catch (e) {
      outcome.problems.push(`${path.join(dir, `${s.n}.txt`)}: could not be closed (${(e as Error).message})`);
      continue;
    }
    open.delete(key);
    changed = true;
  }
  if (changed) {
    const body = JSON.stringify({ format: SESSIONS_FORMAT, open: [...open.values()] });
    if (open.size > 0) await writeFileAtomic(sessionsFile, body);
    else await fs.promises.rm(sessionsFile, { force: true });
  }
  // Only now that the captures and sessions.json say they are in: the records go.
  for (const name of done) await fs.promises.rm(path.join(spoolDir, name), { force: true });
  return all.length > names.length;
}
