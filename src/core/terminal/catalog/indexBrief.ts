/**
 * The brief of one terminal's index (`N.index.jsonl`) that the terminal catalog keeps: how many
 * commands, the last one, the last finished one and the last failure. A FoldSpec, so it is folded
 * incrementally (only what was appended is read).
 *
 * A first build of the catalog folds every index of every terminal (hundreds of thousands of lines
 * after a year of use), so the fold reads the lines our capture writer produces with one anchored
 * regular expression instead of JSON.parse, and builds a brief only for the records that end up in
 * the state. The expression accepts exactly the layout JSON.stringify gives an IndexRecord (every
 * string and number by the JSON grammar), so what it accepts JSON.parse would read the same; any
 * other line (another writer's spacing, a torn or foreign line) goes through JSON.parse as before.
 */
import type { FoldSpec } from '../../fs/appendFold';
import { closingRecordOf, type IndexRecord } from '../terminalFormat';
import { countAfter, isFailure } from '../indexTally';

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
  /** Commands in the index (as TerminalSummary.commands); of a brief of the index's end alone (asked with `need: 'last'`), at least 1 when there is any. */
  commands: number;
  /** The highest-numbered command (as TerminalSummary.last). */
  last: BriefCommand | null;
  /** The highest-numbered finished command. */
  lastDone: BriefCommand | null;
  /**
   * The latest command (in index order) that finished with a non-zero exit code (as
   * TerminalSummary.lastFailed); undefined when not known (a brief of the index's end alone, asked
   * with `need: 'last'`, whose end holds no failure).
   */
  lastFailed: BriefCommand | null | undefined;
  /** Present when the index ends with a closing record (terminalFormat.ts ClosingRecord): the terminal is closed, and whose it is, without its N.txt read. */
  closed?: ClosingFacts;
}

/** What an index's closing record says: an agent session's agent and session ids, or null for an integrated terminal. */
export interface ClosingFacts {
  agent: string | null;
  session: string | null;
}

export interface CompactState {
  count: number;
  maxCommand: number;
  last: BriefCommand | null;
  /** The highest-numbered finished command below `last`. */
  prevDone: BriefCommand | null;
  lastFailed: BriefCommand | null;
  /** The index's last line is a closing record (undefined in a state kept from before closing records: none). */
  closing?: ClosingFacts | null;
}

/** A record as read (JSON.parse of a line the fast path did not take): made a brief only if it stays in the state. */
interface Raw {
  command: number;
  status: unknown;
  exitCode: unknown;
  exitUnknown: unknown;
  started: unknown;
  durationMs: unknown;
}

/** A line JSON.parse read. */
class Parsed {
  constructor(readonly r: Raw) {}
}

/** What the state holds while a run of lines is folded: a brief from before, a line JSON.parse read, or where a line the fast path took starts in the text (nothing allocated per line). */
type Held = BriefCommand | Parsed | number;

function isRecord(r: unknown): r is IndexRecord {
  const o = r as IndexRecord;
  return typeof o === 'object' && o !== null && typeof o.command === 'number' && typeof o.file === 'string' && typeof o.firstLine === 'number';
}

function briefOf(r: Raw): BriefCommand {
  const exitCode = (r.exitCode ?? null) as number | null;
  const done = r.status === 'done';
  const t = Date.parse(r.started as string);
  return {
    command: r.command,
    status: done ? 'done' : 'running',
    exitCode,
    exitUnknown: done && exitCode === null ? (typeof r.exitUnknown === 'string' ? r.exitUnknown : 'not recorded') : null,
    endMs: (Number.isNaN(t) ? 0 : t) + ((r.durationMs as number | null | undefined) ?? 0),
  };
}

