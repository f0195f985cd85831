// The agent-command history of a generated `.agent/` folder (issue 46 §5, bench rows 20–21): agents'
// own shell commands as the hooks record them, one capture per agent session under
// `.agent/terminals/` beside the integrated terminals, in the real on-disk format. Closed sessions are
// written with the fold's own formatting (formatHeader, formatAgentCommand in sessionFold.ts: the same
// bytes a fold appends, at tens of thousands of commands a second); the open ones go through the
// real path, spool records folded by foldCommandSpool (recordAgentCommand), so `spool/sessions.json`
// is what a fold leaves. Deterministic for a seed (times relative to `now`).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { recordAgentCommand } from '../src/core/terminal/agentCommands/recordCommand';
import { formatAgentCommand, sessionCaptureName } from '../src/core/terminal/agentCommands/sessionFold';
import { EMPTY_TALLY, talliedClosing, talliedLines } from '../src/core/terminal/indexTally';
import type { IndexRecord } from '../src/core/terminal/terminalFormat';
import { SPOOL_DIR, spoolFileName, type SpoolRecord } from '../src/core/terminal/agentCommands/commandSpool';
import { formatHeader, TERMINALS_DIR } from '../src/core/terminal/terminalFormat';
import { rng } from './harness';

/** How many sessions and commands; the newest `open` sessions stay open (their agents still running). */
export interface AgentSessionsSpec {
  sessions: number;
  commands: number;
  /** Sessions still open, the newest ones (default 3). */
  open?: number;
  /** Days the sessions span, ending now (default 30). */
  days?: number;
}

/** One generated session (its capture is terminal `n`). */
export interface GeneratedSession {
  n: number;
  agent: string;
  session: string;
  commands: number;
  open: boolean;
  /** Its last command's number and end, and whether it failed (a non-zero exit). */
  lastEndMs: number;
  lastFailed: boolean;
  /** Its newest failed command (number, end), if any. */
  failure?: { command: number; endMs: number };
}

/** What generateAgentSessions wrote. */
export interface GeneratedSessions {
  sessions: GeneratedSession[];
  commands: number;
  files: number;
  bytes: number;
}

/** The agents of the history and their share of the sessions (the ids the hooks use: core/hooks/agentNames.ts). */
const AGENTS: [string, number][] = [['claude-code', 0.3], ['codex', 0.25], ['copilot-cli', 0.15], ['gemini', 0.1], ['opencode', 0.1], ['vscode-copilot', 0.1]];
/** What agents run: reads, searches, builds and tests (outputs of 0–40 lines; a test or build fails now and then). */
const COMMANDS = ['git status --short', 'git diff --stat', 'rg -n "TODO" src', 'sed -n 1,80p src/core/index.ts', 'ls -la src', 'cat package.json', 'npm test', 'npx tsc -p . --noEmit', 'node scripts/check.mjs', 'npm run build', 'grep -rn "export" src/lib | head -40', 'pytest -q tests/test_api.py', 'git log --oneline -10', 'find . -name "*.ts" -newer package.json'];
const WORDS = ['build', 'module', 'render', 'request', 'cache', 'worker', 'queue', 'parser', 'token', 'config', 'resolve', 'fetch', 'server', 'client', 'handler', 'status'];

