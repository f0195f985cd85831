/*
 * The command-hook agents' hook cost, settled (issue 46): Cline, Qwen Code, Gemini CLI, VS Code's
 * Copilot harness and Copilot CLI start a process for their per-call hook and wait for it. The
 * real-CLI runs' figure (hookAddedMs: sessions with and without the set-up's hook) holds the model's
 * round trip and the agent's own cost of running ANY hook, and swings by tens of ms on a loaded
 * machine. Here our hook is isolated, in the agent itself:
 *
 *   - after `mcp.js --setup <agent>`, the set-up's per-call hook command runs a timing shim in place
 *     of dist/agent-hook.sh (same command line otherwise: same shell, same `bash`/`.` form). The shim
 *     notes the time at its first line and at exit, and runs our hook (sourcing agent-hook.sh) on
 *     every other call and nothing at all (`exit 0`, the do-nothing hook) on the others, so our hook
 *     and the do-nothing hook alternate inside one session;
 *   - where the agent times its hooks itself (Gemini CLI, Qwen Code: "Hook execution for <event>: …
 *     total duration: N ms" in their debug logs, from before the spawn to the close), that too;
 *   - sessions with no hook at all alternate with the hooked ones: the round trip of a call with the
 *     do-nothing hook against one without any hook is the agent's own cost of running a hook.
 *
 * Every call's variant is checked against the agent-command history: the calls our hook ran are
 * recorded, the do-nothing ones are not. Not part of npm test (it asserts nothing of the figures).
 *
 *   AGENT_CONTEXT_<CLI>_BIN=… node out/bench/hookCostAgents.js <cline|qwen-code|gemini|vscode-copilot|copilot-cli> [rounds] [pairs] [forms]
 *
 * `rounds` rounds of sessions in rotating order, each hooked session 1 + 2 × `pairs` calls (the first
 * untimed); `forms`: hooked sessions in both forms of the hook command each round, `bash <script>`
 * (the agent's `bash -c` starts a second bash) and `. <script>` (read into that one), to compare them.
 *
 * (the env vars of each run: test/runner/realClient.mjs CLIENTS; ensure-deps.sh prints their values).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { foldCommandSpool } from '../src/core/terminal/agentCommands/sessionFold';
import { listTerminals, readTerminalIndex } from '../src/core/terminal/terminalIndex';
import { copyFixture, repoRoot, tempDir, type AgentRun } from '../test/realClient/agentProcess';
import { setUpWith, type HookDriver } from '../test/realClient/agentScenarios';
import { runCline, CLINE_SHELL } from '../test/realClient/clineCli';
import { copilotDriver } from '../test/realClient/copilotCli';
import { harnessDriver } from '../test/realClient/copilotHarness';
import type { ScriptTurn } from '../test/realClient/fakeModel';
import { GEMINI_SHELL, runGemini } from '../test/realClient/geminiCli';
import { loadNow, median } from '../test/realClient/hookCost';
import { QWEN_SHELL, qwenHookMs, runQwen } from '../test/realClient/qwenCli';

/** How the agent starts the hook command: `bash <script>` (a second bash) or `. <script>` (read into its own). */
type Form = 'bash' | 'source';

/** How one agent is run for the comparison. */
interface Target {
  shellTool: string;
  shellInput(command: string): Record<string, unknown>;
  /** The per-call hook event(s) the shim times (others, e.g. a session start, run ours untimed). */
  events: readonly string[];
  /** A session with the set-up's configuration (the shim in place of our hook). */
  hooked(ws: string, home: string, script: readonly ScriptTurn[]): Promise<AgentRun>;
  /** A session without any hook (the real-CLI runs' own configuration). */
  none(ws: string, script: readonly ScriptTurn[]): Promise<AgentRun>;
  /** Each per-call hook's duration as the agent itself logged it, in order (its log cleared before each session). */
  agentMs?(run: AgentRun): number[];
  clearAgentLog?(home: string): void;
}

const withCommand = (command: string, description = 'Run the command'): Record<string, unknown> => ({ command, description });

