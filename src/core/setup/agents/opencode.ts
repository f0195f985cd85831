/*
 * opencode's set-up, and that of its fork Kilo Code (kilo.ts names what differs: the config file's
 * name, the plugin folder, the agent's id), in the project (both files git-excluded: they hold
 * machine-specific paths; a committed one is refused, with the lines to add by hand):
 *   - the project's opencode config (<root>/opencode.jsonc when there is one, else opencode.json),
 *     mcp["agent-context"]: our MCP server for this folder (opencode offers its tools as
 *     agent-context_<tool>). Without --allow-run: opencode lets MCP tools run unasked unless the
 *     user's permission rules say otherwise, and its `permission.bash` rules do not reach them, so
 *     agentContext_run runs only what run.allowList in .agent/config.yaml allows (the note says how
 *     to change that);
 *   - .opencode/plugins/agent-context.js: a plugin of three lines that loads dist/opencode-plugin.mjs,
 *     whose `tool.execute.after` replaces a large `bash` result by our reference and masks secrets
 *     (core/hooks/opencodeHook.ts says why after the tool: the command, opencode's permission check on
 *     it and what the user is asked about stay the user's own).
 * No plan folder: opencode writes its plans to <worktree>/.opencode/plans/ and has no setting to move
 * them; the Plan view, the briefing and agentContext_plan read them there, read-only (planFiles.ts).
 */
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { err, ok, type Result } from '../../result';
import { type AgentSetup, type SetupPlan, type SetupRecord } from './agentSetup';
import { MCP_SERVER_NAME } from './claudeCode';
import { jsonSet, jsonUnset, mcpCommand, missingPrefix, parseJsonObject, readText, trackedByGit, valueAt, type FileEdit, type SetupPaths } from './configFiles';
import { agentName } from '../../hooks/agentNames';

/** What tells opencode and its forks apart in a set-up. */
export interface OpencodeFamily {
  id: string;
  binary: string;
  /** Its config folder under HOME. */
  homeFolder: string;
  /** The project config names it reads, in the order the set-up looks for one; the last is created. */
  configs: readonly string[];
  /** The `$schema` line of a config the set-up creates. */
  schema: string;
  /** The plugin file, relative to the workspace folder. */
  plugin: string;
  /** The id the plugin records the agent's commands under (none: opencode, the plugin's default). */
  pluginAgent?: string;
  /** Where the agent keeps its plans, for the set-up's note. */
  plansNote: string;
}

/** opencode. */
const OPENCODE: OpencodeFamily = {
  id: 'opencode',
  binary: 'opencode',
  homeFolder: path.join('.config', 'opencode'),
  configs: ['opencode.jsonc', 'opencode.json'],
  schema: 'https://opencode.ai/config.json',
  plugin: '.opencode/plugins/agent-context.js',
  plansNote: 'opencode writes its plans to .opencode/plans/ (no setting moves them): the Plan view, the briefing and agentContext_plan show them there, read-only.',
};

/** The plugin file, relative to the workspace folder. */
export const OPENCODE_PLUGIN = OPENCODE.plugin;
const SERVER_AT = ['mcp', MCP_SERVER_NAME];
/** The plugin file's first line: how an undo, or a second set-up, knows the file is ours. */
const pluginHead = (f: OpencodeFamily): string => `// Agent Context (mcp.js --setup ${f.id}; \`--undo ${f.id}\` removes this file):`;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);
const oursServer = (v: unknown): boolean => isObject(v) && Array.isArray(v.command) && v.command.some((a) => typeof a === 'string' && /(?:^|[\\/])mcp\.js$/.test(a));

/** Our MCP server entry in opencode's config. */
export function opencodeServerEntry(root: string, paths: SetupPaths): Json {
  const { command, args } = mcpCommand(root, paths, false);
  return { type: 'local', command: [command, ...args], enabled: true };
}

