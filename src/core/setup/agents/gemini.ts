/*
 * Gemini CLI's set-up, in the project's Gemini settings <root>/.gemini/settings.json (git-excluded
 * when the set-up creates or first edits it: it holds machine-specific paths; a committed one is
 * refused, with the lines to add by hand):
 *   - mcpServers["agent-context"]: our MCP server for this folder, without `trust` (Gemini keeps
 *     asking before our tools as before any other: the user's confirmation is not skipped);
 *   - hooks.AfterTool (matcher run_shell_command): agent-hook.sh gemini AfterTool, which replaces a
 *     large result by our reference and masks secrets (core/hooks/geminiHook.ts says why an AfterTool
 *     hook and not BASH_ENV or a BeforeTool rewrite: the command is never touched, so Gemini's
 *     policy and its confirmation see the user's own command).
 *   - hooks.SessionStart: agent-hook.sh gemini SessionStart, the briefing in front of the first
 *     prompt of a session (startup, resume, /clear; core/hooks/sessionStart.ts). Gemini has no hook
 *     after a compression (PreCompress is advisory), so nothing is added there.
 *   - general.plan.directory → .agent/plans when the user has none: Gemini's Plan Mode writes its
 *     plans where the Plan view, the briefing and the other agents read them. Plan Mode may write
 *     only .md files inside its plans directory (write_file checks that itself), and its built-in
 *     policy allows those writes by absolute path only for its own temp folder: a plan written as
 *     <root>/.agent/plans/x.md would be refused. So the set-up also adds a user-tier policy rule
 *     (~/.gemini/policies/agent-context-plans-<id>.toml, one file per project: workspace policies
 *     are switched off in Gemini 0.61) allowing write_file/replace in Plan Mode for exactly
 *     <root>/.agent/plans/<name>.md: what Gemini allows for its own plans folder, nothing more.
 */
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { err, ok, type Result } from '../../result';
import { type AgentSetup, type SetupPlan, type SetupRecord } from './agentSetup';
import { CLAUDE_PLANS_DIR, MCP_SERVER_NAME } from './claudeCode';
import { checkHookSettings, createdPrefix, type FileEdit, foreignServerMessage, hookCommand, jsonSet, jsonUnset, mcpCommand, missingPrefix, parseJsonObject, putServerAndHooks, readText, removeServerAndHooks, serverEntryKind, type SetupPaths, trackedByGit, valueAt } from './configFiles';
import { agentName } from '../../hooks/agentNames';

