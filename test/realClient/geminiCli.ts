/*
 * Runs the real Gemini CLI (`@google/gemini-cli`, installed by scripts/ensure-deps.sh;
 * AGENT_CONTEXT_GEMINI_BIN) against the fake Gemini API: a fresh GEMINI_CLI_HOME whose
 * settings.json selects API-key auth and, unless the test brings its own set-up, our MCP server.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { baseEnv, binFrom, MCP_JS, runAgentProcess, tempDir, type AgentRun } from './agentProcess';
import { startFakeModel, type ScriptTurn } from './fakeModel';
import { gemini } from './protocols';
import { unescapeJsonText, type HookDriver } from './agentScenarios';

/** Gemini offers a server named `agent-context` as `mcp_agent-context_<tool>`. */
export const geminiMcpTool = (name: string): string => `mcp_agent-context_${name}`;
/** Gemini's own shell tool. */
export const GEMINI_SHELL = 'run_shell_command';

export interface GeminiRunOptions {
  workspace: string;
  script: readonly ScriptTurn[];
  home?: string;
  /** Add our MCP server to the user settings (default true). */
  mcp?: boolean;
  /** More user settings (merged at the top level). */
  settings?: Record<string, unknown>;
  /** Arguments before -p (default: --yolo, without which the shell tool is not offered in -p). */
  args?: string[];
  env?: Record<string, string>;
  timeoutMs?: number;
}

export function geminiBin(): string {
  return binFrom('AGENT_CONTEXT_GEMINI_BIN', 'gemini');
}

/**
 * The user settings of Gemini CLI or of its fork Qwen Code (<home>/<folder>/settings.json): what is
 * there kept, `security` as given, updates and telemetry off, `o.settings` on top, and (unless
 * `o.mcp` is false) our MCP server, trusted, with `server`'s keys added.
 */
export function writeUserSettings(o: GeminiRunOptions, home: string, folder: string, security: Record<string, unknown>, server: Record<string, unknown> = {}): void {
  const dir = path.join(home, folder);
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'settings.json');
  const before = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
  const settings: Record<string, unknown> = {
    ...before,
    security,
    general: { disableAutoUpdate: true, disableUpdateNag: true },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    ...o.settings,
  };
  if (o.mcp !== false) {
    settings.mcpServers = { ...(before.mcpServers as object | undefined), 'agent-context': { command: process.execPath, args: [MCP_JS, '--root', o.workspace, '--allow-run'], trust: true, ...server } };
  }
  fs.writeFileSync(file, JSON.stringify(settings, null, 2));
}

/** One conversation: `gemini -p … -o stream-json`, the model scripted by `script`. */
export async function runGemini(o: GeminiRunOptions): Promise<AgentRun> {
  const api = await startFakeModel([gemini], o.script);
  const home = o.home ?? tempDir('home-');
  writeUserSettings(o, home, '.gemini', { auth: { selectedType: 'gemini-api-key' } });
  const args = [...(o.args ?? ['--yolo']), '-m', 'gemini-2.5-pro', '-o', 'stream-json', '-p', 'Work on the task in this workspace.'];
  const env = {
    ...baseEnv(home),
    GEMINI_API_KEY: 'dummy',
    GOOGLE_GEMINI_BASE_URL: api.url,
    GEMINI_CLI_HOME: home,
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    GEMINI_CLI_NO_RELAUNCH: 'true',
    ...o.env,
  };
  return runAgentProcess({ bin: geminiBin(), args, cwd: o.workspace, env, home, api, timeoutMs: o.timeoutMs });
}

/** Gemini CLI for the shared scenarios (agentScenarios.ts): an isError result comes as escaped JSON. */
export const geminiDriver: HookDriver = {
  id: 'gemini',
  label: 'Gemini CLI',
  mcpTool: geminiMcpTool,
  shellTool: GEMINI_SHELL,
  shellInput: (command: string): Record<string, unknown> => ({ command, description: 'Run the command' }),
  run: (o: { workspace: string; script: readonly ScriptTurn[] }): Promise<AgentRun> => runGemini(o),
  unwrap: unescapeJsonText,
  // run_shell_command's result: "Output: <output>" then Gemini's own lines (exit code, process group).
  outputOf: (text) => text.replace(/^<untrusted_context>\n([\s\S]*)\n<\/untrusted_context>$/, '$1').replace(/^Output: /, '').replace(/\n(?:Exit Code|Process Group PGID): [^\n]*/g, ''),
  async runSetUp(o) {
    // What the user has: with `allow`, a policy of their own (~/.gemini/policies/, the user tier,
    // which outranks every built-in rule, --yolo's allow-all included) that allows only those
    // commands in run_shell_command and denies every other one. (-p without --yolo offers no shell
    // tool at all, so --yolo is the only way to drive the shell tool headless.)
    if (o.allow) {
      const dir = path.join(o.home, '.gemini', 'policies');
      fs.mkdirSync(dir, { recursive: true });
      const allow = o.allow.map((a) => `[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = ${JSON.stringify(a)}\ndecision = "allow"\npriority = 200\n`).join('\n');
      fs.writeFileSync(path.join(dir, 'user.toml'), `${allow}\n[[rule]]\ntoolName = "run_shell_command"\ndecision = "deny"\npriority = 100\n`);
    }
    const run = await runGemini({ workspace: o.workspace, home: o.home, script: o.script, mcp: false });
    return run;
  },
};
