/*
 * Codex CLI's set-up, in the project's own Codex configuration <root>/.codex/config.toml (git-excluded:
 * it holds machine-specific paths; a committed one is refused, with the lines to add by hand):
 *   - [mcp_servers.agent-context]: our MCP server for this folder (Codex offers it as the namespace
 *     mcp__agent_context);
 *   - [shell_environment_policy.set] BASH_ENV = dist/agent-context-shell.sh: Codex starts every
 *     command of its shell tool as `bash -lc '<command>'` in that environment, so bash sources the
 *     capture before the command and the output is offloaded without the command being rewritten.
 *     Codex's approval policy and its rules (~/.codex/rules/*.rules, prefix_rule) are checked against
 *     the command as the model gave it, and the user is asked about that command: nothing is widened
 *     or narrowed. (The alternative, a Claude-compatible PreToolUse hook with `updatedInput`, would
 *     have Codex check a wrapper instead, and its `permissionDecision: "allow"` skips Codex's own
 *     approval: the set-up never writes one.)
 *   - [[hooks.SessionStart]]: agent-hook.sh codex SessionStart, the briefing as additionalContext at
 *     every session start and again right after a compaction (Codex 0.171 fires SessionStart with
 *     source "compact"; core/hooks/sessionStart.ts). Codex runs a new hook only once the user has
 *     reviewed and trusted it; the set-up never trusts it for them.
 * All of it sits in one marked block at the end of the file, so an undo takes out exactly those bytes.
 * Codex reads a project's config only in a trusted project (its first-start question); the set-up
 * never trusts a folder on the user's behalf and says so when Codex does not trust it yet.
 * No plan folder: Codex keeps its plan (the update_plan tool) inside the conversation.
 * BASH_ENV is read by bash only: where Codex's shell is zsh (the user's login shell), the output is
 * left alone and the set-up says so; the MCP tools work either way.
 */
import * as path from 'node:path';
import { searchDeps } from '../../search/searchDeps';
import { err, ok, type Result } from '../../result';
import { type AgentSetup, type SetupPlan, type SetupRecord } from './agentSetup';
import { MCP_SERVER_NAME } from './claudeCode';
import { hookCommand, mcpCommand, readText, trackedByGit, type FileEdit, type SetupPaths } from './configFiles';
import { agentName } from '../../hooks/agentNames';

/** The project's Codex config, relative to the workspace folder. */
const CONFIG = '.codex/config.toml';
const BEGIN = '# >>> Agent Context (mcp.js --setup codex; `--undo codex` removes this block) >>>';
const END = '# <<< Agent Context <<<';
/** Recorded when the set-up had to end the user's last line before its block (the undo takes it back). */
const EOL_ADDED = 'eol-added';

type Table = Record<string, unknown>;
const isTable = (v: unknown): v is Table => !!v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date);
const tomlString = (s: string): string => JSON.stringify(s);

/** Parses TOML; a file that is not TOML is refused with its line. */
export function parseTomlFile(text: string | undefined, file: string): Result<Table> {
  if (text === undefined || !text.trim()) return ok({});
  try {
    const v = searchDeps().parseToml(text);
    return isTable(v) ? ok(v) : err({ file, message: 'does not hold a TOML table; nothing was changed.' });
  } catch (e) {
    const line = (e as { line?: number }).line;
    const first = String((e as Error).message ?? e).split('\n')[0].replace(/^Invalid TOML document:\s*/, '');
    return err({ file, line, message: `is not valid TOML (${first}); fix it or move it away, then run the set-up again. Nothing was changed.` });
  }
}

/** Where our block is in `text` (with the one newline the set-up put before it), if anywhere. */
function blockRange(text: string): { start: number; end: number } | undefined {
  const b = text.indexOf(BEGIN);
  if (b < 0) return undefined;
  const e = text.indexOf(END, b);
  if (e < 0) return undefined;
  let end = e + END.length;
  if (text[end] === '\r') end++;
  if (text[end] === '\n') end++;
  // The blank line the set-up puts between the user's text and the block is part of what it added.
  const start = b > 0 && text[b - 1] === '\n' ? (b > 1 && text[b - 2] === '\r' ? b - 2 : b - 1) : b;
  return { start, end };
}

/** The line end of a file: CRLF when it has any, else LF (what the set-up writes into it). */
const eolOf = (text: string): string => (text.includes('\r\n') ? '\r\n' : '\n');

