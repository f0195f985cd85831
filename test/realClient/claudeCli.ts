/*
 * Runs the real Claude Code CLI (installed by scripts/ensure-deps.sh; its path comes in
 * AGENT_CONTEXT_CLAUDE_BIN) against the fake Messages API, offline and hermetic: a fresh HOME per
 * conversation, no telemetry, no updater, its own process group killed at the end.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { baseEnv, binFrom, MCP_JS, repoRoot, runAgentProcess, tempDir, type AgentRun } from './agentProcess';
import type { HookDriver } from './agentScenarios';
import { startFakeMessagesApi, type ScriptTurn } from './fakeMessagesApi';

export { copyFixture, errorLinesSeen, errorLinesWithNumbers, MCP_JS, repoRoot, resultOf, tempDir, writeNoisyBuild } from './agentProcess';
export const HOOK_JS = path.join(repoRoot, 'dist/agent-hook.js');

/** Tool names as Claude Code offers our MCP tools to the model. */
export const mcpTool = (name: string): string => `mcp__agent-context__${name}`;

export type ClaudeRun = AgentRun;

export interface ClaudeRunOptions {
  workspace: string;
  script: readonly ScriptTurn[];
  /** HOME for the CLI (a fresh temp folder when absent). */
  home?: string;
  /** Start our MCP server through --mcp-config (default true); false: whatever the settings configure. */
  mcpConfig?: boolean;
  allowedTools?: string;
  /** More CLI arguments (e.g. --permission-prompt-tool, --resume <session>). */
  args?: string[];
  /** The user's prompt (default: a task prompt); a slash command such as `/compact` works too. */
  prompt?: string;
  env?: Record<string, string>;
  timeoutMs?: number;
}

/** The claude binary under test (the pinned or the current release, by run). */
export function claudeBin(): string {
  return binFrom('AGENT_CONTEXT_CLAUDE_BIN', 'claude-code');
}

/** One conversation: the CLI in print mode with stream-json output, the model scripted by `script`. */
export async function runClaude(o: ClaudeRunOptions): Promise<ClaudeRun> {
  const api = await startFakeMessagesApi(o.script);
  const home = o.home ?? tempDir('home-');
  const args = ['-p', o.prompt ?? 'Work on the task in this workspace.', '--output-format', 'stream-json', '--verbose', '--allowedTools', o.allowedTools ?? 'Bash Read Grep mcp__agent-context', ...(o.args ?? [])];
  if (o.mcpConfig !== false) {
    const cfg = path.join(home, 'mcp-config.json');
    fs.writeFileSync(cfg, JSON.stringify({ mcpServers: { 'agent-context': { command: process.execPath, args: [MCP_JS, '--root', o.workspace, '--allow-run'] } } }));
    args.push('--mcp-config', cfg);
  }
  const env: Record<string, string> = {
    ...baseEnv(home),
    ANTHROPIC_BASE_URL: api.url,
    ANTHROPIC_API_KEY: 'sk-ant-test-not-a-real-key',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
    // In print mode Claude Code 2.1.197 sends the first request without waiting for MCP servers;
    // under load our server (a Node start) was not connected yet and the first call got "No such
    // tool available". "false" makes it wait for the connections, as an interactive session does.
    MCP_CONNECTION_NONBLOCKING: 'false',
    ...o.env,
  };
  return runAgentProcess({ bin: claudeBin(), args, cwd: o.workspace, env, home, api, timeoutMs: o.timeoutMs ?? 120_000 });
}

/** The session id Claude Code printed in its stream-json output (for --resume). */
export function sessionIdOf(run: ClaudeRun): string {
  const id = /"session_id":"([0-9a-f-]{36})"/.exec(run.stdout)?.[1];
  if (!id) throw new Error(`no session_id in Claude Code's output (exit ${run.exitCode}): ${run.stderr.slice(-800)}${run.stdout.slice(-800)}`);
  return id;
}

/** Claude Code for the shared scenarios (agentScenarios.ts): the pinned or the current release, by run. */
export const claudeDriver: HookDriver = {
  id: 'claude-code',
  // Read per call: the module stays loaded from one run (claude-code) to the next (claude-code-current).
  get key(): string {
    return process.env.AGENT_CONTEXT_CLIENT ?? 'claude-code';
  },
  label: 'Claude Code',
  mcpTool,
  shellTool: 'Bash',
  shellInput: (command) => ({ command, description: 'Run the command' }),
  run: (o) => runClaude(o),
  outputOf: (text) => text,
  async runSetUp(o) {
    // Claude Code's --permission-prompt-tool stands for the user being asked: a small MCP server
    // that records each question and answers no.
    const log = path.join(o.home, 'asked.jsonl');
    const cfg = path.join(o.home, 'ask-mcp.json');
    fs.writeFileSync(cfg, JSON.stringify({ mcpServers: { ask: { command: process.execPath, args: [path.join(repoRoot, 'out/test/realClient/permissionPromptServer.js')] } } }));
    const allowed = o.allow ? o.allow.map((a) => `Bash(${a}:*)`).join(' ') : 'Bash';
    const run = await runClaude({
      workspace: o.workspace,
      home: o.home,
      script: o.script,
      mcpConfig: false,
      allowedTools: `${allowed} mcp__agent-context`,
      args: ['--mcp-config', cfg, '--permission-prompt-tool', 'mcp__ask__prompt'],
      env: { AGENT_CONTEXT_PROMPT_LOG: log },
    });
    const asked = fs.existsSync(log)
      ? fs.readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { tool_name?: string; input?: { command?: string } }).filter((q) => q.tool_name === 'Bash').map((q) => String(q.input?.command))
      : [];
    return { ...run, asked };
  },
};
