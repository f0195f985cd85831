/**
 * The spool of agents' own shell commands: one small file per command, written by whichever hook
 * saw the command (the shell side with builtins only, so a small output costs no process start; the
 * hook program for everything else), and folded into one capture per agent session
 * (sessionFold.ts) by whoever reads the history next. docs/terminal-format.md, "Agent sessions".
 *
 * Folder `.agent/terminals/spool/`, file `<µs since epoch>-<pid>-<random>.rec`:
 *
 *     agent-context-spool 1 <nonce>
 *     agent <agent id>
 *     session <session id>
 *     pid <the agent's process id, or empty>
 *     shell <the shell, or empty>
 *     started <seconds since epoch, with a fraction, or empty>
 *     ended <seconds since epoch, with a fraction>
 *     exit <exit code, or empty when the agent does not report it>
 *     cwd <working folder>
 *     command <the command as the agent sent it>
 *     saved <the full output's path relative to .agent/ when it was offloaded, or empty>
 *     masked <secrets masked by the writer, or empty>
 *     enc raw|json
 *     <empty line>
 *     <output: what the model read; raw: as printed (rendered at the fold), json: the body of a JSON string>
 *     agent-context-end <nonce>
 *
 * Values are one line each: `\` is written `\\`, a line feed `\n`, a carriage return `\r`; with
 * `enc json` the command and cwd are JSON string bodies instead (already one line). The
 * output is whatever lies between the empty line and the line feed before the end line; a file
 * that does not end with its own end line is still being written (or its writer died mid-write).
 * The shell side writes the same format (src/hooks/fastPath.sh, `__ac_record`); a unit test
 * checks that both parse alike.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { mkdirp } from '../../fs/fsAtomic';
import { LAYOUT } from '../../workspace/agentLayout';

/** The spool folder, relative to `.agent/`. */
export const SPOOL_DIR = LAYOUT.commandSpool;
/** A record file's name ends with this. */
export const SPOOL_SUFFIX = '.rec';
const MAGIC = 'agent-context-spool 1 ';
const END = 'agent-context-end ';

/** One command as a hook recorded it. */
export interface SpoolRecord {
  agent: string;
  session: string;
  /** The agent's process (for noticing that its session ended); undefined when unknown. */
  pid?: number;
  shell?: string;
  /** Milliseconds since epoch; undefined when the agent does not report when the command started. */
  startedMs?: number;
  endedMs: number;
  exitCode?: number;
  cwd?: string;
  command: string;
  /** The full output's path relative to `.agent/` when the hook offloaded it (the output is then its reference). */
  saved?: string;
  masked?: number;
  enc: 'raw' | 'json';
  output: string;
}

/** A record file as read: the record, or why it cannot be folded yet (or ever). */
export type SpoolRead = { ok: true; record: SpoolRecord } | { ok: false; incomplete: boolean; message: string };

/** Escapes a value onto one line (the shell side does the same with three substitutions). */
export function spoolValue(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
}

function unescape(s: string): string {
  return s.replace(/\\(\\|n|r)/g, (_, c: string) => (c === 'n' ? '\n' : c === 'r' ? '\r' : '\\'));
}

const seconds = (ms: number | undefined): string => (ms === undefined ? '' : (ms / 1000).toFixed(6));

/** The text of a record file. */
export function formatSpoolRecord(r: SpoolRecord, nonce = crypto.randomBytes(6).toString('hex')): string {
  const head = [
    `${MAGIC}${nonce}`,
    `agent ${spoolValue(r.agent)}`,
    `session ${spoolValue(r.session)}`,
    `pid ${r.pid ?? ''}`,
    `shell ${spoolValue(r.shell ?? '')}`,
    `started ${seconds(r.startedMs)}`,
    `ended ${seconds(r.endedMs)}`,
    `exit ${r.exitCode ?? ''}`,
    `cwd ${spoolValue(r.cwd ?? '')}`,
    `command ${spoolValue(r.command)}`,
    `saved ${spoolValue(r.saved ?? '')}`,
    `masked ${r.masked ?? ''}`,
    `enc ${r.enc}`,
  ];
  return `${head.join('\n')}\n\n${r.output}\n${END}${nonce}\n`;
}