/** The text without our block (and, with `eolAdded`, without the line end the set-up gave the user's last line). */
function withoutBlock(text: string, eolAdded: boolean): string {
  const r = blockRange(text);
  if (!r) return text;
  let before = text.slice(0, r.start);
  if (eolAdded && before.endsWith('\n') && r.end >= text.length) before = before.slice(0, before.endsWith('\r\n') ? -2 : -1);
  return before + text.slice(r.end);
}

/**
 * The lines the set-up puts in config.toml: the MCP server, (`hook`) the shell capture's
 * environment, and (`briefing`) the SessionStart hook that hands the model the briefing.
 */
export function codexBlock(root: string, paths: SetupPaths, hook: boolean, briefing = true, eol = '\n'): string {
  const { command, args } = mcpCommand(root, paths, true);
  const lines = [
    BEGIN,
    `[mcp_servers.${MCP_SERVER_NAME}]`,
    `command = ${tomlString(command)}`,
    `args = [${args.map(tomlString).join(', ')}]`,
  ];
  if (hook) {
    lines.push(
      '',
      // bash sources BASH_ENV before the command: the capture (it does nothing where no .agent/ is found).
      '[shell_environment_policy.set]',
      `BASH_ENV = ${tomlString(path.join(paths.dist, 'agent-context-shell.sh'))}`,
      'AGENT_CONTEXT_AGENT = "codex"',
      `AGENT_CONTEXT_NODE = ${tomlString(paths.node)}`,
      `AGENT_CONTEXT_ROOT = ${tomlString(root)}`,
    );
  }
  if (briefing) {
    lines.push(
      '',
      // The briefing at every session start and again right after a compaction (source "compact").
      '[[hooks.SessionStart]]',
      '[[hooks.SessionStart.hooks]]',
      'type = "command"',
      `command = ${tomlString(hookCommand(paths, 'codex', 'SessionStart'))}`,
    );
  }
  lines.push(END, '');
  return lines.join(eol);
}

/**
 * The edited config.toml: our block in place (replaced when it changed; `paths` undefined: removed).
 * Returns the text, whether the set-up ended the user's last line, and notes for the user. The
 * hook's part is left out (with a note) when the user's own file already sets the shell
 * environment's `set` table or BASH_ENV, and the server when they configured an `agent-context` of
 * their own: a second definition would make the file invalid.
 */
export function editCodexConfig(text: string | undefined, file: string, root: string, paths: SetupPaths | undefined, record?: SetupRecord): Result<{ text: string | undefined; eolAdded: boolean; notes: string[] }> {
  const parsed = parseTomlFile(text, file);
  if (!parsed.ok) return parsed;
  const eolWas = record?.keys.includes(`${file}#${EOL_ADDED}`) ?? false;
  const base = text === undefined ? '' : withoutBlock(text, eolWas);
  if (!paths) return ok({ text: text === undefined ? undefined : base, eolAdded: false, notes: [] });
  const notes: string[] = [];
  const user = parseTomlFile(base, file);
  if (!user.ok) return user;
  const policy = user.value.shell_environment_policy;
  let hook = true;
  if (isTable(policy) && policy.set !== undefined) {
    hook = false;
    notes.push(`${file} already has a shell_environment_policy.set table of yours: add BASH_ENV = ${tomlString(path.join(paths.dist, 'agent-context-shell.sh'))}, AGENT_CONTEXT_AGENT = "codex", AGENT_CONTEXT_NODE = ${tomlString(paths.node)} and AGENT_CONTEXT_ROOT = ${tomlString(root)} to it to have Codex's shell output offloaded.`);
  }
  if (isTable(user.value.mcp_servers) && user.value.mcp_servers[MCP_SERVER_NAME] !== undefined) {
    return err({ file, message: `already configures an MCP server named "${MCP_SERVER_NAME}" of its own; remove it (or rename it), then run the set-up again. Nothing was changed.` });
  }
  const eolAdded = base.length > 0 && !base.endsWith('\n');
  // In the file's own line ends: a CRLF file gets CRLF lines.
  const eol = eolOf(base);
  let briefing = true;
  const joined = (): string => `${base}${eolAdded ? eol : ''}${base.length > 0 ? eol : ''}${codexBlock(root, paths, hook, briefing, eol)}`;
  // The block must leave a valid file (e.g. an inline `shell_environment_policy = {…}` or
  // `hooks = {…}` cannot be extended by a table): else that part is left out, and failing that
  // nothing is written.
  let out = joined();
  if (!parseTomlFile(out, file).ok) {
    briefing = false;
    out = joined();
    if (parseTomlFile(out, file).ok) notes.push(`${file} defines hooks in a way a [[hooks.SessionStart]] table cannot extend: add a SessionStart hook running ${hookCommand(paths, 'codex', 'SessionStart')} by hand to have the briefing handed to Codex at every session start and after a compaction.`);
  }
  if (!parseTomlFile(out, file).ok && hook) {
    hook = false;
    notes.push(`${file} defines shell_environment_policy in a way a [shell_environment_policy.set] table cannot extend: add BASH_ENV = ${tomlString(path.join(paths.dist, 'agent-context-shell.sh'))} to its set by hand to have Codex's shell output offloaded.`);
    out = joined();
  }
  const check = parseTomlFile(out, file);
  if (!check.ok) return err({ file, message: `the set-up's lines would not fit in this file (${check.error.message}); nothing was changed.` });
  // Unchanged when our block is already there as it would be written.
  if (text !== undefined && blockRange(text) && withoutBlock(text, eolWas) === base && text === `${base}${eolWas ? eol : ''}${base.length > 0 ? eol : ''}${codexBlock(root, paths, hook, briefing, eol)}`) {
    return ok({ text, eolAdded: eolWas, notes });
  }
  return ok({ text: out, eolAdded, notes });
}

