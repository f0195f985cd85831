/*
 * dist/agent-hook.js: Agent Context's hook program for every agent (core in src/core/hooks/).
 * Started only when the shell side (dist/agent-context-shell.sh, dist/agent-hook.sh) cannot answer
 * alone: a large output, a secret candidate, the user's own masking rules.
 *
 *   node agent-hook.js shell-report <exit> <started>  the captured output on stdin; the command as the
 *                                                     shell took it from the agent's `-c` string in
 *                                                     AGENT_CONTEXT_EXEC; prints what the
 *                                                     model reads
 *   node agent-hook.js shell-pipe [<started>]         the same, streaming (no RAM-backed folder)
 *   node agent-hook.js copilot-cli postToolUse        Copilot CLI's hook JSON on stdin (a bash result;
 *                                                     or a create/edit of its session plan.md, mirrored
 *                                                     into .agent/plans/)
 *   node agent-hook.js gemini AfterTool               Gemini CLI's hook JSON on stdin
 *   node agent-hook.js copilot-cli sessionStart       the briefing as additional context (Copilot CLI's shape)
 *   node agent-hook.js gemini SessionStart            the briefing as additional context, as for Claude Code
 *   node agent-hook.js claude-code|codex|qwen-code SessionStart  Claude Code's (Codex's, Qwen Code's) SessionStart JSON on stdin: prints
 *                                                     the briefing as additional context (core/hooks/sessionStart.ts)
 *   node agent-hook.js qwen-code PostToolUse[Failure]  Qwen Code's run_shell_command, recorded in the
 *                                                     agent-command history; prints nothing (core/hooks/qwenCodeHook.ts)
 *   node agent-hook.js cline PostToolUse              Cline's run_commands, each command recorded in the
 *                                                     agent-command history; prints nothing (core/hooks/clineHook.ts)
 *   node agent-hook.js opencode tool.execute.after    opencode's bash result ({tool, args, output}
 *                                                     as its plugin got them) on stdin; prints
 *                                                     {output, saved?} or nothing
 *   node agent-hook.js vscode                         VS Code's agent: PostToolUse of run_in_terminal (core/hooks/vscodeAgentHook.ts)
 *   node agent-hook.js prefilter                      prints the secret prefilter (build step)
 *   node agent-hook.js shell-build <script> <lib>     prints a shell script with the fast path put in (build step)
 *
 * A hook must never break the tool call it observes, and must never hand the model an unmasked
 * output: on an error the model reads what failed instead of the output, and the hook exits 0.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { copilotPlanWrite, copilotPostToolUse, type CopilotPostToolUseInput } from '../core/hooks/copilotCliHook';
import { commandFromExecString } from '../core/hooks/execString';
import { clineToolAfter, type ClineToolHookInput } from '../core/hooks/clineHook';
import { geminiAfterTool, type GeminiAfterToolInput } from '../core/hooks/geminiHook';
import { qwenToolAfter, type QwenToolHookInput } from '../core/hooks/qwenCodeHook';
import { opencodeToolAfter, type OpencodeAfterInput } from '../core/hooks/opencodeHook';
import { secretPrefilterEre } from '../core/hooks/secretPrefilter';
import { copilotSessionStart, sessionStartHookOutput } from '../core/hooks/sessionStart';
import { vscodeAgentPostToolUse, type VscodeHookInput } from '../core/hooks/vscodeAgentHook';
import { agentRootOf, shellWithFastPath } from '../core/hooks/fastPathRules';
import { hookSettings, releaseCapture, saveFastPath, shellOutput, type HookSettings } from '../core/hooks/shellOutput';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The workspace: AGENT_CONTEXT_ROOT when the agent's configuration sets it, else the nearest `.agent/` above `cwd`. */
function workspaceRoot(cwd: string): string | undefined {
  const r = process.env.AGENT_CONTEXT_ROOT;
  return r ? path.resolve(r) : agentRootOf(cwd);
}

/**
 * Leaves the fast path's settings in shell-hook.conf (line 2: whether the masker clears the
 * workspace's path) for the shell side: every Node call of a hook does, so the shell's next call
 * has them (a session start's, before the agent's first command). `settings`: the ones the call
 * itself used, read once per call (config.yaml and the user's masking rules are not read again here).
 */
async function rememberFastPath(root: string, settings: HookSettings): Promise<void> {
  try {
    await saveFastPath(root, settings);
  } catch {
    // a cache: the shell keeps asking Node
  }
}

/** `EPOCHREALTIME` (seconds with a fraction) to milliseconds since the epoch; undefined when unknown. */
function epochMs(started: string | undefined): number | undefined {
  const t = Number((started ?? '').replace(',', '.'));
  return Number.isFinite(t) && t > 0 ? t * 1000 : undefined;
}

