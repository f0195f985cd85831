/*
 * VS Code's Copilot harness (VS Code 1.140+), driven through its engine: the Copilot SDK in a process
 * of its own that stands for VS Code's agent host (copilotHarnessHost.ts), against the scripted fake
 * model speaking Chat Completions (a BYOK OpenAI provider, no GitHub account). With the set-up
 * (`mcp.js --setup vscode-copilot`: $HOME/.copilot/hooks/agent-context.json and mcp-config.json) or,
 * without it, our MCP server as VS Code would forward it to the session.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { baseEnv, MCP_JS, runAgentProcess, tempDir, type AgentRun } from './agentProcess';
import { startFakeModel, type ScriptTurn } from './fakeModel';
import { chatCompletions } from './protocols';
import type { HookDriver } from './agentScenarios';

/** The runtime offers a server named `agent-context` as `agent-context-<tool>`. */
export const harnessMcpTool = (name: string): string => `agent-context-${name}`;
/** The harness's shell tool (the SDK runtime's built-in). */
export const HARNESS_SHELL = 'bash';

const HOST = path.join(__dirname, 'copilotHarnessHost.js');

/** What the host reports besides the model's traffic: the permission requests (what the user would have been asked). */
export interface HarnessRun extends AgentRun {
  asked: { kind: string; command?: string; tool?: string; decision: string }[];
  hostError?: string;
}

/** One session of the harness. `allow`: the user's rules for shell commands (default: everything approved). */
export async function runHarness(o: { workspace: string; script: readonly ScriptTurn[]; home?: string; allow?: readonly string[]; forwardServer?: boolean }): Promise<HarnessRun> {
  const api = await startFakeModel([chatCompletions], o.script);
  const home = o.home ?? tempDir('home-');
  const tmp = tempDir('harness-');
  const out = path.join(tmp, 'host-out.json');
  const config = path.join(tmp, 'host-config.json');
  fs.writeFileSync(config, JSON.stringify({
    workspace: o.workspace,
    baseUrl: `${api.url}/v1`,
    prompt: 'Work on the task in this workspace.',
    allow: o.allow ? [...o.allow] : null,
    // Without the set-up: our server as VS Code forwards one registered in the editor to the agent host.
    ...(o.forwardServer ? { mcpServers: { 'agent-context': { type: 'local', command: process.execPath, args: [MCP_JS, '--root', o.workspace, '--allow-run'], tools: ['*'] } } } : {}),
    out,
  }));
  const env = { ...baseEnv(home), AGENT_CONTEXT_COPILOT_SDK: process.env.AGENT_CONTEXT_COPILOT_SDK ?? '' };
  const run = await runAgentProcess({ bin: process.execPath, args: [HOST, config], cwd: o.workspace, env, home, api, timeoutMs: 200_000 });
  const host = fs.existsSync(out) ? (JSON.parse(fs.readFileSync(out, 'utf8')) as { asked: HarnessRun['asked']; error?: string }) : { asked: [], error: 'the host wrote no report' };
  return { ...run, asked: host.asked, hostError: host.error, stderr: `${run.stderr}${host.error ? `\nhost: ${host.error}` : ''}` };
}

/** VS Code's Copilot harness for the shared scenarios (agentScenarios.ts). */
export const harnessDriver: HookDriver = {
  id: 'vscode-copilot',
  label: 'VS Code\'s Copilot harness (Copilot SDK)',
  mcpTool: harnessMcpTool,
  shellTool: HARNESS_SHELL,
  shellInput: (command: string): Record<string, unknown> => ({ command, description: 'Run the command' }),
  run: (o) => runHarness({ ...o, forwardServer: true }),
  // bash's result: the output, then "<shellId: N completed with exit code N>".
  outputOf: (text) => text.replace(/\n?<shellId: [^>]*>\s*$/, ''),
  // The runtime masks a GITHUB_TOKEN=… value itself (as Copilot CLI does); the AWS and Stripe keys it passes on.
  ownMasking: 1,
  runSetUp: async (o) => {
    const r = await runHarness({ workspace: o.workspace, home: o.home, script: o.script, allow: o.allow });
    // What the user was asked about: the shell commands their rules did not allow, as the runtime showed them.
    return { ...r, asked: r.asked.filter((a) => a.kind === 'shell' && a.decision === 'reject').map((a) => a.command ?? '') };
  },
};
