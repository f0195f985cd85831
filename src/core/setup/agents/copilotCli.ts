/*
 * GitHub Copilot CLI's set-up:
 *   - <root>/.github/mcp.json, mcpServers["agent-context"]: our MCP server for this folder (Copilot
 *     CLI's workspace MCP file, read once the user trusts the folder; its tools appear as
 *     agent-context-*). Git-excluded: it holds machine-specific paths; a committed one is refused,
 *     with the entry to add by hand. (Not .mcp.json: Claude Code reads that one too.)
 *   - $COPILOT_HOME/hooks/agent-context.json (default ~/.copilot), the Copilot runtime's user hooks
 *     (copilotRuntime.ts, shared with VS Code's Copilot harness): postToolUse runs agent-hook.sh
 *     copilot-cli postToolUse, which replaces a large `bash` result by our reference, masks secrets
 *     and records the command in the agent-command history (core/hooks/copilotCliHook.ts says why a
 *     postToolUse hook: Copilot CLI starts its shell with BASH_ENV dropped, and a preToolUse
 *     `modifiedArgs` would change the command its permission check and the user see); sessionStart
 *     hands the model the briefing as `additionalContext`. User scope, because Copilot CLI runs
 *     repository hook files (.github/hooks) in `-p` only when asked to and VS Code's agent runs them
 *     on every tool call; the hooks hold no project path and do nothing where no .agent/ folder is
 *     found, so one file serves every project set up. The undo removes it only when this set-up
 *     created it. Earlier set-ups put the same entries into $COPILOT_HOME/settings.json: Copilot CLI
 *     1.0.102 runs both places' hooks, so those entries are taken out.
 * No plan folder: Copilot CLI keeps its plan in its session state ($COPILOT_HOME/session-state/<id>/plan.md)
 * and has no setting to move it; the postToolUse hook mirrors it into .agent/plans/ after each create
 * or edit of that file (core/hooks/copilotCliHook.ts copilotPlanWrite).
 */
import * as path from 'node:path';
import { err, ok, type Result } from '../../result';
import { type AgentSetup, type SetupPlan, type SetupRecord } from './agentSetup';
import { MCP_SERVER_NAME } from './claudeCode';
import { jsonSet, jsonUnset, mcpCommand, missingPrefix, parseJsonObject, readText, trackedByGit, valueAt, type FileEdit, type SetupPaths } from './configFiles';
import { copilotHome, copilotHooksFile, oursCopilotHook, planCopilotHooks } from './copilotRuntime';
import { agentName } from '../../hooks/agentNames';

/** The workspace MCP file, relative to the workspace folder. */
const MCP_FILE = '.github/mcp.json';
const SERVER_AT = ['mcpServers', MCP_SERVER_NAME];

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);

const oursServer = (v: unknown): boolean => isObject(v) && Array.isArray(v.args) && v.args.some((a) => typeof a === 'string' && /(?:^|[\\/])mcp\.js$/.test(a));

/**
 * The edited .github/mcp.json: our server in place (`paths`), or taken out (`created`: the key path
 * the set-up created, to remove when left empty). Returns the text and the path prefix it created.
 */
export function editCopilotMcp(text: string | undefined, file: string, root: string, paths: SetupPaths | undefined, created?: readonly string[]): Result<{ text: string | undefined; created?: string[] }> {
  const parsed = parseJsonObject(text, file, false);
  if (!parsed.ok) return parsed;
  const s = parsed.value;
  if (s.mcpServers !== undefined && !isObject(s.mcpServers)) return err({ file, message: '"mcpServers" is not an object; fix it, then run the set-up again. Nothing was changed.' });
  const have = valueAt(s, SERVER_AT);
  if (!paths) return ok({ text: have !== undefined && oursServer(have) ? jsonUnset(text, file, SERVER_AT, created, false) : text });
  if (have !== undefined && !oursServer(have)) {
    return err({ file, message: `already configures an MCP server named "${MCP_SERVER_NAME}" of its own; remove it (or rename it), then run the set-up again. Nothing was changed.` });
  }
  // --allow-run: Copilot CLI asks before each MCP tool call unless the user allowed the tool or
  // server, so its own permission prompt is the gate for agentContext_run, as it is for bash.
  // Taken out by the user: kept out.
  const entry = mcpCommand(root, paths, have === undefined || (isObject(have) && Array.isArray(have.args) && have.args.includes('--allow-run')));
  if (JSON.stringify(have) === JSON.stringify(entry)) return ok({ text });
  return ok({ text: jsonSet(text, SERVER_AT, entry), created: missingPrefix(s, SERVER_AT)?.map(String) });
}