/** The plugin file the set-up writes: it names where Node and dist/opencode-plugin.mjs are (and the agent, for a fork), nothing else. */
export function opencodePluginText(paths: SetupPaths, f: OpencodeFamily = OPENCODE): string {
  const agent = f.pluginAgent ? `, agent: ${JSON.stringify(f.pluginAgent)}` : '';
  return [
    pluginHead(f),
    '// large bash output goes to .agent/scratch/tool_outputs/ (the model reads a reference with every error',
    `// line), secrets are masked; the command, its permission check and the prompt stay ${f.id}'s own.`,
    `import { agentContextPlugin } from ${JSON.stringify(pathToFileURL(path.join(paths.dist, 'opencode-plugin.mjs')).href)};`,
    `export const AgentContext = agentContextPlugin({ node: ${JSON.stringify(paths.node)}, dist: ${JSON.stringify(paths.dist)}${agent} });`,
    '',
  ].join('\n');
}

/**
 * The edited opencode config: our server in place (`paths`), or taken out (`created`: the key path
 * prefix the set-up created, removed when left empty). Returns the text and the prefix it created.
 */
export function editOpencodeConfig(text: string | undefined, file: string, root: string, paths: SetupPaths | undefined, created?: readonly string[]): Result<{ text: string | undefined; created?: string[] }> {
  // opencode reads both names as JSON with comments.
  const parsed = parseJsonObject(text, file, true);
  if (!parsed.ok) return parsed;
  const s = parsed.value;
  if (s.mcp !== undefined && !isObject(s.mcp)) return err({ file, message: '"mcp" is not an object; fix it, then run the set-up again. Nothing was changed.' });
  const have = valueAt(s, SERVER_AT);
  if (!paths) return ok({ text: have !== undefined && oursServer(have) ? jsonUnset(text, file, SERVER_AT, created, true) : text });
  if (have !== undefined && !oursServer(have)) {
    return err({ file, message: `already configures an MCP server named "${MCP_SERVER_NAME}" of its own; remove it (or rename it), then run the set-up again. Nothing was changed.` });
  }
  const entry = opencodeServerEntry(root, paths);
  if (JSON.stringify(have) === JSON.stringify(entry)) return ok({ text });
  return ok({ text: jsonSet(text, SERVER_AT, entry), created: missingPrefix(s, SERVER_AT)?.map(String) });
}

/** The project config the set-up edits: the first of the family's names present (opencode.jsonc, then opencode.json), else the last, created. */
async function configFile(root: string, f: OpencodeFamily): Promise<Result<{ file: string; rel: string; text: string | undefined }>> {
  for (const rel of f.configs) {
    const file = path.join(root, rel);
    const r = await readText(file);
    if (!r.ok) return r;
    if (r.value !== undefined) return ok({ file, rel, text: r.value });
  }
  const rel = f.configs[f.configs.length - 1];
  return ok({ file: path.join(root, rel), rel, text: undefined });
}

/** The plugin file's edit: ours written (`paths`), or removed when it is ours (undo). */
function pluginEdit(file: string, text: string | undefined, paths: SetupPaths | undefined, f: OpencodeFamily): FileEdit {
  const ours = text?.startsWith(pluginHead(f)) ?? false;
  return { file, before: text, after: paths ? opencodePluginText(paths, f) : ours ? undefined : text };
}

