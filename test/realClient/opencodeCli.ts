/*
 * Runs the real opencode CLI (`opencode-ai`, installed by scripts/ensure-deps.sh;
 * AGENT_CONTEXT_OPENCODE_BIN) against the fake Chat Completions API: an openai-compatible provider
 * in the workspace's opencode.json, fresh XDG folders, no update or model-list fetches.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { baseEnv, binFrom, MCP_JS, runAgentProcess, tempDir, type AgentRun } from './agentProcess';
import { startFakeModel, type ScriptTurn } from './fakeModel';
import { chatCompletions } from './protocols';
import type { HookDriver } from './agentScenarios';

/** opencode offers a server named `agent-context` as `agent-context_<tool>`. */
export const opencodeMcpTool = (name: string): string => `agent-context_${name}`;
/** opencode's own shell tool. */
export const OPENCODE_SHELL = 'bash';

export interface OpencodeRunOptions {
  workspace: string;
  script: readonly ScriptTurn[];
  home?: string;
  /** Add our MCP server to opencode.json (default true). */
  mcp?: boolean;
  /** More opencode.json keys (merged at the top level). */
  config?: Record<string, unknown>;
  args?: string[];
  env?: Record<string, string>;
  timeoutMs?: number;
}

export function opencodeBin(): string {
  return binFrom('AGENT_CONTEXT_OPENCODE_BIN', 'opencode');
}

/**
 * The config for the fake provider, given to opencode through OPENCODE_CONFIG_CONTENT so that the
 * workspace's own opencode.json (what a set-up under test wrote) stays as it is and is merged in.
 */
export function opencodeConfig(url: string, o: { workspace: string; mcp?: boolean; config?: Record<string, unknown> }): Record<string, unknown> {
  return {
    $schema: 'https://opencode.ai/config.json',
    model: 'fake/fake-model',
    small_model: 'fake/fake-model',
    autoupdate: false,
    share: 'disabled',
    provider: {
      fake: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Fake',
        options: { baseURL: `${url}/v1`, apiKey: 'dummy' },
        models: { 'fake-model': { name: 'Fake Model', tool_call: true, limit: { context: 128000, output: 8000 } } },
      },
    },
    ...(o.mcp !== false ? { mcp: { 'agent-context': { type: 'local', command: [process.execPath, MCP_JS, '--root', o.workspace, '--allow-run'], enabled: true } } } : {}),
    ...o.config,
  };
}

/** Fresh XDG folders under `home` for opencode or its fork Kilo (`cache`: a shared cache folder instead). */
export function xdgEnv(home: string, cache?: string): Record<string, string> {
  const xdg = (name: string): string => {
    const d = path.join(home, name);
    fs.mkdirSync(d, { recursive: true });
    return d;
  };
  return { XDG_CONFIG_HOME: xdg('.config'), XDG_DATA_HOME: xdg('.local/share'), XDG_CACHE_HOME: cache ?? xdg('.cache'), XDG_STATE_HOME: xdg('.local/state') };
}

/** opencode's switches (Kilo's under its own prefix): no update, model-list, LSP download or share traffic. */
export function offlineEnv(prefix: 'OPENCODE' | 'KILO'): Record<string, string> {
  return Object.fromEntries(['AUTOUPDATE', 'MODELS_FETCH', 'LSP_DOWNLOAD', 'SHARE'].map((k) => [`${prefix}_DISABLE_${k}`, 'true']));
}

/** One conversation: `opencode run`, the model scripted by `script`. */
export async function runOpencode(o: OpencodeRunOptions): Promise<AgentRun> {
  const api = await startFakeModel([chatCompletions], o.script);
  const home = o.home ?? tempDir('home-');
  const args = ['run', ...(o.args ?? []), 'Work on the task in this workspace.'];
  const env = {
    ...baseEnv(home),
    ...xdgEnv(home, process.env.AGENT_CONTEXT_OPENCODE_CACHE),
    OPENCODE_CONFIG_CONTENT: JSON.stringify(opencodeConfig(api.url, o)),
    ...offlineEnv('OPENCODE'),
    ...o.env,
  };
  return runAgentProcess({ bin: opencodeBin(), args, cwd: o.workspace, env, home, api, timeoutMs: o.timeoutMs });
}

