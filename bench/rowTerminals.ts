// Row 14: the terminals dimension of issue 22 §1 — tool calls over MCP against generated `.agent/`
// folders that differ only in how many terminal files they hold (bench/scaleGen.ts, TerminalsDimension:
// S 10, M 1,000, L 10,000 terminals; one long-lived terminal of 20,000 commands in each). Per call:
// the first call after a fresh server start (a new server per sample, as each agent session starts
// one; `.agent/.cache/` left as the previous server left it) and warm calls on one server, levels
// interleaved call by call. Plus the first briefing of a server that finds no `.agent/.cache/` at
// all (the first session after an upgrade or a cache wipe). The stated allowance on L/S ≤ 1.5×: what
// a readdir and a stat of every terminal file cost by themselves at L over S, measured in this
// process on the same folders (the check that keeps the catalog's answers exact, issue 22 §1).
// Env: BENCH_TERMINALS=10,1000,10000 (the three levels).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startMcp, type McpSession } from '../test/integration/mcpClient';
import { failedRow, measure, repoRoot, RUNS, stats, WARMUP, type Row, type Stats } from './harness';
import { generateAgentFolder, type GeneratedFolder } from './scaleGen';

interface TermCall {
  id: string;
  what: string;
  tool: string;
  input: Record<string, unknown>;
  check: (text: string, g: GeneratedFolder) => string | undefined;
}