/** A session id as agents make them (a UUID-like string). */
function sessionId(r: () => number): string {
  const hex = (k: number): string => Array.from({ length: k }, () => Math.floor(r() * 16).toString(16)).join('');
  return `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
}

/**
 * Writes `spec.sessions` agent sessions of `spec.commands` commands in all (several agents, about 1
 * command in 12 failing, some sessions ending in a failure) into `agentDir`'s terminals folder as
 * captures `firstN`, `firstN` + 1, …; the newest `open` ones last, through the spool and the real fold.
 */
export async function generateAgentSessions(agentDir: string, spec: AgentSessionsSpec, now: Date, seed = 46): Promise<GeneratedSessions> {
  const r = rng(seed);
  const pick = <T>(a: readonly T[]): T => a[Math.floor(r() * a.length)];
  const agentOf = (): string => {
    let x = r();
    for (const [a, w] of AGENTS) if ((x -= w) < 0) return a;
    return AGENTS[0][0];
  };
  const dir = path.join(agentDir, TERMINALS_DIR);
  fs.mkdirSync(path.join(agentDir, SPOOL_DIR), { recursive: true });
  const names = fs.readdirSync(dir).map((f) => /^(\d+)\.txt$/.exec(f)?.[1]).filter(Boolean).map(Number);
  let n = names.length ? Math.max(...names) : 0;
  const openCount = Math.min(spec.open ?? 3, spec.sessions);
  const t1 = now.getTime();
  const span = (spec.days ?? 30) * 86_400_000;
  // Commands per session: about the mean, in pairs that add up, so the total is exact.
  const mean = spec.commands / spec.sessions;
  const counts = Array.from({ length: spec.sessions }, () => Math.floor(mean));
  for (let i = 0, extra = spec.commands - counts.reduce((a, b) => a + b, 0); extra > 0; i++, extra--) counts[i % counts.length]++;
  for (let i = 0; i + 1 < counts.length; i += 2) {
    const d = Math.floor(r() * Math.min(counts[i], counts[i + 1]) * 0.6);
    counts[i] += d;
    counts[i + 1] -= d;
  }
  // The open sessions' agents: three different ones, so a filtered call finds an open one.
  const openAgents = ['codex', 'claude-code', 'copilot-cli'];
  const out: GeneratedSessions = { sessions: [], commands: 0, files: 0, bytes: 0 };
  for (let i = 0; i < spec.sessions; i++) {
    const open = i >= spec.sessions - openCount;
    const agent = open ? openAgents[(i - (spec.sessions - openCount)) % openAgents.length] : agentOf();
    const session = sessionId(r);
    const commands = counts[i];
    // Closed sessions spread over the span before the open ones; an open session's commands end within the last minutes.
    const start = open ? t1 - 20 * 60_000 + (i - (spec.sessions - openCount)) * 60_000 : t1 - span + Math.floor((i / spec.sessions) * (span - 3 * 3_600_000));
    const step = open ? Math.floor((15 * 60_000) / commands) : Math.floor((45 * 60_000) / commands);
    const records: SpoolRecord[] = [];
    let failure: GeneratedSession['failure'];
    for (let k = 1; k <= commands; k++) {
      const startedMs = start + (k - 1) * step;
      const endedMs = startedMs + 50 + Math.floor(r() * Math.min(step - 60, 20_000));
      const last = k === commands;
      // About 1 in 12 fails; the last command fails in every fifth closed session and never in an open one.
      const exit = last ? (!open && i % 5 === 2 ? 1 : 0) : r() < 1 / 12 ? pick([1, 1, 2, 127]) : 0;
      const lines = Math.floor(r() * r() * 40);
      const output = Array.from({ length: lines }, (_, j) => (exit && j === lines - 1 ? `Error: ${pick(WORDS)} ${pick(WORDS)} failed (exit ${exit})` : `${pick(WORDS)} ${pick(WORDS)} ${Math.floor(r() * 1e6)}`)).join('\n');
      records.push({ agent, session, shell: '/bin/bash', startedMs, endedMs, exitCode: exit, cwd: '/work/app', command: pick(COMMANDS), enc: 'raw', output, masked: 0 });
      if (exit) failure = { command: k, endMs: endedMs };
    }
    const lastRec = records[records.length - 1];
    const made: GeneratedSession = { n: 0, agent, session, commands, open, lastEndMs: lastRec.endedMs, lastFailed: lastRec.exitCode !== 0, failure };
    if (open) {
      // The real path: each command a spool record, folded into the session's capture.
      for (const rec of records) {
        const err = await recordAgentCommand(path.dirname(agentDir), { agent, session, shell: rec.shell, cwd: rec.cwd, startedMs: rec.startedMs, endedMs: rec.endedMs, command: rec.command, exitCode: rec.exitCode }, { text: rec.output, masked: 0 });
        if (err) throw err;
      }
      made.n = openSessionNumber(dir, agent, session);
    } else {
      n++;
      made.n = n;
      const header = formatHeader({ name: sessionCaptureName(agent, session), n, shell: '/bin/bash', cwd: '/work/app', started: new Date(records[0].startedMs!), shellIntegration: true, agent, session });
      const chunks = [header];
      const index: IndexRecord[] = [];
      let lineCount = header.split('\n').length - 1;
      records.forEach((rec, j) => {
        const b = formatAgentCommand(rec, j + 1, n, lineCount, spoolFileName(rec.endedMs, 4242));
        chunks.push(b.text);
        index.push(b.record);
        lineCount += b.text.split('\n').length - 1;
      });
      // As the fold closes an idle session (sessionFold.ts closeCapture): the index's closing record, then N.txt's note.
      const closedAt = new Date(lastRec.endedMs + 30 * 60_000).toISOString();
      chunks.push(`# terminal closed at ${closedAt} (no command for 30 minutes)\n`);
      const text = chunks.join('');
      fs.writeFileSync(path.join(dir, `${n}.txt`), text);
      // As the fold writes it: each line with its tally (indexTally.ts).
      const lines = talliedLines(EMPTY_TALLY, index);
      const indexText = lines.text + talliedClosing(lines.next, { v: 1, closed: closedAt, agent, session }).line;
      fs.writeFileSync(path.join(dir, `${n}.index.jsonl`), indexText);
      out.files += 2;
      out.bytes += Buffer.byteLength(text) + Buffer.byteLength(indexText);
    }
    out.sessions.push(made);
    out.commands += commands;
  }
  return out;
}

