/*
 * GitHub Copilot CLI's hook protocol. Its shell tool starts `bash --norc --noprofile -c <command>`
 * with a cleaned environment (BASH_ENV and ENV are dropped), so the shell capture cannot be
 * injected; and a preToolUse `modifiedArgs` would change the command its permission check and
 * the user see. Its postToolUse hook can replace a result (`modifiedResult`) without touching the
 * command, and for a large output Copilot CLI itself saves the whole output to a temp file and
 * names it in the result ("Output too large to read at once (2.6 MB). Saved to: <file>"). So:
 *   - a large output: that file is read, masked into .agent/scratch/tool_outputs/ and replaced by
 *     our reference (with every error line and its number); Copilot's unmasked temp file is
 *     removed once read (only a file of Copilot's naming in the temp folder: copilotSavedFile);
 *   - a small one: masked; replaced only when a secret was found.
 * Checked with Copilot CLI 1.0.102 (the hook input: {toolName, toolArgs:{command}, toolResult:
 * {resultType, textResultForLlm}, cwd}). Copilot CLI reports no exit code for a large output.
 *
 * The same hook mirrors Copilot CLI's plan: in plan mode (--plan, Shift+Tab) its system prompt says
 * "Save the plan to: $COPILOT_HOME/session-state/<session id>/plan.md" and "Use the create or edit
 * tools", a file outside the workspace with no setting to move it. After a `create` or `edit` of that
 * file (hook input {sessionId, cwd, toolName:"create"|"edit", toolArgs:{path, file_text | old_str,
 * new_str}, toolResult}, checked with 1.0.102) the file as it now is on disk is copied to
 * .agent/plans/copilot-cli-<session>.md (core/plan/mirroredPlans.ts), so the Plan view, the briefing
 * and agentContext_plan show it.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { mirroredPlanName, mirrorPlan } from '../plan/mirroredPlans';
import { agentDirOf } from '../workspace/agentLayout';
import { COPILOT_EXIT } from './agentResults';
import { hookSettings, shellOutput, type HookSettings } from './shellOutput';

/** What Copilot CLI sends a postToolUse hook (the fields used). */
export interface CopilotPostToolUseInput {
  toolName?: string;
  toolArgs?: { command?: unknown; path?: unknown } | unknown;
  toolResult?: { resultType?: string; textResultForLlm?: string };
  cwd?: string;
  sessionId?: string;
  /** When the hook was called (ms since epoch). */
  timestamp?: number;
}

const SAVED = /^Output too large to read at once \([^)]*\)\. Saved to: (\S+?)\s*\n/;
/** Copilot CLI's own names for those files (`1769829087591-copilot-tool-output-jtyrd3.txt`, `copilot-tool-output-1773448209593-tpfz1n.txt`). */
const COPILOT_TEMP = /^(?:\d+-)?copilot-tool-output-[\w-]+\.txt$/;

/**
 * The file a result names as Copilot's saved output, when it really is one: a regular file (not a
 * link) of Copilot's naming, in the temp folder, owned by this user. Only such a file is read and
 * removed: a small output is the command's own text, so a command that prints "Output too large
 * … Saved to: <any file>" (a cat of a crafted file, a log) must not get that file shown and deleted.
 */
function copilotSavedFile(named: string | undefined): string | undefined {
  if (!named || !path.isAbsolute(named) || !COPILOT_TEMP.test(path.basename(named))) return undefined;
  try {
    const st = fs.lstatSync(named);
    if (!st.isFile() || (process.getuid && st.uid !== process.getuid())) return undefined;
    const dir = fs.realpathSync(path.dirname(named));
    const temps = new Set([os.tmpdir(), process.env.TMPDIR, '/tmp'].filter((d): d is string => !!d).map((d) => {
      try {
        return fs.realpathSync(d);
      } catch {
        return d;
      }
    }));
    return temps.has(dir) ? named : undefined;
  } catch {
    return undefined;
  }
}

/** The hook's stdout for one postToolUse (undefined: leave the result as it is). */
export async function copilotPostToolUse(input: CopilotPostToolUseInput, root: string, settings?: HookSettings): Promise<object | undefined> {
  if (input.toolName !== 'bash' || !input.toolResult || typeof input.toolResult.textResultForLlm !== 'string') return undefined;
  const text = input.toolResult.textResultForLlm;
  const args = (input.toolArgs ?? {}) as { command?: unknown };
  const command = typeof args.command === 'string' ? args.command : '';
  // The same runtime runs VS Code's Copilot harness: the shell side names which one this is.
  const agent = process.env.AGENT_CONTEXT_AGENT === 'vscode-copilot' ? 'vscode-copilot' : 'copilot-cli';
  const recorded = { agent, session: input.sessionId, cwd: input.cwd, endedMs: typeof input.timestamp === 'number' ? input.timestamp : undefined };
  const saved = copilotSavedFile(SAVED.exec(text)?.[1]);
  if (saved) {
    const r = await shellOutput({ root, ...recorded, command, output: fs.createReadStream(saved), tool: 'bash' }, settings);
    await fs.promises.rm(saved, { force: true });
    return { modifiedResult: { textResultForLlm: r.text, resultType: input.toolResult.resultType ?? 'success' } };
  }
  const exit = COPILOT_EXIT.exec(text);
  const r = await shellOutput({ root, ...recorded, command, exitCode: exit ? Number(exit[1]) : undefined, output: (async function* () { yield text; })(), tool: 'bash' }, settings);
  if (r.text === text) return undefined;
  return { modifiedResult: { textResultForLlm: r.text, resultType: input.toolResult.resultType ?? 'success' } };
}

/** Copilot CLI's file tools that write a plan (its plan-mode prompt names these two). */
const PLAN_TOOLS = new Set(['create', 'edit']);

/**
 * The session of a Copilot CLI plan file: `<...>/session-state/<session>/plan.md` gives `<session>`;
 * any other path gives undefined.
 */
export function copilotPlanSession(file: string): string | undefined {
  const parts = file.split(/[\\/]+/);
  const n = parts.length;
  if (n < 3 || parts[n - 1] !== 'plan.md' || parts[n - 3] !== 'session-state' || !parts[n - 2]) return undefined;
  return parts[n - 2];
}

/**
 * After a `create` or `edit` of Copilot CLI's session plan: mirrors the file as it now is into
 * `.agent/plans/copilot-cli-<session>.md`. Returns the mirror's path when it was written (undefined:
 * not a plan write, the file is gone, or unchanged). Prints nothing for the agent: the tool result
 * stays as it is.
 */
export async function copilotPlanWrite(input: CopilotPostToolUseInput, root: string): Promise<{ file: string; changed: boolean } | undefined> {
  if (!input.toolName || !PLAN_TOOLS.has(input.toolName)) return undefined;
  const args = (input.toolArgs ?? {}) as { path?: unknown };
  if (typeof args.path !== 'string' || !path.isAbsolute(args.path)) return undefined;
  const session = copilotPlanSession(args.path);
  if (!session) return undefined;
  const text = await fs.promises.readFile(args.path, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const r = await mirrorPlan(agentDirOf(root), mirroredPlanName('copilot-cli', session), text, `GitHub Copilot CLI's plan (session-state/${session}/plan.md in its home folder, session ${session})`, (await hookSettings(root)).rules);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}
