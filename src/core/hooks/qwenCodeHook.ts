/*
 * Qwen Code's PostToolUse / PostToolUseFailure hooks for its own shell tool (run_shell_command):
 * the command goes into the agent-command history. Qwen 0.24.4's hooks cannot replace a tool's
 * result (PostToolUse may add context or stop; checked in its sources), so the model reads Qwen's own
 * output whatever we do: the hook prints nothing and only records. Input (checked with the real CLI):
 * {session_id, cwd, tool_name, tool_input:{command, directory?}, duration_ms?} with
 * tool_response:{llmContent} (PostToolUse: exit 0, or exit 1 of grep-like commands) or error (the
 * same text, PostToolUseFailure: a command that failed).
 * Not installed by `--setup qwen-code` yet: in the qwen-code run (load 9-13) Qwen with these hooks
 * handed the model "Output: (empty)" for 1 and 5 of 11 short commands, the same calls without them
 * never; until that is understood, the set-up leaves them out (branch agents-recording-wip has it).
 */
import * as path from 'node:path';
import { unwrapAgentResult } from './agentResults';
import { shellOutput, type HookSettings } from './shellOutput';

/** What Qwen Code sends its PostToolUse and PostToolUseFailure hooks (the fields used). */
export interface QwenToolHookInput {
  session_id?: string;
  cwd?: string;
  tool_name?: string;
  tool_input?: { command?: unknown; directory?: unknown };
  tool_response?: { llmContent?: unknown };
  error?: unknown;
  duration_ms?: unknown;
}

/** Records one run_shell_command call; anything else is left alone. Prints nothing. */
export async function qwenToolAfter(input: QwenToolHookInput, root: string, settings?: HookSettings): Promise<void> {
  if (input.tool_name !== 'run_shell_command') return;
  const text = typeof input.tool_response?.llmContent === 'string' ? input.tool_response.llmContent : typeof input.error === 'string' ? input.error : undefined;
  if (text === undefined) return;
  const command = typeof input.tool_input?.command === 'string' ? input.tool_input.command : '';
  const dir = typeof input.tool_input?.directory === 'string' && input.tool_input.directory ? input.tool_input.directory : undefined;
  const cwd = input.cwd && dir ? path.resolve(input.cwd, dir) : input.cwd;
  const r = unwrapAgentResult('qwen-code', text);
  const durationMs = typeof input.duration_ms === 'number' && input.duration_ms >= 0 ? input.duration_ms : undefined;
  await shellOutput({ root, agent: 'qwen-code', session: input.session_id, cwd, command, exitCode: r.exitCode, durationMs, output: (async function* () { yield r.output; })(), tool: 'run_shell_command', recordOnly: true }, settings);
}
