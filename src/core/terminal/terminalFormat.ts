/**
 * The on-disk formats of terminal capture: what each file holds, the lines and records capture
 * writes, and the parsers of them (no file access; the readers are in terminalIndex.ts).
 *
 *
 * Folder: `.agent/terminals/`. Per captured terminal N:
 * - `N.txt`: the text, append-only. Header lines start with `# ` (written once at creation), then
 *   per command a block: `>>> command K | started <ISO> | cwd <dir> | $ <command line>`, its output
 *   lines, and `<<< command K | exit <code or ?> | <seconds>s | secrets masked <M>`. Other `# ` lines
 *   between blocks are notes (`# shell integration became active ...`, `# terminal closed at <ISO>`).
 * - `N.1.txt`: the previous generation after rotation (one kept); a new `N.txt` starts with the same
 *   header plus `# continued: earlier output is in N.1.txt`.
 * - `N.index.jsonl`: one IndexRecord per line (see below), appended at each command's start
 *   (status "running") and end ("done"); rewritten on rotation so `file` names stay right. A closed
 *   terminal's or agent session's index ends with one ClosingRecord, written just before the
 *   `# terminal closed` note.
 * docs/terminal-format.md describes the same with examples.
 */
import type { FileError } from '../result';
import { formatExit } from './commandExit';

export const TERMINALS_DIR = 'terminals';

/** Terminal n's rotated file (`terminals/N.1.txt`) when the folder holds one (`rotated`: the numbers that have one), else null. */
export function previousFileOf(n: number, rotated: ReadonlySet<number>): string | null {
  return rotated.has(n) ? `${TERMINALS_DIR}/${n}.1.txt` : null;
}

/** One line of N.index.jsonl. Line numbers are 1-based and inclusive, in `file`. */
export interface IndexRecord {
  v: 1;
  /** 1-based number of the command within its terminal. */
  command: number;
  /** running: started, output still coming; done: ended; continued: this part ends at a rotation, the rest is in a later record. */
  status: 'running' | 'done' | 'continued';
  /** File name inside the terminals folder: `N.txt` or `N.1.txt`. */
  file: string;
  commandLine: string;
  cwd: string | null;
  /** ISO time the command started. */
  started: string;
  /** The `>>> command K` line. */
  headerLine: number;
  /** First output line (headerLine + 1). */
  firstLine: number;
  /** Last output line; firstLine - 1 when there was no output; null while running. */
  lastLine: number | null;
  exitCode: number | null;
  /** On a done record whose exitCode is null: why it is unknown (an EXIT_UNKNOWN reason, commandExit.ts). */
  exitUnknown?: string;
  durationMs: number | null;
  secretsMasked: number;
  /** VS Code did not deliver the command's data: 'all' of it, or its 'start' (see docs/terminal-format.md); absent otherwise. */
  outputMissing?: 'all' | 'start';
  /** Part of the command's output was lost because the disk was full (a `[capture paused: disk full]` line marks where); absent otherwise. */
  diskFull?: true;
  /** An agent's own command whose output was offloaded: the full output, relative to the .agent folder (the block holds the reference the agent read). */
  saved?: string;
  /** An agent's own command: the spool record it was folded from (agentCommands/sessionFold.ts), so a fold that is repeated never adds it twice. */
  spool?: string;
}

/**
 * The last line of a closed terminal's or agent session's index (`{"v":1,"closed":"<ISO>",...}`, no
 * `command`): when it closed and, for an agent session, whose commands it holds, so that a reader of
 * the index's end knows both without opening N.txt (the terminal catalog's first build reads 4 KB
 * of each index and no N.txt: bench row 20). Written just before N.txt's `# terminal closed` note;
 * an index without one (written before it existed, a crash between, a full disk) says nothing of
 * either, and N.txt does. Readers of commands skip it.
 */
export interface ClosingRecord {
  v: 1;
  closed: string;
  /** An agent session's capture: the agent's id and session id (as N.txt's `# agent:` and `# session:`). */
  agent?: string;
  session?: string;
}

/** What a closing record says that a reader needs (ClosingRecord's fields, or the catalog's brief of them; null: an integrated terminal's). */
export interface ClosingSays {
  agent?: string | null;
  session?: string | null;
}

/** Something whose N.txt header facts can be looked at (a catalog terminal: a lazy one reads N.txt then). */
type HeaderHolder = { readonly info: Pick<TerminalInfo, 'closed' | 'agent'> };

/**
 * The one rule for "is this terminal closed, and whose commands does it hold", for every reader
 * (the listing, the tool's filters, the Terminals view, the briefing, retention): the index's closing
 * record says so when there is one, else N.txt's header and closing note. The two disagree only when a
 * writer was killed between its closing record and N.txt's note (or N.txt was edited): the record,
 * written first, wins. `of.info` is looked at only when there is no record, so a caller that has the
 * record need not read N.txt. Field by field, without making an object or a closure: the catalog's
 * agentOf and isClosed run them over every terminal at every grouping (10,000 at a heavy user's; a
 * pass of both over 10,000 terminals took 0.8 ms through closingState's object and closure, 0.2 ms so).
 */
