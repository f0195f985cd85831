/*
 * GitHub Copilot CLI's set-up:
 *   - <root>/.github/mcp.json, mcpServers["agent-context"]: our MCP server for this folder (Copilot
 *     CLI's workspace MCP file, read once the user trusts the folder; its tools appear as
 *     agent-context-*). Git-excluded: it holds machine-specific paths; a committed one is refused,
 *     with the entry to add by hand. (Not .mcp.json: Claude Code reads that one too.)
 *   - $COPILOT_HOME/settings.json (default ~/.copilot), hooks.postToolUse: agent-hook.sh copilot-cli
 *     postToolUse, which replaces a large `bash` result by our reference and masks secrets
 *     (core/hooks/copilotCli.ts says why a postToolUse hook: Copilot CLI starts its shell with
 *     BASH_ENV dropped, and a preToolUse `modifiedArgs` would change the command its permission
 *     check and the user see). User scope, because Copilot CLI runs repository hook files
 *     (.github/hooks) in `-p` only when asked to and VS Code's agent runs them on every tool call;
 *     the hook holds no project path and does nothing where no .agent/ folder is found, so one entry
 *     serves every project set up. The undo removes it only when this set-up added it.
 *   - the same file, hooks.sessionStart: agent-hook.sh copilot-cli sessionStart, the briefing as
 *     `additionalContext` at the start of each session (core/hooks/sessionStart.ts). Copilot CLI
 *     1.0.102 has no hook that adds context after a compaction (preCompact runs before it, and its
 *     sessionStart sources are startup, resume and new). Same rule for the undo.
 * No plan folder: Copilot CLI keeps its plan in its session state ($COPILOT_HOME/session-state/<id>/plan.md)
 * and has no setting to move it; the postToolUse hook mirrors it into .agent/plans/ after each create
 * or edit of that file (core/hooks/copilotCli.ts copilotPlanWrite).
 */
import * as path from 'node:path';
import { err, ok, type Result } from '../../result';
import { type AgentSetup, type SetupPlan, type SetupRecord } from './agentSetup';
import { MCP_SERVER_NAME } from './claudeCode';
import { hookCommand, jsonSet, jsonUnset, mcpCommand, missingPrefix, parseJsonObject, readText, trackedByGit, valueAt, type FileEdit, type SetupPaths } from './configFiles';
import { agentName } from '../../hooks/agentNames';

/** The workspace MCP file, relative to the workspace folder. */
const MCP_FILE = '.github/mcp.json';
const EVENT = 'postToolUse';
const SESSION_START = 'sessionStart';
/** Our user-scope hooks, in the order the set-up adds them. */
const EVENTS = [EVENT, SESSION_START];
const SERVER_AT = ['mcpServers', MCP_SERVER_NAME];
/** Recorded when the set-up added the user-scope hook (another project's set-up may have put it there first). */
const HOOK_ADDED = 'hook-added';
/** The record key saying the set-up added our entry of `event`. */
const addedKey = (event: string): string => (event === EVENT ? HOOK_ADDED : `${HOOK_ADDED}:${event}`);

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);

/** Copilot CLI's home: $COPILOT_HOME, else ~/.copilot. */
export function copilotHome(home: string): string {
  return process.env.COPILOT_HOME || path.join(home, '.copilot');
}

/** Our hook entry in settings.json for `event` (postToolUse: the output hook; sessionStart: the briefing). */
export function copilotHookEntry(paths: SetupPaths, event = EVENT): Json {
  return { type: 'command', bash: hookCommand(paths, 'copilot-cli', event), timeoutSec: 30 };
}

/** An entry of ours for `event` (this set-up's, whatever the paths in it). */
const oursHook = (h: unknown, event = EVENT): boolean => isObject(h) && typeof h.bash === 'string' && new RegExp(`agent-hook\\.sh copilot-cli ${event}\\b`).test(h.bash);
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
 * The edited $COPILOT_HOME/settings.json: our postToolUse entry in place (replaced when its command
 * changed), or (`paths` undefined, `remove`) taken out. Returns the text, whether the entry was
 * added (not there before), and the key path prefix created.
 */
