/*
 * Runs the real Kilo Code CLI (`@kilocode/cli`, an opencode fork, installed by scripts/ensure-deps.sh;
 * AGENT_CONTEXT_KILO_BIN) against the fake Chat Completions API: the provider given through
 * KILO_CONFIG_CONTENT (merged with the project's kilo.json, which stays what a set-up under test
 * wrote), fresh XDG folders, no update, model-list or telemetry traffic. `kilo run --auto` approves
 * what the user's rules do not deny (without it, `kilo run` rejects every call its rules would ask
 * about and prints "permission requested: …").
 */
import * as path from 'node:path';
import { baseEnv, binFrom, runAgentProcess, tempDir, type AgentRun } from './agentProcess';
import { startFakeModel, type ScriptTurn } from './fakeModel';
import { askedPatterns, offlineEnv, opencodeConfig, seedOpencodePluginDeps, writeBashRules, xdgEnv } from './opencodeCli';
import { chatCompletions } from './protocols';
import type { HookDriver } from './agentScenarios';

/** Kilo offers a server named `agent-context` as `agent-context_<tool>`, as opencode does. */
export const kiloMcpTool = (name: string): string => `agent-context_${name}`;
/** Kilo's own shell tool. */
export const KILO_SHELL = 'bash';

export function kiloBin(): string {
  return binFrom('AGENT_CONTEXT_KILO_BIN', 'kilo');
}

/**
 * What Kilo's first start leaves in each config folder with a plugin in it (the project's .kilo/,
 * the user's ~/.config/kilo/) once it has installed its plugin package there in the background (npm,
 * from the registry): package.json and its lock naming @kilocode/plugin, and node_modules. Our
 * plugin imports nothing from that package, so the runs skip the download as a user's later starts do.
 */
export function seedKiloPluginDeps(dir: string): void {
  seedOpencodePluginDeps(dir, { '@kilocode/plugin': '7.7.7' });
}

export interface KiloRunOptions {
  workspace: string;
  script: readonly ScriptTurn[];
  home?: string;
  /** Add our MCP server to the config it is given (default true). */
  mcp?: boolean;
  /** `kilo run --auto` (default true): approve what the user's rules do not deny. */
  auto?: boolean;
  args?: string[];
  env?: Record<string, string>;
  timeoutMs?: number;
}

/** One conversation: `kilo run`, the model scripted by `script`. */
export async function runKilo(o: KiloRunOptions): Promise<AgentRun> {
  const api = await startFakeModel([chatCompletions], o.script);
  const home = o.home ?? tempDir('home-');
  const config = { ...opencodeConfig(api.url, { workspace: o.workspace, mcp: o.mcp }), $schema: 'https://app.kilo.ai/config.json' };
  const args = ['run', ...(o.auto === false ? [] : ['--auto']), ...(o.args ?? []), 'Work on the task in this workspace.'];
  const env = {
    ...baseEnv(home),
    ...xdgEnv(home),
    KILO_CONFIG_CONTENT: JSON.stringify(config),
    ...offlineEnv('KILO'),
    KILO_DISABLE_SESSION_INGEST: 'true',
    KILO_TELEMETRY_LEVEL: 'off',
    ...o.env,
  };
  return runAgentProcess({ bin: kiloBin(), args, cwd: o.workspace, env, home, api, timeoutMs: o.timeoutMs });
}

/**
 * One conversation with what `mcp.js --setup kilo` wrote (kilo.json's MCP server, the plugin in
 * .kilo/plugins/) and what the user has: with `allow`, permission rules in their own
 * ~/.config/kilo/kilo.json that allow only those commands in bash and `otherwise` (default deny)
 * every other one. With "ask", `kilo run` (without --auto) rejects what it would ask about and
 * prints "permission requested: bash (<patterns>)" (`asked`: those patterns, what an interactive
 * user would be asked about).
 */
export async function runKiloSetUp(o: { workspace: string; home: string; script: readonly ScriptTurn[]; allow?: readonly string[]; otherwise?: 'ask' | 'deny'; args?: string[] }): Promise<AgentRun & { asked?: string[] }> {
  if (o.allow) writeBashRules(path.join(o.home, '.config', 'kilo', 'kilo.json'), o.allow, o.otherwise);
  seedKiloPluginDeps(path.join(o.workspace, '.kilo'));
  seedKiloPluginDeps(path.join(o.home, '.config', 'kilo'));
  const run = await runKilo({ workspace: o.workspace, home: o.home, script: o.script, mcp: false, auto: o.otherwise !== 'ask', args: o.args });
  if (o.otherwise !== 'ask') return run;
  return { ...run, asked: askedPatterns(run, /permission requested: bash \(([^)]*)\)/g) };
}

/** Kilo Code for the shared scenarios (agentScenarios.ts). */
export const kiloDriver: HookDriver = {
  id: 'kilo',
  label: 'Kilo Code',
  mcpTool: kiloMcpTool,
  shellTool: KILO_SHELL,
  shellInput: (command: string): Record<string, unknown> => ({ command, description: 'Run the command' }),
  run: (o: { workspace: string; script: readonly ScriptTurn[] }): Promise<AgentRun> => runKilo(o),
  // bash's result is the output as it is (a trailing newline included).
  outputOf: (text) => text.replace(/\n$/, ''),
  runSetUp: (o) => runKiloSetUp(o),
};