export function closedBy(closing: ClosingSays | undefined, of: HeaderHolder): boolean {
  return closing ? true : of.info.closed;
}
export function agentBy(closing: ClosingSays | undefined, of: HeaderHolder): string | undefined {
  return (closing ? closing.agent : of.info.agent) || undefined;
}

/** closedBy and agentBy in one answer, with the session of an agent's capture (`unknown` when its record names none). */
export function closingState(closing: ClosingSays | undefined, header: () => Pick<TerminalInfo, 'closed' | 'agent' | 'session'>): { closed: boolean; agent?: string; session?: string } {
  const h = closing ? undefined : header();
  const of = { info: h! }; // not looked at when there is a record
  const agent = agentBy(closing, of);
  const closed = closedBy(closing, of);
  if (!agent) return { closed };
  return { closed, agent, session: closing ? (closing.session ?? 'unknown') : h!.session };
}

/** `info` as closingState corrects it with its index's closing record (`info` itself when they agree). */
export function withClosing<T extends Pick<TerminalInfo, 'closed' | 'agent' | 'session'>>(info: T, closing: ClosingSays | undefined): T {
  if (!closing) return info;
  const s = closingState(closing, () => info);
  if (info.closed && info.agent === s.agent && info.session === s.session) return info;
  const { agent: _agent, session: _session, ...rest } = info;
  return { ...rest, ...s } as T;
}

/** `r` (a parsed index line) when it is a ClosingRecord. */
export function closingRecordOf(r: unknown): ClosingRecord | undefined {
  const o = r as Partial<ClosingRecord> & { command?: unknown };
  if (typeof o !== 'object' || o === null || o.v !== 1 || typeof o.closed !== 'string' || o.command !== undefined) return undefined;
  if ((o.agent !== undefined && typeof o.agent !== 'string') || (o.session !== undefined && typeof o.session !== 'string')) return undefined;
  return o as ClosingRecord;
}

/** A command as tools see it: the final state plus where its output lies (more than one part after a rotation). */
export interface TerminalCommand {
  command: number;
  status: 'running' | 'done';
  commandLine: string;
  cwd: string | null;
  started: string;
  exitCode: number | null;
  /** Why exitCode is null on a done command (e.g. `no status from the shell`); null when there is a code or it is still running. */
  exitUnknown: string | null;
  durationMs: number | null;
  secretsMasked: number;
  /** VS Code did not deliver all (or the start) of this command's data: the output shown is not the whole output. */
  outputMissing: 'all' | 'start' | null;
  /** Part of the output was lost while the disk was full (a `[capture paused: disk full]` line marks where). */
  diskFull: boolean;
  /** Path relative to the .agent folder of the file holding the start of the output, e.g. `terminals/3.txt`. */
  file: string;
  headerLine: number;
  firstLine: number;
  lastLine: number | null;
  /** Every part of the output, oldest first (several only when the file rotated during the command). */
  parts: { file: string; firstLine: number; lastLine: number | null }[];
  /** An agent's own command whose output was offloaded: the full output, relative to the .agent folder; null otherwise. */
  saved: string | null;
}

export interface TerminalIndex {
  commands: TerminalCommand[];
  /** Lines of the index that could not be read; the rest is still returned. */
  problems: FileError[];
}

/** What the header of N.txt says. */
export interface TerminalInfo {
  n: number;
  name: string;
  shell: string | null;
  cwd: string | null;
  started: string | null;
  shellIntegration: boolean;
  /** `terminals/N.txt`, relative to the .agent folder. */
  file: string;
  /** `terminals/N.1.txt` when a previous generation exists. */
  previousFile: string | null;
  /** The file ends with the `# terminal closed` note. */
  closed: boolean;
  sizeBytes: number;
  /** Set when `N.txt` exists but could not be read (a folder in its place, no permission): what went wrong. */
  error?: string;
  /** An agent session's capture (its own shell commands, recorded by its hook): the agent's id (`codex`, `claude-code`…). */
  agent?: string;
  /** An agent session's capture: the agent's session id. */
  session?: string;
}

/** Header lines of N.txt, in order. */
export function formatHeader(h: { name: string; n: number; shell?: string; cwd?: string; started: Date; shellIntegration: boolean; continued?: boolean; agent?: string; session?: string }): string {
  const lines = [
    '# Agent Context terminal capture',
    `# terminal: ${oneLine(h.name)}`,
    `# number: ${h.n}`,
    ...(h.agent ? [`# agent: ${oneLine(h.agent)}`, `# session: ${oneLine(h.session ?? 'unknown')}`] : []),
    `# shell: ${oneLine(h.shell ?? 'unknown')}`,
    `# cwd: ${oneLine(h.cwd ?? 'unknown')}`,
    `# started: ${h.started.toISOString()}`,
    h.agent
      ? "# shell integration: active (the agent's own shell commands, each recorded by its hook)"
      : h.shellIntegration
      ? '# shell integration: active'
      : '# shell integration: not active (VS Code only delivers the output of shell-integrated commands; nothing is recorded until it activates)',
    `# format: per command ">>> command K | started | cwd | $ command line", output, "<<< command K | exit | duration | secrets masked"; index in ${h.n}.index.jsonl`,
  ];
  if (h.continued) lines.push(`# continued: earlier output is in ${h.n}.1.txt`);
  return lines.join('\n') + '\n';
}