/** True when Codex's user config trusts `root` (or a folder above it). */
export function codexTrusts(userConfig: Table, root: string): boolean {
  const projects = userConfig.projects;
  if (!isTable(projects)) return false;
  for (let d = root; ; d = path.dirname(d)) {
    const p = projects[d];
    if (isTable(p) && p.trust_level === 'trusted') return true;
    if (path.dirname(d) === d) return false;
  }
}

/** Codex's home: $CODEX_HOME, else ~/.codex. */
export function codexHome(home: string, env: NodeJS.ProcessEnv = process.env): string {
  return env.CODEX_HOME ? path.resolve(env.CODEX_HOME) : path.join(home, '.codex');
}

async function plan(root: string, home: string, paths: SetupPaths | undefined, record?: SetupRecord): Promise<Result<SetupPlan>> {
  const file = path.join(root, CONFIG);
  const ct = await readText(file);
  if (!ct.ok) return ct;
  if (paths && trackedByGit(root, CONFIG) && !(ct.value ?? '').includes(BEGIN)) {
    return err({ file, message: `is committed to git, and the set-up writes machine-specific paths: add these lines to ${path.join(codexHome(home), 'config.toml')} (your own) instead, or untrack the file. Nothing was changed.\n${codexBlock(root, paths, true)}` });
  }
  const e = editCodexConfig(ct.value, file, root, paths, record);
  if (!e.ok) return e;
  const notes = [...e.value.notes];
  const keys = e.value.eolAdded ? [`${file}#${EOL_ADDED}`] : [];
  const edits: FileEdit[] = [{ file, before: ct.value, after: e.value.text }];
  if (paths) {
    const userFile = path.join(codexHome(home), 'config.toml');
    const ut = await readText(userFile);
    const uc = ut.ok ? parseTomlFile(ut.value, userFile) : undefined;
    if (!uc?.ok || !codexTrusts(uc.value, root)) {
      notes.push(`Codex reads ${CONFIG} only in a project it trusts: answer yes when Codex asks whether to trust ${root} (the set-up does not decide that for you).`);
    }
    if ((e.value.text ?? '').includes('[[hooks.SessionStart]]')) {
      notes.push('Codex runs a new hook only once you have reviewed it: trust the Agent Context SessionStart hook when Codex shows it as "New hook - review required" (the set-up does not decide that for you); until then Codex starts without the briefing.');
    }
    const shell = process.env.SHELL ?? '';
    if (shell && !/\/bash$/.test(shell)) {
      notes.push(`Codex runs commands in your login shell (${shell}); the shell capture comes in through BASH_ENV, which only bash reads, so Codex's shell output is left as it is. The MCP tools work.`);
    }
  }
  return ok({ edits, keys, local: [CONFIG], notes });
}

export const codexSetup: AgentSetup = { id: 'codex', label: agentName('codex'), binary: 'codex', homeFolder: '.codex', plan };