/**
 * One conversation with what `mcp.js --setup opencode` wrote (opencode.json's MCP server, the plugin
 * in .opencode/plugins/) and what the user has: with `allow`, permission rules in their own
 * ~/.config/opencode/opencode.json that allow only those commands in bash and `otherwise` (default
 * deny) every other one. With "ask", `opencode run` rejects what it would ask about, prints
 * "permission requested: bash (<patterns>); auto-rejecting" (`asked` lists those patterns: what an
 * interactive user would be asked about) and ends the session there.
 */
/**
 * What opencode's first start leaves in each config folder it finds (the project's .opencode/, the
 * user's ~/.config/opencode/) once it has installed its plugin package there (npm: 10–15 s each and
 * the registry, before the session starts): package.json and package-lock.json naming
 * @opencode-ai/plugin and a node_modules folder, which its check (Npm.install: node_modules present,
 * every dependency in the lock) takes as installed. Our plugin imports nothing from that package, so
 * the runs skip the download as a user's later starts do.
 */
export function seedOpencodePluginDeps(dir: string, deps: Record<string, string> = { '@opencode-ai/plugin': '1.18.33' }): void {
  fs.mkdirSync(path.join(dir, 'node_modules'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ dependencies: deps }, null, 2));
  fs.writeFileSync(path.join(dir, 'package-lock.json'), JSON.stringify({ lockfileVersion: 3, packages: { '': { dependencies: deps } } }, null, 2));
}

/** The user's own bash permission rules (opencode's and Kilo's shape) in `file`: only `allow` allowed, every other command `otherwise` (default deny). */
export function writeBashRules(file: string, allow: readonly string[], otherwise: 'ask' | 'deny' = 'deny'): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const bash: Record<string, string> = { '*': otherwise };
  for (const a of allow) bash[`${a}*`] = 'allow';
  fs.writeFileSync(file, JSON.stringify({ permission: { bash } }, null, 2));
}

/** The patterns a run printed it would have asked the user about (`line` captures them). */
export function askedPatterns(run: AgentRun, line: RegExp): string[] {
  return [...`${run.stdout}${run.stderr}`.matchAll(line)].map((m) => m[1]);
}

export async function runOpencodeSetUp(o: { workspace: string; home: string; script: readonly ScriptTurn[]; allow?: readonly string[]; otherwise?: 'ask' | 'deny'; args?: string[] }): Promise<AgentRun & { asked?: string[] }> {
  if (o.allow) writeBashRules(path.join(o.home, '.config', 'opencode', 'opencode.json'), o.allow, o.otherwise);
  seedOpencodePluginDeps(path.join(o.workspace, '.opencode'));
  seedOpencodePluginDeps(path.join(o.home, '.config', 'opencode'));
  const run = await runOpencode({ workspace: o.workspace, home: o.home, script: o.script, mcp: false, args: o.args });
  if (o.otherwise !== 'ask') return run;
  // What opencode run prints goes to stderr.
  return { ...run, asked: askedPatterns(run, /permission requested: bash \(([^)]*)\); auto-rejecting/g) };
}

/** opencode for the shared scenarios (agentScenarios.ts). */
export const opencodeDriver: HookDriver = {
  id: 'opencode',
  label: 'opencode',
  mcpTool: opencodeMcpTool,
  shellTool: OPENCODE_SHELL,
  shellInput: (command: string): Record<string, unknown> => ({ command, description: 'Run the command' }),
  run: (o: { workspace: string; script: readonly ScriptTurn[] }): Promise<AgentRun> => runOpencode(o),
  // bash's result is the output as it is (a trailing newline included).
  outputOf: (text) => text.replace(/\n$/, ''),
  runSetUp: (o) => runOpencodeSetUp(o),
};
