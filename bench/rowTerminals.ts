// Row 14: the terminals dimension of issue 22 §1 — tool calls over MCP against generated `.agent/`
// folders that differ only in how many terminal files they hold (bench/scaleGen.ts, TerminalsDimension:
// S 10, M 1,000, L 10,000 terminals; one long-lived terminal of 20,000 commands in each). Per call:
// the first call after a fresh server start (a new server per sample, as each agent session starts
// one; `.agent/.cache/` left as the previous server left it) and warm calls on one server, levels
// interleaved call by call. Plus the first briefing of a server that finds no `.agent/.cache/` at
// all (the first session after an upgrade or a cache wipe), with the tsc build as every row here and
// with the shipped bundle dist/mcp.js (14j). No allowance on L/S ≤ 1.5×: the catalog
// no longer stats every terminal file per call (src/core/terminal/catalog/terminalCatalog.ts says what it checks).
// A first call with no .agent/.cache/ (14i, 14j) is held to ≤ 1 s at L alone, as issue 46 restated its
// goal: an exact answer must read every index once, and on 2 cores that cannot stay within 1.5× of 10
// terminals (bench/README.md, "Why 14j has no ratio goal").
// Row 22 runs the same calls on the history shape of issue 46's "the briefing still grows with
// terminal files": row 9's S history whose terminals all hold 200 commands (the newest three open,
// every fourth ending in a failure), 21 against 201 of them (historyTerminalLevels).
// Env: BENCH_TERMINALS=10,1000,10000 (the three levels), BENCH_HISTORY_TERMINAL_LEVELS=21,201 (row 22's).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { failedRow, repoRoot, RUNS, stats, type Row, type Stats } from './harness';
import { coldCells, judge, medians, startServers, warmCells, type Cell, type LevelCall, type LevelFolder } from './mcpLevels';
import { generateAgentFolder } from './scaleGen';
import { TERMINALS_DIR } from '../src/core/terminal/terminalFormat';

const CALLS: LevelCall[] = [
  {
    id: 'briefing', what: 'agentContext_briefing', tool: 'agentContext_briefing', input: {},
    check: (t, g) => (t.includes(`(${g.failedTerminals.length} of ${g.counts.terminals}):`) ? undefined : `expected "(${g.failedTerminals.length} of ${g.counts.terminals}):" in the briefing`),
  },
  {
    id: 'list', what: 'agentContext_terminal (no args)', tool: 'agentContext_terminal', input: {},
    check: (t, g) => (t.startsWith(`${g.counts.terminals} captured terminal`) ? undefined : `expected ${g.counts.terminals} captured terminals: ${t.slice(0, 120)}`),
  },
  {
    id: 'lastFailed', what: 'agentContext_terminal lastFailed (no terminal)', tool: 'agentContext_terminal', input: { command: 'lastFailed' },
    check: (t, g) => (t.startsWith(`Terminal ${g.lastFailure.terminal} command #${g.lastFailure.command}:`) ? undefined : `expected terminal ${g.lastFailure.terminal} #${g.lastFailure.command}: ${t.slice(0, 120)}`),
  },
  {
    id: 'last', what: 'agentContext_terminal last of the long-lived terminal (20,000 commands)', tool: 'agentContext_terminal', input: { terminal: 1, command: 'last' },
    check: (t, g) => (t.startsWith(`Terminal 1 command #${g.counts.commandsPerTerminal}:`) ? undefined : `expected terminal 1 #${g.counts.commandsPerTerminal}: ${t.slice(0, 120)}`),
  },
];


/**
 * The floor of a first build without a catalog file: open, fstat, read the last 4 KB of and close
 * every `N.index.jsonl` in a plain loop in this (warm) process, median of RUNS; what no rebuild can
 * avoid, as the reference for row 14i's growth.
 */
function bareIndexReads(agentDir: string): Stats {
  const dir = path.join(agentDir, TERMINALS_DIR);
  const buf = Buffer.allocUnsafe(4096);
  const samples: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const t = performance.now();
    for (const name of fs.readdirSync(dir)) {
      if (!name.endsWith('.index.jsonl')) continue;
      const fd = fs.openSync(path.join(dir, name), 'r');
      try {
        const st = fs.fstatSync(fd);
        fs.readSync(fd, buf, 0, Math.min(buf.length, st.size), Math.max(0, st.size - buf.length));
      } finally {
        fs.closeSync(fd);
      }
    }
    samples.push(performance.now() - t);
  }
  return stats(samples);
}

