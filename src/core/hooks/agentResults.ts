/**
 * What an agent's shell tool hands its model, taken apart: the command's output and its exit code,
 * for agents whose hooks see the tool's result text rather than the command's streams (Gemini CLI,
 * GitHub Copilot CLI, VS Code's Copilot harness, Qwen Code and Cline). The hooks use it to offload and mask; the
 * agent-command history uses it to record a command the shell side handed over as it was.
 */

/** Gemini's trailing lines after the output. */
const GEMINI_TRAILER = /\n(?:Error|Exit Code|Signal|Background PIDs|Process Group PGID): [^\n]*$/;

/** A tool result without the <untrusted_context> tags Gemini 0.61 wraps every one in. */
export function unwrapUntrusted(wrapped: string): string {
  return /^<untrusted_context>\n([\s\S]*)\n<\/untrusted_context>$/.exec(wrapped)?.[1] ?? wrapped;
}

/**
 * Splits Gemini's run_shell_command llmContent ("Output: <output>" then optional lines "Error: …",
 * "Exit Code: N", "Signal: …", "Background PIDs: …", "Process Group PGID: N", checked with Gemini
 * CLI 0.61.0) into the output and the trailing lines; undefined when it is in another form.
 */
export function splitGeminiShellResult(wrapped: string): { output: string; trailer: string; exitCode: number | undefined } | undefined {
  const text = unwrapUntrusted(wrapped);
  if (!text.startsWith('Output: ')) return undefined;
  let body = text.slice('Output: '.length);
  const tail: string[] = [];
  for (let m = GEMINI_TRAILER.exec(body); m; m = GEMINI_TRAILER.exec(body)) {
    tail.unshift(m[0].slice(1));
    body = body.slice(0, m.index);
  }
  const exit = tail.map((l) => /^Exit Code: (\d+)$/.exec(l)).find(Boolean);
  const exitCode = exit ? Number(exit[1]) : tail.some((l) => l.startsWith('Signal: ')) ? undefined : 0;
  return { output: body === '(empty)' ? '' : body, trailer: tail.filter((l) => !l.startsWith('Process Group PGID: ')).join('\n'), exitCode };
}

/**
 * Qwen Code's run_shell_command llmContent (0.24.4, checked in its sources and with the real CLI):
 * "Command: <command>" (left out in its code mode), "Directory: <dir or (root)>", then Gemini's form
 * ("Output: …", "Error: …", "Exit Code: N", "Signal: …", "Process Group PGID: N"); a large one after
 * Qwen's note that it cut the text ("Tool output was too large … Truncated part of the output:").
 * Undefined when it is in another form (a timeout, a cancel: the text is the output).
 */
export function splitQwenShellResult(text: string): { output: string; exitCode: number | undefined } | undefined {
  const head = /^(?:Tool output was too large and has been truncated\.\n[\s\S]*?\nTruncated part of the output:\n)?(?:Command: [\s\S]*?\n)?Directory: [^\n]*\n(?=Output: )/.exec(text);
  if (!head) return undefined;
  const g = splitGeminiShellResult(text.slice(head[0].length));
  return g && { output: g.output, exitCode: g.exitCode };
}

/**
 * Cline's run_commands result for one command (3.0.65, checked in @cline/core's sources): the output
 * (stdout, then " [stderr] " and stderr), after "[Command exited with code N] " when it failed.
 */
const CLINE_EXIT = /^\[Command exited with code (\d+)\] ?/;

/** The line the Copilot runtime ends a finished `bash` result with (CLI 1.0.102, the SDK's runtime 1.0.85). */
export const COPILOT_EXIT = /\n?<shellId: [^>]* completed with exit code (\d+)>\s*$/;

/**
 * The command's output and exit code in what an agent's shell tool returned (`text`): Gemini's
 * trailer and Copilot's exit line taken off; for other agents the text itself, exit unknown.
 */
export function unwrapAgentResult(agent: string, text: string): { output: string; exitCode?: number } {
  if (agent === 'gemini') {
    const g = splitGeminiShellResult(text);
    if (g) return { output: g.output && !g.output.endsWith('\n') ? `${g.output}\n` : g.output, exitCode: g.exitCode };
    return { output: unwrapUntrusted(text) };
  }
  if (agent === 'qwen-code') {
    const q = splitQwenShellResult(text);
    if (q) return { output: q.output && !q.output.endsWith('\n') ? `${q.output}\n` : q.output, exitCode: q.exitCode };
    return { output: text };
  }
  if (agent === 'cline') {
    const m = CLINE_EXIT.exec(text);
    const body = m ? text.slice(m[0].length) : text;
    return { output: body && !body.endsWith('\n') ? `${body}\n` : body, exitCode: m ? Number(m[1]) : 0 };
  }
  if (agent === 'copilot-cli' || agent === 'vscode-copilot') {
    const m = COPILOT_EXIT.exec(text);
    if (m) {
      const body = text.slice(0, m.index);
      return { output: body && !body.endsWith('\n') ? `${body}\n` : body, exitCode: Number(m[1]) };
    }
  }
  return { output: text };
}
