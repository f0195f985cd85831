/*
 * The GitHub Copilot runtime's user-scope files, shared by two set-ups: GitHub Copilot CLI's and VS
 * Code's Copilot harness (VS Code 1.140+ runs its agent in an agent-host process on the Copilot
 * SDK, whose runtime is the CLI's). Evidence, checked by running them (test/realClient/):
 *   - hooks: the runtime loads every `$COPILOT_HOME/hooks/*.json` (Copilot's hook format:
 *     `{"version":1,"hooks":{"postToolUse":[{type,bash,timeoutSec}],…}}`), in Copilot CLI 1.0.102
 *     and in the SDK's runtime 1.0.85 alike; CLI 1.0.102 also loads `hooks` of
 *     `$COPILOT_HOME/settings.json`, 1.0.85 does not (so the hooks live in a file of their own, and
 *     the CLI's older entries in settings.json are taken out: both would run). VS Code's docs
 *     ("move to Copilot"): the Copilot harness "reads workspace hooks from .github/hooks and user
 *     hooks from ~/.copilot/hooks". A postToolUse hook may replace a result (`modifiedResult`), and
 *     its input is {sessionId, timestamp, cwd, toolName:"bash", toolArgs:{command}, toolResult:
 *     {resultType, textResultForLlm}}; the shell tool is `bash`, run as `bash --norc --noprofile -c`
 *     with BASH_ENV dropped (so no shell capture: the hook works on the result, core/hooks/copilotCliHook.ts).
 *     VS Code sets AI_AGENT=github_copilot_vscode_agent for the processes of its agent host, which
 *     tells the hook whose command it is (agent-hook.sh).
 *   - MCP: `$COPILOT_HOME/mcp-config.json` (`mcpServers`) is loaded by every runtime session, with the
 *     session's working folder as the server's; VS Code's docs: the agent host reads `.mcp.json`
 *     (workspace) and `~/.copilot/mcp-config.json` (user), not `.vscode/mcp.json`. So the server is
 *     given no `--root`: the folder the agent works in is the one it serves.
 * Both files are user-scope (never committed: this machine's paths are fine), and both hooks do
 * nothing where no .agent/ folder is found, so one entry serves every project.
 */
import * as path from 'node:path';
import { err, ok, type Result } from '../../result';
import type { SetupRecord } from './agentSetup';
import { MCP_SERVER_NAME } from './claudeCode';
import { hookCallPattern, hookCommand, planUserMcpServer, readText, type FileEdit, type SetupPaths } from './configFiles';

/** The Copilot runtime's home: $COPILOT_HOME, else ~/.copilot. */
export function copilotHome(home: string): string {
  return process.env.COPILOT_HOME || path.join(home, '.copilot');
}

/** Our hook file in the runtime's user hooks folder. */
export function copilotHooksFile(home: string): string {
  return path.join(copilotHome(home), 'hooks', 'agent-context.json');
}

/** The events our hook file answers, and the agent-hook.sh branch each runs. */
export const COPILOT_HOOK_EVENTS = ['postToolUse', 'sessionStart'] as const;

/**
 * One hook entry of ours, as the file holds it: `bash …/agent-hook.sh`, not read in with `.`. Copilot
 * CLI and the SDK's runtime run each hook's `bash` with `bash --norc --noprofile -c`, but VS Code's
 * Copilot Chat reads the same file and runs it with /bin/sh (dash on Debian), which cannot read
 * agent-hook.sh in ("Bad substitution"): the hook then ended before reading its input, the editor's
 * write of it failed (EPIPE) and so did every tool call of VS Code's agent (the copilot editor run
 * of the cold CI at 608d455). A second bash costs ~5 ms of CPU per tool call.
 */
export function copilotHookEntry(paths: SetupPaths, event: string): { type: 'command'; bash: string; timeoutSec: number } {
  return { type: 'command', bash: hookCommand(paths, 'copilot-cli', event), timeoutSec: 30 };
}

/** The hook file's text. */
export function copilotHooksText(paths: SetupPaths): string {
  const hooks = Object.fromEntries(COPILOT_HOOK_EVENTS.map((e) => [e, [copilotHookEntry(paths, e)]]));
  return `${JSON.stringify({ version: 1, hooks }, null, 2)}\n`;
}

/** A hook entry of ours (any paths): runs agent-hook.sh's copilot-cli branch. */
export const oursCopilotHook = (h: unknown, event?: string): boolean =>
  !!h && typeof h === 'object' && typeof (h as { bash?: unknown }).bash === 'string' && hookCallPattern('copilot-cli', event).test((h as { bash: string }).bash);

/** True when the text is a hook file every entry of which is ours. */
function oursHooksFile(text: string): boolean {
  try {
    const v = JSON.parse(text) as { hooks?: Record<string, unknown> };
    const entries = Object.values(v.hooks ?? {}).flat();
    return entries.length > 0 && entries.every((h) => oursCopilotHook(h));
  } catch {
    return false;
  }
}

/** The record key saying this set-up created the hook file (an undo removes only what it added). */
const HOOKS_ADDED = 'hooks-file-added';

/**
 * The hook file's edit: written whole (created, or brought up to date when it is ours); on undo
 * (`paths` undefined) removed only when this set-up created it. A file of that name that is not
 * ours is refused, never overwritten.
 */
export async function planCopilotHooks(home: string, paths: SetupPaths | undefined, record: SetupRecord | undefined): Promise<Result<{ edit?: FileEdit; keys: string[]; notes: string[] }>> {
  const file = copilotHooksFile(home);
  const t = await readText(file);
  if (!t.ok) return t;
  const have = t.value;
  if (have !== undefined && !oursHooksFile(have)) {
    return err({ file, message: 'exists and is not Agent Context\'s hook file; move it away, then run the set-up again. Nothing was changed.' });
  }
  if (paths) {
    const want = copilotHooksText(paths);
    return ok({ edit: { file, before: have, after: want }, keys: have === undefined ? [`${file}#${HOOKS_ADDED}`] : [], notes: [] });
  }
  if (have === undefined) return ok({ keys: [], notes: [] });
  if (record?.keys.includes(`${file}#${HOOKS_ADDED}`)) return ok({ edit: { file, before: have, after: undefined }, keys: [], notes: [`Removed ${file}: it served every project with an .agent/ folder; run the set-up again in a project that still wants the Copilot runtime's shell output offloaded.`] });
  return ok({ keys: [], notes: [`Kept ${file}: this set-up did not create it (another project's set-up did, or the other Copilot set-up); delete it by hand if no project needs it.`] });
}

/** Our user-scope server entry: no --root (the session's working folder is served); the runtime asks the user before each MCP call, so commands may run once they agree. */
export function copilotUserServer(paths: SetupPaths): { type: 'local'; command: string; args: string[]; env?: Record<string, string>; tools: string[] } {
  return { type: 'local', command: paths.node, args: [path.join(paths.dist, 'mcp.js'), '--allow-run'], ...(paths.electron ? { env: { ELECTRON_RUN_AS_NODE: '1' } } : {}), tools: ['*'] };
}

/**
 * `$COPILOT_HOME/mcp-config.json` with our user-scope server in place, or (undo) taken out when it
 * is ours; an entry of the user's own under our name is refused, never replaced.
 */
export function planCopilotUserMcp(home: string, paths: SetupPaths | undefined, record: SetupRecord | undefined): Promise<Result<{ edit?: FileEdit; keys: string[] }>> {
  return planUserMcpServer(path.join(copilotHome(home), 'mcp-config.json'), MCP_SERVER_NAME, paths && copilotUserServer(paths), (v) => v as { args?: unknown }, record);
}
