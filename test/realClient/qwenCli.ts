/*
 * Runs the real Qwen Code CLI (`@qwen-code/qwen-code`, a Gemini CLI fork, installed by
 * scripts/ensure-deps.sh; AGENT_CONTEXT_QWEN_BIN) against the fake Chat Completions API: a fresh
 * HOME whose ~/.qwen/settings.json selects OpenAI-compatible auth and, unless the test brings its
 * own set-up, our MCP server (alwaysLoadTools: else Qwen offers MCP tools behind its ToolSearch).
 * Qwen Code needs Node ≥ 22: it runs with the Node 24 ensure-deps installs (AGENT_CONTEXT_NODE24_DIR
 * first on its PATH; its launcher is `#!/usr/bin/env node`).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { baseEnv, binFrom, MCP_JS, runAgentProcess, tempDir, type AgentRun } from './agentProcess';
import { startFakeModel, type ScriptTurn } from './fakeModel';
import { chatCompletions } from './protocols';
import { unescapeJsonText, type AgentDriver } from './agentScenarios';

/** Qwen offers a server named `agent-context` as `mcp__agent-context__<tool>`. */
export const qwenMcpTool = (name: string): string => `mcp__agent-context__${name}`;
/** Qwen's own shell tool. */
export const QWEN_SHELL = 'run_shell_command';

export function qwenBin(): string {
  return binFrom('AGENT_CONTEXT_QWEN_BIN', 'qwen-code');
}

/** The Node ≥ 22 Qwen runs with: ensure-deps' Node 24. */
function node24Bin(): string {
  const dir = process.env.AGENT_CONTEXT_NODE24_DIR;
  if (!dir || !fs.existsSync(path.join(dir, 'bin', 'node'))) throw new Error(`AGENT_CONTEXT_NODE24_DIR is not set to Node 24 (got ${dir ?? 'nothing'}); run through node scripts/test.mjs --run qwen-code`);
  return path.join(dir, 'bin');
}

export interface QwenRunOptions {
  workspace: string;
  script: readonly ScriptTurn[];
  home?: string;
  /** Add our MCP server to the user settings (default true). */
  mcp?: boolean;
  /** More user settings (merged at the top level). */
  settings?: Record<string, unknown>;
  /** Arguments before -p (default: --yolo). */
  args?: string[];
  env?: Record<string, string>;
  timeoutMs?: number;
}

/** One conversation: `qwen -p … -o stream-json`, the model scripted by `script`. */
export async function runQwen(o: QwenRunOptions): Promise<AgentRun> {
  const api = await startFakeModel([chatCompletions], o.script);
  const home = o.home ?? tempDir('home-');
  const dir = path.join(home, '.qwen');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'settings.json');
  const before = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
  const settings: Record<string, unknown> = {
    ...before,
    security: { auth: { selectedType: 'openai' }, folderTrust: { enabled: false } },
    general: { disableAutoUpdate: true, disableUpdateNag: true },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    ...o.settings,
  };
  if (o.mcp !== false) {
    settings.mcpServers = { ...(before.mcpServers as object | undefined), 'agent-context': { command: process.execPath, args: [MCP_JS, '--root', o.workspace, '--allow-run'], trust: true, alwaysLoadTools: true } };
  }
  fs.writeFileSync(file, JSON.stringify(settings, null, 2));
  const args = [...(o.args ?? ['--yolo']), '-m', 'fake-model', '-o', 'stream-json', '-p', 'Work on the task in this workspace.'];
  const base = baseEnv(home);
  const env = {
    ...base,
    PATH: `${node24Bin()}:${base.PATH}`,
    OPENAI_API_KEY: 'dummy',
    OPENAI_BASE_URL: `${api.url}/v1`,
    OPENAI_MODEL: 'fake-model',
    QWEN_CODE_NO_RELAUNCH: 'true',
    ...o.env,
  };
  return runAgentProcess({ bin: qwenBin(), args, cwd: o.workspace, env, home, api, timeoutMs: o.timeoutMs });
}

/** Qwen Code for the shared scenarios (agentScenarios.ts): an isError result comes as escaped JSON, as in Gemini CLI. */
export const qwenDriver: AgentDriver = {
  id: 'qwen-code',
  label: 'Qwen Code',
  mcpTool: qwenMcpTool,
  shellTool: QWEN_SHELL,
  shellInput: (command: string): Record<string, unknown> => ({ command, description: 'Run the command', is_background: false }),
  run: (o: { workspace: string; script: readonly ScriptTurn[] }): Promise<AgentRun> => runQwen(o),
  unwrap: unescapeJsonText,
};
