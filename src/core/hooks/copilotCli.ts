/*
 * GitHub Copilot CLI's hook protocol. Its shell tool starts `bash --norc --noprofile -c <command>`
 * with a cleaned environment (BASH_ENV and ENV are dropped), so the shell capture cannot be
 * injected; and a preToolUse `modifiedArgs` would change the command its permission check and
 * the user see. Its postToolUse hook can replace a result (`modifiedResult`) without touching the
 * command, and for a large output Copilot CLI itself saves the whole output to a temp file and
 * names it in the result ("Output too large to read at once (2.6 MB). Saved to: <file>"). So:
 *   - a large output: that file is read, masked into .agent/scratch/tool_outputs/ and replaced by
 *     our reference (with every error line and its number); Copilot's unmasked temp file is
 *     removed once read;
 *   - a small one: masked; replaced only when a secret was found.
 * Checked with Copilot CLI 1.0.102 (the hook input: {toolName, toolArgs:{command}, toolResult:
 * {resultType, textResultForLlm}, cwd}). Copilot CLI reports no exit code for a large output.
 */
import * as fs from 'node:fs';
import { shellOutput, type HookSettings } from './shellOutput';

/** What Copilot CLI sends a postToolUse hook (the fields used). */
export interface CopilotPostToolUseInput {
  toolName?: string;
  toolArgs?: { command?: unknown } | unknown;
  toolResult?: { resultType?: string; textResultForLlm?: string };
  cwd?: string;
}

const SAVED = /^Output too large to read at once \([^)]*\)\. Saved to: (\S+?)\s*\n/;
const EXIT = /\n<shellId: [^>]* completed with exit code (\d+)>\s*$/;

/** The hook's stdout for one postToolUse (undefined: leave the result as it is). */
export async function copilotPostToolUse(input: CopilotPostToolUseInput, root: string, settings?: HookSettings): Promise<object | undefined> {
  if (input.toolName !== 'bash' || !input.toolResult || typeof input.toolResult.textResultForLlm !== 'string') return undefined;
  const text = input.toolResult.textResultForLlm;
  const args = (input.toolArgs ?? {}) as { command?: unknown };
  const command = typeof args.command === 'string' ? args.command : '';
  const saved = SAVED.exec(text)?.[1];
  if (saved && fs.existsSync(saved)) {
    const r = await shellOutput({ root, agent: 'copilot-cli', command, output: fs.createReadStream(saved), tool: 'bash' }, settings);
    await fs.promises.rm(saved, { force: true });
    return { modifiedResult: { textResultForLlm: r.text, resultType: input.toolResult.resultType ?? 'success' } };
  }
  const exit = EXIT.exec(text);
  const r = await shellOutput({ root, agent: 'copilot-cli', command, exitCode: exit ? Number(exit[1]) : undefined, output: (async function* () { yield text; })(), tool: 'bash' }, settings);
  if (r.text === text) return undefined;
  return { modifiedResult: { textResultForLlm: r.text, resultType: input.toolResult.resultType ?? 'success' } };
}
