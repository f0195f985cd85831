/*
 * The plugin agents' hook cost, settled in ONE run (issue 46): Kilo Code (or opencode) after
 * `mcp.js --setup`, in one workspace under <tmp>/Desktop/, sessions alternating between our plugin
 * as the set-up wrote it, a do-nothing plugin of the same shape (the same two hooks, returning at
 * once) and no plugin file at all; rounds in rotating order; the median of every trivial `echo`
 * call per variant, the load printed before and after. Not part of npm test (it asserts nothing).
 *
 *   AGENT_CONTEXT_KILO_BIN=<kilo> node out/bench/hookCostPlugin.js [kilo|opencode] [rounds] [calls] [sessions]
 *
 * Then, in-process (the figure the session alternation cannot resolve on a loaded machine: one
 * call's round trip through Kilo varies by hundreds of ms): `sessions` sessions with our plugin
 * wrapped in a timer, its calls alternating between our hooks and doing nothing (a marker in the
 * command), giving the milliseconds spent inside our two hooks per call, the round trips both ways
 * within one session, and how often Kilo called the plugin's set-up function.
 *
 * (`node scripts/test.mjs --list` names the env var of each CLI; ensure-deps.sh installs them.)
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { copyFixture, tempDir } from '../test/realClient/agentProcess';
import { setUpWith } from '../test/realClient/agentScenarios';
import { interleavedCallMs, loadNow, median, type CostVariant } from '../test/realClient/hookCost';
import { runKiloSetUp } from '../test/realClient/kiloCli';
import { runOpencodeSetUp } from '../test/realClient/opencodeCli';

const agent = process.argv[2] === 'opencode' ? 'opencode' : 'kilo';
const rounds = Number(process.argv[3] ?? 4);
const calls = Number(process.argv[4] ?? 3);
const sessions = Number(process.argv[5] ?? 2);

/**
 * Our plugin as the set-up wrote it, wrapped: every hook call timed into `log` (JSON lines), and a
 * command holding `#ac-off` passed over (the do-nothing case, in the same session).
 */
function timedPlugin(ours: string, log: string): string {
  return [
    ours.replace('export const AgentContext = ', 'const Inner = '),
    'import { appendFileSync as __append } from "node:fs";',
    `const __log = (o) => __append(${JSON.stringify(log)}, JSON.stringify(o) + "\\n");`,
    'export const AgentContext = async (ctx) => {',
    '  const t0 = performance.now();',
    '  const hooks = await Inner(ctx);',
    '  __log({ init: performance.now() - t0 });',
    '  const wrap = (name) => async (input, output) => {',
    '    if (String(input?.args?.command ?? "").includes("#ac-off")) return;',
    '    const t = performance.now();',
    '    await hooks[name](input, output);',
    '    __log({ hook: name, ms: performance.now() - t, command: String(input?.args?.command ?? "") });',
    '  };',
    '  return { "tool.execute.before": wrap("tool.execute.before"), "tool.execute.after": wrap("tool.execute.after") };',
    '};',
    '',
  ].join('\n');
}

/** A plugin with our plugin's shape (both hooks, registered the same way) that does nothing. */
const DO_NOTHING = [
  '// A do-nothing plugin of the same shape as Agent Context\'s (bench/hookCostPlugin.ts).',
  'export const AgentContext = async () => ({',
  '  \'tool.execute.before\': async () => {},',
  '  \'tool.execute.after\': async () => {},',
  '});',
  '',
].join('\n');

async function main(): Promise<void> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-hookcost-'));
  process.env.AGENT_CONTEXT_REAL_CLIENT_TMP = tmp;
  try {
    const ws = copyFixture('workspace');
    const home = tempDir('home-');
    setUpWith(agent, ws, home);
    const pluginFile = path.join(ws, agent === 'kilo' ? '.kilo/plugins/agent-context.js' : '.opencode/plugins/agent-context.js');
    const ours = fs.readFileSync(pluginFile, 'utf8');
    const runSetUp = agent === 'kilo' ? runKiloSetUp : runOpencodeSetUp;
    const variant = (name: string, plugin: string | undefined): CostVariant => ({
      name,
      run: (script) => {
        if (plugin === undefined) fs.rmSync(pluginFile, { force: true });
        else fs.writeFileSync(pluginFile, plugin);
        return runSetUp({ workspace: ws, home, script });
      },
    });
    const loadBefore = loadNow();
    const started = Date.now();
    const ms = await interleavedCallMs({
      variants: [variant('ours', ours), variant('doNothing', DO_NOTHING), variant('none', undefined)],
      shellTool: 'bash',
      shellInput: (command) => ({ command, description: 'Run the command' }),
      rounds,
      calls,
    });
    const m = Object.fromEntries(Object.entries(ms).map(([k, v]) => [k, median(v)]));
    console.log(JSON.stringify({
      agent,
      workspace: ws.replace(tmp, '<tmp>'),
      rounds,
      callsPerSession: calls,
      callsEach: ms.ours.length,
      medianMs: m,
      oursMinusDoNothing: m.ours - m.doNothing,
      oursMinusNone: m.ours - m.none,
      doNothingMinusNone: m.doNothing - m.none,
      perCallMs: ms,
      loadBefore,
      loadAfter: loadNow(),
      seconds: Math.round((Date.now() - started) / 1000),
    }));
    // In process: our hooks timed where they run, on and off alternating within each session.
    const log = path.join(tmp, 'plugin-times.jsonl');
    fs.writeFileSync(pluginFile, timedPlugin(ours, log));
    const n = Math.max(rounds * calls, 9);
    const roundTrip = { on: [] as number[], off: [] as number[] };
    for (let k = 0; k < sessions; k++) {
      const shell = (command: string) => ({ tool: 'bash', input: { command, description: 'Run the command' } });
      const script = [shell('echo warm-up'), ...Array.from({ length: n * 2 }, (_, i) => shell(i % 2 === k % 2 ? `echo on-${k}-${i}` : `echo off-${k}-${i} #ac-off`)), { text: 'Done.' }];
      const run = await runSetUp({ workspace: ws, home, script });
      for (const r of run.results.filter((x) => x.tool === 'bash').slice(1)) (String(r.input.command).includes('#ac-off') ? roundTrip.off : roundTrip.on).push(r.ms);
    }
    if (!fs.existsSync(log)) throw new Error(`${agent} never called the timed plugin (${pluginFile} failed to load?)`);
    const entries = fs.readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { init?: number; hook?: string; ms?: number; command?: string });
    const perCall = new Map<string, number>();
    for (const e of entries) if (e.hook && e.command && !e.command.includes('warm-up')) perCall.set(e.command, (perCall.get(e.command) ?? 0) + (e.ms ?? 0));
    const inside = [...perCall.values()];
    const inProcess = {
      sessions,
      pluginSetUpCalls: entries.filter((e) => e.init !== undefined).map((e) => Math.round(e.init! * 10) / 10),
      insideOurHooksMs: { median: Math.round(median(inside) * 100) / 100, max: Math.round(Math.max(...inside) * 100) / 100, calls: inside.length },
      roundTripMs: { on: median(roundTrip.on), off: median(roundTrip.off), onMinusOff: median(roundTrip.on) - median(roundTrip.off), calls: Math.min(roundTrip.on.length, roundTrip.off.length) },
    };
    fs.writeFileSync(pluginFile, ours);
    console.log(JSON.stringify({ agent, inProcess, load: loadNow(), seconds: Math.round((Date.now() - started) / 1000) }));
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
