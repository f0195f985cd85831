// Row 16 (the concurrency soak), issue 46: three agents' hooks record their own shell commands in
// the agent-command history while the editor windows capture their terminals and the MCP servers
// answer. Each agent runs the real hook the set-up installs (dist/, built by esbuild.mjs), several
// commands at once per session (parallel tool calls), two sessions each:
//   - Codex: `bash -c <command>` with BASH_ENV=dist/agent-context-shell.sh (the shell capture), as its
//     shell tool runs a command; the command really runs;
//   - GitHub Copilot CLI: dist/agent-hook.sh copilot-cli postToolUse with the JSON its runtime sends
//     after a `bash` call (the result text as Copilot hands it to the model, ending in its exit line);
//   - opencode: the plugin (dist/opencode-plugin.mjs) loaded into this process, its
//     tool.execute.before/after called as opencode calls them.
// Every command prints `AGT <tag> <i>` for i = 1..lines (none, a few, a few KB, tens of KB: the
// fast path, the Node path inline and offloaded) and exits with a code of its own; soakChecks.ts
// (checkAgentCommands) then finds each in the history once, whole, with that exit code.
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { rng } from './harness';

/** One command an agent ran through its hook, and what the agent got back. */
export interface AgentCommand {
  tag: string;
  agent: string;
  session: string;
  /** Lines printed (`AGT <tag> 1` … `AGT <tag> <lines>`) and the exit code. */
  lines: number;
  exit: number;
  command: string;
  /** What the agent's tool handed its model, and the exit code the agent saw (the shell's). */
  answer: string;
  seenExit?: number;
  /** The hook failed (a spawn error, a non-zero hook exit). */
  error?: string;
}

/** opencode's plugin as dist/opencode-plugin.mjs exports it. */
export type OpencodePlugin = (o: { node: string; dist: string }) => (ctx: { directory?: string }) => Promise<Record<string, (input: object, output?: object) => Promise<void>>>;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** How many lines and which exit code: no output, a few lines (the fast path), a few KB (the Node path, inline), tens of KB (offloaded). */
function shape(r: () => number): { lines: number; exit: number } {
  const x = r();
  const lines = x < 0.2 ? 0 : x < 0.6 ? 1 + Math.floor(r() * 30) : x < 0.85 ? 150 + Math.floor(r() * 300) : 1500 + Math.floor(r() * 4000);
  const y = r();
  return { lines, exit: y < 0.7 ? 0 : y < 0.85 ? 1 : y < 0.95 ? 2 : 127 };
}

const expectedText = (tag: string, lines: number): string => Array.from({ length: lines }, (_, i) => `AGT ${tag} ${i + 1}\n`).join('');

function run(cmd: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; input?: string }): Promise<{ stdout: string; status: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.once('error', reject);
    child.once('close', (status) => resolve({ stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), status }));
    child.stdin.end(opts.input ?? '');
  });
}

/**
 * Runs the three agents until `until` (ms since epoch) on workspace `ws`: per agent two sessions,
 * each a loop of bursts of 1–3 commands at once. Returns every command with what its agent saw.
 */