function num(v: string | undefined): number | undefined {
  if (v === undefined || v.trim() === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
}

/** Parses a record file's text. */
export function parseSpoolRecord(text: string): SpoolRead {
  if (!text.startsWith(MAGIC)) return { ok: false, incomplete: text.length < MAGIC.length && MAGIC.startsWith(text), message: 'not a spool record (its first line is not "agent-context-spool 1 <nonce>")' };
  const nl = text.indexOf('\n');
  if (nl < 0) return { ok: false, incomplete: true, message: 'cut off in its first line' };
  const nonce = text.slice(MAGIC.length, nl);
  const endLine = `\n${END}${nonce}\n`;
  if (!nonce || !text.endsWith(endLine)) return { ok: false, incomplete: true, message: 'has no end line (still being written, or its writer stopped mid-write)' };
  const blank = text.indexOf('\n\n', nl);
  if (blank < 0 || blank > text.length - endLine.length) return { ok: false, incomplete: false, message: 'has no empty line after its header' };
  const fields = new Map<string, string>();
  for (const line of text.slice(nl + 1, blank).split('\n')) {
    const sp = line.indexOf(' ');
    fields.set(sp < 0 ? line : line.slice(0, sp), sp < 0 ? '' : line.slice(sp + 1));
  }
  const agent = unescape(fields.get('agent') ?? '');
  const session = unescape(fields.get('session') ?? '');
  const ended = num(fields.get('ended'));
  const enc = fields.get('enc');
  if (!agent || !session || ended === undefined || (enc !== 'raw' && enc !== 'json')) return { ok: false, incomplete: false, message: 'lacks agent, session, ended or enc' };
  const started = num(fields.get('started'));
  const pid = num(fields.get('pid'));
  const exit = num(fields.get('exit'));
  const masked = num(fields.get('masked'));
  const opt = (k: string): string | undefined => {
    const v = fields.get(k);
    return v ? unescape(v) : undefined;
  };
  return {
    ok: true,
    record: {
      agent,
      session,
      pid: pid !== undefined && Number.isInteger(pid) && pid > 0 ? pid : undefined,
      shell: opt('shell'),
      startedMs: started === undefined ? undefined : Math.round(started * 1000),
      endedMs: Math.round(ended * 1000),
      exitCode: exit !== undefined && Number.isInteger(exit) ? exit : undefined,
      // A JSON hook's shell side writes these as JSON string bodies (enc json), decoded by the fold.
      cwd: enc === 'json' ? fields.get('cwd') || undefined : opt('cwd'),
      command: enc === 'json' ? fields.get('command') ?? '' : unescape(fields.get('command') ?? ''),
      saved: opt('saved'),
      masked: masked !== undefined && Number.isInteger(masked) && masked >= 0 ? masked : undefined,
      enc,
      output: text.slice(blank + 2, text.length - endLine.length),
    },
  };
}

/** A record file's name: time first, so names sort by when the command ended (then pid and a random part). */
export function spoolFileName(endedMs: number, pid = process.pid): string {
  return `${Math.round(endedMs * 1000)}-${pid}-${crypto.randomBytes(3).toString('hex')}${SPOOL_SUFFIX}`;
}

/**
 * Writes one record into `.agent/terminals/spool/` (the Node side of a hook). Exclusive create of
 * a fresh name, written whole by one call: a reader takes it only once its end line is there.
 */
export async function writeSpoolRecord(agentDir: string, r: SpoolRecord): Promise<string> {
  const dir = path.join(agentDir, SPOOL_DIR);
  await mkdirp(dir);
  const file = path.join(dir, spoolFileName(r.endedMs));
  await fs.promises.writeFile(file, formatSpoolRecord(r), { flag: 'wx' });
  return file;
}
