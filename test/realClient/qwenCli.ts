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
import { baseEnv, binFrom, runAgentProcess, tempDir, type AgentRun } from './agentProcess';
import { type GeminiRunOptions, writeUserSettings } from './geminiCli';
import { startFakeModel, type ScriptTurn } from './fakeModel';
import { chatCompletions } from './protocols';
import { unescapeJsonText, type RecordingDriver } from './agentScenarios';

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

/** Qwen Code is a Gemini CLI fork: the same options (args default: --yolo). */
export type QwenRunOptions = GeminiRunOptions;

/** One conversation: `qwen -p … -o stream-json`, the model scripted by `script`. */
export async function runQwen(o: QwenRunOptions): Promise<AgentRun> {
  const api = await startFakeModel([chatCompletions], o.script);
  const home = o.home ?? tempDir('home-');
  writeUserSettings(o, home, '.qwen', { auth: { selectedType: 'openai' }, folderTrust: { enabled: false } }, { alwaysLoadTools: true });
  const args = [...(o.args ?? ['--yolo']), '-m', 'fake-model', '-o', 'stream-json', '-p', 'Work on the task in this workspace.'];
  const base = baseEnv(home);
  const env = {
    ...base,
    PATH: `${node24Bin()}:${base.PATH}`,
    OPENAI_API_KEY: 'dummy',
    OPENAI_BASE_URL: `${api.url}/v1`,
    OPENAI_MODEL: 'fake-model',
    QWEN_CODE_NO_RELAUNCH: 'true',
    // Its debug log (~/.qwen/debug/<session>.txt) gives each hook event's duration as Qwen measures it
    // (qwenHookMs); in every run, so the runs with and without our hook write the same log.
    QWEN_DEBUG_LOG_FILE: '1',
    ...o.env,
  };
  return runAgentProcess({ bin: qwenBin(), args, cwd: o.workspace, env, home, api, timeoutMs: o.timeoutMs });
}

/**
 * The duration of each PostToolUse/PostToolUseFailure hook event in the run, as Qwen's debug log
 * states it (from before it starts the hook command to its close: Qwen's own start of `bash -c`
 * included), in the order run.
 */
export function qwenHookMs(run: AgentRun): number[] {
  const dir = path.join(run.home, '.qwen', 'debug');
  const ms: number[] = [];
  if (!fs.existsSync(dir)) return ms;
  // The session's log; `latest` is a link to it.
  for (const f of fs.readdirSync(dir).sort()) {
    const file = path.join(dir, f);
    if (!fs.lstatSync(file).isFile()) continue;
    for (const m of fs.readFileSync(file, 'utf8').matchAll(/Hook execution for PostToolUse(?:Failure)?: \d+ hooks executed successfully, total duration: (\d+)ms/g)) ms.push(Number(m[1]));
  }
  return ms;
}

/** Qwen Code for the shared scenarios (agentScenarios.ts): an isError result comes as escaped JSON, as in Gemini CLI. */
export const qwenDriver: RecordingDriver = {
  id: 'qwen-code',
  label: 'Qwen Code',
  mcpTool: qwenMcpTool,
  shellTool: QWEN_SHELL,
  shellInput: (command: string): Record<string, unknown> => ({ command, description: 'Run the command', is_background: false }),
  run: (o: { workspace: string; script: readonly ScriptTurn[] }): Promise<AgentRun> => runQwen(o),
  runSetUp: (o: { workspace: string; home: string; script: readonly ScriptTurn[] }): Promise<AgentRun> => runQwen({ ...o, mcp: false }),
  unwrap: unescapeJsonText,
  hookMs: qwenHookMs,
  // The process group Qwen ran the command in.
  sameRun: (text: string): string => text.replace(/Process Group PGID: \d+/g, 'Process Group PGID: N'),
  // In -p mode Qwen may settle a short command before reading its output, with or without any hook
  // (README, "Use with Qwen Code"): "Output: (empty)".
  lostOutput: { is: (text: string): boolean => text.includes('Output: (empty)'), rest: (text: string): string => text.replace(/(\n|\\n)Output: [\s\S]*?(\n|\\n)Error: /, '$1Output: …$2Error: ') },
};
