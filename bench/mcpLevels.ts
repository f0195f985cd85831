// Timing tool calls over MCP on generated `.agent/` folders at several levels (S/M/L), shared by the
// dimension rows (14: terminal files, 17: every other dimension of issue 22 §1): the first call after
// a fresh server start (a new server per sample, as each agent session starts one) and warm calls on
// one server per level, levels interleaved so that a change of load hits every level alike. Every
// answer is checked; a wrong one is an error, not a sample.
import * as os from 'node:os';
import { startMcp, type McpSession } from '../test/integration/mcpClient';
import { RUNS, stats, WARMUP, type Stats } from './harness';
import type { GeneratedFolder } from './scaleGen';

/** One tool call measured at every level, and how its answer is checked. */
export interface LevelCall {
  id: string;
  what: string;
  tool: string;
  /** The input; a function gets the folder and the call's sequence number (for calls that change something). */
  input: Record<string, unknown> | ((g: GeneratedFolder, seq: number) => Record<string, unknown>);
  /** undefined when the answer is right, else what is wrong. */
  check: (text: string, g: GeneratedFolder) => string | undefined;
}

/** A generated folder at one level. */
export interface LevelFolder {
  label: string;
  g: GeneratedFolder;
}

/** The figures of one call at one level: its times, or the error that stopped it. */
export interface Cell {
  t: Stats;
  error?: string;
  load: string;
}

const NAN: Stats = { median: NaN, min: NaN, max: NaN, samples: [] };
let seq = 0;

/** The 1-, 5- and 15-minute load averages. */
export const loadavg = (): string => os.loadavg().map((x) => x.toFixed(1)).join(' ');

/** Times one call; throws on an error answer or a wrong one. */
export async function timedCall(mcp: McpSession, c: LevelCall, g: GeneratedFolder): Promise<number> {
  const input = typeof c.input === 'function' ? c.input(g, seq++) : c.input;
  const t = performance.now();
  const r = await mcp.call(c.tool, input);
  const ms = performance.now() - t;
  if (r.isError) throw new Error(`${c.tool}: ${r.text.slice(0, 200)}`);
  const bad = c.check(r.text, g);
  if (bad) throw new Error(`${c.tool}: wrong result: ${bad}`);
  return ms;
}

function cells(up: LevelFolder[], samples: Map<string, number[]>, errors: Map<string, string>, load: string): Map<string, Cell> {
  return new Map(up.map((u) => {
    const s = samples.get(u.label)!;
    const error = errors.get(u.label);
    return [u.label, error || !s.length ? { t: NAN, error: error ?? 'no sample', load } : { t: stats(s), load }];
  }));
}

/**
 * The first call of a fresh server, `runs` times per level, levels interleaved; `before` runs ahead
 * of each server start (e.g. to remove `.agent/.cache/`).
 */
export async function coldCells(serverJs: string, up: LevelFolder[], c: LevelCall, log: (s: string) => void, opts: { before?: (u: LevelFolder) => void; runs?: number } = {}): Promise<Map<string, Cell>> {
  const load0 = loadavg();
  const samples = new Map<string, number[]>(up.map((u) => [u.label, []]));
  const errors = new Map<string, string>();
  for (let run = 0; run < (opts.runs ?? RUNS); run++) {
    for (const u of up) {
      if (errors.has(u.label)) continue;
      opts.before?.(u);
      const mcp = await startMcp(serverJs, u.g.root);
      try {
        samples.get(u.label)!.push(await timedCall(mcp, c, u.g));
      } catch (e) {
        errors.set(u.label, (e as Error).message);
        log(`  ${c.id} cold @${u.label}: ${(e as Error).message}`);
      } finally {
        await mcp.close().catch(() => undefined);
      }
    }
  }
  return cells(up, samples, errors, `${load0} → ${loadavg()}`);
}

/** Warm calls on one running server per level: WARMUP untimed rounds, then `runs` timed ones, levels interleaved. */
export async function warmCells(servers: (LevelFolder & { mcp: McpSession })[], c: LevelCall, log: (s: string) => void, runs = RUNS): Promise<Map<string, Cell>> {
  const load0 = loadavg();
  const samples = new Map<string, number[]>(servers.map((u) => [u.label, []]));
  const errors = new Map<string, string>();
  for (let run = -WARMUP; run < runs; run++) {
    for (const u of servers) {
      if (errors.has(u.label)) continue;
      try {
        const ms = await timedCall(u.mcp, c, u.g);
        if (run >= 0) samples.get(u.label)!.push(ms);
      } catch (e) {
        errors.set(u.label, (e as Error).message);
        log(`  ${c.id} warm @${u.label}: ${(e as Error).message}`);
      }
    }
  }
  return cells(servers, samples, errors, `${load0} → ${loadavg()}`);
}

/** Starts one server per level (closed by the caller). */
export function startServers(serverJs: string, up: LevelFolder[]): Promise<(LevelFolder & { mcp: McpSession })[]> {
  return Promise.all(up.map(async (u) => ({ ...u, mcp: await startMcp(serverJs, u.g.root) })));
}

/** `S 12 ms, M 14 ms, L 15 ms` for a log line. */
export function medians(per: Map<string, Cell>): string {
  return [...per].map(([l, m]) => `${l} ${m.error ? 'error' : `${m.t.median.toFixed(0)} ms`}`).join(', ');
}

/** `S: 12 ms (10–15); M: …` for the table. */
export function cellText(per: Map<string, Cell>): string {
  return [...per].map(([l, m]) => `${l}: ${m.error ? 'error' : `${m.t.median.toFixed(0)} ms (${m.t.min.toFixed(0)}–${m.t.max.toFixed(0)})`}`).join('; ');
}

/**
 * The verdict on one call's cells: at the last level at most `cap` ms, and L/S ≤ 1.5× or a growth
 * of at most `noise` ms (the noise of one call) plus `allowance`.
 */
export function judge(per: Map<string, Cell>, cap: number, noise: number, allowance = 0): { met: boolean; ratio: number; errors: string[] } {
  const all = [...per.values()];
  const S = all[0];
  const L = all[all.length - 1];
  const errors = [...per].filter(([, m]) => m.error).map(([l, m]) => `${l}: ${m.error}`);
  const ratio = S && L && !S.error && !L.error ? L.t.median / S.t.median : NaN;
  const grew = S && L ? L.t.median - S.t.median : NaN;
  const met = errors.length === 0 && L !== undefined && L.t.median <= cap && (ratio <= 1.5 || grew <= noise || L.t.median <= 1.5 * S.t.median + allowance);
  return { met, ratio, errors };
}
