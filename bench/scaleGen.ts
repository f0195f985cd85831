// Generator of `.agent/` folders at a given history scale, in the documented on-disk formats
// (docs/terminal-format.md, docs/memory-and-history.md, docs/notes-format.md, the ledger in
// src/core/history/ledger.ts), for the scale study of issue 15 (`npm run bench`) and any test that needs a
// long-lived folder. Deterministic: the same scale and seed give the same files and mtimes
// (relative to `now`).
//
// Scale S (1×): 1,000 ledger lines, 20 terminals × 200 commands, 5 agents, 200 progress entries,
// 100 features, 1,000 scratch files. M (10×) and L (100×) multiply every history count: the
// ledger, commands per terminal, agents, progress entries, features, scratch files (and the days
// they span). What a user looks at does not grow with history: the plan, 10 notes, 20 memory
// keys, 5 skills, 5 archived sessions.
//
// Dimensions (issue 22 §1): `opts.terminals` (TerminalsDimension) and `opts.dims` (Dimensions) grow
// one thing on its own, everything else staying at the scale given.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { formatCommandFooter, formatCommandHeader, formatHeader, type IndexRecord } from '../src/core/terminal/terminalFormat';
import { EMPTY_TALLY, talliedClosing, talliedLines } from '../src/core/terminal/indexTally';
import { rng } from './harness';
import { generateAgentSessions, type AgentSessionsSpec, type GeneratedSessions } from './agentSessionsGen';

/** A named scale or a multiplier of S. */
export type Scale = 'S' | 'M' | 'L' | number;

/** How many of each thing a generated folder holds. */
export interface ScaleCounts {
  /** Multiplier of S. */
  factor: number;
  ledgerLines: number;
  terminals: number;
  commandsPerTerminal: number;
  /** Terminals still open (no closing note); the highest-numbered ones. */
  liveTerminals: number;
  agents: number;
  findingsPerAgent: number;
  progressEntries: number;
  features: number;
  /** setPasses records after the accepted list in history/features.accepted.jsonl. */
  featureRecords: number;
  scratchFiles: number;
  /** Days the history spans (ledger times, scratch mtimes, progress dates), ending now. */
  days: number;
  notes: number;
  memoryKeys: number;
  skills: number;
  sessions: number;
  /** Plan files in `.agent/plans/` (half YAML, half Markdown checklists), beside plan.yaml. */
  plans: number;
}

/**
 * One dimension of a heavy user's `.agent/` grown on its own (issue 22 §1); each field set replaces
 * that count of the scale given to generateAgentFolder, the rest stays as the scale has it.
 */
export interface Dimensions {
  /** Terminals of the scale's kind (each with commandsPerTerminal commands, the last three open). */
  terminals?: number;
  commandsPerTerminal?: number;
  scratchFiles?: number;
  agents?: number;
  /** The `agents` most recently active sub-agents get a findings.md of about `bytes` bytes each. */
  bigFindings?: { agents: number; bytes: number };
  plans?: number;
  skills?: number;
  /** Entries of memory/preferences.yaml (hand-written: the tools stop adding at 100). */
  memoryKeys?: number;
  notes?: number;
  progressEntries?: number;
  features?: number;
  /** The ledger as monthly files (`history/tools-YYYY-MM.jsonl`, the newest this month) of `bytes` in all, instead of the legacy tools.jsonl. */
  ledger?: { bytes: number; months: number };
}

/** The multiplier of a scale. */
export function scaleFactor(scale: Scale): number {
  if (scale === 'S') return 1;
  if (scale === 'M') return 10;
  if (scale === 'L') return 100;
  if (!(scale > 0)) throw new Error(`scale must be S, M, L or a positive number, got ${String(scale)}`);
  return scale;
}

