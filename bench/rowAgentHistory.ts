// Row 20: the agent-command history "flat at 50,000 commands" (issue 46 §5) over MCP. Two folders
// that differ only in their agents' own commands: S 500 commands in 20 sessions, L 50,000 in 2,000
// sessions, both beside row 14's L (10,000 integrated-terminal files, one of 20,000 commands), in
// the real on-disk format (bench/agentSessionsGen.ts: six agents, the newest three sessions open,
// about 1 command in 12 failing). Per call and build (the shipped bundle dist/mcp.js and the tsc build
// out/src/mcp/server.js): the first call of a fresh server that finds no `.agent/.cache/`, the first
// call of a fresh server with `.agent/.cache/` as the previous one left it, and warm calls; levels
// interleaved, every answer checked against what was generated.
// Env: BENCH_AGENT_SESSIONS=20:500,2000:50000 (sessions:commands per level), BENCH_HISTORY_TERMINALS=10000,
// BENCH_AGENT_BUILDS=dist/mcp.js (measure one build; default both).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { failedRow, repoRoot, RUNS, stats, type Row, type Stats } from './harness';
import { touchOpenSessions, type GeneratedSession } from './agentSessionsGen';
import { coldCells, judge, medians, startServers, warmCells, type Cell, type LevelCall, type LevelFolder } from './mcpLevels';
import { failureRef, generateAgentFolder, type GeneratedFolder } from './scaleGen';

/** Integrated-terminal files beside the sessions (row 14's L). */
const TERMINALS = Number(process.env.BENCH_HISTORY_TERMINALS ?? 10_000);
/** The agent whose sessions the filtered calls ask about. */
const AGENT = 'codex';
/** Open sessions are closed by a fold after 30 minutes without a command: their agents run one at least this often during the row. */
const TOUCH_EVERY_MS = 10 * 60_000;

const sessionsOf = (g: GeneratedFolder): GeneratedSession[] => g.agentSessions?.sessions ?? [];
/** Counts are printed plain or with thousands separators: compared without them. */
const plain = (t: string): string => t.replace(/(\d),(?=\d{3}\b)/g, '$1');
const expect = (t: string, want: string): string | undefined => (plain(t).includes(want) ? undefined : `expected "${want}": ${t.slice(0, 160)}`);

/** The newest failure among `agent`'s sessions, as agentContext_terminal names it. */
function agentFailure(g: GeneratedFolder, agent: string): string {
  let best: { n: number; command: number; endMs: number } | undefined;
  for (const s of sessionsOf(g)) if (s.agent === agent && s.failure && (!best || s.failure.endMs >= best.endMs)) best = { n: s.n, ...s.failure };
  return best ? failureRef({ terminal: best.n, command: best.command, session: true }) : 'No failed command';
}

/** The session the last-command call reads: the agent's newest (an open one, whose agent is still running). */
function probeSession(g: GeneratedFolder): GeneratedSession {
  const mine = sessionsOf(g).filter((s) => s.agent === AGENT);
  return mine.reduce((a, b) => (b.lastEndMs > a.lastEndMs ? b : a));
}

export const AGENT_HISTORY_CALLS: LevelCall[] = [
  {
    id: 'briefing', what: 'agentContext_briefing', tool: 'agentContext_briefing', input: {},
    check: (t, g) => expect(t, `(${g.failedTerminals.length} of ${g.counts.terminals}):`),
  },
  {
    id: 'list', what: 'agentContext_terminal (no args)', tool: 'agentContext_terminal', input: {},
    check: (t, g) => {
      const sessions = sessionsOf(g).length;
      return plain(t).startsWith(`${g.counts.terminals - sessions} captured terminals and ${sessions} agent sessions`) ? undefined : `expected ${g.counts.terminals - sessions} terminals and ${sessions} sessions: ${t.slice(0, 160)}`;
    },
  },
  { id: 'lastFailed', what: 'agentContext_terminal lastFailed (no terminal)', tool: 'agentContext_terminal', input: { command: 'lastFailed' }, check: (t, g) => expect(t, failureRef(g.lastFailure)) },
  { id: 'agentLastFailed', what: `agentContext_terminal lastFailed, agent ${AGENT}`, tool: 'agentContext_terminal', input: { command: 'lastFailed', agent: AGENT }, check: (t, g) => expect(t, agentFailure(g, AGENT)) },
  {
    id: 'sessionLast', what: `agentContext_terminal last of ${AGENT}'s open session`, tool: 'agentContext_terminal', input: (g) => ({ terminal: probeSession(g).n, command: 'last' }),
    check: (t, g) => expect(t, failureRef({ terminal: probeSession(g).n, command: probeSession(g).commands, session: true })),
  },
];