/** What the shell side tells the hook program about the command, for the agent-command history. */
function commandFacts(started: string | undefined): { session?: string; agentPid?: number; cwd?: string; startedMs?: number } {
  const pid = Number(process.env.AGENT_CONTEXT_AGENT_PID);
  return {
    session: process.env.AGENT_CONTEXT_SESSION || undefined,
    agentPid: Number.isInteger(pid) && pid > 0 ? pid : undefined,
    cwd: process.env.AGENT_CONTEXT_CWD || undefined,
    startedMs: epochMs(started),
  };
}

/**
 * The masking pipe's input without the line the shell puts after the command's output: a NUL,
 * `agent-context-exit-<mark of this run> <status>` and a newline (AGENT_CONTEXT_PIPE_END is the
 * mark); `exit()` gives the status once the stream has ended (undefined when the line is missing).
 */
function pipeWithExit(input: AsyncIterable<Buffer>, mark: string | undefined): { output: AsyncIterable<Buffer>; exit: () => number | undefined } {
  if (!mark) return { output: input, exit: () => undefined };
  const tail = Buffer.from(`\0agent-context-exit-${mark} `);
  const keep = tail.length + 16; // the line's longest: the mark, up to 15 digits and the newline
  let code: number | undefined;
  async function* strip(): AsyncGenerator<Buffer> {
    let held: Buffer = Buffer.alloc(0);
    for await (const c of input) {
      const b = held.length ? Buffer.concat([held, c]) : c;
      if (b.length > keep) yield b.subarray(0, b.length - keep);
      held = b.subarray(Math.max(0, b.length - keep));
    }
    const at = held.lastIndexOf(tail);
    const m = at >= 0 ? /^(\d{1,15})\n$/.exec(held.subarray(at + tail.length).toString('latin1')) : null;
    if (m) {
      code = Number(m[1]);
      held = held.subarray(0, at);
    }
    if (held.length) yield held;
  }
  return { output: strip(), exit: () => code };
}

/** Free bytes below which the RAM folder counts as having filled up while the command ran. */
const RAM_FULL_BYTES = 64 * 1024;

/**
 * The capture's RAM folder when it is (nearly) full now, with the capture still in it: the
 * command's writes then failed part-way (ENOSPC), so its output may be cut and the command may
 * have failed for that alone (Docker's /dev/shm is 64 MB). Undefined when there is room, or no capture.
 */
function fullCaptureFolder(capture: string | undefined): string | undefined {
  if (!capture) return undefined;
  const dir = path.dirname(capture);
  try {
    const s = fs.statfsSync(dir);
    return s.bavail * s.bsize < RAM_FULL_BYTES ? dir : undefined;
  } catch {
    return undefined;
  }
}

async function shell(exit: number | undefined, started: string | undefined): Promise<void> {
  const full = fullCaptureFolder(process.env.AGENT_CONTEXT_CAPTURE_FILE);
  // stdin is the capture file, open: its name can go now (nothing unmasked stays in RAM after us).
  releaseCapture(process.env.AGENT_CONTEXT_CAPTURE_FILE);
  const root = workspaceRoot(process.cwd());
  if (!root) throw new Error('no .agent/ folder above the working folder');
  const settings = await hookSettings(root);
  const command = commandFromExecString(process.env.AGENT_CONTEXT_EXEC ?? '');
  const piped = pipeWithExit(process.stdin as AsyncIterable<Buffer>, exit === undefined ? process.env.AGENT_CONTEXT_PIPE_END : undefined);
  const facts = commandFacts(started);
  const r = await shellOutput({ root, agent: process.env.AGENT_CONTEXT_AGENT || 'agent', ...facts, command, exitCode: exit ?? piped.exit, durationMs: facts.startedMs === undefined ? undefined : Math.max(0, Date.now() - facts.startedMs), output: piped.output }, settings);
  process.stdout.write(r.offloaded && !r.text.endsWith('\n') ? `${r.text}\n` : r.text);
  if (full) {
    process.stdout.write(`${r.text.endsWith('\n') || r.offloaded ? '' : '\n'}(Agent Context: the RAM folder that held this command's output, ${full}, filled up: the output may be cut, and the command may have failed for that alone. Free space there, or set AGENT_CONTEXT_RUNTIME_DIR=none to stream outputs through the masker instead.)\n`);
  }
  await saveFastPath(root, settings);
}