export async function runAgentHooks(o: { ws: string; dist: string; until: number; plugin: OpencodePlugin; seed?: number }): Promise<AgentCommand[]> {
  const done: AgentCommand[] = [];
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('AGENT_CONTEXT_') || k === 'BASH_ENV' || k === 'AI_AGENT') delete env[k];
  const hooks = await o.plugin({ node: process.execPath, dist: o.dist })({ directory: o.ws });
  let callId = 0;

  const codex = async (session: string, tag: string, lines: number, exit: number): Promise<AgentCommand> => {
    const command = `seq -f 'AGT ${tag} %g' 1 ${lines}; exit ${exit}`;
    const r = await run('bash', ['-c', command], { cwd: o.ws, env: { ...env, BASH_ENV: path.join(o.dist, 'agent-context-shell.sh'), AGENT_CONTEXT_AGENT: 'codex', AGENT_CONTEXT_SESSION: session, AGENT_CONTEXT_ROOT: o.ws } });
    return { tag, agent: 'codex', session, lines, exit, command, answer: r.stdout, seenExit: r.status ?? undefined };
  };
  const copilot = async (session: string, tag: string, lines: number, exit: number): Promise<AgentCommand> => {
    const command = `seq -f 'AGT ${tag} %g' 1 ${lines}; exit ${exit}`;
    const text = `${expectedText(tag, lines)}<shellId: ${++callId} completed with exit code ${exit}>`;
    const input = JSON.stringify({ sessionId: session, timestamp: Date.now(), cwd: o.ws, toolName: 'bash', toolArgs: { command, description: 'soak' }, toolResult: { resultType: 'success', textResultForLlm: text } });
    const r = await run('bash', [path.join(o.dist, 'agent-hook.sh'), 'copilot-cli', 'postToolUse'], { cwd: o.ws, env, input });
    // No output: the result stays as it was; else {"modifiedResult":{"textResultForLlm":…}}.
    let answer = text;
    try {
      if (r.stdout.trim()) answer = (JSON.parse(r.stdout) as { modifiedResult: { textResultForLlm: string } }).modifiedResult.textResultForLlm;
    } catch {
      return { tag, agent: 'copilot-cli', session, lines, exit, command, answer: r.stdout, error: `the hook printed what is not its JSON: ${r.stdout.slice(0, 120)}` };
    }
    return { tag, agent: 'copilot-cli', session, lines, exit, command, answer, ...(r.status !== 0 ? { error: `agent-hook.sh exited ${r.status}: ${r.stderr.slice(-200)}` } : {}) };
  };
  const opencode = async (session: string, tag: string, lines: number, exit: number): Promise<AgentCommand> => {
    const command = `seq -f 'AGT ${tag} %g' 1 ${lines}; exit ${exit}`;
    const id = `call-${++callId}`;
    await hooks['tool.execute.before']({ tool: 'bash', sessionID: session, callID: id, args: { command } });
    const output = { output: expectedText(tag, lines), metadata: { exit, truncated: false } };
    await hooks['tool.execute.after']({ tool: 'bash', sessionID: session, callID: id, args: { command } }, output);
    return { tag, agent: 'opencode', session, lines, exit, command, answer: output.output };
  };

  const loop = async (agent: string, session: string, f: typeof codex, seed: number): Promise<void> => {
    const r = rng(seed);
    let k = 0;
    while (Date.now() < o.until) {
      // A burst of parallel tool calls, then the model's turn.
      const burst = 1 + Math.floor(r() * 3);
      const shapes = Array.from({ length: burst }, () => ({ tag: `${session}-${++k}`, ...shape(r) }));
      const results = await Promise.all(shapes.map((s) => f(session, s.tag, s.lines, s.exit).catch((e: unknown) => ({ tag: s.tag, agent, session, lines: s.lines, exit: s.exit, command: '', answer: '', error: String((e as Error)?.message ?? e) }))));
      done.push(...results);
      await sleep(100 + Math.floor(r() * 400));
    }
  };
  const seed = o.seed ?? 46;
  await Promise.all([
    loop('codex', 'codex-soak-a', codex, seed + 1),
    loop('codex', 'codex-soak-b', codex, seed + 2),
    loop('copilot-cli', 'copilot-soak-a', copilot, seed + 3),
    loop('copilot-cli', 'copilot-soak-b', copilot, seed + 4),
    loop('opencode', 'opencode-soak-a', opencode, seed + 5),
    loop('opencode', 'opencode-soak-b', opencode, seed + 6),
  ]);
  return done;
}

/** The output the command printed (`AGT <tag> 1` … `AGT <tag> <lines>`, each with its line feed). */
export function printedText(c: Pick<AgentCommand, 'tag' | 'lines'>): string {
  return expectedText(c.tag, c.lines);
}

/**
 * What is wrong with what the agent got back, if anything: its own exit code (the shell's), and
 * either the output as printed (Copilot: its result text untouched) or a reference to the saved output.
 */
export function answerProblem(c: AgentCommand): string | undefined {
  if (c.error) return c.error;
  if (c.agent === 'codex' && c.seenExit !== c.exit) return `the agent saw exit ${c.seenExit}, the command exits ${c.exit}`;
  const printed = printedText(c);
  const untouched = c.agent === 'copilot-cli' ? c.answer.startsWith(printed) && c.answer.slice(printed.length).startsWith('<shellId: ') : c.answer === printed;
  if (untouched || /\.agent\/scratch\/tool_outputs\//.test(c.answer)) return undefined;
  return `the agent read neither its output nor a reference to it: ${JSON.stringify(c.answer.slice(0, 100))}`;
}
