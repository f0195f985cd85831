/*
 * Runs the real Codex CLI (`@openai/codex`, installed by scripts/ensure-deps.sh; AGENT_CONTEXT_CODEX_BIN)
 * against the fake Responses API: a fresh CODEX_HOME whose config.toml names the fake provider and,
 * unless the test brings its own set-up, our MCP server.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { baseEnv, binFrom, MCP_JS, runAgentProcess, tempDir, type AgentRun } from './agentProcess';
import type { HookDriver } from './agentScenarios';
import { startFakeModel, type Protocol, type ScriptTurn } from './fakeModel';
import { openaiResponses } from './protocols';

/** Codex offers a server named `agent-context` as the namespace `mcp__agent_context` (hyphen → underscore). */
export const codexMcpTool = (name: string): string => `mcp__agent_context__${name}`;
/** Codex's own shell tool. */
export const CODEX_SHELL = 'exec_command';

export interface CodexRunOptions {
  workspace: string;
  script: readonly ScriptTurn[];
  home?: string;
  /** Add our MCP server to config.toml (default true). */
  mcp?: boolean;
  /** More config.toml text (appended). */
  config?: string;
  /** More top-level config.toml keys (e.g. `model_auto_compact_token_limit = 20000`). */
  top?: string[];
  /** The fake model's protocol adapter (default: the Responses adapter). */
  protocol?: Protocol;
  /** Arguments before the prompt (default: no approvals, no sandbox, so the shell tool just runs). */
  args?: string[];
  env?: Record<string, string>;
  timeoutMs?: number;
}

export function codexBin(): string {
  return binFrom('AGENT_CONTEXT_CODEX_BIN', 'codex');
}

const tomlString = (s: string): string => JSON.stringify(s);

/** Writes `$CODEX_HOME/config.toml` for the fake provider at `url`; returns CODEX_HOME. */
export function writeCodexConfig(home: string, url: string, o: { workspace: string; mcp?: boolean; config?: string; top?: string[] }): string {
  const codexHome = path.join(home, '.codex');
  fs.mkdirSync(codexHome, { recursive: true });
  // Top-level keys first: in TOML every key after a [table] header belongs to that table.
  const top = ['model = "fake-model"', 'model_provider = "fake"', ...(o.top ?? [])];
  const tables = ['[model_providers.fake]', 'name = "fake"', `base_url = ${tomlString(`${url}/v1`)}`, 'wire_api = "responses"', 'env_key = "FAKE_API_KEY"', ''];
  if (o.mcp !== false) {
    tables.push('[mcp_servers.agent-context]', `command = ${tomlString(process.execPath)}`, `args = [${[MCP_JS, '--root', o.workspace, '--allow-run'].map(tomlString).join(', ')}]`, '');
  }
  if (o.config) tables.push(o.config);
  const file = path.join(codexHome, 'config.toml');
  // A set-up under test may have written the file already (mcp.js --setup codex): keep what is there,
  // less what an earlier session of the same HOME put here (its keys again would be duplicates).
  const before = (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '').replace(/# >>> test session[^\n]*\n[\s\S]*?# <<< test session\n/g, '');
  const ours = (lines: string[]): string => `# >>> test session (test/realClient/codexCli.ts)\n${lines.join('\n')}\n# <<< test session\n`;
  const kept = before.replace(/^\n+|\n+$/g, '');
  fs.writeFileSync(file, `${ours(top)}${kept ? `${kept}\n` : ''}${ours(tables)}`);
  return codexHome;
}

/** One conversation: `codex exec --json`, the model scripted by `script`. */
export async function runCodex(o: CodexRunOptions): Promise<AgentRun> {
  const api = await startFakeModel([o.protocol ?? openaiResponses], o.script);
  const home = o.home ?? tempDir('home-');
  const codexHome = writeCodexConfig(home, api.url, o);
  const args = ['exec', '--skip-git-repo-check', '--json', ...(o.args ?? ['--dangerously-bypass-approvals-and-sandbox']), 'Work on the task in this workspace.'];
  const env = { ...baseEnv(home), CODEX_HOME: codexHome, FAKE_API_KEY: 'dummy', RUST_LOG: 'error', ...o.env };
  return runAgentProcess({ bin: codexBin(), args, cwd: o.workspace, env, home, api, timeoutMs: o.timeoutMs });
}

/** The commands Codex showed (its `command_execution` events on stdout), as the user sees them. */
export function codexShownCommands(stdout: string): string[] {
  const shown: string[] = [];
  for (const line of stdout.split('\n')) {
    try {
      const e = JSON.parse(line) as { type?: string; item?: { type?: string; command?: string } };
      if (e.type === 'item.started' && e.item?.type === 'command_execution' && e.item.command) shown.push(e.item.command);
    } catch {
      // not an event line
    }
  }
  return shown;
}

/** Codex for the shared scenarios (agentScenarios.ts). */
export const codexDriver: HookDriver = {
  id: 'codex',
  label: 'Codex CLI',
  mcpTool: codexMcpTool,
  shellTool: CODEX_SHELL,
  shellInput: (command: string): Record<string, unknown> => ({ cmd: command }),
  run: (o: { workspace: string; script: readonly ScriptTurn[] }): Promise<AgentRun> => runCodex(o),
  // exec_command's result: "Chunk ID…\nWall time…\nProcess exited with code N\n…\nOutput:\n<output>".
  outputOf: (text) => text.slice(text.indexOf('Output:\n') + 'Output:\n'.length).replace(/\n$/, ''),
  async runSetUp(o) {
    // What the user has: Codex trusts the folder (its first-start question; it reads the project's
    // .codex/config.toml, which the set-up wrote, only then) and, with `allow`, rules that let only
    // those commands run unasked: prefix_rule(decision="allow") in ~/.codex/rules/, with everything
    // else in the read-only sandbox (Codex's own way to refuse what the rules do not allow).
    const codexHome = path.join(o.home, '.codex');
    fs.mkdirSync(path.join(codexHome, 'rules'), { recursive: true });
    if (o.allow) {
      const rules = o.allow.map((a) => `prefix_rule(pattern=${JSON.stringify(a.split(' '))}, decision="allow")`).join('\n');
      fs.writeFileSync(path.join(codexHome, 'rules', 'user.rules'), `${rules}\n`);
    }
    const run = await runCodex({
      workspace: o.workspace,
      home: o.home,
      script: o.script,
      mcp: false,
      config: `[projects.${tomlString(o.workspace)}]\ntrust_level = "trusted"\n`,
      args: o.allow ? ['-s', 'read-only'] : undefined,
    });
    return { ...run, shown: codexShownCommands(run.stdout) };
  },
};