/** The counts of a scale (S × factor for everything that is history). */
export function scaleCounts(scale: Scale): ScaleCounts {
  const k = scaleFactor(scale);
  const n = (x: number): number => Math.max(1, Math.round(x * k));
  return {
    factor: k,
    ledgerLines: n(1000),
    terminals: 20,
    commandsPerTerminal: n(200),
    liveTerminals: 3,
    agents: n(5),
    findingsPerAgent: 10,
    progressEntries: n(200),
    features: n(100),
    featureRecords: n(50),
    scratchFiles: n(1000),
    days: Math.max(1, Math.round(k)),
    notes: 10,
    memoryKeys: 20,
    skills: 5,
    sessions: 5,
    plans: 0,
  };
}

/**
 * The terminals dimension of issue 22: many terminal files, everything else at the scale given to
 * generateAgentFolder. Terminal 1 is the long-lived one (open since the start of the history, with
 * `longLived` commands), the two highest-numbered are open with a few commands, terminal 2 and every 40th hold
 * a few hundred commands, and the rest are closed agent terminals of 1–12 commands.
 */
export interface TerminalsDimension {
  terminals: number;
  /** Commands in terminal 1 (default 20,000). */
  longLived?: number;
}

/** Commands per terminal (index n - 1) and the open terminals of a terminals dimension (deterministic). */
function terminalsPlan(d: TerminalsDimension): { commands: number[]; live: Set<number> } {
  const r = rng(22);
  const commands = Array.from({ length: d.terminals }, (_, i) => (i === 0 ? d.longLived ?? 20_000 : i === 1 || (i + 1) % 40 === 0 ? 300 : 1 + Math.floor(r() * 12)));
  const live = new Set([1, d.terminals - 1, d.terminals].filter((n) => n >= 1));
  return { commands, live };
}

/** What generateAgentFolder wrote. */
export interface GeneratedFolder {
  /** The workspace root (holds `.agent/`). */
  root: string;
  agentDir: string;
  counts: ScaleCounts;
  files: number;
  bytes: number;
  /**
   * The terminal holding the most recent failed command, and that command's number (when it ended;
   * `session`: the terminal is an agent session's capture, which agentContext_terminal names by its
   * agent and session: failureRef gives the text either way).
   */
  lastFailure: { terminal: number; command: number; endMs: number; session?: boolean };
  /** Terminals whose last command failed, agent sessions included. */
  failedTerminals: number[];
  /** The agent-command history written beside the terminals (opts.agentSessions). */
  agentSessions?: GeneratedSessions;
  /** A word that occurs nowhere in the folder (a grep that must find nothing). */
  absentWord: string;
  /** A word planted on exactly `plantedLines` lines of terminal output. */
  plantedWord: string;
  plantedLines: number;
  /** The sub-agents given big findings files (dims.bigFindings), newest last, with their entry counts. */
  bigFindings: { id: string; entries: number }[];
}

const TOOLS = ['agentContext_run', 'agentContext_grep', 'agentContext_read', 'agentContext_terminal', 'agentContext_plan', 'agentContext_offload', 'agentContext_glob', 'agentContext_briefing', 'agentContext_memory', 'agentContext_skill', 'agentContext_agentWorkspace', 'agentContext_cleanup'];
const WORDS = ['build', 'compile', 'module', 'render', 'request', 'response', 'cache', 'worker', 'queue', 'socket', 'parser', 'token', 'config', 'install', 'package', 'resolve', 'fetch', 'retry', 'server', 'client', 'handler', 'status', 'done', 'pending', 'skipped', 'passed'];
const COMMANDS = ['npm test', 'npm run build', 'git status', 'ls -la', 'node scripts/check.mjs', 'tsc -p .', 'make -j2', 'pytest -q', 'cargo check', 'git diff --stat'];
const ABSENT = 'QQZXNEVERPRESENTXZQQ';
const PLANTED = 'PLANTEDNEEDLE';

class Writer {
  files = 0;
  bytes = 0;
  write(file: string, data: string, mtime?: Date): void {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, data);
    if (mtime) fs.utimesSync(file, mtime, mtime);
    this.files++;
    this.bytes += Buffer.byteLength(data);
  }
}

