// Row 14: the terminals dimension of issue 22 §1 — tool calls over MCP against generated `.agent/`
// folders that differ only in how many terminal files they hold (bench/scaleGen.ts, TerminalsDimension:
// S 10, M 1,000, L 10,000 terminals; one long-lived terminal of 20,000 commands in each). Per call:
// the first call after a fresh server start (a new server per sample, as each agent session starts
// one; `.agent/.cache/` left as the previous server left it) and warm calls on one server, levels
// interleaved call by call. Plus the first briefing of a server that finds no `.agent/.cache/` at
// all (the first session after an upgrade or a cache wipe), with the tsc build as every row here and
// with the shipped bundle dist/mcp.js (14j). No allowance on L/S ≤ 1.5×: the catalog
// no longer stats every terminal file per call (src/core/terminal/catalog/terminalCatalog.ts says what it checks).
// Env: BENCH_TERMINALS=10,1000,10000 (the three levels).
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

/** Levels from BENCH_TERMINALS or S/M/L = 10/1,000/10,000 terminals. */
export function terminalLevels(): { label: string; terminals: number }[] {
  const xs = (process.env.BENCH_TERMINALS ?? '10,1000,10000').split(',').map(Number);
  return xs.map((t, i) => ({ label: ['S', 'M', 'L'][i] ?? `x${i}`, terminals: t }));
}

/** Measures every call cold and warm at each level; one row per call and mode. */
export async function rowTerminals(log: (s: string) => void, levels = terminalLevels()): Promise<Row[]> {
  const serverJs = path.join(repoRoot(), 'out', 'src', 'mcp', 'server.js');
  const bundleJs = path.join(repoRoot(), 'dist', 'mcp.js');
  if (!fs.existsSync(serverJs)) return [failedRow('14', 'terminals dimension over MCP', '—', new Error(`${serverJs} missing: run tsc -p .`))];
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-context-terminals-'));
  const results = new Map<string, Map<string, Cell>>();
  const up: LevelFolder[] = [];
  /** Per level, the bare reads of every index (bareIndexReads). */
  const floors = new Map<string, Stats>();
  try {
    for (const l of levels) {
      const t0 = Date.now();
      const g = await generateAgentFolder(path.join(tmp, `ws-${l.label}`), 'S', 15, new Date(), { terminals: { terminals: l.terminals } });
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
  const spec: { key: string; what: string; cap: number; noise: number; reference?: string }[] = [
    ...CALLS.flatMap((c) => [
      { key: `cold:${c.id}`, what: `${c.what}, first call after a fresh server start`, cap: 1000, noise: 50 },
      { key: `warm:${c.id}`, what: `${c.what}, warm`, cap: 300, noise: 10 },
    ]),
    {
      key: 'nocache', what: 'agentContext_briefing, first call of a server that finds no .agent/.cache/', cap: 1000, noise: 50,
      // What a rebuild cannot avoid: reading each terminal's index once (the growth with the terminals is at least this).
      reference: `the same call at ${first}; the floor of a rebuild, a plain loop that opens, reads the last 4 KB of and closes every index (warm process): ${levels.map((l) => `${l.label} ${floors.has(l.label) ? ms(floors.get(l.label)!) : '—'}`).join(', ')}`,
    },
    { key: 'nocache-bundle', what: 'agentContext_briefing, first call of a server that finds no .agent/.cache/, the shipped bundle dist/mcp.js (the rows above run the tsc build out/src/mcp/server.js)', cap: 1000, noise: 50 },
  ];
  spec.forEach((s, i) => {
    const per = results.get(s.key);
    if (!per) return;
    const L = per.get(last);
    const { met, ratio, errors } = judge(per, s.cap, s.noise);
    rows.push({
      id: `14${String.fromCharCode(97 + i)}`,
      what: `${s.what}, over MCP (terminal files: ${counts})`,
      ours: levels.map((l) => {
        const m = per.get(l.label);
        return `${l.label}: ${m?.error ? 'error' : m ? ms(m.t) : '—'}`;
      }).join('; '),
      reference: s.reference ?? `the same call at ${first}`,
      ratio: `${last}/${first} ${Number.isFinite(ratio) ? ratio.toFixed(2) : '—'}×`,
      goal: `≤ ${s.cap} ms at ${last}; ${last}/${first} ≤ 1.5× (growth ≤ ${s.noise} ms counts as none)`,
      met,
      note: [`levels interleaved call by call; load average ${L?.load ?? '?'}`, ...errors].join('; '),
    });
  });
  return rows;
}
