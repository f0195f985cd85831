/*
 * Claude Code's set-up, in its local (uncommitted) settings:
 *   - <root>/.claude/settings.local.json: a SessionStart hook (agent-hook.sh claude-code
 *     SessionStart) that puts the shell capture in front of every Bash command through
 *     $CLAUDE_ENV_FILE, so Bash output is offloaded without the command being rewritten (Claude
 *     Code checks the user's permission rules against the command as given), and hands the model
 *     the briefing at every session start, after a compaction too (core/hooks/sessionStart.ts); `plansDirectory` →
 *     .agent/plans (Claude Code writes its plans there, the Plan view shows them). Entries of the
 *     earlier hook (PreToolUse/PostToolUse → claude-hook.js, which rewrote the command) are removed.
 *   - ~/.claude.json, projects[<root>].mcpServers["agent-context"]: the MCP server at local scope
 *     (what `claude mcp add --scope local` writes: per user and project, never in the repo).
 * Both hold machine-specific paths, hence neither the committed `.claude/settings.json` nor
 * `.mcp.json`; settings.local.json is also git-excluded (local to the clone).
 */
import * as path from 'node:path';
import { err, ok, type Result } from '../../result';
import { keyId, type AgentSetup, type SetupPlan, type SetupRecord } from './agentSetup';
import { foreignServerMessage, hookCallPattern, hookCommand, jsonSet, jsonUnset, mcpCommand, missingPrefix, parseJsonObject, readText, serverEntryKind, trackedByGit, type FileEdit, type SetupPaths } from './configFiles';
import { agentName } from '../../hooks/agentNames';
import { agentRel } from '../../workspace/layout';

/** The name of our MCP server in every agent (Claude Code's tools appear as mcp__agent-context__*). */
export const MCP_SERVER_NAME = 'agent-context';
/** Where Claude Code's plans go, relative to the project. */
export const CLAUDE_PLANS_DIR = agentRel('plans');
/** The local settings file, relative to the workspace folder. */
const SETTINGS = '.claude/settings.local.json';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);

/** A hook group (`{matcher?, hooks:[{command}]}`) all of whose commands are ours, this set-up's or the earlier one's. */
function oursGroup(g: unknown): boolean {
  if (!isObject(g) || !Array.isArray(g.hooks) || g.hooks.length === 0) return false;
  return g.hooks.every((h) => isObject(h) && typeof h.command === 'string' && (/claude-hook\.js\b/.test(h.command) || hookCallPattern('claude-code').test(h.command)));
}

/**
 * The edited settings text: our SessionStart entry in place (replaced when its command changed),
 * earlier entries of ours removed from every event, plansDirectory when the user has none.
 * `remove`: take out what is ours instead. Returns the text and the keys that had no value.
 */
export function editClaudeSettings(text: string | undefined, file: string, paths: SetupPaths | undefined, record?: SetupRecord): Result<{ text: string | undefined; added: string[]; notes: string[] }> {
  const parsed = parseJsonObject(text, file, false);
  if (!parsed.ok) return parsed;
  const s = parsed.value;
  if (s.hooks !== undefined && !isObject(s.hooks)) return err({ file, message: '"hooks" is not an object; fix it, then run the set-up again. Nothing was changed.' });
  const hooks = (s.hooks ?? {}) as Json;
  for (const [ev, list] of Object.entries(hooks)) {
    if (!Array.isArray(list)) return err({ file, message: `"hooks.${ev}" is not a list; fix it, then run the set-up again. Nothing was changed.` });
  }
  let out = text;
  const added: string[] = [];
  const notes: string[] = [];
  // Ours out of every event, from the last index so the earlier ones keep theirs; an event left
  // empty by that goes too (it held only ours).
  for (const [ev, list] of Object.entries(hooks) as [string, unknown[]][]) {
    const mine = list.map((g, i) => (oursGroup(g) ? i : -1)).filter((i) => i >= 0);
    if (paths && ev === 'SessionStart') continue;
    if (mine.length === 0) continue;
    if (mine.length === list.length) out = jsonSet(out, ['hooks', ev], undefined);
    else for (const i of mine.reverse()) out = jsonSet(out, ['hooks', ev, i], undefined);
  }
  if (paths) {
    const command = hookCommand(paths, 'claude-code', 'SessionStart');
    const list = (hooks.SessionStart ?? []) as unknown[];
    const entry = { hooks: [{ type: 'command', command }] };
    const at = list.findIndex(oursGroup);
    if (at < 0) {
      if (hooks.SessionStart === undefined && s.hooks === undefined) out = jsonSet(out, ['hooks'], { SessionStart: [entry] });
      else if (hooks.SessionStart === undefined) out = jsonSet(out, ['hooks', 'SessionStart'], [entry]);
      else out = jsonSet(out, ['hooks', 'SessionStart', list.length], entry);
    } else if (JSON.stringify(list[at]) !== JSON.stringify(entry)) {
      out = jsonSet(out, ['hooks', 'SessionStart', at], entry);
    }
    // Later duplicates of ours (an edited file): one entry is enough.
    for (let i = list.length - 1; i > at && at >= 0; i--) if (oursGroup(list[i])) out = jsonSet(out, ['hooks', 'SessionStart', i], undefined);
    if (s.plansDirectory === undefined) {
      out = jsonSet(out, ['plansDirectory'], CLAUDE_PLANS_DIR);
      added.push(keyId(file, ['plansDirectory']));
    } else if (s.plansDirectory !== CLAUDE_PLANS_DIR) {
      notes.push(`Kept your plansDirectory (${String(s.plansDirectory)}) in ${file}: Claude Code's plans stay there, not in ${CLAUDE_PLANS_DIR}.`);
    }
  } else {
    // Undo: plansDirectory only when this set-up gave it its value.
    if (record?.keys.includes(keyId(file, ['plansDirectory'])) && s.plansDirectory === CLAUDE_PLANS_DIR) out = jsonSet(out, ['plansDirectory'], undefined);
    const after = out === undefined ? {} : (parseJsonObject(out, file, false) as { ok: true; value: Json }).value;
    if (isObject(after.hooks) && Object.keys(after.hooks).length === 0) out = jsonSet(out, ['hooks'], undefined);
  }
  return ok({ text: out, added, notes });
}

