/*
 * Cline's PostToolUse hook for its own shell tool (run_commands): each command goes into the
 * agent-command history. Cline 3.0.65's hooks cannot replace a tool's result (PostToolUse may add
 * context or cancel; checked in @cline/core's sources), so the model reads Cline's own output
 * whatever we do: the hook prints nothing and only records. Input (the `tool_result` hook payload,
 * checked with the real CLI): {taskId, tool_result:{name, input:{commands}, output:[{query, result,
 * success, error?}], durationMs, startedAt}}: one result per command, run side by side.
 * Not installed by `--setup cline` yet: in the cline run, a ~/.cline/hooks/PostToolUse file running
 * this recorded nothing (not yet known whether Cline ran it, or where); branch agents-recording-wip.
 */
import { unwrapAgentResult } from './agentResults';
import { shellOutput, type HookSettings } from './shellOutput';

/** One command's result in run_commands' output. */
interface ClineCommandResult {
  query?: unknown;
  result?: unknown;
  success?: unknown;
  error?: unknown;
}

/** What Cline sends its PostToolUse hook (the fields used). */
export interface ClineToolHookInput {
  taskId?: string;
  tool_result?: { name?: unknown; input?: { commands?: unknown }; output?: unknown; durationMs?: unknown; startedAt?: unknown };
}

/** Records each command of one run_commands call (`cwd`: the folder Cline ran them in); anything else is left alone. Prints nothing. */
export async function clineToolAfter(input: ClineToolHookInput, root: string, cwd: string, settings?: HookSettings): Promise<void> {
  const t = input.tool_result;
  if (t?.name !== 'run_commands' || !Array.isArray(t.output)) return;
  const given = Array.isArray(t.input?.commands) ? t.input.commands : [];
  const one = t.output.length === 1;
  const started = typeof t.startedAt === 'string' || typeof t.startedAt === 'number' ? new Date(t.startedAt).getTime() : NaN;
  for (const [i, c] of (t.output as ClineCommandResult[]).entries()) {
    // The command as sent (its `query` is cut past a length); the query when it was not a plain string.
    const command = typeof given[i] === 'string' ? given[i] : typeof c.query === 'string' ? c.query : '';
    const text = typeof c.result === 'string' ? c.result : '';
    const r = unwrapAgentResult('cline', text);
    // A failure without the exit line (the command could not start) has no exit code to give.
    const exited = /^\[Command exited with code \d+\]/.test(text);
    const exitCode = c.success === true || exited ? r.exitCode : undefined;
    // Why it could not start is all there is to show of it.
    const output = r.output || (!exited && c.success !== true && typeof c.error === 'string' ? `${c.error}\n` : '');
    await shellOutput({
      root,
      agent: 'cline',
      session: input.taskId,
      cwd,
      command,
      exitCode,
      // Side by side: only a call of one command has a duration and a start of its own.
      durationMs: one && typeof t.durationMs === 'number' ? t.durationMs : undefined,
      startedMs: one && Number.isFinite(started) ? started : undefined,
      output: (async function* () { yield output; })(),
      tool: 'run_commands',
      recordOnly: true,
    }, settings);
  }
}