/** A level of rows 14 and 22: how many terminals. */
export interface TerminalLevel {
  label: string;
  terminals: number;
}

const levelsOf = (spec: string): TerminalLevel[] => {
  const xs = spec.split(',').map(Number);
  const labels = xs.length === 2 ? ['S', 'L'] : ['S', 'M', 'L'];
  return xs.map((t, i) => ({ label: labels[i] ?? `x${i}`, terminals: t }));
};

/** Levels from BENCH_TERMINALS or S/M/L = 10/1,000/10,000 terminals. */
export function terminalLevels(): TerminalLevel[] {
  return levelsOf(process.env.BENCH_TERMINALS ?? '10,1000,10000');
}

/** Row 22's levels: BENCH_HISTORY_TERMINAL_LEVELS or S/L = 21/201 terminals of row 9's S history. */
export function historyTerminalLevels(): TerminalLevel[] {
  return levelsOf(process.env.BENCH_HISTORY_TERMINAL_LEVELS ?? '21,201');
}

/** Which folders a row generates: row 14's terminals dimension, or row 22's history shape. */
export interface TerminalsRow {
  id: string;
  /** What the levels count, for the table. */
  unit: string;
  gen: (terminals: number) => Parameters<typeof generateAgentFolder>[4];
  /** Whether the long-lived terminal 1 holds 20,000 commands (row 14) or as many as every other (row 22). */
  lastWhat: string;
}

/** Row 14: terminal files grown on their own (scaleGen.ts TerminalsDimension). */
export const TERMINALS_ROW: TerminalsRow = { id: '14', unit: 'terminal files', gen: (terminals) => ({ terminals: { terminals } }), lastWhat: 'the long-lived terminal (20,000 commands)' };

/** Row 22: row 9's S history with more terminals of its kind (200 commands each). */
export const HISTORY_TERMINALS_ROW: TerminalsRow = { id: '22', unit: 'terminals of row 9\'s S history, 200 commands each', gen: (terminals) => ({ dims: { terminals } }), lastWhat: 'terminal 1 (200 commands)' };