/** The capture a fold opened for a session (the newest N whose header names it). */
function openSessionNumber(dir: string, agent: string, session: string): number {
  const ns = fs.readdirSync(dir).map((f) => /^(\d+)\.txt$/.exec(f)?.[1]).filter(Boolean).map(Number).sort((a, b) => b - a);
  for (const n of ns) {
    const head = fs.readFileSync(path.join(dir, `${n}.txt`), 'utf8').slice(0, 1000);
    if (head.includes(`# agent: ${agent}\n`) && head.includes(`# session: ${session}\n`)) return n;
  }
  throw new Error(`no capture for ${agent} session ${session} after the fold`);
}

/**
 * One more command in each open session, through the hooks' Node path (recordAgentCommand: a spool
 * record and a fold), as the agents of the open sessions keep working: a session idle for 30 minutes
 * is closed by the next fold, so a bench that runs longer keeps them open this way. A success, so
 * the failures the rows check stay what they were; `g` is updated (command counts, last ends).
 */
export async function touchOpenSessions(root: string, g: GeneratedSessions, now = Date.now()): Promise<void> {
  for (const s of g.sessions.filter((x) => x.open)) {
    const file = path.join(root, '.agent', TERMINALS_DIR, `${s.n}.txt`);
    if (/# terminal closed at [^\n]*\n?$/.test(fs.readFileSync(file, 'utf8'))) throw new Error(`${file}: the open session ${s.session} was closed (idle) before its agent ran another command`);
    const err = await recordAgentCommand(root, { agent: s.agent, session: s.session, shell: '/bin/bash', cwd: '/work/app', startedMs: now - 40, endedMs: now, command: 'git status --short', exitCode: 0 }, { text: ' M src/index.ts', masked: 0 });
    if (err) throw err;
    s.commands++;
    s.lastEndMs = now;
    s.lastFailed = false;
  }
}
