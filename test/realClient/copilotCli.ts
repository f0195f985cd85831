/*
 * Runs the real GitHub Copilot CLI (`@github/copilot`, installed by scripts/ensure-deps.sh;
 * AGENT_CONTEXT_COPILOT_BIN) offline against the fake model: Anthropic Messages
 * (COPILOT_PROVIDER_TYPE=anthropic) by default, or Chat Completions. A fresh COPILOT_HOME whose
 * mcp-config.json holds our MCP server unless the test brings its own set-up.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { baseEnv, binFrom, MCP_JS, runAgentProcess, tempDir, type AgentRun } from './agentProcess';
import { startFakeModel, type ScriptTurn } from './fakeModel';
import { parseJsonObject } from '../../src/core/setup/agents/configFiles';
import { anthropicCountTokens, anthropicMessages, chatCompletions } from './protocols';
import type { HookDriver } from './agentScenarios';

/** Copilot CLI offers a server named `agent-context` as `agent-context-<tool>`. */
export const copilotMcpTool = (name: string): string => `agent-context-${name}`;
/** Copilot CLI's own shell tool. */
export const COPILOT_SHELL = 'bash';

export interface CopilotRunOptions {
  workspace: string;
  script: readonly ScriptTurn[];
  home?: string;
  /** Add our MCP server to $COPILOT_HOME/mcp-config.json (default true). */
  mcp?: boolean;
  /** The wire protocol (default anthropic). */
  wire?: 'anthropic' | 'chat';
  /** Arguments before -p (default --allow-all-tools). */
  args?: string[];
  env?: Record<string, string>;
  timeoutMs?: number;
}

export function copilotBin(): string {
  return binFrom('AGENT_CONTEXT_COPILOT_BIN', 'copilot-cli');
}

/** One conversation: `copilot -p … -s`, the model scripted by `script`. */
export async function runCopilot(o: CopilotRunOptions): Promise<AgentRun> {
  const wire = o.wire ?? 'anthropic';
  const api = await startFakeModel(wire === 'anthropic' ? [anthropicCountTokens, anthropicMessages] : [chatCompletions], o.script);
  const home = o.home ?? tempDir('home-');
  const copilotHome = path.join(home, '.copilot');
  fs.mkdirSync(copilotHome, { recursive: true });
  if (o.mcp !== false) {
    const file = path.join(copilotHome, 'mcp-config.json');
    const before = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as { mcpServers?: object }) : {};
    const servers = { ...before.mcpServers, 'agent-context': { type: 'local', command: process.execPath, args: [MCP_JS, '--root', o.workspace, '--allow-run'], tools: ['*'] } };
    fs.writeFileSync(file, JSON.stringify({ ...before, mcpServers: servers }, null, 2));
  }
  const args = [...(o.args ?? ['--allow-all-tools']), '--no-auto-update', '-s', '-p', 'Work on the task in this workspace.'];
  const env: Record<string, string> = {
    ...baseEnv(home),
    COPILOT_HOME: copilotHome,
    COPILOT_OFFLINE: 'true',
    COPILOT_PROVIDER_BASE_URL: wire === 'anthropic' ? api.url : `${api.url}/v1`,
    COPILOT_PROVIDER_API_KEY: 'dummy',
    COPILOT_MODEL: 'fake-model',
    ...(wire === 'anthropic' ? { COPILOT_PROVIDER_TYPE: 'anthropic' } : {}),
    // The CLI unpacks ~235 MB on first run into $XDG_CACHE_HOME/copilot: ensure-deps.sh did it once in the cache.
    ...(process.env.AGENT_CONTEXT_COPILOT_CACHE ? { XDG_CACHE_HOME: process.env.AGENT_CONTEXT_COPILOT_CACHE } : {}),
    ...o.env,
  };
  return runAgentProcess({ bin: copilotBin(), args, cwd: o.workspace, env, home, api, timeoutMs: o.timeoutMs });
}

/**
 * One conversation with what `mcp.js --setup copilot-cli` wrote (.github/mcp.json in the project,
 * the hook in $COPILOT_HOME/settings.json) and what the user has: Copilot trusts the folder
 * (config.json trustedFolders, its first-start question) and, with `allow`, lets only those shell
 * commands and our MCP server run unasked (--allow-tool; in -p anything else is refused, there is
 * no one to ask); without it, --allow-all-tools. `plan`: in plan mode (--plan).
 */
export async function runCopilotSetUp(o: { workspace: string; home: string; script: readonly ScriptTurn[]; allow?: readonly string[]; plan?: boolean }): Promise<AgentRun> {
  const copilotHome = path.join(o.home, '.copilot');
  fs.mkdirSync(copilotHome, { recursive: true });
  const config = path.join(copilotHome, 'config.json');
  // After a session Copilot has rewritten the file with a comment at its top (JSON with comments).
  const read = parseJsonObject(fs.existsSync(config) ? fs.readFileSync(config, 'utf8') : undefined, config, true);
  if (!read.ok) throw new Error(`${config}: ${read.error.message}`);
  fs.writeFileSync(config, JSON.stringify({ ...read.value, trustedFolders: [o.workspace] }));
  // Copilot's shell rules name a command, not a prefix of its words: `shell(bash build.sh)` allows
  // nothing (checked), so "bash build.sh" becomes shell(bash), the closest rule a user can write.
  const rule = (a: string): string => `shell(${a.split(' ')[0]})`;
  const args = o.allow ? [...o.allow.flatMap((a) => ['--allow-tool', rule(a)]), '--allow-tool', 'agent-context'] : ['--allow-all-tools'];
  // --plan: plan mode, whose prompt says to save the plan to $COPILOT_HOME/session-state/<id>/plan.md.
  if (o.plan) args.push('--plan');
  return runCopilot({ workspace: o.workspace, home: o.home, script: o.script, mcp: false, args });
}

/** Copilot CLI for the shared scenarios (agentScenarios.ts). */
export const copilotDriver: HookDriver = {
  id: 'copilot-cli',
  label: 'GitHub Copilot CLI',
  mcpTool: copilotMcpTool,
  shellTool: COPILOT_SHELL,
  shellInput: (command: string): Record<string, unknown> => ({ command, description: 'Run the command' }),
  run: (o: { workspace: string; script: readonly ScriptTurn[] }): Promise<AgentRun> => runCopilot(o),
  // bash's result: the output, then "<shellId: N completed with exit code N>".
  outputOf: (text) => text.replace(/\n?<shellId: [^>]*>\s*$/, ''),
  // Copilot CLI masks a GITHUB_TOKEN=… value itself (as "******"); the AWS and Stripe keys it passes on.
  ownMasking: 1,
  runSetUp: (o) => runCopilotSetUp(o),
};