/**
 * The edited `~/.claude.json`: our server at local scope for `root`, and the prefix of its path that
 * did not exist (for the undo). With `paths` undefined: removed, with the objects the set-up
 * created (`created`) when they are left empty.
 */
export function editClaudeUserConfig(text: string | undefined, file: string, root: string, paths: SetupPaths | undefined, created?: readonly string[]): Result<{ text: string | undefined; created?: (string | number)[] }> {
  const parsed = parseJsonObject(text, file, false);
  if (!parsed.ok) return parsed;
  const c = parsed.value;
  if (c.projects !== undefined && !isObject(c.projects)) return err({ file, message: '"projects" is not an object; nothing was changed.' });
  const project = (c.projects as Json | undefined)?.[root];
  if (project !== undefined && !isObject(project)) return err({ file, message: `"projects.${root}" is not an object; nothing was changed.` });
  const servers = (project as Json | undefined)?.mcpServers;
  if (servers !== undefined && !isObject(servers)) return err({ file, message: `"projects.${root}.mcpServers" is not an object; nothing was changed.` });
  const at = ['projects', root, 'mcpServers', MCP_SERVER_NAME];
  const have = serverEntryKind(servers?.[MCP_SERVER_NAME], ['type', 'command', 'args', 'env']);
  if (!paths) {
    // The user's own entry under our name stays.
    if (have.kind !== 'ours') return ok({ text });
    const prefix = created?.map((k) => k.split('\0')).find((p) => at.slice(0, p.length).join('\0') === p.join('\0'));
    return ok({ text: jsonUnset(text, file, at, prefix, false) });
  }
  if (have.kind === 'foreign') return err({ file, message: `projects["${root}"].mcpServers ${foreignServerMessage(MCP_SERVER_NAME)}` });
  // --allow-run: Claude Code asks before each MCP tool call unless the user allowed it, so its own
  // permission prompt is the gate for agentContext_run, as it is for Bash. Taken out by the user: kept out.
  const { command, args } = mcpCommand(root, paths, have.allowRun);
  const entry = { type: 'stdio', command, args, env: {} };
  if (servers && JSON.stringify(servers[MCP_SERVER_NAME]) === JSON.stringify(entry)) return ok({ text });
  return ok({ text: jsonSet(text, at, entry), created: missingPrefix(c, at) });
}

async function plan(root: string, home: string, paths: SetupPaths | undefined, record?: SetupRecord): Promise<Result<SetupPlan>> {
  const settingsFile = path.join(root, SETTINGS);
  const userFile = path.join(home, '.claude.json');
  const st = await readText(settingsFile);
  if (!st.ok) return st;
  if (paths && trackedByGit(root, SETTINGS) && !hookCallPattern('claude-code').test(st.value ?? '')) {
    return err({ file: settingsFile, message: `is committed to git, and the set-up writes a machine-specific path into it (the SessionStart hook): untrack it (git rm --cached ${SETTINGS}; Claude Code meant it to stay local), then run the set-up again. Nothing was changed.` });
  }
  const ut = await readText(userFile);
  if (!ut.ok) return ut;
  const s = editClaudeSettings(st.value, settingsFile, paths, record);
  if (!s.ok) return s;
  const prefixes = (record?.keys ?? []).filter((k) => k.startsWith(`${userFile}#`)).map((k) => k.slice(userFile.length + 1));
  const u = editClaudeUserConfig(ut.value, userFile, root, paths, prefixes);
  if (!u.ok) return u;
  const keys = [...s.value.added];
  // Path steps joined by NUL: a project path holds slashes.
  if (u.value.created) keys.push(`${userFile}#${u.value.created.join('\0')}`);
  const edits: FileEdit[] = [{ file: settingsFile, before: st.value, after: s.value.text }, { file: userFile, before: ut.value, after: u.value.text }];
  return ok({ edits, keys, local: [SETTINGS], notes: s.value.notes });
}

export const claudeCodeSetup: AgentSetup = { id: 'claude-code', label: agentName('claude-code'), binary: 'claude', homeFolder: '.claude', plan };