/** What a user without the catalog would run to find the failed commands: GNU grep over every capture's footers. */
const GREP_FAILED = ['-r', '-l', '--include=*.txt', '-E', '^<<< command [0-9]+ \\| exit [1-9]'];

/**
 * The reference in the same run: GNU grep listing the captures that hold a failed command (every
 * terminal file and session read once, as a first call without .agent/.cache/ must), median of RUNS
 * after one warm-up; its file count is checked against the generator's sessions with a failure.
 */
function grepFailed(g: GeneratedFolder): { t: Stats; files: number } | { error: string } {
  const dir = path.join(g.agentDir, 'terminals');
  const samples: number[] = [];
  let files = 0;
  for (let i = 0; i <= RUNS; i++) {
    const t0 = performance.now();
    const r = spawnSync('grep', [...GREP_FAILED, dir], { encoding: 'utf8', maxBuffer: 64 << 20 });
    const ms = performance.now() - t0;
    if (r.error || (r.status !== 0 && r.status !== 1)) return { error: `grep: ${r.error?.message ?? r.stderr.slice(0, 200)}` };
    files = r.stdout.split('\n').filter(Boolean).length;
    if (i > 0) samples.push(ms);
  }
  const want = sessionsOf(g).filter((s) => s.failure).length;
  const have = new Set(sessionsOf(g).map((s) => path.join(dir, `${s.n}.txt`)));
  const found = spawnSync('grep', [...GREP_FAILED, dir], { encoding: 'utf8', maxBuffer: 64 << 20 }).stdout.split('\n').filter((f) => have.has(f)).length;
  if (found !== want) return { error: `grep found ${found} sessions with a failed command, the generator wrote ${want}` };
  return { t: stats(samples), files };
}

/** Levels from BENCH_AGENT_SESSIONS or S 20 sessions / 500 commands, L 2,000 / 50,000. */
export function agentHistoryLevels(): { label: string; sessions: number; commands: number }[] {
  const xs = (process.env.BENCH_AGENT_SESSIONS ?? '20:500,2000:50000').split(',').map((p) => p.split(':').map(Number));
  return xs.map(([sessions, commands], i) => ({ label: ['S', 'L'][i] ?? `x${i}`, sessions, commands }));
}

/** The generator's options for a level (shared with the editor row). */
export function agentHistoryGen(l: { sessions: number; commands: number }): Parameters<typeof generateAgentFolder>[4] {
  return { terminals: { terminals: TERMINALS }, agentSessions: { sessions: l.sessions, commands: l.commands } };
}