/** Measures every call cold and warm at each level; one row per call and mode. */
export async function rowTerminals(log: (s: string) => void, levels = terminalLevels(), row: TerminalsRow = TERMINALS_ROW): Promise<Row[]> {
  const serverJs = path.join(repoRoot(), 'out', 'src', 'mcp', 'server.js');
  const bundleJs = path.join(repoRoot(), 'dist', 'mcp.js');
  if (!fs.existsSync(serverJs)) return [failedRow(row.id, `${row.unit} over MCP`, '—', new Error(`${serverJs} missing: run tsc -p .`))];
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-context-terminals-'));
  const results = new Map<string, Map<string, Cell>>();
  const up: LevelFolder[] = [];
  /** Per level, the bare reads of every index (bareIndexReads). */
  const floors = new Map<string, Stats>();
  try {
    for (const l of levels) {
      const t0 = Date.now();
      const g = await generateAgentFolder(path.join(tmp, `ws-${l.label}`), 'S', 15, new Date(), row.gen(l.terminals));
      log(`terminals ${l.label} (${l.terminals}): generated ${g.files.toLocaleString('en-US')} files, ${(g.bytes / 1048576).toFixed(0)} MB in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
      up.push({ label: l.label, g });
    }
    // The first briefing of a server that finds no .agent/.cache/ (rebuilds whatever it keeps there).
    for (const u of up) floors.set(u.label, bareIndexReads(u.g.agentDir));
    const noCache = (u: LevelFolder): void => fs.rmSync(path.join(u.g.agentDir, '.cache'), { recursive: true, force: true });
    results.set('nocache', await coldCells(serverJs, up, CALLS[0], log, { before: noCache }));
    log(`  briefing, no .agent/.cache: ${medians(results.get('nocache')!)} (load ${results.get('nocache')!.get(up[0].label)!.load})`);
    // The same with the bundle users run (what --setup configures): it loads ~250 ms sooner than the
    // tsc build above, so the terminal catalog's worker (started before the load) has less of a head start.
    if (fs.existsSync(bundleJs)) {
      results.set('nocache-bundle', await coldCells(bundleJs, up, CALLS[0], log, { before: noCache }));
      log(`  briefing, no .agent/.cache, dist/mcp.js: ${medians(results.get('nocache-bundle')!)} (load ${results.get('nocache-bundle')!.get(up[0].label)!.load})`);
    }
    // Cold: a new server per sample; its first call is timed.
    for (const c of CALLS) {
      results.set(`cold:${c.id}`, await coldCells(serverJs, up, c, log));
      log(`  ${c.what}, first call: ${medians(results.get(`cold:${c.id}`)!)} (load ${results.get(`cold:${c.id}`)!.get(up[0].label)!.load})`);
    }
    // Warm: one server per level, calls interleaved across levels.
    const servers = await startServers(serverJs, up);
    try {
      for (const c of CALLS) {
        results.set(`warm:${c.id}`, await warmCells(servers, c, log));
        log(`  ${c.what}, warm: ${medians(results.get(`warm:${c.id}`)!)} (load ${results.get(`warm:${c.id}`)!.get(up[0].label)!.load})`);
      }
    } finally {
      for (const s of servers) await s.mcp.close().catch(() => undefined);
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }

  const first = levels[0].label;
  const last = levels[levels.length - 1].label;
  const counts = levels.map((l) => `${l.label} ${l.terminals.toLocaleString('en-US')}`).join(', ');
  const ms = (s: Stats): string => `${s.median.toFixed(0)} ms (${s.min.toFixed(0)}–${s.max.toFixed(0)})`;
  const rows: Row[] = [];
  /** `ratio: false`: held to the cap alone (a first call without .agent/.cache/, issue 46). */
  const spec: { key: string; what: string; cap: number; noise: number; reference?: string; ratio?: false }[] = [
    ...CALLS.map((c) => (c.id === 'last' ? { ...c, what: `agentContext_terminal last of ${row.lastWhat}` } : c)).flatMap((c) => [
      { key: `cold:${c.id}`, what: `${c.what}, first call after a fresh server start`, cap: 1000, noise: 50 },
      { key: `warm:${c.id}`, what: `${c.what}, warm`, cap: 300, noise: 10 },
    ]),
    {
      key: 'nocache', what: 'agentContext_briefing, first call of a server that finds no .agent/.cache/', cap: 1000, noise: 50, ratio: false,
      // What a rebuild cannot avoid: reading each terminal's index once (the growth with the terminals is at least this).
      reference: `the same call at ${first}; the floor of a rebuild, a plain loop that opens, reads the last 4 KB of and closes every index (warm process): ${levels.map((l) => `${l.label} ${floors.has(l.label) ? ms(floors.get(l.label)!) : '—'}`).join(', ')}`,
    },
    { key: 'nocache-bundle', what: 'agentContext_briefing, first call of a server that finds no .agent/.cache/, the shipped bundle dist/mcp.js (the rows above run the tsc build out/src/mcp/server.js)', cap: 1000, noise: 50, ratio: false },
  ];
  spec.forEach((s, i) => {
    const per = results.get(s.key);
    if (!per) return;
    const L = per.get(last);
    const { met, ratio, errors } = judge(per, s.cap, s.ratio === false ? Infinity : s.noise);
    rows.push({
      id: `${row.id}${String.fromCharCode(97 + i)}`,
      what: `${s.what}, over MCP (${row.unit}: ${counts})`,
      ours: levels.map((l) => {
        const m = per.get(l.label);
        return `${l.label}: ${m?.error ? 'error' : m ? ms(m.t) : '—'}`;
      }).join('; '),
      reference: s.reference ?? `the same call at ${first}`,
      ratio: `${last}/${first} ${Number.isFinite(ratio) ? ratio.toFixed(2) : '—'}×`,
      goal: s.ratio === false ? `≤ ${s.cap} ms at ${last} (issue 46: no ratio goal for a first call without .agent/.cache/; ${last}/${first} reported)` : `≤ ${s.cap} ms at ${last}; ${last}/${first} ≤ 1.5× (growth ≤ ${s.noise} ms counts as none)`,
      met,
      note: [`levels interleaved call by call; load average ${L?.load ?? '?'}`, ...errors].join('; '),
    });
  });
  return rows;
}