async function main(argv: string[]): Promise<void> {
  const [mode, ...rest] = argv;
  switch (mode) {
    case 'shell-report':
      return shell(Number.isInteger(Number(rest[0])) ? Number(rest[0]) : undefined, rest[1]);
    case 'shell-pipe':
      return shell(undefined, rest[0]);
    case 'vscode': {
      const input = JSON.parse(await readStdin()) as VscodeHookInput;
      const out = await vscodeAgentPostToolUse(input, path.resolve(input.cwd || process.cwd()));
      if (out) process.stdout.write(JSON.stringify(out));
      return;
    }
    case 'prefilter':
      process.stdout.write(`${secretPrefilterEre()}\n`);
      return;
    case 'shell-build':
      // The build's: a shell script of src/hooks/ with the fast path put in (rest: the script, fastPath.sh).
      process.stdout.write(shellWithFastPath(fs.readFileSync(rest[0], 'utf8'), fs.readFileSync(rest[1], 'utf8')));
      return;
    case 'copilot-cli': {
      const input = JSON.parse(await readStdin()) as CopilotPostToolUseInput;
      const root = workspaceRoot(input.cwd ?? process.cwd());
      if (root && rest[0] === 'sessionStart') {
        const settings = await hookSettings(root);
        process.stdout.write(JSON.stringify(await copilotSessionStart(input, root, settings)));
        await rememberFastPath(root, settings);
        return;
      }
      if (!root || rest[0] !== 'postToolUse') return;
      if (input.toolName !== 'bash') {
        await copilotPlanWrite(input, root);
        return;
      }
      const settings = await hookSettings(root);
      const out = await copilotPostToolUse(input, root, settings);
      if (out) process.stdout.write(JSON.stringify(out));
      await rememberFastPath(root, settings);
      return;
    }
    case 'codex':
    case 'qwen-code':
    case 'claude-code': {
      const text = await readStdin();
      let input: unknown = {};
      try {
        input = JSON.parse(text);
      } catch {
        // no source named: the briefing is the same, its first line says "at the start"
      }
      const root = workspaceRoot(process.cwd());
      if (root && mode === 'qwen-code' && (rest[0] === 'PostToolUse' || rest[0] === 'PostToolUseFailure')) {
        const settings = await hookSettings(root);
        await qwenToolAfter(input as QwenToolHookInput, root, settings);
        await rememberFastPath(root, settings);
        return;
      }
      if (!root || rest[0] !== 'SessionStart') return;
      const settings = await hookSettings(root);
      process.stdout.write(JSON.stringify(await sessionStartHookOutput(input, root, settings)));
      await rememberFastPath(root, settings);
      return;
    }
    case 'gemini': {
      const input = JSON.parse(await readStdin()) as GeminiAfterToolInput;
      const root = workspaceRoot(input.cwd ?? process.cwd());
      if (root && rest[0] === 'SessionStart') {
        const settings = await hookSettings(root);
        process.stdout.write(JSON.stringify(await sessionStartHookOutput(input, root, settings)));
        await rememberFastPath(root, settings);
        return;
      }
      if (!root || rest[0] !== 'AfterTool') return;
      const settings = await hookSettings(root);
      const out = await geminiAfterTool(input, root, settings);
      if (out) process.stdout.write(JSON.stringify(out));
      await rememberFastPath(root, settings);
      return;
    }
    case 'cline': {
      const input = JSON.parse(await readStdin()) as ClineToolHookInput;
      const root = workspaceRoot(process.cwd());
      if (!root || rest[0] !== 'PostToolUse') return;
      const settings = await hookSettings(root);
      await clineToolAfter(input, root, process.cwd(), settings);
      await rememberFastPath(root, settings);
      return;
    }
    case 'opencode': {
      const input = JSON.parse(await readStdin()) as OpencodeAfterInput & { cwd?: string };
      const root = workspaceRoot(input.cwd ?? process.cwd());
      if (!root || rest[0] !== 'tool.execute.after') return;
      const settings = await hookSettings(root);
      const out = await opencodeToolAfter(input, root, settings);
      if (out) process.stdout.write(JSON.stringify(out));
      // The plugin's fast path reads this (the size a shell may hand over, whether masking rules of the user's own exist).
      await saveFastPath(root, settings);
      return;
    }
    default:
      throw new Error(`unknown mode ${mode ?? '(none)'}`);
  }
}

main(process.argv.slice(2)).catch((e: unknown) => {
  const why = (e as Error).message ?? String(e);
  process.stderr.write(`agent-context hook: ${(e as Error).stack ?? why}\n`);
  if (process.argv[2] === 'shell-report' || process.argv[2] === 'shell-pipe') {
    // The output was not masked: the model gets the reason, never the raw text.
    process.stdout.write(`(Agent Context could not process this command's output, so none of it is shown: ${why}. Run it again with agentContext_run, or switch the hook off: AGENT_CONTEXT_CAPTURE=off.)\n`);
    process.stdin.resume();
  }
  process.exitCode = 0;
});
