/*
 * A stand-in for VS Code's agent host (VS Code 1.140+, the Copilot harness): one process that drives
 * the Copilot SDK (`@github/copilot-sdk`, installed by scripts/ensure-deps.sh) the way the agent host
 * does, read in VS Code's source (src/vs/platform/agentHost/node/copilot/: copilotAgent.ts,
 * copilotSessionLauncher.ts): a client without `baseDirectory` (so the runtime reads the user's
 * ~/.copilot, where the set-up writes), no logged-in user, the process environment with
 * AI_AGENT=github_copilot_vscode_agent (aiAgentEnv.ts) and COPILOT_CLI_RUN_AS_NODE=1; a session in the
 * workspace with file hooks and config discovery on, large outputs moved to a file above 8 KB
 * (PR #329276), streaming, and the user's approvals answered by `onPermissionRequest` (here from the
 * user's rules in the config: VS Code shows its confirmation instead). The model is a BYOK OpenAI
 * provider: the scripted fake model of the test.
 *
 *   node copilotHarnessHost.js <config.json>
 *
 * Config: { workspace, baseUrl, prompt, allow: string[] | null (null: approve everything),
 * mcpServers?: object (servers VS Code would forward), out: file }. Writes to `out`: the permission
 * requests (what the user would have been asked), the final message, and an error if any.
 */
import * as fs from 'node:fs';

interface HostConfig {
  workspace: string;
  baseUrl: string;
  prompt: string;
  allow: string[] | null;
  mcpServers?: Record<string, unknown>;
  out: string;
}

interface Sdk {
  CopilotClient: new (o: Record<string, unknown>) => {
    start(): Promise<void>;
    stop(): Promise<unknown>;
    createSession(o: Record<string, unknown>): Promise<{ sendAndWait(m: { prompt: string }, ms: number): Promise<{ data?: { content?: string } } | undefined>; disconnect(): Promise<void> }>;
  };
}

type Request = { kind: string; fullCommandText?: string; toolName?: string; serverName?: string };

async function main(configFile: string): Promise<void> {
  const c = JSON.parse(fs.readFileSync(configFile, 'utf8')) as HostConfig;
  const dir = process.env.AGENT_CONTEXT_COPILOT_SDK;
  if (!dir) throw new Error('AGENT_CONTEXT_COPILOT_SDK is not set (node scripts/test.mjs --run copilot-harness sets it)');
  const sdk = require(dir) as Sdk;
  const asked: { kind: string; command?: string; tool?: string; decision: string }[] = [];
  const out = { asked, final: undefined as string | undefined, error: undefined as string | undefined };
  const save = (): void => fs.writeFileSync(c.out, JSON.stringify(out, null, 2));
  // What VS Code's agent host passes its runtime: its own environment (AI_AGENT marks it for tools and hooks).
  const env = { ...process.env, AI_AGENT: 'github_copilot_vscode_agent', COPILOT_CLI_RUN_AS_NODE: '1', COPILOT_OFFLINE: 'true' };
  const client = new sdk.CopilotClient({ useLoggedInUser: false, workingDirectory: c.workspace, env });
  try {
    await client.start();
    const session = await client.createSession({
      model: 'fake-model',
      streaming: true,
      provider: { type: 'openai', baseUrl: c.baseUrl, apiKey: 'dummy' },
      workingDirectory: c.workspace,
      enableFileHooks: true,
      enableConfigDiscovery: true,
      largeOutput: { maxSizeBytes: 8 * 1024 },
      ...(c.mcpServers ? { mcpServers: c.mcpServers } : {}),
      // The user's rules for shell commands (a command allowed by a rule runs unasked; any other is
      // refused: there is nobody to ask); every other tool (ours over MCP too) is approved.
      onPermissionRequest: (r: Request) => {
        const command = r.kind === 'shell' ? r.fullCommandText ?? '' : undefined;
        const ok = c.allow === null || r.kind !== 'shell' || c.allow.some((a) => command === a || command!.startsWith(`${a} `));
        asked.push({ kind: r.kind, command, tool: r.toolName, decision: ok ? 'approve' : 'reject' });
        return ok ? { kind: 'approve-once' } : { kind: 'reject', feedback: 'Not allowed by the user\'s rules.' };
      },
    });
    const r = await session.sendAndWait({ prompt: c.prompt }, 170_000);
    out.final = r?.data?.content;
    await session.disconnect();
  } catch (e) {
    out.error = (e as Error).stack ?? String(e);
  } finally {
    save();
    await client.stop().catch(() => undefined);
  }
}

main(process.argv[2]).then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`${(e as Error).stack ?? e}\n`);
    process.exit(1);
  },
);