/** The project's Gemini settings, relative to the workspace folder. */
const SETTINGS = '.gemini/settings.json';
const EVENT = 'AfterTool';
const SESSION_START = 'SessionStart';
const MATCHER = 'run_shell_command';
const PLAN_AT = ['general', 'plan', 'directory'];
/** The first line of our policy file: how an undo without a record knows the file is ours. */
const POLICY_HEAD = '# Agent Context (mcp.js --setup gemini; --undo gemini removes this file):';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * Our AfterTool entry. Sourced (`.`): Gemini CLI runs each hook command with `bash -c` on Linux and
 * macOS (0.61.0's getShellConfiguration), so that bash reads agent-hook.sh in instead of starting a
 * second one for every shell call; the command line is ours alone, so the script's `exit` ends nothing else.
 */
export function geminiHookEntry(paths: SetupPaths): Json {
  return { matcher: MATCHER, hooks: [{ name: 'agent-context', type: 'command', command: hookCommand(paths, 'gemini', EVENT, true) }] };
}

/** Our SessionStart entry: the briefing in front of the first prompt of a session (startup, resume, /clear). */
export function geminiSessionStartEntry(paths: SetupPaths): Json {
  return { hooks: [{ name: 'agent-context-briefing', type: 'command', command: hookCommand(paths, 'gemini', SESSION_START, true) }] };
}

/** Each hook event of ours, with its entry. */
const ourHooks = (paths: SetupPaths): [string, Json][] => [[EVENT, geminiHookEntry(paths)], [SESSION_START, geminiSessionStartEntry(paths)]];

/** Our MCP server entry (`allowRun` false: the user took --allow-run out of it, and it stays out). */
export function geminiServerEntry(root: string, paths: SetupPaths, allowRun = true): Json {
  // --allow-run: Gemini asks before each call of an untrusted server's tools, so its own
  // confirmation is the gate for agentContext_run, as it is for run_shell_command.
  return { ...mcpCommand(root, paths, allowRun) };
}

/** The keys of a server entry the set-up writes. */
const SERVER_KEYS = ['command', 'args'];

/**
 * The edited settings text: our server and AfterTool hook in place (`paths`), or taken out (undo;
 * `created` lists the key paths the set-up created, joined by '/', to remove when left empty).
 * Returns the text and the key paths created.
 */
export function editGeminiSettings(text: string | undefined, file: string, root: string, paths: SetupPaths | undefined, created: readonly string[] = []): Result<{ text: string | undefined; created: string[]; notes: string[] }> {
  const parsed = parseJsonObject(text, file, true);
  if (!parsed.ok) return parsed;
  const s = parsed.value;
  const general = s.general;
  if (general !== undefined && !isObject(general)) return err({ file, message: '"general" is not an object; fix it, then run the set-up again. Nothing was changed.' });
  if (isObject(general) && general.plan !== undefined && !isObject(general.plan)) return err({ file, message: '"general.plan" is not an object; fix it, then run the set-up again. Nothing was changed.' });
  const notes: string[] = [];
  const planPrefix = createdPrefix(created, PLAN_AT);
  const checked = checkHookSettings(s, file, [EVENT, SESSION_START]);
  if (!checked.ok) return checked;
  const serverAt = ['mcpServers', MCP_SERVER_NAME];
  if (!paths) {
    let out = removeServerAndHooks(text, file, s, MCP_SERVER_NAME, SERVER_KEYS, 'gemini', [EVENT, SESSION_START], created);
    // The plan directory only when this set-up gave it its value, and it still has it.
    if (planPrefix && valueAt(s, PLAN_AT) === CLAUDE_PLANS_DIR) out = jsonUnset(out, file, PLAN_AT, planPrefix, true);
    return ok({ text: out, created: [], notes });
  }
  const kind = serverEntryKind(valueAt(s, serverAt), SERVER_KEYS);
  if (kind.kind === 'foreign') return err({ file, message: `"mcpServers" ${foreignServerMessage(MCP_SERVER_NAME)}` });
  const put = putServerAndHooks(text, s, MCP_SERVER_NAME, geminiServerEntry(root, paths, kind.allowRun), 'gemini', ourHooks(paths));
  let out = put.text;
  const added = put.created;
  const plan = valueAt(s, PLAN_AT);
  if (plan === undefined) {
    const miss = missingPrefix(s, PLAN_AT)!;
    // The objects on the way go in with the value (one edit, formatted like the file).
    out = jsonSet(out, miss, PLAN_AT.slice(miss.length).reduceRight<unknown>((v, k) => ({ [k]: v }), CLAUDE_PLANS_DIR));
    added.push(miss.join('/'));
  } else if (plan !== CLAUDE_PLANS_DIR) {
    notes.push(`Kept your general.plan.directory (${String(plan)}) in ${file}: Gemini's plans stay there, not in ${CLAUDE_PLANS_DIR}.`);
  }
  return ok({ text: out, created: added, notes });
}

/** Where the Plan Mode rule for `root` lives: Gemini's user policies (GEMINI_CLI_HOME moves its home), one file per project. */
export function geminiPlanPolicyFile(root: string, home: string): string {
  const id = createHash('sha256').update(root).digest('hex').slice(0, 12);
  return path.join(process.env.GEMINI_CLI_HOME || home, '.gemini', 'policies', `agent-context-plans-${id}.toml`);
}

/**
 * The policy rule letting Plan Mode write <root>/.agent/plans/<name>.md by absolute path (Gemini's
 * built-in rules do that for its own temp plans folder only; a relative name works either way).
 * write_file still refuses any path outside the plans directory in Plan Mode.
 */
export function geminiPlanPolicy(root: string): string {
  const dir = JSON.stringify(path.join(root, ...CLAUDE_PLANS_DIR.split('/'))).slice(1, -1);
  const esc = dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // Gemini matches argsPattern against the arguments as JSON, each key between NUL characters.
  const pattern = `\\x00"file_path":"${esc}[\\\\/]+[\\w-]+\\.md"\\x00`;
  return [
    `${POLICY_HEAD}`,
    `# lets Gemini's Plan Mode write its plans into ${JSON.stringify(path.join(root, CLAUDE_PLANS_DIR))} (general.plan.directory there),`,
    '# as its built-in rules do for its own temp plans folder.',
    '[[rule]]',
    'toolName = ["write_file", "replace"]',
    'decision = "allow"',
    'priority = 70',
    'modes = ["plan"]',
    `argsPattern = ${JSON.stringify(pattern)}`,
    '',
  ].join('\n');
}

async function plan(root: string, home: string, paths: SetupPaths | undefined, record?: SetupRecord): Promise<Result<SetupPlan>> {
  const file = path.join(root, SETTINGS);
  const st = await readText(file);
  if (!st.ok) return st;
  const prior = (record?.keys ?? []).filter((k) => k.startsWith(`${file}#`)).map((k) => k.slice(file.length + 1));
  if (paths && trackedByGit(root, SETTINGS) && !(st.value ?? '').includes('agent-hook.sh gemini')) {
    const lines = JSON.stringify({ mcpServers: { [MCP_SERVER_NAME]: geminiServerEntry(root, paths) }, hooks: Object.fromEntries(ourHooks(paths).map(([ev, entry]) => [ev, [entry]])) }, null, 2);
    return err({ file, message: `is committed to git, and the set-up writes machine-specific paths: untrack it, or merge these entries into it by hand ("general": { "plan": { "directory": "${CLAUDE_PLANS_DIR}" } } has none and can be committed). Nothing was changed.\n${lines}` });
  }
  const e = editGeminiSettings(st.value, file, root, paths, prior);
  if (!e.ok) return e;
  const keys = e.value.created.map((k) => `${file}#${k}`);
  const after = e.value.text;
  const edits: FileEdit[] = [{ file, before: st.value, after }];
  const notes: string[] = [];
  if (paths) notes.push(`Gemini CLI reads ${SETTINGS} only in a folder it trusts, and names the new hooks (AfterTool, SessionStart) in a warning the first time it runs them.`);
  notes.push(...e.value.notes);
  // The Plan Mode rule, while the plan directory is .agent/plans (the user's own value too).
  const policyFile = geminiPlanPolicyFile(root, home);
  const pt = await readText(policyFile);
  if (!pt.ok) return pt;
  const planDir = after === undefined ? undefined : valueAt((parseJsonObject(after, file, true) as { ok: true; value: Json }).value, PLAN_AT);
  if (paths && planDir === CLAUDE_PLANS_DIR) {
    if (pt.value !== undefined && !pt.value.startsWith(POLICY_HEAD)) {
      notes.push(`${policyFile} is not the set-up's: left as it is; Gemini's Plan Mode may then write plans in ${CLAUDE_PLANS_DIR} by file name only.`);
    } else {
      edits.push({ file: policyFile, before: pt.value, after: geminiPlanPolicy(root) });
    }
  } else if (pt.value?.startsWith(POLICY_HEAD) && (!paths || planDir !== CLAUDE_PLANS_DIR)) {
    edits.push({ file: policyFile, before: pt.value, after: undefined });
  }
  return ok({ edits, keys, local: [SETTINGS], notes });
}

export const geminiSetup: AgentSetup = { id: 'gemini', label: agentName('gemini'), binary: 'gemini', homeFolder: '.gemini', plan };
