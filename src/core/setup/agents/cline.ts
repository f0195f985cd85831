/*
 * Cline CLI's set-up (`cline`, npm `cline`; what 3.0.65 reads, checked in its @cline/core and
 * @cline/shared sources and with the real CLI in the `cline` run):
 *   - MCP: Cline reads MCP servers from ONE user-scope file, ~/.cline/data/settings/cline_mcp_settings.json
 *     (CLINE_DIR, CLINE_DATA_DIR or CLINE_MCP_SETTINGS_PATH move it), `{"mcpServers":{NAME:{"transport":
 *     {"type":"stdio",command,args},"timeout":…}}}` (what `cline mcp add` writes), and starts a stdio
 *     server in the folder it works in. So our entry has no --root: it serves that folder, like the
 *     Copilot runtime's user-scope entry (one entry for every project). `timeout: 60` (seconds): without
 *     it Cline gives a server 3 s to answer `initialize` and silently drops its tools, which our server
 *     missed on a loaded 2-core machine. Tools appear as `agent-context__<tool>`.
 *   - ~/.cline/hooks/PostToolUse (a file named after the event, which Cline runs with bash; CLINE_DIR
 *     moves it): agent-hook.sh cline PostToolUse records each command of Cline's own run_commands in
 *     the agent-command history (.agent/terminals/, under Cline and its task), and prints nothing.
 *     A hook file of the user's own there is left alone (then nothing is recorded; the notes say so).
 *     Recorded, not offloaded: Cline's hooks (executables named after the event in ~/.cline/hooks/
 *     or the project's .clinerules/hooks/) cannot give the model our reference instead of a shell
 *     output: PostToolUse may only add context or cancel; PreToolUse may rewrite the command (`overrideInput`), which would
 *     have Cline run and show a wrapper instead of the user's command. Its run_commands tool runs
 *     `/bin/bash -c <command>` with Cline's own environment, so BASH_ENV would reach it only when the
 *     user starts `cline` with it set. TaskStart's output is ignored by the CLI (its run-start hooks
 *     are fire-and-forget), so there is no briefing at session start either: the model has
 *     agentContext_briefing, and agentContext_run for anything large.
 */
import * as path from 'node:path';
import { ok, type Result } from '../../result';
import { agentName } from '../../hooks/agentNames';
import type { AgentSetup, SetupPlan, SetupRecord } from './agentSetup';
import { MCP_SERVER_NAME } from './claudeCode';
import { hookCallPattern, hookCommand, planUserMcpServer, readText, type SetupPaths } from './configFiles';

const AGENT = 'cline';

/** Cline's folder: $CLINE_DIR, else ~/.cline. */
function clineDir(home: string): string {
  return process.env.CLINE_DIR?.trim() || path.join(home, '.cline');
}

/** Cline's MCP settings file (its own order of overrides). */
export function clineMcpFile(home: string): string {
  const file = process.env.CLINE_MCP_SETTINGS_PATH?.trim();
  if (file) return file;
  return path.join(process.env.CLINE_DATA_DIR?.trim() || path.join(clineDir(home), 'data'), 'settings', 'cline_mcp_settings.json');
}

/** Cline's user-scope hook for the PostToolUse event. */
export function clineHookFile(home: string): string {
  return path.join(clineDir(home), 'hooks', 'PostToolUse');
}

/** What marks the hook file as ours: its first line, and the entry point named with our agent and event (quoted or not). */
const HOOK_HEAD = '# Agent Context';
const HOOK_CALL = hookCallPattern('cline', 'PostToolUse');

/**
 * The hook file's text: Cline runs a file without a #! line or an extension with bash, its payload on
 * stdin (and waits for it, on every tool call). That bash reads agent-hook.sh in (`.`), rather than
 * starting a second bash for it. Not `exec VAR=… bash …`: exec would take the assignment for the
 * program's name (the first cline run recorded nothing for that).
 */
export function clineHookText(paths: SetupPaths): string {
  return `${HOOK_HEAD}: records the commands of Cline's run_commands in .agent/terminals/ (mcp.js --setup cline; --undo cline removes this file).\n${hookCommand(paths, AGENT, 'PostToolUse', true)}\n`;
}

/** Our server entry: no --root (Cline starts it in the folder it works in), a timeout Cline keeps to. */
export function clineServerEntry(paths: SetupPaths): Record<string, unknown> {
  return {
    transport: { type: 'stdio', command: paths.node, args: [path.join(paths.dist, 'mcp.js'), '--allow-run'], ...(paths.electron ? { env: { ELECTRON_RUN_AS_NODE: '1' } } : {}) },
    timeout: 60,
  };
}

/** The command part of an entry: `transport` (what `cline mcp add` writes), or the flat form Cline also reads. */
const commandOf = (v: unknown): { args?: unknown } | undefined => {
  const o = v as { transport?: unknown };
  return (o.transport && typeof o.transport === 'object' ? o.transport : o) as { args?: unknown };
};

async function plan(_root: string, home: string, paths: SetupPaths | undefined, record: SetupRecord | undefined): Promise<Result<SetupPlan>> {
  const file = clineMcpFile(home);
  const m = await planUserMcpServer(file, MCP_SERVER_NAME, paths && clineServerEntry(paths), commandOf, record);
  if (!m.ok) return m;
  const hookFile = clineHookFile(home);
  const h = await readText(hookFile);
  if (!h.ok) return h;
  const ours = h.value !== undefined && h.value.startsWith(HOOK_HEAD) && HOOK_CALL.test(h.value);
  const notes: string[] = [];
  let hook: SetupPlan['edits'][number];
  if (!paths) {
    if (ours) hook = { file: hookFile, before: h.value, after: undefined };
  } else if (h.value === undefined || ours) {
    hook = { file: hookFile, before: h.value, after: clineHookText(paths) };
  } else {
    notes.push(`${hookFile} is a hook of your own: left as it is, so Cline's own shell commands are not recorded in .agent/terminals/. To record them, add this line to it: ${hookCommand(paths, AGENT, 'PostToolUse')}`);
  }
  if (paths) {
    notes.push(`Cline runs the MCP server "agent-context" from ${file} in every folder it works in (user scope: nothing to commit). Its own shell tool's commands are recorded in .agent/terminals/ (${hookFile}) but their output is not offloaded (Cline's hooks cannot replace it): for a large output, the model uses agentContext_run.`);
  }
  return ok({ edits: [m.value.edit, hook], keys: m.value.keys, notes });
}

export const clineSetup: AgentSetup = { id: AGENT, label: agentName(AGENT), binary: 'cline', homeFolder: '.cline', userScopeOnly: true, shellNotOffloaded: true, plan };