/** Keeps a value on one line: CR and LF become the two-character escapes. */
export function oneLine(s: string): string {
  return s.replace(/\r/g, '\\r').replace(/\n/g, '\\n');
}

/** The `>>> command K ...` line (without newline). */
export function formatCommandHeader(k: number, started: Date, cwd: string | undefined, commandLine: string, continuedFrom?: string, note?: string): string {
  const cont = continuedFrom ? ` (continued from ${continuedFrom})` : note ? ` (${note})` : '';
  return `>>> command ${k}${cont} | started ${started.toISOString()} | cwd ${oneLine(cwd ?? 'unknown')} | $ ${oneLine(commandLine)}`;
}

/** The `<<< command K ...` line (without newline). */
export function formatCommandFooter(k: number, exitCode: number | undefined, durationMs: number | undefined, secretsMasked: number, outputMissing?: 'all' | 'start', exitUnknown?: string): string {
  const missing = outputMissing === 'all' ? ' | output not delivered by VS Code' : outputMissing === 'start' ? ' | start of output not delivered by VS Code' : '';
  const took = durationMs === undefined ? 'duration not reported' : `${(durationMs / 1000).toFixed(2)}s`;
  return `<<< command ${k} | ${formatExit(exitCode, exitUnknown && oneLine(exitUnknown).replace(/\|/g, '/'))} | ${took} | secrets masked ${secretsMasked}${missing}`;
}

/** Parses the header lines of N.txt (the `# key: value` lines at its top). */
export function parseTerminalHeader(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  // Line by line up to the first that is not a header line (a terminal's first command comes soon after).
  for (let at = 0; at < text.length && text.startsWith('# ', at);) {
    let nl = text.indexOf('\n', at);
    if (nl < 0) nl = text.length;
    const m = /^# ([a-z ]+): (.*)$/.exec(text.slice(at, nl));
    if (m) out[m[1]] = m[2];
    at = nl + 1;
  }
  return out;
}

/** Parses the text of an index file; `file` names it in problems. */
export function parseTerminalIndex(text: string, file: string): TerminalIndex {
  const problems: FileError[] = [];
  const byCommand = new Map<number, IndexRecord[]>();
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    let r: IndexRecord;
    try {
      r = JSON.parse(line) as IndexRecord;
    } catch {
      problems.push({ file, line: i + 1, message: 'not valid JSON; the line was skipped' });
      return;
    }
    if (closingRecordOf(r)) return; // the terminal closed: no command
    if (typeof r !== 'object' || r === null || typeof r.command !== 'number' || typeof r.file !== 'string' || typeof r.firstLine !== 'number') {
      problems.push({ file, line: i + 1, message: 'not an index record (needs command, file, firstLine); the line was skipped' });
      return;
    }
    const list = byCommand.get(r.command) ?? [];
    list.push(r);
    byCommand.set(r.command, list);
  });
  const commands: TerminalCommand[] = [];
  for (const [command, recs] of [...byCommand].sort((a, b) => a[0] - b[0])) commands.push(commandFromRecords(command, recs));
  return { commands, problems };
}

/** Merges the index records of one command (in file order) into what tools see. */
export function commandFromRecords(command: number, recs: readonly IndexRecord[]): TerminalCommand {
  // Per file part, the latest record wins (running → done/continued).
  const parts = new Map<string, IndexRecord>();
  for (const r of recs) parts.set(`${r.file}:${r.headerLine}`, r);
  const ordered = [...parts.values()].sort((a, b) => partOrder(a.file) - partOrder(b.file) || a.headerLine - b.headerLine);
  const last = recs[recs.length - 1];
  const first = ordered[0];
  return {
    command,
    status: last.status === 'done' ? 'done' : 'running',
    commandLine: last.commandLine,
    cwd: last.cwd ?? null,
    started: last.started,
    exitCode: last.exitCode ?? null,
    exitUnknown: last.status === 'done' && (last.exitCode ?? null) === null ? (typeof last.exitUnknown === 'string' ? last.exitUnknown : 'not recorded') : null,
    durationMs: last.durationMs ?? null,
    secretsMasked: last.secretsMasked ?? 0,
    outputMissing: last.outputMissing === 'all' || last.outputMissing === 'start' ? last.outputMissing : null,
    diskFull: recs.some((r) => r.diskFull === true),
    file: `${TERMINALS_DIR}/${first.file}`,
    headerLine: first.headerLine,
    firstLine: first.firstLine,
    lastLine: first.lastLine,
    parts: ordered.map((r) => ({ file: `${TERMINALS_DIR}/${r.file}`, firstLine: r.firstLine, lastLine: r.lastLine })),
    saved: typeof last.saved === 'string' && last.saved ? last.saved : null,
  };
}

/** N.1.txt is older than N.txt. */
function partOrder(file: string): number {
  return /\.1\.txt$/.test(file) ? 0 : 1;
}