/** Gemini CLI's debug log (GEMINI_DEBUG_LOG_FILE): the same line Qwen Code writes, for AfterTool. */
function geminiHookMs(run: AgentRun): number[] {
  const file = path.join(run.home, 'gemini-debug.log');
  if (!fs.existsSync(file)) return [];
  return [...fs.readFileSync(file, 'utf8').matchAll(/Hook execution for AfterTool: \d+ hooks executed successfully, total duration: (\d+)ms/g)].map((m) => Number(m[1]));
}

/** An agent on the Copilot runtime, through its real-CLI driver. */
function copilotRuntime(d: HookDriver): Target {
  return {
    shellTool: d.shellTool,
    shellInput: d.shellInput,
    events: ['postToolUse'],
    hooked: (workspace, home, script) => d.runSetUp({ workspace, home, script }),
    none: (workspace, script) => d.run({ workspace, script }),
  };
}

const TARGETS: Record<string, Target> = {
  cline: {
    shellTool: CLINE_SHELL,
    shellInput: (command) => ({ commands: [command] }),
    events: ['PostToolUse'],
    hooked: (workspace, home, script) => runCline({ workspace, home, script, mcp: false }),
    none: (workspace, script) => runCline({ workspace, script }),
  },
  'qwen-code': {
    shellTool: QWEN_SHELL,
    shellInput: (command) => ({ command, description: 'Run the command', is_background: false }),
    events: ['PostToolUse', 'PostToolUseFailure'],
    hooked: (workspace, home, script) => runQwen({ workspace, home, script, mcp: false }),
    none: (workspace, script) => runQwen({ workspace, script }),
    agentMs: qwenHookMs,
    clearAgentLog: (home) => fs.rmSync(path.join(home, '.qwen', 'debug'), { recursive: true, force: true }),
  },
  gemini: {
    shellTool: GEMINI_SHELL,
    shellInput: withCommand,
    events: ['AfterTool'],
    hooked: (workspace, home, script) => runGemini({ workspace, home, script, mcp: false, env: { GEMINI_DEBUG_LOG_FILE: path.join(home, 'gemini-debug.log') } }),
    none: (workspace, script) => runGemini({ workspace, script }),
    agentMs: geminiHookMs,
    clearAgentLog: (home) => fs.rmSync(path.join(home, 'gemini-debug.log'), { force: true }),
  },
  // The Copilot runtime's two set-ups share one hook file and one postToolUse event.
  'vscode-copilot': copilotRuntime(harnessDriver),
  'copilot-cli': copilotRuntime(copilotDriver),
};

/**
 * The shim that stands where the set-up's hook command names dist/agent-hook.sh. It is run exactly
 * as agent-hook.sh would be (by `bash` or read in with `.`), so what the agent pays to start it is the
 * same for ours and the do-nothing hook; it times from its first line to its exit.
 */
function shimText(hook: string, counter: string, log: string, events: readonly string[]): string {
  const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
  return [
    '# bench/hookCostAgents.ts: our hook and a do-nothing hook, alternating, each timed.',
    '__hc_t0=$EPOCHREALTIME',
    `case \${2-} in ${events.join('|')}) ;; *) . ${q(hook)} "$@" ;; esac`,
    '__hc_n=0',
    `{ read -r __hc_n <${q(counter)}; } 2>/dev/null`,
    `echo $((__hc_n + 1)) >${q(counter)}`,
    '__hc_v=ours',
    '(( __hc_n % 2 )) && __hc_v=doNothing',
    `__hc_log=${q(log)}`,
    // `times`: this shell's own CPU (user, system) since it started, then its children's (a line of its own).
    'trap \'{ echo -n "$__hc_v $__hc_n $__hc_t0 $EPOCHREALTIME "; times; } >>"$__hc_log"\' EXIT',
    '[ "$__hc_v" = ours ] || exit 0',
    `. ${q(hook)} "$@"`,
    'exit 0',
    '',
  ].join('\n');
}

/** Every file under `dirs` naming `needle` gets `replacement` in its place; returns the files changed. */
function replaceIn(dirs: readonly string[], needle: string, replacement: string): string[] {
  const changed: string[] = [];
  for (const dir of dirs) {
    for (const f of fs.readdirSync(dir, { recursive: true }).map(String)) {
      if (f.includes('node_modules') || f.startsWith('.agent')) continue;
      const p = path.join(dir, f);
      const st = fs.lstatSync(p);
      if (!st.isFile() || st.size > 1_000_000) continue;
      const text = fs.readFileSync(p, 'utf8');
      if (!text.includes(needle)) continue;
      fs.writeFileSync(p, text.split(needle).join(replacement));
      changed.push(p);
    }
  }
  return changed;
}