function pad(n: number, w: number): string {
  return String(n).padStart(w, '0');
}

/**
 * Writes a `.agent/` folder of the given scale into `root` (created if missing; an existing
 * `.agent/` there is replaced). `now` fixes the end of the generated history (default: the current
 * time, so retention and "today" behave as they would for a real user).
 */
export async function generateAgentFolder(root: string, scale: Scale, seed = 15, now = new Date(), opts: { terminals?: TerminalsDimension; dims?: Dimensions; agentSessions?: AgentSessionsSpec } = {}): Promise<GeneratedFolder> {
  const c = scaleCounts(scale);
  const dims = opts.dims ?? {};
  for (const k of ['terminals', 'commandsPerTerminal', 'scratchFiles', 'agents', 'plans', 'skills', 'memoryKeys', 'notes', 'progressEntries', 'features'] as const) {
    if (dims[k] !== undefined) c[k] = dims[k]!;
  }
  if (dims.features !== undefined) c.featureRecords = Math.max(1, Math.round(dims.features / 2));
  const td = opts.terminals;
  const plan = td ? terminalsPlan(td) : undefined;
  if (plan) {
    c.terminals = td!.terminals;
    c.liveTerminals = plan.live.size;
    c.commandsPerTerminal = Math.max(...plan.commands);
  }
  const r = rng(seed);
  const pick = <T>(a: readonly T[]): T => a[Math.floor(r() * a.length)];
  const word = (): string => pick(WORDS);
  const agentDir = path.join(root, '.agent');
  fs.rmSync(agentDir, { recursive: true, force: true });
  fs.mkdirSync(agentDir, { recursive: true });
  const w = new Writer();
  const t1 = now.getTime();
  const span = c.days * 86_400_000;
  /** A time `frac` of the way through the history (0 oldest, 1 now). */
  const at = (frac: number): Date => new Date(t1 - span + Math.floor(frac * (span - 60_000)));

  // Layout files written by Initialize.
  w.write(path.join(agentDir, '.gitignore'), 'scratch/\nterminals/\nhistory/\npins.json\n');
  w.write(path.join(agentDir, 'README.md'), '# .agent/ — overflow memory for coding agents\n');
  const steps = Array.from({ length: 20 }, (_, i) => `  - id: ${i + 1}\n    description: "Step ${i + 1}: ${word()} the ${word()} ${word()}"\n    status: ${i < 12 ? 'completed' : i === 12 ? 'in_progress' : 'pending'}\n`).join('');
  w.write(path.join(agentDir, 'plan.yaml'), `objective: "Keep the ${word()} ${word()} fast at any history size"\nstatus: in_progress\nsteps:\n${steps}`);

  // Progress log: `## <ISO> — title`, what was done, `Next:`.
  const prog = ['# Progress', ''];
  for (let i = 0; i < c.progressEntries; i++) {
    const d = at((i + 1) / (c.progressEntries + 1)).toISOString().replace(/\.\d{3}Z$/, 'Z');
    prog.push(`## ${d} — Session ${i + 1}: ${word()} ${word()}`, '', `Changed the ${word()} ${word()} and the ${word()} tests.`, '', `Next: ${word()} the ${word()}.`, '');
  }
  w.write(path.join(agentDir, 'progress.md'), prog.join('\n'));

  // Features and their accepted log (an accept record, then setPasses records).
  const features = Array.from({ length: c.features }, (_, i) => ({ category: pick(['functional', 'performance', 'ui']), description: `Feature ${i}: ${word()} ${word()} ${word()}`, steps: [`${word()} the ${word()}`, `check ${word()}`], passes: false }));
  const hist = path.join(agentDir, 'history');
  const log: string[] = [JSON.stringify({ time: at(0).toISOString(), kind: 'accept', by: 'user', features })];
  for (let i = 0; i < c.featureRecords; i++) {
    const index = Math.floor(r() * c.features);
    features[index].passes = !features[index].passes;
    log.push(JSON.stringify({ time: at((i + 1) / (c.featureRecords + 1)).toISOString(), kind: 'setPasses', by: 'tool', index, passes: features[index].passes }));
  }
  w.write(path.join(agentDir, 'features.json'), JSON.stringify(features, null, 2) + '\n');
  w.write(path.join(hist, 'features.accepted.jsonl'), log.join('\n') + '\n');

  // The ledger: the legacy single file (existing folders have it; readers must keep working), or
  // monthly files of a given size (the ledger dimension).
  const ledgerEntry = (i: number): Record<string, unknown> => {
    const tool = pick(TOOLS);
    const raw = Math.floor(r() * 20000);
    const ret = Math.min(raw, 50 + Math.floor(r() * 600));
    const text = `Saved: .agent/scratch/tool_outputs/${word()}-${i}.txt (${raw} tokens); ${word()} ${word()} ${word()} ok. ` + `${word()} `.repeat(20 + Math.floor(r() * 60));
    return { tool, source: r() < 0.5 ? 'mcp' : 'vscode', input: JSON.stringify({ command: pick(COMMANDS) }), rawTokens: raw, returnedTokens: ret, ok: r() > 0.05, text };
  };
  if (dims.ledger) {
    c.ledgerLines = writeLedgerMonths(hist, w, dims.ledger.bytes, dims.ledger.months, now, Array.from({ length: 256 }, (_, i) => JSON.stringify(ledgerEntry(i)).slice(1)));
  } else {
    const ledger: string[] = [];
    for (let i = 0; i < c.ledgerLines; i++) ledger.push(JSON.stringify({ time: at((i + 1) / (c.ledgerLines + 1)).toISOString(), ...ledgerEntry(i) }));
    w.write(path.join(hist, 'tools.jsonl'), ledger.join('\n') + '\n');
  }
  for (let i = 0; i < c.sessions; i++) w.write(path.join(hist, `session-01KB${pad(i, 22)}.md`), `---\narchived: ${at(i / c.sessions).toISOString()}\n---\nSession ${i}\n`);

  // Terminals: N.txt (header, command blocks) and N.index.jsonl (running + done per command).
  const failedTerminals: number[] = [];
  // The newest failure as agentContext_terminal lastFailed picks it: per terminal its last failed
  // command in file order, then across terminals the latest end (start + duration), later terminals winning ties.
  let lastFailure: { terminal: number; command: number; time: number; session?: boolean } = { terminal: 0, command: 0, time: 0 };
  let planted = 0;
  const tdir = path.join(agentDir, 'terminals');
  const commandsOf = (n: number): number => plan?.commands[n - 1] ?? c.commandsPerTerminal;
  for (let n = 1; n <= c.terminals; n++) {
    const live = plan ? plan.live.has(n) : n > c.terminals - c.liveTerminals;
    const commands = commandsOf(n);
    let termFailure: { command: number; time: number } | undefined;
    const started0 = at(n / (c.terminals + 2));
    let text = formatHeader({ name: n === 1 ? 'bash' : `bash ${n}`, n, shell: '/bin/bash', cwd: '/work/app', started: started0, shellIntegration: true });
    let lines = text.split('\n').length - 1;
    const chunks: string[] = [text];
    const index: IndexRecord[] = [];
    let lastExit = 0;
    for (let k = 1; k <= commands; k++) {
      // Terminal n's commands fill its share of the history; live ones run up to now.
      const frac = (n / (c.terminals + 2)) + ((k / commands) * (live ? 1 - n / (c.terminals + 2) : 1 / (c.terminals + 2)));
      const started = at(Math.min(1, frac));
      const cmd = pick(COMMANDS);
      const last = k === commands;
      // The last command fails in every fourth terminal; elsewhere about 1 in 20 fail.
      const exit = last ? (n % 4 === 0 ? 1 : 0) : r() < 0.05 ? 1 + Math.floor(r() * 2) : 0;
      const header = formatCommandHeader(k, started, '/work/app', cmd);
      const headerLine = lines + 1;
      const out: string[] = [];
      const m = Math.floor(r() * 7);
      for (let j = 0; j < m; j++) {
        if (planted < 1000 && r() < 0.01) {
          out.push(`${word()} ${PLANTED} ${word()}`);
          planted++;
        } else out.push(exit && j === m - 1 ? `Error: ${word()} ${word()} failed` : `${word()} ${word()} ${word()} ${Math.floor(r() * 1e6)}`);
      }
      const dur = Math.floor(r() * 30000);
      const footer = formatCommandFooter(k, exit, dur, 0);
      chunks.push(header + '\n' + out.map((l) => l + '\n').join('') + footer + '\n');
      const firstLine = headerLine + 1;
      const lastLine = firstLine + out.length - 1;
      lines = lastLine + 1;
      const base: IndexRecord = { v: 1, command: k, status: 'running', file: `${n}.txt`, commandLine: cmd, cwd: '/work/app', started: started.toISOString(), headerLine, firstLine, lastLine: null, exitCode: null, durationMs: null, secretsMasked: 0 };
      index.push(base, { ...base, status: 'done', lastLine, exitCode: exit, durationMs: dur });
      lastExit = exit;
      if (exit) termFailure = { command: k, time: started.getTime() + dur };
    }
    if (termFailure && termFailure.time >= lastFailure.time) lastFailure = { terminal: n, ...termFailure };
    if (lastExit) failedTerminals.push(n);
    const closedAt = live ? undefined : at((n + 1) / (c.terminals + 2)).toISOString();
    if (closedAt) chunks.push(`# terminal closed at ${closedAt}\n`);
    text = chunks.join('');
    w.write(path.join(tdir, `${n}.txt`), text);
    // As the capture writer writes it: each line with its tally (indexTally.ts), and a closed terminal's closing record last.
    const indexed = talliedLines(EMPTY_TALLY, index);
    w.write(path.join(tdir, `${n}.index.jsonl`), indexed.text + (closedAt && index.length ? talliedClosing(indexed.next, { v: 1, closed: closedAt }).line : ''));
  }

  // Agents' own shell commands, one capture per session after the integrated terminals (issue 46).
  let agentSessions: GeneratedSessions | undefined;
  if (opts.agentSessions) {
    agentSessions = await generateAgentSessions(agentDir, opts.agentSessions, now);
    w.files += agentSessions.files;
    w.bytes += agentSessions.bytes;
    c.terminals += agentSessions.sessions.length;
    for (const s of agentSessions.sessions) {
      if (s.lastFailed) failedTerminals.push(s.n);
      // agentContext_terminal picks the latest end, a later terminal winning ties.
      if (s.failure && s.failure.endMs >= lastFailure.time) lastFailure = { terminal: s.n, command: s.failure.command, time: s.failure.endMs, session: true };
    }
  }

  // Sub-agents: findings.md (## <ISO> entries) and status.json, last active at spread times; the
  // most recently active ones may have big findings files (dims.bigFindings).
  const big = dims.bigFindings;
  const bigFindings: { id: string; entries: number }[] = [];
  for (let i = 0; i < c.agents; i++) {
    const id = `agent-${pad(i, 5)}`;
    const dir = path.join(agentDir, 'agents', id);
    const updated = at((i + 1) / (c.agents + 1));
    const f: string[] = [];
    for (let j = 0; j < c.findingsPerAgent; j++) f.push(`\n## ${new Date(updated.getTime() - (c.findingsPerAgent - j) * 60_000).toISOString()}\n\nThe ${word()} ${word()} is ${word()} in src/${word()}.ts.\n`);
    if (big && i >= c.agents - big.agents) {
      const entries = writeBigFindings(path.join(dir, 'findings.md'), w, big.bytes, updated, f);
      fs.utimesSync(path.join(dir, 'findings.md'), updated, updated);
      bigFindings.push({ id, entries });
    } else w.write(path.join(dir, 'findings.md'), f.join(''), updated);
    const status = pick(['idle', 'working', 'blocked', 'done', 'failed']);
    w.write(path.join(dir, 'status.json'), JSON.stringify({ agentId: id, status, progress: status === 'done' ? 1 : Math.round(r() * 100) / 100, updated: updated.toISOString() }, null, 2) + '\n', updated);
    fs.utimesSync(dir, updated, updated);
  }

  // Scratch: tool outputs and notes of the agent, mtimes spread over the history.
  for (let i = 0; i < c.scratchFiles; i++) {
    const mtime = at((i + 1) / (c.scratchFiles + 1));
    const sub = i % 4 === 0 ? 'scratch' : 'scratch/tool_outputs';
    const name = i % 4 === 0 ? `notes-${word()}-${pad(i, 6)}.md` : `${pick(COMMANDS).replace(/[^a-z]+/g, '-')}-${pad(i, 6)}.txt`;
    const body = Array.from({ length: 5 + Math.floor(r() * 40) }, () => `${word()} ${word()} ${word()} ${Math.floor(r() * 1e6)}`).join('\n') + '\n';
    w.write(path.join(agentDir, sub, name), body, mtime);
  }

  // What does not grow with history: notes, memory, skills.
  for (let i = 0; i < c.notes; i++) {
    const t = 1 + (i % c.terminals);
    const created = at(1 - (c.notes - i) / (c.notes * 100));
    w.write(path.join(agentDir, 'human', 'notes', `01KB${pad(i, 22)}.md`), `---\nid: 01KB${pad(i, 22)}\ntarget: .agent/terminals/${t}.txt\nterminal: ${t}\ncommand: ${1 + i}\nauthor: bench\ncreated: ${created.toISOString()}\n---\nNote ${i}: the ${word()} failure is ${word()}; ignore it.\n`);
  }
  const prefs = Array.from({ length: c.memoryKeys }, (_, i) => `key-${i}:\n  value: "${word()} ${word()}"\n  source: agent\n  updated: ${at(i / c.memoryKeys).toISOString()}\n`).join('');
  w.write(path.join(agentDir, 'memory', 'preferences.yaml'), prefs);
  // Plans kept in .agent/plans/ beside plan.yaml: YAML and Markdown checklists, changed at spread times.
  for (let i = 0; i < c.plans; i++) {
    const mtime = at((i + 1) / (c.plans + 1));
    const stepsN = 3 + (i % 6);
    const file = i % 2
      ? `plan-${pad(i, 5)}.yaml`
      : `plan-${pad(i, 5)}.md`;
    const text = i % 2
      ? `objective: "Plan ${i}: ${word()} the ${word()}"\nstatus: in_progress\nsteps:\n${Array.from({ length: stepsN }, (_, j) => `  - id: ${j + 1}\n    description: "${word()} the ${word()} ${word()}"\n    status: ${j < stepsN / 2 ? 'completed' : 'pending'}\n`).join('')}`
      : `# Plan ${i}: ${word()} the ${word()}\n\n## Steps\n\n${Array.from({ length: stepsN }, (_, j) => `- [${j < stepsN / 2 ? 'x' : ' '}] ${word()} the ${word()} ${word()}\n`).join('')}`;
    w.write(path.join(agentDir, 'plans', file), text, mtime);
  }
  for (let i = 0; i < c.skills; i++) w.write(path.join(agentDir, 'skills', `skill-${i}`, 'SKILL.md'), `---\nname: skill-${i}\ndescription: How to ${word()} the ${word()}\n---\n# Skill ${i}\n\nSteps.\n`);

  return {
    root, agentDir, counts: c, files: w.files, bytes: w.bytes,
    failedTerminals,
    lastFailure: { terminal: lastFailure.terminal, command: lastFailure.command, endMs: lastFailure.time, ...(lastFailure.session ? { session: true } : {}) },
    agentSessions,
    absentWord: ABSENT,
    plantedWord: PLANTED,
    plantedLines: planted,
    bigFindings,
  };
}