async function setUp(root: string, paths: SetupPaths, f: OpencodeFamily): Promise<Result<SetupPlan>> {
  const c = await configFile(root, f);
  if (!c.ok) return c;
  const { file, rel } = c.value;
  const pluginFile = path.join(root, f.plugin);
  const pluginRel = f.plugin;
  const pt = await readText(pluginFile);
  if (!pt.ok) return pt;
  const current = parseJsonObject(c.value.text, file, true);
  if (current.ok && !oursServer(valueAt(current.value, SERVER_AT)) && trackedByGit(root, rel)) {
    const lines = JSON.stringify({ mcp: { [MCP_SERVER_NAME]: opencodeServerEntry(root, paths) } }, null, 2);
    return err({ file, message: `is committed to git, and the set-up writes machine-specific paths: add this to your own ~/${f.homeFolder}/${f.configs[f.configs.length - 1]} (the server then serves this folder in every project) instead, or untrack the file. Nothing was changed.\n${lines}` });
  }
  if (pt.value !== undefined && !pt.value.startsWith(pluginHead(f))) return err({ file: pluginFile, message: 'is a plugin of your own, not the set-up\'s; move it away, then run the set-up again. Nothing was changed.' });
  if (pt.value !== undefined && pt.value !== opencodePluginText(paths, f) && trackedByGit(root, pluginRel)) {
    return err({ file: pluginFile, message: 'is committed to git, and the set-up writes machine-specific paths into it: untrack it, then run the set-up again. Nothing was changed.' });
  }
  // A new file is written whole, with the $schema line opencode itself adds to a config without one.
  const e = c.value.text === undefined
    ? ok({ text: `${JSON.stringify({ $schema: f.schema, mcp: { [MCP_SERVER_NAME]: opencodeServerEntry(root, paths) } }, null, 2)}\n`, created: ['mcp'] })
    : editOpencodeConfig(c.value.text, file, root, paths);
  if (!e.ok) return e;
  // Path steps joined by NUL (a server name may hold a slash).
  const keys = e.value.created ? [`${file}#${e.value.created.join('\0')}`] : [];
  const edits: FileEdit[] = [{ file, before: c.value.text, after: e.value.text }, pluginEdit(pluginFile, pt.value, paths, f)];
  const folder = path.posix.dirname(path.posix.dirname(pluginRel));
  const notes = [
    `${f.id} loads ${pluginRel} when it starts, and the first time installs its plugin package into ${folder}/ (package.json, node_modules; its own ${folder}/.gitignore keeps them out of git).`,
    f.plansNote,
    `agentContext_run runs only the commands run.allowList in .agent/config.yaml allows: ${f.id} runs MCP tools without asking unless your permission rules say otherwise, and its permission.bash rules do not reach them. If your rules ask before MCP tools (e.g. "agent-context_*": "ask"), add "--allow-run" to the command in ${rel}.`,
  ];
  return ok({ edits, keys, local: [rel, pluginRel], notes });
}

/** The undo: our server out of either config file, and our plugin file. */
async function undo(root: string, record: SetupRecord | undefined, f: OpencodeFamily): Promise<Result<SetupPlan>> {
  const edits: (FileEdit | undefined)[] = [];
  for (const rel of f.configs) {
    const file = path.join(root, rel);
    const t = await readText(file);
    if (!t.ok) return t;
    if (t.value === undefined) continue;
    const prefix = record?.keys.filter((k) => k.startsWith(`${file}#`)).map((k) => k.slice(file.length + 1).split('\0'))[0];
    const e = editOpencodeConfig(t.value, file, root, undefined, prefix);
    if (!e.ok) return e;
    let after = e.value.text;
    // A file the set-up created goes when nothing but $schema is left in it.
    const rest = parseJsonObject(after, file, true);
    if (record?.created.includes(file) && rest.ok && Object.keys(rest.value).every((k) => k === '$schema')) after = undefined;
    edits.push({ file, before: t.value, after });
  }
  const pluginFile = path.join(root, f.plugin);
  const pt = await readText(pluginFile);
  if (!pt.ok) return pt;
  if (pt.value !== undefined) edits.push(pluginEdit(pluginFile, pt.value, undefined, f));
  return ok({ edits, keys: [], notes: [] });
}

/** The set-up of opencode or one of its forks. */
export function opencodeFamilySetup(f: OpencodeFamily): AgentSetup {
  return {
    id: f.id,
    label: agentName(f.id),
    binary: f.binary,
    homeFolder: f.homeFolder,
    plan: (root, _home, paths, record) => (paths ? setUp(root, paths, f) : undo(root, record, f)),
  };
}

export const opencodeSetup: AgentSetup = opencodeFamilySetup(OPENCODE);