// JSON's string and number grammars, and an IndexRecord as JSON.stringify writes it (key order of
// captureWriter's records; the optional keys after secretsMasked in any order). A line it matches is
// valid JSON whose every key is one of these, each value of the type the record has.
const STR = String.raw`"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"`;
const NUM = String.raw`-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?`;
const RECORD = new RegExp(
  String.raw`\{"v":1,"command":${NUM},"status":"(?:running|done|continued)","file":${STR},"commandLine":${STR},"cwd":(?:${STR}|null),`
  + String.raw`"started":${STR},"headerLine":${NUM},"firstLine":${NUM},"lastLine":(?:${NUM}|null),"exitCode":(?:${NUM}|null),`
  + String.raw`"durationMs":(?:${NUM}|null),"secretsMasked":${NUM}(?:,"(?:exitUnknown|outputMissing|diskFull|saved|spool)":(?:${STR}|true)|,"tally":\[${NUM},${NUM},${NUM}\])*\}(?=\r?\n)`,
  'y',
);
const COMMAND_AT = '{"v":1,"command":'.length;

/**
 * The number that starts at `i` of `text` and ends before `end` (a JSON number the expression
 * matched): digits are read in place, anything else (a sign, a fraction, an exponent) as Number does.
 */
function numberAt(text: string, i: number, end: number): number {
  let v = 0;
  for (let j = i; j < end; j++) {
    const d = text.charCodeAt(j) - 48;
    if (d < 0 || d > 9 || v > 1e15) return Number(text.slice(i, end));
    v = v * 10 + d;
  }
  return v;
}

/** The fields a brief needs of a line the expression matched, read in place (its optional keys, rare, through JSON.parse). */
function spanRecord(text: string, at: number): Raw {
  let end = text.indexOf('\n', at);
  if (text.charCodeAt(end - 1) === 13) end--;
  const cmdEnd = text.indexOf(',', at + COMMAND_AT);
  const value = (key: string): string => {
    const i = text.indexOf(key, cmdEnd) + key.length;
    return text.slice(i, text.indexOf(',', i));
  };
  // A string value ends at its first unescaped quote (it may hold commas).
  const s0 = text.indexOf('"started":', cmdEnd) + 10;
  let s1 = s0 + 1;
  while (text.charCodeAt(s1) !== 34 /* " */) s1 += text.charCodeAt(s1) === 92 /* \ */ ? 2 : 1;
  const started = text.slice(s0, s1 + 1);
  const exitCode = value('"exitCode":');
  const durationMs = value('"durationMs":');
  // The optional keys come after secretsMasked's number; the line ends with `}`.
  const sm = text.indexOf('"secretsMasked":', cmdEnd) + 16;
  let rest = sm;
  while (rest < end && text.charCodeAt(rest) !== 44 /* , */ && text.charCodeAt(rest) !== 125 /* } */) rest++;
  const extra = text.charCodeAt(rest) === 44 ? (JSON.parse(`{${text.slice(rest + 1, end)}`) as { exitUnknown?: unknown }) : undefined;
  return {
    command: numberAt(text, at + COMMAND_AT, cmdEnd),
    status: text.startsWith('done', cmdEnd + 11) ? 'done' : 'running',
    exitCode: exitCode === 'null' ? null : Number(exitCode),
    exitUnknown: extra?.exitUnknown,
    started: started.includes('\\') ? JSON.parse(started) : started.slice(1, -1),
    durationMs: durationMs === 'null' ? null : Number(durationMs),
  };
}

/** A closing record as its writers write it (indexTally.ts talliedClosing): one line, its agent and session as JSON strings. */
const CLOSING_LINE = new RegExp(String.raw`^\{"v":1,"closed":${STR}(?:,"agent":(${STR}),"session":(${STR}))?(?:,"tally":\[${NUM},${NUM},${NUM}\])?\}$`);
const unquote = (s: string): string => (s.includes('\\') ? (JSON.parse(s) as string) : s.slice(1, -1));