export function editCopilotSettings(text: string | undefined, file: string, paths: SetupPaths | undefined, created?: readonly string[], event = EVENT): Result<{ text: string | undefined; added: boolean; created?: string[] }> {
  const EVENT = event;
  const parsed = parseJsonObject(text, file, true);
  if (!parsed.ok) return parsed;
  const s = parsed.value;
  if (s.hooks !== undefined && !isObject(s.hooks)) return err({ file, message: '"hooks" is not an object; fix it, then run the set-up again. Nothing was changed.' });
  const list = (s.hooks as Json | undefined)?.[EVENT];
  if (list !== undefined && !Array.isArray(list)) return err({ file, message: `"hooks.${EVENT}" is not a list; fix it, then run the set-up again. Nothing was changed.` });
  const entries = (list ?? []) as unknown[];
  const at = entries.findIndex((h) => oursHook(h, EVENT));
  let out = text;
  if (!paths) {
    if (at < 0) return ok({ text, added: false });
    // From the last index, so the earlier ones keep theirs; then the containers the set-up created, when empty.
    for (let i = entries.length - 1; i >= 0; i--) if (oursHook(entries[i], EVENT)) out = jsonSet(out, ['hooks', EVENT, i], undefined);
    const hooksPath = ['hooks', EVENT];
    if (created && created.length <= hooksPath.length) {
      for (let n = hooksPath.length; n >= created.length; n--) {
        const p = parseJsonObject(out, file, true);
        const v = p.ok ? valueAt(p.value, hooksPath.slice(0, n)) : undefined;
        const empty = Array.isArray(v) ? v.length === 0 : isObject(v) && Object.keys(v).length === 0;
        if (!empty) break;
        out = jsonSet(out, hooksPath.slice(0, n), undefined);
      }
    }
    return ok({ text: out, added: false });
  }
  const entry = copilotHookEntry(paths, EVENT);
  if (at >= 0) {
    if (JSON.stringify(entries[at]) !== JSON.stringify(entry)) out = jsonSet(out, ['hooks', EVENT, at], entry);
    return ok({ text: out, added: false });
  }
  if (s.hooks === undefined) return ok({ text: jsonSet(out, ['hooks'], { [EVENT]: [entry] }), added: true, created: ['hooks'] });
  if (list === undefined) return ok({ text: jsonSet(out, ['hooks', EVENT], [entry]), added: true, created: ['hooks', EVENT] });
  return ok({ text: jsonSet(out, ['hooks', EVENT, entries.length], entry), added: true });
}

async function plan(root: string, home: string, paths: SetupPaths | undefined, record?: SetupRecord): Promise<Result<SetupPlan>> {
  const mcpFile = path.join(root, MCP_FILE);
  const rel = MCP_FILE;
  const settingsFile = path.join(copilotHome(home), 'settings.json');
  const mt = await readText(mcpFile);
  if (!mt.ok) return mt;
  const st = await readText(settingsFile);
  if (!st.ok) return st;
  const prefixOf = (file: string): string[] | undefined => record?.keys.filter((k) => k.startsWith(`${file}#`) && !k.slice(file.length + 1).startsWith(HOOK_ADDED)).map((k) => k.slice(file.length + 1).split('\0'))[0];
  // The key path a set-up created for one event's list: the longest recorded prefix of hooks.<event>.
  const settingsPrefix = (event: string): string[] | undefined => (record?.keys ?? [])
    .filter((k) => k.startsWith(`${settingsFile}#`) && !k.slice(settingsFile.length + 1).startsWith(HOOK_ADDED))
    .map((k) => k.slice(settingsFile.length + 1).split('\0'))
    .filter((p) => p.every((step, i) => ['hooks', event][i] === step))
    .sort((a, b) => b.length - a.length)[0];

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
  // The user-scope hooks: each taken out by an undo only when this set-up put it there. An undo
  // goes through them in reverse, so the list created last is emptied first.
  const removeHook = (event: string): boolean => !paths && (record?.keys.includes(`${settingsFile}#${addedKey(event)}`) ?? false);
  let settingsText = st.value;
  for (const event of paths ? EVENTS : [...EVENTS].reverse()) {
    if (!paths && !removeHook(event)) continue;
    const h = editCopilotSettings(settingsText, settingsFile, paths, paths ? undefined : settingsPrefix(event), event);
    if (!h.ok) return h;
    settingsText = h.value.text;
    if (h.value.added) keys.push(`${settingsFile}#${addedKey(event)}`);
    if (h.value.created) keys.push(`${settingsFile}#${h.value.created.join('\0')}`);
  }
  const edits: FileEdit[] = [{ file: mcpFile, before: mt.value, after: m.value.text }, { file: settingsFile, before: st.value, after: settingsText }];
  const notes: string[] = [];
  if (paths) {
    notes.push(`Copilot CLI reads ${rel} only in a folder you trusted (its first-start question); the set-up does not decide that for you. The output hook and the briefing hook are in ${settingsFile} and serve every folder with an .agent/ folder.`);
  } else {
    if (removeHook(EVENT) && settingsText !== st.value) notes.push(`Removed the output hook from ${settingsFile}: it served every project with an .agent/ folder; run the set-up again in a project that still wants Copilot CLI's shell output offloaded.`);
    const settings = parseJsonObject(st.value, settingsFile, true);
    const list = settings.ok ? valueAt(settings.value, ['hooks', EVENT]) : undefined;
    if (!removeHook(EVENT) && Array.isArray(list) && list.some((h) => oursHook(h))) {
      notes.push(`Kept the output hook in ${settingsFile}: this set-up did not add it (another project's did, or you did); remove the agent-hook.sh copilot-cli entry by hand if no project needs it.`);
    }
  }
  return ok({ edits, keys, local: [rel], notes });
}

export const copilotCliSetup: AgentSetup = { id: 'copilot-cli', label: agentName('copilot-cli'), binary: 'copilot', homeFolder: '.copilot', plan };