/** Measures every call three ways per build at each level; one row per call and build. */
export async function rowAgentHistory(log: (s: string) => void, levels = agentHistoryLevels()): Promise<Row[]> {
  const builds = [
    { name: 'dist/mcp.js', js: path.join(repoRoot(), 'dist', 'mcp.js') },
    { name: 'out/src/mcp/server.js', js: path.join(repoRoot(), 'out', 'src', 'mcp', 'server.js') },
  ].filter((b) => !process.env.BENCH_AGENT_BUILDS || process.env.BENCH_AGENT_BUILDS.split(',').includes(b.name));
  const missing = builds.filter((b) => !fs.existsSync(b.js));
  if (missing.length) return [failedRow('20', 'agent-command history over MCP', '—', new Error(`${missing.map((b) => b.js).join(', ')} missing: run tsc -p . and node esbuild.mjs`))];
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-context-history-'));
  const results = new Map<string, Map<string, Cell>>();
  const up: LevelFolder[] = [];
  const greps = new Map<string, ReturnType<typeof grepFailed>>();
  let touched = Date.now();
  const keepOpen = async (): Promise<void> => {
    if (Date.now() - touched < TOUCH_EVERY_MS) return;
    for (const u of up) await touchOpenSessions(u.g.root, u.g.agentSessions!);
    touched = Date.now();
    log('  the open sessions ran one more command each (their agents keep them open)');
  };
  try {
    for (const l of levels) {
      const t0 = Date.now();
      const g = await generateAgentFolder(path.join(tmp, `ws-${l.label}`), 'S', 15, new Date(), agentHistoryGen(l));
      log(`agent history ${l.label} (${l.sessions} sessions, ${l.commands} commands): generated ${g.files.toLocaleString('en-US')} files, ${(g.bytes / 1048576).toFixed(0)} MB in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
      up.push({ label: l.label, g });
    }
    touched = Date.now();
    const noCache = (u: LevelFolder): void => fs.rmSync(path.join(u.g.agentDir, '.cache'), { recursive: true, force: true });
    for (const b of builds) {
      for (const c of AGENT_HISTORY_CALLS) {
        await keepOpen();
        const key = `${b.name}:nocache:${c.id}`;
        results.set(key, await coldCells(b.js, up, c, log, { before: noCache }));
        log(`  ${b.name} ${c.what}, first call, no .agent/.cache/: ${medians(results.get(key)!)} (load ${results.get(key)!.get(up[0].label)!.load})`);
      }
      for (const c of AGENT_HISTORY_CALLS) {
        await keepOpen();
        const key = `${b.name}:cold:${c.id}`;
        results.set(key, await coldCells(b.js, up, c, log));
        log(`  ${b.name} ${c.what}, first call: ${medians(results.get(key)!)} (load ${results.get(key)!.get(up[0].label)!.load})`);
      }
      await keepOpen();
      const servers = await startServers(b.js, up);
      try {
        for (const c of AGENT_HISTORY_CALLS) {
          const key = `${b.name}:warm:${c.id}`;
          results.set(key, await warmCells(servers, c, log));
          log(`  ${b.name} ${c.what}, warm: ${medians(results.get(key)!)} (load ${results.get(key)!.get(up[0].label)!.load})`);
        }
      } finally {
        for (const s of servers) await s.mcp.close().catch(() => undefined);
      }
    }
    for (const u of up) {
      const r = grepFailed(u.g);
      greps.set(u.label, r);
      log(`  GNU grep, captures with a failed command (${u.label}): ${'error' in r ? r.error : `${r.t.median.toFixed(0)} ms, ${r.files.toLocaleString('en-US')} files`}`);
    }
    // The open sessions were open all along (a closed one would have been measured as a different shape).
    for (const u of up) {
      for (const s of sessionsOf(u.g).filter((x) => x.open)) {
        if (/# terminal closed at [^\n]*\n?$/.test(fs.readFileSync(path.join(u.g.agentDir, 'terminals', `${s.n}.txt`), 'utf8'))) throw new Error(`${u.label}: open session ${s.n} was closed during the row`);
      }
    }
  } catch (e) {
    return [failedRow('20', 'agent-command history over MCP', '—', e)];
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }

  const first = levels[0].label;
  const last = levels[levels.length - 1].label;
  const sizes = levels.map((l) => `${l.label} ${l.commands.toLocaleString('en-US')} commands in ${l.sessions.toLocaleString('en-US')} sessions`).join(', ');
  const ms = (s: Stats): string => `${s.median.toFixed(0)} ms (${s.min.toFixed(0)}–${s.max.toFixed(0)})`;
  const cellsText = (per: Map<string, Cell>): string => [...per].map(([l, m]) => `${l} ${m.error ? 'error' : ms(m.t)}`).join(', ');
  const rows: Row[] = [];
  let k = 0;
  for (const b of builds) {
    for (const c of AGENT_HISTORY_CALLS) {
      const modes = [
        { key: 'nocache', label: 'first call, no .agent/.cache/', ...judge(results.get(`${b.name}:nocache:${c.id}`)!, 1000, Infinity) },
        { key: 'cold', label: 'first call', ...judge(results.get(`${b.name}:cold:${c.id}`)!, 1000, Infinity) },
        { key: 'warm', label: 'warm', ...judge(results.get(`${b.name}:warm:${c.id}`)!, Infinity, 20) },
      ];
      const loads = modes.map((m) => `${m.key} ${results.get(`${b.name}:${m.key}:${c.id}`)!.get(first)?.load ?? '?'}`);
      rows.push({
        id: `20${String.fromCharCode(97 + k++)}`,
        what: `agent-command history (${sizes}; beside ${TERMINALS.toLocaleString('en-US')} terminal files): ${c.what}, over MCP, ${b.name}`,
        ours: modes.map((m) => `${m.label}: ${cellsText(results.get(`${b.name}:${m.key}:${c.id}`)!)}`).join(' · '),
        reference: `the same call at ${first}; GNU grep listing the captures with a failed command (${GREP_FAILED.slice(0, 3).join(' ')} over .agent/terminals/, every file read once, median of ${RUNS}): ${[...greps].map(([l, r]) => `${l} ${'error' in r ? r.error : `${ms(r.t)}, ${r.files.toLocaleString('en-US')} files`}`).join(', ')}`,
        ratio: modes.map((m) => `${m.key} ${Number.isFinite(m.ratio) ? m.ratio.toFixed(2) : '—'}×`).join(', '),
        goal: `first call ≤ 1,000 ms at ${last}, with and without .agent/.cache/; warm ${last}/${first} ≤ 1.5× (growth ≤ 20 ms counts as none)`,
        met: modes.every((m) => m.met),
        note: [`levels interleaved call by call; load average ${loads.join('; ')}`, ...modes.flatMap((m) => m.errors)].join('; '),
      });
    }
  }
  return rows;
}