/**
 * $COPILOT_HOME/settings.json without the hook entries an earlier set-up put there (the hooks now
 * live in their own file; Copilot CLI would run both); lists and the `hooks` object left empty by
 * that go too. Unchanged when there is none.
 */
function withoutOldHooks(text: string | undefined, file: string): Result<string | undefined> {
  const parsed = parseJsonObject(text, file, true);
  if (!parsed.ok) return parsed;
  const hooks = parsed.value.hooks;
  if (!isObject(hooks)) return ok(text);
  let out = text;
  for (const [event, list] of Object.entries(hooks)) {
    if (!Array.isArray(list)) continue;
    const mine = list.map((h, i) => (oursCopilotHook(h, event) ? i : -1)).filter((i) => i >= 0);
    if (mine.length === 0) continue;
    if (mine.length === list.length) out = jsonSet(out, ['hooks', event], undefined);
    else for (const i of mine.reverse()) out = jsonSet(out, ['hooks', event, i], undefined);
  }
  const after = parseJsonObject(out, file, true);
  if (after.ok && isObject(after.value.hooks) && Object.keys(after.value.hooks).length === 0) out = jsonSet(out, ['hooks'], undefined);
  return ok(out);
}

async function plan(root: string, home: string, paths: SetupPaths | undefined, record?: SetupRecord): Promise<Result<SetupPlan>> {
  const mcpFile = path.join(root, MCP_FILE);
  const rel = MCP_FILE;
  const settingsFile = path.join(copilotHome(home), 'settings.json');
  const mt = await readText(mcpFile);
  if (!mt.ok) return mt;
  const st = await readText(settingsFile);
  if (!st.ok) return st;
  const prefixOf = (file: string): string[] | undefined => record?.keys.filter((k) => k.startsWith(`${file}#`)).map((k) => k.slice(file.length + 1).split('\0'))[0];

  const current = parseJsonObject(mt.value, mcpFile, false);
  if (paths && current.ok && !oursServer(valueAt(current.value, SERVER_AT)) && trackedByGit(root, rel)) {
    const lines = JSON.stringify({ mcpServers: { [MCP_SERVER_NAME]: mcpCommand(root, paths, true) } }, null, 2);
    return err({ file: mcpFile, message: `is committed to git, and the set-up writes machine-specific paths: add this to ${path.join(copilotHome(home), 'mcp-config.json')} (your own; the server then serves this folder in every project) instead, or untrack the file. Nothing was changed.\n${lines}` });
  }
  const m = editCopilotMcp(mt.value, mcpFile, root, paths, prefixOf(mcpFile));
  if (!m.ok) return m;
  const keys: string[] = [];
  // Path steps joined by NUL (a server name may hold a slash).
  if (m.value.created) keys.push(`${mcpFile}#${m.value.created.join('\0')}`);
  const hooks = await planCopilotHooks(home, paths, record);
  if (!hooks.ok) return hooks;
  keys.push(...hooks.value.keys);
  const settings = withoutOldHooks(st.value, settingsFile);
  if (!settings.ok) return settings;
  const edits: FileEdit[] = [{ file: mcpFile, before: mt.value, after: m.value.text }, ...(hooks.value.edit ? [hooks.value.edit] : []), { file: settingsFile, before: st.value, after: settings.value }];
  const notes: string[] = [...hooks.value.notes];
  if (settings.value !== st.value) notes.push(`Took the hook entries of an earlier set-up out of ${settingsFile}: the hooks are in ${copilotHooksFile(home)} now (Copilot CLI would run both).`);
  if (paths) notes.push(`Copilot CLI reads ${rel} only in a folder you trusted (its first-start question); the set-up does not decide that for you. The output hook and the briefing hook are in ${copilotHooksFile(home)} and serve every folder with an .agent/ folder.`);
  return ok({ edits, keys, local: [rel], notes });
}

export const copilotCliSetup: AgentSetup = { id: 'copilot-cli', label: agentName('copilot-cli'), binary: 'copilot', homeFolder: '.copilot', plan };