const CALLS: TermCall[] = [
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

const loadavg = (): string => os.loadavg().map((x) => x.toFixed(1)).join(' ');
const NAN: Stats = { median: NaN, min: NaN, max: NaN, samples: [] };

/** Levels from BENCH_TERMINALS or S/M/L = 10/1,000/10,000 terminals. */
export function terminalLevels(): { label: string; terminals: number }[] {
  const xs = (process.env.BENCH_TERMINALS ?? '10,1000,10000').split(',').map(Number);
  return xs.map((t, i) => ({ label: ['S', 'M', 'L'][i] ?? `x${i}`, terminals: t }));
}

async function timed(mcp: McpSession, c: TermCall, g: GeneratedFolder): Promise<number> {
  const t = performance.now();
  const r = await mcp.call(c.tool, c.input);
  const ms = performance.now() - t;
  if (r.isError) throw new Error(`${c.tool}: ${r.text.slice(0, 200)}`);
  const bad = c.check(r.text, g);
  if (bad) throw new Error(`${c.tool}: wrong result: ${bad}`);
  return ms;
}

/** Measures every call cold and warm at each level; one row per call and mode. */
export async function rowTerminals(log: (s: string) => void, levels = terminalLevels()): Promise<Row[]> {
  const serverJs = path.join(repoRoot(), 'out', 'src', 'mcp', 'server.js');
  if (!fs.existsSync(serverJs)) return [failedRow('14', 'terminals dimension over MCP', '—', new Error(`${serverJs} missing: run tsc -p .`))];
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-context-terminals-'));
  type Cell = { t: Stats; error?: string; load: string };
  const results = new Map<string, Map<string, Cell>>();
  const put = (key: string, label: string, samples: number[], error: string | undefined, load: string): void => {
    if (!results.has(key)) results.set(key, new Map());
    results.get(key)!.set(label, error || !samples.length ? { t: NAN, error: error ?? 'no sample', load } : { t: stats(samples), load });
  };
  const up: { label: string; g: GeneratedFolder }[] = [];
  const check = new Map<string, Stats>();
  try {
    for (const l of levels) {
      const t0 = Date.now();
      const g = await generateAgentFolder(path.join(tmp, `ws-${l.label}`), 'S', 15, new Date(), { terminals: { terminals: l.terminals } });
      log(`terminals ${l.label} (${l.terminals}): generated ${g.files.toLocaleString('en-US')} files, ${(g.bytes / 1048576).toFixed(0)} MB in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
      up.push({ label: l.label, g });
    }
    // What the per-call check of every terminal file costs by itself on this machine (a readdir and a
    // sync stat per file, as the catalog does): the stated allowance on top of L/S ≤ 1.5×.
    for (const u of up) {
      const dir = path.join(u.g.agentDir, 'terminals');
      check.set(u.label, await measure(() => {
        for (const name of fs.readdirSync(dir)) fs.statSync(path.join(dir, name), { throwIfNoEntry: false });
      }));
    }
    log(`  check of every terminal file (readdir + stats): ${up.map((u) => `${u.label} ${check.get(u.label)!.median.toFixed(0)} ms`).join(', ')}`);
    // The first briefing of a server that finds no .agent/.cache/ (rebuilds whatever it keeps there).
    {
      const load0 = loadavg();
      const samples = new Map<string, number[]>(up.map((u) => [u.label, []]));
      const errors = new Map<string, string>();
      for (let run = 0; run < RUNS; run++) {
        for (const u of up) {
          if (errors.has(u.label)) continue;
          fs.rmSync(path.join(u.g.agentDir, '.cache'), { recursive: true, force: true });
          const mcp = await startMcp(serverJs, u.g.root);
          try {
            samples.get(u.label)!.push(await timed(mcp, CALLS[0], u.g));
          } catch (e) {
            errors.set(u.label, (e as Error).message);
          } finally {
            await mcp.close().catch(() => undefined);
          }
        }
      }
      const load = `${load0} → ${loadavg()}`;
      for (const u of up) put('nocache', u.label, samples.get(u.label)!, errors.get(u.label), load);
      log(`  briefing, no .agent/.cache: ${up.map((u) => `${u.label} ${results.get('nocache')!.get(u.label)!.t.median.toFixed(0)} ms`).join(', ')} (load ${load})`);
    }
    // Cold: a new server per sample; its first call is timed.
    for (const c of CALLS) {
      const load0 = loadavg();
      const samples = new Map<string, number[]>(up.map((u) => [u.label, []]));
      const errors = new Map<string, string>();
      for (let run = 0; run < RUNS; run++) {
        for (const u of up) {
          if (errors.has(u.label)) continue;
          const mcp = await startMcp(serverJs, u.g.root);
          try {
            samples.get(u.label)!.push(await timed(mcp, c, u.g));
          } catch (e) {
            errors.set(u.label, (e as Error).message);
            log(`  ${c.id} cold @${u.label}: ${(e as Error).message}`);
          } finally {
            await mcp.close().catch(() => undefined);
          }
        }
      }
      const load = `${load0} → ${loadavg()}`;
      for (const u of up) put(`cold:${c.id}`, u.label, samples.get(u.label)!, errors.get(u.label), load);
      log(`  ${c.what}, first call: ${up.map((u) => `${u.label} ${results.get(`cold:${c.id}`)!.get(u.label)!.t.median.toFixed(0)} ms`).join(', ')} (load ${load})`);
    }
    // Warm: one server per level, calls interleaved across levels.
    const servers = await Promise.all(up.map(async (u) => ({ ...u, mcp: await startMcp(serverJs, u.g.root) })));
    try {
      for (const c of CALLS) {
        const load0 = loadavg();
        const samples = new Map<string, number[]>(up.map((u) => [u.label, []]));
        const errors = new Map<string, string>();
        for (let run = -WARMUP; run < RUNS; run++) {
          for (const u of servers) {
            if (errors.has(u.label)) continue;
            try {
              const ms = await timed(u.mcp, c, u.g);
              if (run >= 0) samples.get(u.label)!.push(ms);
            } catch (e) {
              errors.set(u.label, (e as Error).message);
              log(`  ${c.id} warm @${u.label}: ${(e as Error).message}`);
            }
          }
        }
        const load = `${load0} → ${loadavg()}`;
        for (const u of up) put(`warm:${c.id}`, u.label, samples.get(u.label)!, errors.get(u.label), load);
        log(`  ${c.what}, warm: ${up.map((u) => `${u.label} ${results.get(`warm:${c.id}`)!.get(u.label)!.t.median.toFixed(0)} ms`).join(', ')} (load ${load})`);
      }
    } finally {
      for (const s of servers) await s.mcp.close().catch(() => undefined);
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }

  const first = levels[0].label;
  const last = levels[levels.length - 1].label;
  const allowance = check.get(last)!.median - check.get(first)!.median;
  const counts = levels.map((l) => `${l.label} ${l.terminals.toLocaleString('en-US')}`).join(', ');
  const ms = (s: Stats): string => `${s.median.toFixed(0)} ms (${s.min.toFixed(0)}–${s.max.toFixed(0)})`;
  const rows: Row[] = [];
  const spec: { key: string; what: string; cap: number; noise: number }[] = [
    ...CALLS.flatMap((c) => [
      { key: `cold:${c.id}`, what: `${c.what}, first call after a fresh server start`, cap: 1000, noise: 50 },
      { key: `warm:${c.id}`, what: `${c.what}, warm`, cap: 300, noise: 10 },
    ]),
    { key: 'nocache', what: 'agentContext_briefing, first call of a server that finds no .agent/.cache/', cap: 1000, noise: 50 },
  ];
  spec.forEach((s, i) => {
    const per = results.get(s.key);
    if (!per) return;
    const S = per.get(first);
    const L = per.get(last);
    const errors = [...per.entries()].filter(([, m]) => m.error).map(([l, m]) => `${l}: ${m.error}`);
    const ratio = S && L && !S.error && !L.error ? L.t.median / S.t.median : NaN;
    const grew = S && L ? L.t.median - S.t.median : NaN;
    // Allowance: the check of every file that keeps the answers exact (its own cost at L minus at S, measured above).
    const met = errors.length === 0 && L !== undefined && L.t.median <= s.cap && (ratio <= 1.5 || grew <= s.noise || L.t.median <= 1.5 * S!.t.median + allowance);
    rows.push({
      id: `14${String.fromCharCode(97 + i)}`,
      what: `${s.what}, over MCP (terminal files: ${counts})`,
      ours: levels.map((l) => {
        const m = per.get(l.label);
        return `${l.label}: ${m?.error ? 'error' : m ? ms(m.t) : '—'}`;
      }).join('; '),
      reference: `the same call at ${first}`,
      ratio: `${last}/${first} ${Number.isFinite(ratio) ? ratio.toFixed(2) : '—'}×`,
      goal: `≤ ${s.cap} ms at ${last}; ${last}/${first} ≤ 1.5× (growth ≤ ${s.noise} ms counts as none) plus the check of every terminal file (${allowance.toFixed(0)} ms more at ${last} than at ${first})`,
      met,
      note: [`levels interleaved call by call; load average ${L?.load ?? '?'}`, ...errors].join('; '),
    });
  });
  return rows;
}
