/*
 * opencode's hook protocol. opencode loads plugins (`.opencode/plugins/*.js`) into its own process;
 * a plugin's `tool.execute.after(input, output)` runs after a tool with the result object the model
 * will read (`output.output`) and may replace it. Its `bash` tool checks the user's permission rules
 * (`permission.bash`) and asks inside the tool, on the command as the model gave it: an after-hook
 * never touches the command, so nothing is widened or narrowed. (A `tool.execute.before` rewrite
 * would have opencode check, and show, a wrapper instead.)
 *   - a large output: opencode has cut it to its last lines (2,000 lines / 50 KB) and saved the
 *     whole output to `metadata.outputPath` (under ~/.local/share/opencode/tool-output/, unmasked);
 *     that file is read, masked into .agent/scratch/tool_outputs/ and replaced by our reference
 *     (every error line with its number, the exit code); opencode's copy is removed once read;
 *   - a small one: masked; replaced only when a secret was found.
 * The plugin (src/hooks/opencodePlugin.ts) hands a small output without a secret candidate back
 * by itself, in process; only the rest starts Node (agent-hook.js opencode tool.execute.after).
 * Checked with opencode 1.18.33 (input {tool:"bash", sessionID, callID, args:{command, description,
 * workdir?, timeout?}}; output {title, metadata:{output, exit, truncated, outputPath?}, output}, the
 * output ending in `<shell_metadata>…</shell_metadata>` after a timeout or an abort).
 */
import * as fs from 'node:fs';
import { shellOutput, type HookSettings } from './shellOutput';

/** opencode's shell tool. */
export const OPENCODE_SHELL_TOOL = 'bash';

/** What the plugin hands the hook program: opencode's two arguments of `tool.execute.after`. */
export interface OpencodeAfterInput {
  /** The agent the plugin runs in: opencode (the default) or its fork Kilo Code (`kilo`). */
  agent?: string;
  tool?: string;
  sessionID?: string;
  /** When the plugin saw the call start (its tool.execute.before), ms since epoch. */
  startedMs?: number;
  /** opencode's working folder for the command. */
  cwd?: string;
  args?: { command?: unknown } | unknown;
  output?: { output?: unknown; metadata?: { exit?: unknown; truncated?: unknown; outputPath?: unknown } };
}

/** What replaces the result: the text the model reads, and the saved copy (relative to the workspace) when offloaded. */
export interface OpencodeAfterResult {
  output: string;
  saved?: string;
}

const TRUNCATED = /^\.\.\.output truncated\.\.\.\n\nFull output saved to: [^\n]*\n\n/;
const TRAILER = /\n\n<shell_metadata>\n[\s\S]*<\/shell_metadata>$/;

/** Splits opencode's bash result into the output and its `<shell_metadata>` trailer (timeout, abort). */
export function splitOpencodeShellResult(text: string): { output: string; trailer: string } {
  const m = TRAILER.exec(text);
  const body = m ? text.slice(0, m.index) : text;
  return { output: body === '(no output)' ? '' : body.replace(TRUNCATED, ''), trailer: m ? m[0] : '' };
}

/** The replacement for one bash result (undefined: leave it as it is). */
export async function opencodeToolAfter(input: OpencodeAfterInput, root: string, settings?: HookSettings): Promise<OpencodeAfterResult | undefined> {
  if (input.tool !== OPENCODE_SHELL_TOOL || typeof input.output?.output !== 'string') return undefined;
  const meta = input.output.metadata ?? {};
  const args = (input.args ?? {}) as { command?: unknown };
  const command = typeof args.command === 'string' ? args.command : '';
  const exitCode = typeof meta.exit === 'number' ? meta.exit : undefined;
  const parts = splitOpencodeShellResult(input.output.output);
  const saved = meta.truncated === true && typeof meta.outputPath === 'string' && fs.existsSync(meta.outputPath) ? meta.outputPath : undefined;
  const started = typeof input.startedMs === 'number' ? input.startedMs : undefined;
  const session = typeof input.sessionID === 'string' ? input.sessionID : undefined;
  const agent = input.agent === 'kilo' ? 'kilo' : 'opencode';
  const r = await shellOutput({ root, agent, session, cwd: input.cwd, startedMs: started, command, exitCode, output: saved ? fs.createReadStream(saved) : (async function* () { yield parts.output; })(), tool: OPENCODE_SHELL_TOOL }, settings);
  // opencode's copy is unmasked: ours (masked) replaces it.
  if (saved) await fs.promises.rm(saved, { force: true });
  if (!saved && !r.offloaded && r.masked === 0) return undefined;
  const text = r.offloaded ? r.text.replace(/\n$/, '') : r.text;
  const ref = r.offloaded ? /Output saved: (\S+)/.exec(r.text)?.[1] : undefined;
  return { output: `${text}${parts.trailer}`, ...(ref ? { saved: ref } : {}) };
}
