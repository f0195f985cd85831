/*
 * "Set Up Claude Code" for one workspace folder, in Claude Code's local (uncommitted) settings:
 *   - <root>/.claude/settings.local.json: the Bash hooks (PreToolUse + PostToolUse → claude-hook.js)
 *     and `plansDirectory` → .agent/plans (Claude Code writes its plans there, the Plan view shows them);
 *   - ~/.claude.json, projects[<root>].mcpServers["agent-context"]: the MCP server at local scope
 *     (what `claude mcp add --scope local` writes: per user and project, never in the repo).
 * Both files hold machine-specific absolute paths (node, the scripts), which is why neither is the
 * committed `.claude/settings.json` or `.mcp.json`; settings.local.json is also added to
 * .git/info/exclude (local to the clone). Edits keep every other key and the file's indentation;
 * a file that is not valid JSON is refused with the reason and nothing is written.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { mkdirp, writeFileAtomic } from '../../fs/fsAtomic';
import { err, ok, type FileError, type Result } from '../../result';

/** The name of our MCP server in Claude Code (tools appear as mcp__agent-context__*). */
export const MCP_SERVER_NAME = 'agent-context';
/** Where Claude Code's plans go, relative to the project. */
export const CLAUDE_PLANS_DIR = '.agent/plans';
/** Our hooks are recognised by this file name in their command. */
const HOOK_SCRIPT = 'claude-hook.js';

/** Absolute paths the configuration points at. */
export interface ClaudeSetupPaths {
  node: string;
  hookJs: string;
  mcpJs: string;
}

type Json = Record<string, unknown>;

interface Parsed {
  value: Json;
  indent: string;
  eol: string;
  finalNewline: boolean;
}

/** Parses a JSON object file's text; missing (undefined) or blank text is an empty object. */
function parseObject(text: string | undefined, file: string): Result<Parsed> {
  if (text === undefined || !text.trim()) return ok({ value: {}, indent: '  ', eol: '\n', finalNewline: true });
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (e) {
    return err({ file, message: `is not valid JSON (${(e as Error).message}); fix it or move it away, then run the setup again. Nothing was changed.` });
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    return err({ file, message: 'does not hold a JSON object; fix it or move it away, then run the setup again. Nothing was changed.' });
  }
  const indent = /\n([ \t]+)"/.exec(text)?.[1] ?? '  ';
  return ok({ value: value as Json, indent, eol: text.includes('\r\n') ? '\r\n' : '\n', finalNewline: /\r?\n$/.test(text) || !text.includes('\n') });
}

function serialise(p: Parsed): string {
  const body = JSON.stringify(p.value, null, p.indent);
  return (p.eol === '\n' ? body : body.replace(/\n/g, p.eol)) + (p.finalNewline ? p.eol : '');
}

/** Quotes one word for the `sh -c` Claude Code runs hook commands with. */
function shWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The hook command line written into the settings. */
export function hookCommand(paths: ClaudeSetupPaths): string {
  return `${shWord(paths.node)} ${shWord(paths.hookJs)}`;
}

