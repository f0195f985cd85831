/*
 * Qwen Code's set-up (`qwen`, a Gemini CLI fork), in the project's Qwen settings
 * <root>/.qwen/settings.json (git-excluded when the set-up creates or first edits it: it holds
 * machine-specific paths; a committed one is refused, with the lines to add by hand):
 *   - mcpServers["agent-context"]: our MCP server for this folder, with `alwaysLoadTools: true`:
 *     Qwen Code 0.24 otherwise offers an MCP server's tools to the model by name only, behind its
 *     tool_search (checked: with it, all of our tools are declared at the first request); without
 *     `trust`, so Qwen keeps asking before our tools as before any other;
 *   - hooks.SessionStart: agent-hook.sh qwen-code SessionStart, the briefing at the start of a session
 *     (Qwen's hooks have Claude Code's shape: hookSpecificOutput.additionalContext; Qwen 0.24.4 appends
 *     it to its system prompt, `<`/`>` escaped, so the first request carries it: checked in the
 *     qwen-code run). Qwen runs project hooks only in a folder it trusts;
 *   - hooks.PostToolUse and hooks.PostToolUseFailure (matcher run_shell_command): agent-hook.sh
 *     qwen-code <event> records each command of Qwen's own shell tool in the agent-command history
 *     (.agent/terminals/, under Qwen Code and its session; the exit code from Qwen's result text),
 *     and prints nothing, so what the model reads stays Qwen's own.
 * Qwen's own shell tool is recorded, not offloaded: its hooks can add context or stop the call but
 * cannot replace the output, and it drops BASH_ENV from its shells (checked in 0.24.4's sources); it
 * saves a large output under ~/.qwen/tmp/ and shows its start and end.
 */
import * as path from 'node:path';
import { err, ok, type Result } from '../../result';
import { type AgentSetup, type SetupPlan, type SetupRecord } from './agentSetup';
import { MCP_SERVER_NAME } from './claudeCode';
import { checkHookSettings, foreignServerMessage, hookCommand, jsonSet, mcpCommand, parseJsonObject, putServerAndHooks, readText, removeServerAndHooks, serverEntryKind, type SetupPaths, trackedByGit, valueAt } from './configFiles';
import { agentName } from '../../hooks/agentNames';

/** The project's Qwen settings, relative to the workspace folder. */
const SETTINGS = '.qwen/settings.json';
const AGENT = 'qwen-code';
/** The hook events the set-up adds, each with one command of ours. */
const EVENTS = ['SessionStart', 'PostToolUse', 'PostToolUseFailure'] as const;
/** The events of its shell tool, matched to it alone (no other tool call starts the hook). */
const SHELL_EVENTS: readonly string[] = ['PostToolUse', 'PostToolUseFailure'];

type Json = Record<string, unknown>;

/** Our entry for one hook event. */
export function qwenHookEntry(paths: SetupPaths, event: string): Json {
  // Sourced (`.`): Qwen already runs each hook command with `bash -c` (0.24.4's HookRunner, on Linux and
  // macOS), so that bash reads agent-hook.sh in instead of starting a second one; the command line is ours
  // alone, so the script's `exit` ends nothing else.
  return { ...(SHELL_EVENTS.includes(event) ? { matcher: 'run_shell_command' } : {}), hooks: [{ type: 'command', command: hookCommand(paths, AGENT, event, true) }] };
}

/** Our MCP server entry (`allowRun` false: the user took --allow-run out of it, and it stays out). */
export function qwenServerEntry(root: string, paths: SetupPaths, allowRun = true): Json {
  return { ...mcpCommand(root, paths, allowRun), alwaysLoadTools: true };
}

/** The keys of a server entry the set-up writes. */
const SERVER_KEYS = ['command', 'args', 'alwaysLoadTools'];

/**
 * The edited settings text: our server and hooks in place (`paths`), or taken out (undo; `created`
 * lists the key paths the set-up created, joined by '/', to remove when left empty). Returns the
 * text and the key paths created.
 */
export function editQwenSettings(text: string | undefined, file: string, root: string, paths: SetupPaths | undefined, created: readonly string[] = []): Result<{ text: string | undefined; created: string[] }> {
  const parsed = parseJsonObject(text, file, true);
  if (!parsed.ok) return parsed;
  const s = parsed.value;
  const checked = checkHookSettings(s, file, EVENTS);
  if (!checked.ok) return checked;
  if (!paths) return ok({ text: removeServerAndHooks(text, file, s, MCP_SERVER_NAME, SERVER_KEYS, AGENT, EVENTS, created), created: [] });
  const kind = serverEntryKind(valueAt(s, ['mcpServers', MCP_SERVER_NAME]), SERVER_KEYS);
  if (kind.kind === 'foreign') return err({ file, message: `"mcpServers" ${foreignServerMessage(MCP_SERVER_NAME)}` });
  return ok(putServerAndHooks(text, s, MCP_SERVER_NAME, qwenServerEntry(root, paths, kind.allowRun), AGENT, EVENTS.map((ev) => [ev, qwenHookEntry(paths, ev)] as const)));
}

/**
 * Qwen stamps the settings files it loads with its format version (`"$version": 4` in 0.24.4,
 * checked): a file the set-up created and the undo left holding only that stamp holds nothing of the
 * user's, so the stamp goes too and the runner removes the file.
 */
function withoutQwenStamp(text: string | undefined, file: string): string | undefined {
  const p = parseJsonObject(text, file, true);
  if (!p.ok || Object.keys(p.value).join() !== '$version') return text;
  return jsonSet(text, ['$version'], undefined);
}

async function plan(root: string, _home: string, paths: SetupPaths | undefined, record?: SetupRecord): Promise<Result<SetupPlan>> {
  const file = path.join(root, SETTINGS);
  const st = await readText(file);
  if (!st.ok) return st;
  const prior = (record?.keys ?? []).filter((k) => k.startsWith(`${file}#`)).map((k) => k.slice(file.length + 1));
  if (paths && trackedByGit(root, SETTINGS) && !(st.value ?? '').includes(`agent-hook.sh ${AGENT}`)) {
    const lines = JSON.stringify({ mcpServers: { [MCP_SERVER_NAME]: qwenServerEntry(root, paths) }, hooks: Object.fromEntries(EVENTS.map((ev) => [ev, [qwenHookEntry(paths, ev)]])) }, null, 2);
    return err({ file, message: `is committed to git, and the set-up writes machine-specific paths: untrack it, or merge these entries into it by hand. Nothing was changed.\n${lines}` });
  }
  const e = editQwenSettings(st.value, file, root, paths, prior);
  if (!e.ok) return e;
  if (!paths && record?.created.includes(file)) e.value.text = withoutQwenStamp(e.value.text, file);
  const notes: string[] = [];
  if (paths) notes.push(`Qwen Code reads ${SETTINGS} only in a folder it trusts. Its own shell tool's commands are recorded in .agent/terminals/ but their output is not offloaded (Qwen's hooks cannot replace it): for a large output, the model uses agentContext_run.`);
  return ok({ edits: [{ file, before: st.value, after: e.value.text }], keys: e.value.created.map((k) => `${file}#${k}`), local: [SETTINGS], notes });
}

export const qwenCodeSetup: AgentSetup = { id: AGENT, label: agentName(AGENT), binary: 'qwen', homeFolder: '.qwen', shellNotOffloaded: true, plan };
