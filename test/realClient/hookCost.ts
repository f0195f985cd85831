/*
 * A hook's added time per trivial call, measured ONE way for every agent: short sessions of the
 * same trivial shell calls, one per variant (with our hook, without it, or any other), in rounds
 * whose order rotates, so that a change of the machine's load during the run falls on every variant
 * alike. Two separate sessions compared once (how the figure was taken before) let one busy moment
 * of a loaded machine pass for the hook's cost (Kilo: +38 and +191 ms in two cold CI runs).
 */
import * as os from 'node:os';
import type { AgentRun } from './agentProcess';
import type { ScriptTurn } from './fakeModel';

/** One way of running the agent for the comparison: a session that plays `script`. */
export interface CostVariant {
  name: string;
  run(script: readonly ScriptTurn[]): Promise<AgentRun>;
}

/** The median (the mean of the two middle values for an even count). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[Math.floor((s.length - 1) / 2)] + s[Math.ceil((s.length - 1) / 2)]) / 2 : NaN;
}

/** The machine's load averages, as printed beside every figure. */
export function loadNow(): string {
  return os.loadavg().map((l) => l.toFixed(1)).join(' ');
}

/**
 * The milliseconds of each timed trivial call per variant: `rounds` rounds, each running every
 * variant once (round r starts at variant r mod n), each session one untimed call (the session's
 * first command pays its warm-up) and then `calls` timed ones. `already`: calls timed elsewhere in
 * the same alternation (e.g. the scenario's own sessions, which count as round 0).
 */
export async function interleavedCallMs(o: {
  variants: readonly CostVariant[];
  shellTool: string;
  shellInput(command: string): Record<string, unknown>;
  rounds: number;
  calls: number;
  already?: Record<string, number[]>;
  firstRound?: number;
}): Promise<Record<string, number[]>> {
  const ms: Record<string, number[]> = {};
  for (const v of o.variants) ms[v.name] = [...(o.already?.[v.name] ?? [])];
  const first = o.firstRound ?? 0;
  for (let r = first; r < first + o.rounds; r++) {
    for (let i = 0; i < o.variants.length; i++) {
      const v = o.variants[(r + i) % o.variants.length];
      const shell = (command: string): ScriptTurn => ({ tool: o.shellTool, input: o.shellInput(command) });
      const script = [shell('echo warm-up'), ...Array.from({ length: o.calls }, (_, k) => shell(`echo timed-${v.name}-${r}-${k}`)), { text: 'Done.' }];
      const run = await v.run(script);
      const timed = run.results.filter((x) => x.tool === o.shellTool).slice(1, 1 + o.calls);
      if (timed.length !== o.calls) throw new Error(`${v.name}, round ${r}: ${timed.length} of ${o.calls} timed calls came back; CLI exit ${run.exitCode}; stderr: ${run.stderr.slice(-800)}`);
      ms[v.name].push(...timed.map((x) => x.ms));
    }
  }
  return ms;
}

/** Timed calls per session and the rounds of the real-CLI runs' comparison (3 × 3 = 9 calls each way). */
export const ROUND_CALLS = 3;
export const ROUNDS = 3;

/**
 * The real-CLI runs' comparison: the scenario's own sessions with and without the hook (`first`:
 * their timed calls, in that order) are round 0; ROUNDS - 1 more rounds of short sessions follow,
 * the next one starting without the hook. Gives every timed call's milliseconds each way.
 */
export async function hookCostRounds(o: {
  shellTool: string;
  shellInput(command: string): Record<string, unknown>;
  hook(script: readonly ScriptTurn[]): Promise<AgentRun>;
  none(script: readonly ScriptTurn[]): Promise<AgentRun>;
  first: { hook: number[]; none: number[] };
}): Promise<{ hook: number[]; none: number[] }> {
  const ms = await interleavedCallMs({
    variants: [{ name: 'hook', run: o.hook }, { name: 'none', run: o.none }],
    shellTool: o.shellTool,
    shellInput: o.shellInput,
    rounds: ROUNDS - 1,
    calls: ROUND_CALLS,
    already: o.first,
    firstRound: 1,
  });
  return { hook: ms.hook, none: ms.none };
}

/** The figure every real-CLI run prints as `hookAddedMs`: medians with and without the hook, their difference, the calls, the load. */
export function hookAddedFigure(withHook: readonly number[], without: readonly number[]): { withHook: number; without: number; added: number; calls: number; interleaved: true; load: string } {
  return { withHook: median(withHook), without: median(without), added: median(withHook) - median(without), calls: Math.min(withHook.length, without.length), interleaved: true, load: loadNow() };
}
