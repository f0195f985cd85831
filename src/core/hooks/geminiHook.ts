/*
 * Gemini CLI's hook protocol. Its shell tool runs `bash -c '<wrapper around the command>'` inside a
 * terminal (node-pty) in interactive sessions, where the shell capture leaves commands alone, and
 * the environment only comes from .env files that a new one would shadow; and a BeforeTool
 * `tool_input` rewrite has Gemini append "[System] Tool input parameters … were modified" to the
 * result and refuse any `$()`, backticks or `<()`. Its AfterTool hook, run after the command with
 * the whole result (before Gemini cuts it to 40 KB), can replace what the model reads
 * (`decision: "deny"` + `reason`: the model reads "Tool result blocked: <reason>", flagged as an
 * error) without touching the command, so the user's policy and confirmation see their own command:
 *   - a large output: masked into .agent/scratch/tool_outputs/, replaced by our reference (every
 *     error line with its number, the exit code);
 *   - a small one: masked; replaced only when a secret was found.
 * Checked with Gemini CLI 0.61.0 (hook input: {tool_name, tool_input:{command}, tool_response:
 * {llmContent, returnDisplay, error}, cwd}; llmContent, inside <untrusted_context> tags: "Output: <output>" then optional lines
 * "Error: …", "Exit Code: N", "Signal: …", "Background PIDs: …", "Process Group PGID: N").
 */
import { splitGeminiShellResult, unwrapUntrusted } from './agentResults';
import { shellOutput, type HookSettings } from './shellOutput';


/** What Gemini CLI sends an AfterTool hook (the fields used). */
export interface GeminiAfterToolInput {
  tool_name?: string;
  tool_input?: { command?: unknown } | unknown;
  tool_response?: { llmContent?: unknown };
  cwd?: string;
  session_id?: string;
}

/** The hook's stdout for one AfterTool (undefined: leave the result as it is). */
export async function geminiAfterTool(input: GeminiAfterToolInput, root: string, settings?: HookSettings): Promise<object | undefined> {
  if (input.tool_name !== 'run_shell_command' || typeof input.tool_response?.llmContent !== 'string') return undefined;
  // A result in another form (a command cancelled or timed out: "… Below is the output before it was
  // cancelled:", an older Gemini's "Command: …\nOutput: …") is masked and offloaded whole, as it is:
  // it holds the command's output all the same.
  const wrapped = input.tool_response.llmContent;
  const parts = splitGeminiShellResult(wrapped) ?? { output: unwrapUntrusted(wrapped), trailer: '', exitCode: undefined, other: true };
  const args = (input.tool_input ?? {}) as { command?: unknown };
  const command = typeof args.command === 'string' ? args.command : '';
  // Gemini drops the output's last line end; given back, so the saved copy has the command's lines.
  const output = parts.output && !parts.output.endsWith('\n') ? `${parts.output}\n` : parts.output;
  const r = await shellOutput({ root, agent: 'gemini', session: input.session_id, cwd: input.cwd, command, exitCode: parts.exitCode, output: (async function* () { yield output; })(), tool: 'run_shell_command' }, settings);
  if (!r.offloaded && r.masked === 0) return undefined;
  const reason = r.offloaded || 'other' in parts ? r.text.replace(/\n$/, '') : `Output: ${r.text.replace(/\n$/, '')}${parts.trailer ? `\n${parts.trailer}` : ''}`;
  return { decision: 'deny', reason };
}