/**
 * How agentContext_terminal names a failure in its answer: `Terminal N command #k` for an integrated
 * terminal, `… (terminal N) command #k` after an agent session's name.
 */
export function failureRef(f: { terminal: number; command: number; session?: boolean }): string {
  return f.session ? `(terminal ${f.terminal}) command #${f.command}` : `Terminal ${f.terminal} command #${f.command}`;
}

/** Writes `lines` (already joined with their newlines) to an open file in chunks of about 8 MB. */
class ChunkedFile {
  private parts: string[] = [];
  private size = 0;
  bytes = 0;
  constructor(private readonly fd: number) {}
  push(s: string): void {
    this.parts.push(s);
    this.size += s.length;
    if (this.size >= 8 << 20) this.flush();
  }
  flush(): void {
    if (!this.parts.length) return;
    const buf = Buffer.from(this.parts.join(''));
    fs.writeSync(this.fd, buf);
    this.bytes += buf.length;
    this.parts = [];
    this.size = 0;
  }
}

/**
 * The ledger as `months` monthly files (`tools-YYYY-MM.jsonl`, UTC months ending with `now`'s) of
 * about `bytes` in all; each line is a ledger record (src/core/history/ledger.ts) whose fields after
 * `time` come from `bodies` (JSON objects without their opening brace). Returns the line count.
 */
