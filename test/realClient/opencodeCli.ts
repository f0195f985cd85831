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

/** One conversation: `opencode run`, the model scripted by `script`. */
export async function runOpencode(o: OpencodeRunOptions): Promise<AgentRun> {
  const api = await startFakeModel([chatCompletions], o.script);
  const home = o.home ?? tempDir('home-');
  const xdg = (name: string): string => {
    const d = path.join(home, name);
    fs.mkdirSync(d, { recursive: true });
    return d;
  };
  const args = ['run', ...(o.args ?? []), 'Work on the task in this workspace.'];
  const env = {
    ...baseEnv(home),
    XDG_CONFIG_HOME: xdg('.config'),
    XDG_DATA_HOME: xdg('.local/share'),
    XDG_CACHE_HOME: process.env.AGENT_CONTEXT_OPENCODE_CACHE ?? xdg('.cache'),
    XDG_STATE_HOME: xdg('.local/state'),
    OPENCODE_CONFIG_CONTENT: JSON.stringify(opencodeConfig(api.url, o)),
    OPENCODE_DISABLE_AUTOUPDATE: 'true',
    OPENCODE_DISABLE_MODELS_FETCH: 'true',
    OPENCODE_DISABLE_LSP_DOWNLOAD: 'true',
    OPENCODE_DISABLE_SHARE: 'true',
    ...o.env,
  };
  return runAgentProcess({ bin: opencodeBin(), args, cwd: o.workspace, env, home, api, timeoutMs: o.timeoutMs });
}

/** opencode for the shared scenarios (agentScenarios.ts). */
export const opencodeDriver = {
  id: 'opencode',
  label: 'opencode',
  mcpTool: opencodeMcpTool,
  shellTool: OPENCODE_SHELL,
  shellInput: (command: string): Record<string, unknown> => ({ command, description: 'Run the command' }),
  run: (o: { workspace: string; script: readonly ScriptTurn[] }): Promise<AgentRun> => runOpencode(o),
};