/** Any line the fast path did not take: JSON.parse, and the record checks the full readers make; a closing record as its facts. */
function parseLine(text: string): Raw | ClosingFacts | undefined {
  // Every closed terminal's last line: read by the expression, not JSON.parse (12,000 of them at a first build of row 20's L).
  const m = CLOSING_LINE.exec(text);
  if (m) return m[1] ? { agent: unquote(m[1]), session: unquote(m[2]) } : { agent: null, session: null };
  if (text.trim() === '') return undefined;
  let r: unknown;
  try {
    r = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (isRecord(r)) return r as unknown as Raw;
  const c = closingRecordOf(r);
  return c ? { agent: c.agent ?? null, session: c.agent ? c.session ?? 'unknown' : null } : undefined;
}

const isRaw = (x: Raw | ClosingFacts | undefined): x is Raw => x !== undefined && 'command' in x;

/** A record line the fast path did not take (parseLine without the closing records). */
function fromLine(text: string): Raw | undefined {
  const r = parseLine(text);
  return isRaw(r) ? r : undefined;
}

interface Folding {
  count: number;
  maxCommand: number;
  last: Held | null;
  lastCommand: number;
  lastDone: boolean;
  prevDone: Held | null;
  prevCommand: number;
  lastFailed: Held | null;
  closing: ClosingFacts | null;
}

/** Folds one record into the state, as commandFromRecords decides a command's state (its latest record wins). */
function step(s: Folding, command: number, done: boolean, failed: boolean, h: Held): void {
  s.closing = null; // a command after a closing record: not closed after all (another writer's lines)
  s.count = countAfter(s.count, s.maxCommand, command);
  s.maxCommand = Math.max(s.maxCommand, command);
  // A held line may be at offset 0: compared with null, never by truthiness.
  if (s.last === null || command > s.lastCommand) {
    if (s.last !== null && s.lastDone) {
      s.prevDone = s.last;
      s.prevCommand = s.lastCommand;
    }
    s.last = h;
    s.lastCommand = command;
    s.lastDone = done;
  } else if (command === s.lastCommand) {
    s.last = h;
    s.lastDone = done;
  } else if (done && (s.prevDone === null || command >= s.prevCommand)) {
    s.prevDone = h;
    s.prevCommand = command;
  }
  if (failed) s.lastFailed = h;
}

function foldText(state: CompactState, text: string): number {
  const s: Folding = {
    count: state.count, maxCommand: state.maxCommand, last: state.last, lastCommand: state.last?.command ?? 0, lastDone: state.last?.status === 'done',
    prevDone: state.prevDone, prevCommand: state.prevDone?.command ?? 0, lastFailed: state.lastFailed, closing: state.closing ?? null,
  };
  let lines = 0;
  let at = 0;
  while (at < text.length) {
    lines++;
    RECORD.lastIndex = at;
    if (RECORD.test(text)) {
      // Keys can only be found as keys: inside a JSON string every quote is escaped.
      const cmdEnd = text.indexOf(',', at + COMMAND_AT);
      const command = numberAt(text, at + COMMAND_AT, cmdEnd);
      const done = text.startsWith('done', cmdEnd + 11); // ,"status":"
      // isFailure, read in place: done, and an exit code that is neither null nor 0.
      let failed = false;
      if (done) {
        const ex = text.indexOf('"exitCode":', cmdEnd) + 11;
        failed = text.charCodeAt(ex) !== 110 /* null */ && numberAt(text, ex, text.indexOf(',', ex)) !== 0;
      }
      step(s, command, done, failed, at);
      // The match ends before the line's `\r\n` or `\n`.
      at = RECORD.lastIndex + (text.charCodeAt(RECORD.lastIndex) === 13 ? 2 : 1);
    } else {
      let nl = text.indexOf('\n', at);
      if (nl < 0) nl = text.length;
      const r = parseLine(text.slice(at, nl > at && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl));
      if (isRaw(r)) step(s, r.command, r.status === 'done', isFailure(r.status, r.exitCode), new Parsed(r));
      else if (r) s.closing = r;
      at = nl + 1;
    }
  }
  // Only the records that stay in the state become briefs.
  const brief = (h: Held | null): BriefCommand | null => (typeof h === 'number' ? briefOf(spanRecord(text, h)) : h instanceof Parsed ? briefOf(h.r) : h);
  state.count = s.count;
  state.maxCommand = s.maxCommand;
  state.last = brief(s.last);
  state.prevDone = brief(s.prevDone);
  state.lastFailed = brief(s.lastFailed);
  state.closing = s.closing;
  return lines;
}

/** The brief of one index line (without its `\n`) and whether it is a failure (isFailure); undefined for a line that is no record. */
export function lineBrief(line: string): { brief: BriefCommand; failed: boolean } | undefined {
  const r = fromLine(line);
  return r ? { brief: briefOf(r), failed: isFailure(r.status, r.exitCode) } : undefined;
}

/** The command of the record on the line of `text` from `at` to `nl` (its `\n`), whether it is done and whether it failed, as foldText reads it; undefined for a line that is no record. */
function recordAt(text: string, at: number, nl: number): { command: number; done: boolean } | undefined {
  RECORD.lastIndex = at;
  if (RECORD.test(text)) {
    const cmdEnd = text.indexOf(',', at + COMMAND_AT);
    return { command: numberAt(text, at + COMMAND_AT, cmdEnd), done: text.startsWith('done', cmdEnd + 11) };
  }
  const r = fromLine(text.slice(at, nl > at && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl));
  return r ? { command: r.command, done: r.status === 'done' } : undefined;
}

/**
 * Where in `text` (whole lines of an index's end, each ending in `\n`) folding must start so that
 * the fold of the lines from there says what the fold of the whole file says of `last` and
 * `lastDone` when command numbers do not go down in the index (the capture writer's order): the
 * last record, and when its command is not done, back to the latest record of a lower command that
 * is done. -1 when `text` holds no such run (fold the whole file). The caller checks the fold from
 * there (`settled`) and that no earlier line holds a higher command (catalogColdRead.ts).
 */
export function settledStart(text: string): number {
  let end = text.length;
  let last: number | undefined;
  // Made when first needed (the last line alone usually settles it).
  let seen: Set<number> | undefined;
  while (end > 0) {
    const nl = end - 1; // the line's \n
    const at = text.lastIndexOf('\n', nl - 1) + 1;
    const r = recordAt(text, at, nl);
    if (r) {
      if (last === undefined) {
        if (r.done) return at;
        last = r.command;
      } else if (r.command < last && !seen?.has(r.command)) {
        // Its latest record (the first met going back): done settles lastDone.
        if (r.done) return at;
        (seen ??= new Set()).add(r.command);
      }
    }
    end = at;
  }
  return -1;
}

/** True when a fold state knows its `last` and `lastDone` (a fold of an index's end started at settledStart does). */
export function settled(s: CompactState): boolean {
  return s.last !== null && (s.last.status === 'done' || s.prevDone !== null);
}

/** The compact fold of an index: a command's latest record decides its state, as in commandFromRecords. */
export const BRIEF_SPEC: FoldSpec<CompactState> = {
  version: 1,
  init: () => ({ count: 0, maxCommand: 0, last: null, prevDone: null, lastFailed: null, closing: null }),
  line(s, text) {
    foldText(s, text + '\n');
  },
  lines: foldText,
};

/**
 * The brief a fold state stands for; `from`: the byte offset where the fold started (0: the whole
 * index; more: only its end was folded, so `commands` is a lower bound and a `lastFailed` of null
 * is not known: undefined).
 */
export function briefFrom(s: CompactState, from = 0): TerminalBrief {
  return {
    commands: s.count, last: s.last, lastDone: s.last?.status === 'done' ? s.last : s.prevDone, lastFailed: s.lastFailed ?? (from === 0 ? null : undefined),
    ...(s.closing ? { closed: s.closing } : {}),
  };
}