function isObject(v: unknown): v is Json {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Puts our hook on Bash under one hook event, replacing an earlier entry of ours (the script may
 * have moved) and leaving every other entry alone. Returns an error text for a shape it cannot edit.
 */
function setHook(hooks: Json, event: string, command: string): string | undefined {
  const list = hooks[event] ?? [];
  if (!Array.isArray(list)) return `"hooks.${event}" is not a list`;
  const ours = (h: unknown): boolean => isObject(h) && typeof h.command === 'string' && h.command.includes(HOOK_SCRIPT);
  const kept = list.filter((m) => !(isObject(m) && Array.isArray(m.hooks) && m.hooks.some(ours) && m.hooks.every(ours)));
  const at = list.findIndex((m) => !kept.includes(m));
  const entry = { matcher: 'Bash', hooks: [{ type: 'command', command }] };
  if (at < 0) kept.push(entry);
  else kept.splice(at, 0, entry);
  hooks[event] = kept;
  return undefined;
}

/** The edited text of `.claude/settings.local.json` (text undefined: the file does not exist yet). */
export function editClaudeSettings(text: string | undefined, file: string, paths: ClaudeSetupPaths): Result<{ text: string; changed: boolean }> {
  const p = parseObject(text, file);
  if (!p.ok) return p;
  const s = p.value.value;
  const hooks = s.hooks ?? {};
  if (!isObject(hooks)) return err({ file, message: '"hooks" is not an object; fix it, then run the setup again. Nothing was changed.' });
  const command = hookCommand(paths);
  for (const event of ['PreToolUse', 'PostToolUse']) {
    const bad = setHook(hooks, event, command);
    if (bad) return err({ file, message: `${bad}; fix it, then run the setup again. Nothing was changed.` });
  }
  s.hooks = hooks;
  s.plansDirectory = CLAUDE_PLANS_DIR;
  const out = serialise(p.value);
  return ok({ text: out, changed: out !== text });
}

/** The MCP server entry Claude Code starts for this folder. */
export function mcpServerEntry(root: string, paths: ClaudeSetupPaths): Json {
  // --allow-run: Claude Code asks before each MCP tool call unless the user allowed it, so its own
  // permission prompt is the gate for agentContext_run, as it is for Bash.
  return { type: 'stdio', command: paths.node, args: [paths.mcpJs, '--root', root, '--allow-run'], env: {} };
}

/** The edited text of `~/.claude.json` with our server at local scope for `root`. */
export function editClaudeUserConfig(text: string | undefined, file: string, root: string, paths: ClaudeSetupPaths): Result<{ text: string; changed: boolean }> {
  const p = parseObject(text, file);
  if (!p.ok) return p;
  const c = p.value.value;
  const projects = c.projects ?? {};
  if (!isObject(projects)) return err({ file, message: '"projects" is not an object; nothing was changed.' });
  const project = projects[root] ?? {};
  if (!isObject(project)) return err({ file, message: `"projects.${root}" is not an object; nothing was changed.` });
  const servers = project.mcpServers ?? {};
  if (!isObject(servers)) return err({ file, message: `"projects.${root}.mcpServers" is not an object; nothing was changed.` });
  servers[MCP_SERVER_NAME] = mcpServerEntry(root, paths);
  project.mcpServers = servers;
  projects[root] = project;
  c.projects = projects;
  const out = serialise(p.value);
  return ok({ text: out, changed: out !== text });
}

/** What the setup did, for the message shown to the user. */
export interface ClaudeSetupOutcome {
  settingsFile: string;
  userConfigFile: string;
  changed: string[];
  unchanged: string[];
}

async function readIfExists(file: string): Promise<Result<string | undefined>> {
  try {
    return ok(await fs.promises.readFile(file, 'utf8'));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return ok(undefined);
    return err({ file, message: `cannot read: ${(e as Error).message}` });
  }
}

/** Adds `.claude/settings.local.json` to .git/info/exclude (never committed, local to this clone). */
async function excludeFromGit(root: string): Promise<void> {
  const gitDir = path.join(root, '.git');
  if (!(await fs.promises.stat(gitDir).catch(() => undefined))?.isDirectory()) return;
  const exclude = path.join(gitDir, 'info', 'exclude');
  const line = '/.claude/settings.local.json';
  const r = await readIfExists(exclude);
  const text = (r.ok ? r.value : undefined) ?? '';
  if (text.split(/\r?\n/).some((l) => l.trim() === line || l.trim() === line.slice(1))) return;
  await writeFileAtomic(exclude, `${text}${text && !text.endsWith('\n') ? '\n' : ''}${line}\n`);
}

/**
 * Configures Claude Code for the workspace folder `root`: both files are edited in memory first,
 * so a file that cannot be parsed stops the setup before anything is written. Idempotent.
 */
export async function setUpClaudeCode(root: string, home: string, paths: ClaudeSetupPaths): Promise<Result<ClaudeSetupOutcome, FileError>> {
  const settingsFile = path.join(root, '.claude', 'settings.local.json');
  const userConfigFile = path.join(home, '.claude.json');
  const settingsText = await readIfExists(settingsFile);
  if (!settingsText.ok) return settingsText;
  const userText = await readIfExists(userConfigFile);
  if (!userText.ok) return userText;
  const settings = editClaudeSettings(settingsText.value, settingsFile, paths);
  if (!settings.ok) return settings;
  const user = editClaudeUserConfig(userText.value, userConfigFile, root, paths);
  if (!user.ok) return user;
  const changed: string[] = [];
  const unchanged: string[] = [];
  try {
    for (const [file, edit] of [[settingsFile, settings.value], [userConfigFile, user.value]] as const) {
      if (edit.changed) {
        // ~/.claude.json is private to its user (0600): the rewrite keeps the mode it had.
        const mode = (await fs.promises.stat(file).catch(() => undefined))?.mode;
        await writeFileAtomic(file, edit.text);
        if (mode !== undefined) await fs.promises.chmod(file, mode & 0o7777);
        changed.push(file);
      } else unchanged.push(file);
    }
    await mkdirp(path.join(root, CLAUDE_PLANS_DIR));
    await excludeFromGit(root);
  } catch (e) {
    return err({ file: changed.length ? userConfigFile : settingsFile, message: `could not write: ${(e as Error).message}` });
  }
  return ok({ settingsFile, userConfigFile, changed, unchanged });
}