/** The command lines recorded in the agent-command history of `ws`. */
async function recorded(ws: string): Promise<Set<string>> {
  const agentDir = path.join(ws, '.agent');
  await foldCommandSpool(agentDir);
  const list = await listTerminals(agentDir);
  if (!list.ok) throw new Error(`listing ${agentDir}: ${JSON.stringify(list.error)}`);
  const out = new Set<string>();
  for (const t of list.value.filter((x) => x.agent)) {
    const idx = await readTerminalIndex(agentDir, t.n);
    if (idx.ok) for (const c of idx.value.commands) out.add(c.commandLine.trim());
  }
  return out;
}

const round1 = (x: number): number => Math.round(x * 10) / 10;
/** Milliseconds of a `times` figure such as 0m0.004s. */
const cpuMs = (t: string): number => {
  const m = /^(\d+)m([\d.]+)s$/.exec(t);
  if (!m) throw new Error(`not a times figure: ${t}`);
  return (Number(m[1]) * 60 + Number(m[2])) * 1000;
};
const stats = (xs: readonly number[]): { median: number; min: number; max: number; n: number } => ({ median: round1(median(xs)), min: round1(Math.min(...xs)), max: round1(Math.max(...xs)), n: xs.length });

async function main(): Promise<void> {
  const agent = process.argv[2] ?? '';
  const t = TARGETS[agent];
  if (!t) throw new Error(`agent: one of ${Object.keys(TARGETS).join(', ')}`);
  const rounds = Number(process.argv[3] ?? 3);
  const pairs = Number(process.argv[4] ?? 4);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-hookcost-'));
  process.env.AGENT_CONTEXT_REAL_CLIENT_TMP = tmp;
  try {
    const ws = copyFixture('workspace');
    const plainWs = copyFixture('workspace');
    const home = tempDir('home-');
    setUpWith(agent, ws, home);
    const hook = path.join(repoRoot, 'dist', 'agent-hook.sh');
    const shim = path.join(tmp, 'hook-shim.sh');
    const counter = path.join(tmp, 'hook-counter');
    const log = path.join(tmp, 'hook-times.log');
    fs.writeFileSync(shim, shimText(hook, counter, log, t.events));
    const files = replaceIn([ws, home], hook, shim);
    if (files.length === 0) throw new Error(`the set-up of ${agent} wrote no file naming ${hook}`);
    // The hook command's two forms: a second bash started by the agent's `bash -c`, or the script
    // read into that one (`.`). Each file's text in either form, to compare them in one run.
    const texts = files.map((f) => fs.readFileSync(f, 'utf8'));
    const setUpForm: Form = texts.some((x) => x.includes(`. ${shim}`)) ? 'source' : 'bash';
    const inForm = (form: Form): void => files.forEach((f, k) => fs.writeFileSync(f, texts[k].split(form === 'source' ? `bash ${shim}` : `. ${shim}`).join(form === 'source' ? `. ${shim}` : `bash ${shim}`)));
    const forms: Form[] = process.argv[5] === 'forms' ? ['bash', 'source'] : [setUpForm];
    const inHook: Record<string, number[]> = {};
    const agentOwn: Record<string, number[]> = {};
    const roundTrip: Record<string, number[]> = { none: [] };
    const agentLogMismatch: string[] = [];
    // The hook shell's own CPU, bash's start included (the same for both variants of one form).
    const cpu: Record<string, number[]> = {};
    const push = (to: Record<string, number[]>, key: string, x: number): void => void (to[key] ??= []).push(x);
    const loadBefore = loadNow();
    const started = Date.now();
    for (let r = 0; r < rounds; r++) {
      // Which variant the first call of a session gets, and which kind of session goes first, rotate.
      const start = r % 2;
      const commands = (tag: string): string[] => Array.from({ length: 1 + 2 * pairs }, (_, i) => `echo hc-${r}-${tag}-${i}`);
      const script = (cmds: readonly string[]): ScriptTurn[] => [...cmds.map((c) => ({ tool: t.shellTool, input: t.shellInput(c) })), { text: 'Done.' }];
      const hooked = (form: Form) => async (): Promise<void> => {
        inForm(form);
        const cmds = commands(form);
        fs.writeFileSync(counter, `${start}\n`);
        t.clearAgentLog?.(home);
        const logLines = (): string[][] => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').map((l) => l.split(' ')).filter((l) => l[0] === 'ours' || l[0] === 'doNothing') : []);
        const before = logLines().length;
        const run = await t.hooked(ws, home, script(cmds));
        const shells = run.results.filter((x) => x.tool === t.shellTool);
        const lines = logLines().slice(before);
        if (shells.length !== cmds.length || lines.length < cmds.length) throw new Error(`round ${r} (${form}): ${shells.length} shell results and ${lines.length} timed hook calls for ${cmds.length} calls; exit ${run.exitCode}; ${run.stderr.slice(-600)}`);
        const own = t.agentMs?.(run) ?? [];
        if (t.agentMs && own.length !== cmds.length) agentLogMismatch.push(`round ${r} (${form}): ${own.length} logged for ${cmds.length} calls`);
        const seen = await recorded(ws);
        for (let i = 0; i < cmds.length; i++) {
          const v = lines[i][0];
          // The history says which hook ran: ours records the command, the do-nothing hook does not.
          if (seen.has(cmds[i]) !== (v === 'ours')) throw new Error(`round ${r}, call ${i}: the shim says ${v}, the history ${seen.has(cmds[i]) ? 'has' : 'lacks'} ${cmds[i]}`);
          if (i === 0) continue; // the session's first call pays its warm-up
          const key = forms.length > 1 ? `${form}.${v}` : v;
          push(inHook, key, (Number(lines[i][3]) - Number(lines[i][2])) * 1000);
          push(cpu, key, cpuMs(lines[i][4]) + cpuMs(lines[i][5]));
          push(roundTrip, key, shells[i].ms);
          if (own.length === cmds.length) push(agentOwn, key, own[i]);
        }
      };
      const none = async (): Promise<void> => {
        const run = await t.none(plainWs, script(commands('none').slice(0, 1 + pairs)));
        const shells = run.results.filter((x) => x.tool === t.shellTool);
        if (shells.length !== 1 + pairs) throw new Error(`round ${r}, no hook: ${shells.length} of ${1 + pairs} shell results; exit ${run.exitCode}; ${run.stderr.slice(-600)}`);
        roundTrip.none.push(...shells.slice(1).map((x) => x.ms));
      };
      const sessions = [...forms.map(hooked), none];
      for (let k = 0; k < sessions.length; k++) await sessions[(k + r) % sessions.length]();
    }
    const m = (xs: readonly number[] | undefined): number => round1(median(xs ?? []));
    const summary = (o: Record<string, number[]>): Record<string, unknown> => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, stats(v)]));
    const diffs = (o: Record<string, number[]>): Record<string, number> => Object.fromEntries(forms.map((f) => (forms.length > 1 ? `${f}.` : '')).flatMap((p) => [[`${p}oursMinusDoNothing`, round1(m(o[`${p}ours`]) - m(o[`${p}doNothing`]))], ...(o.none ? [[`${p}doNothingMinusNone`, round1(m(o[`${p}doNothing`]) - m(o.none))]] : [])]));
    console.log(JSON.stringify({
      agent,
      rounds,
      pairsPerSession: pairs,
      forms,
      shimIn: files.map((f) => f.replace(tmp, '<tmp>')),
      inHookMs: { ...summary(inHook), ...diffs(inHook) },
      shellCpuMs: { ...summary(cpu), ...diffs(cpu) },
      agentOwnMs: Object.keys(agentOwn).length ? { ...summary(agentOwn), ...diffs(agentOwn) } : null,
      agentLogMismatch,
      roundTripMs: { ...summary(roundTrip), ...diffs(roundTrip) },
      perCall: { inHook, cpu, agentOwn, roundTrip },
      loadBefore,
      loadAfter: loadNow(),
      seconds: Math.round((Date.now() - started) / 1000),
    }));
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