function writeLedgerMonths(hist: string, w: Writer, bytes: number, months: number, now: Date, bodies: string[]): number {
  fs.mkdirSync(hist, { recursive: true });
  const avg = bodies.reduce((a, b) => a + b.length, 0) / bodies.length + 36;
  const perFile = Math.max(1, Math.round(bytes / months / avg));
  let n = 0;
  for (let m = months - 1; m >= 0; m--) {
    const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - m, 1);
    const end = m === 0 ? now.getTime() : Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - m + 1, 1) - 1;
    const file = path.join(hist, `tools-${new Date(start).toISOString().slice(0, 7)}.jsonl`);
    const fd = fs.openSync(file, 'w');
    const out = new ChunkedFile(fd);
    try {
      for (let i = 0; i < perFile; i++, n++) out.push(`{"time":"${new Date(start + Math.floor(((i + 1) / (perFile + 1)) * (end - start))).toISOString()}",${bodies[n % bodies.length]}\n`);
      out.flush();
    } finally {
      fs.closeSync(fd);
    }
    w.files++;
    w.bytes += out.bytes;
  }
  return n;
}

/** A findings.md of about `bytes` (docs/memory-and-history.md entries, oldest first, the last at `updated`), ending with `tail`'s entries; returns the entry count. */
function writeBigFindings(file: string, w: Writer, bytes: number, updated: Date, tail: string[]): number {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const body = 'The build of the parser module fails on CRLF input in src/parser.ts; the worker retries the request and the cache keeps the stale token. '.repeat(3);
  const each = body.length + 32;
  const count = Math.max(0, Math.round(bytes / each) - tail.length);
  const fd = fs.openSync(file, 'w');
  const out = new ChunkedFile(fd);
  try {
    const t0 = updated.getTime() - (count + tail.length + 1) * 60_000;
    for (let j = 0; j < count; j++) out.push(`\n## ${new Date(t0 + j * 60_000).toISOString()}\n\n${body}\n`);
    for (const t of tail) out.push(t);
    out.flush();
  } finally {
    fs.closeSync(fd);
  }
  w.files++;
  w.bytes += out.bytes;
  return count + tail.length;
}
