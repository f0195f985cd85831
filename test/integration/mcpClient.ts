// The SDK's MCP client over stdio, spawning the Agent Context server: shared by the unit-tier
// transport test (tsc build of the server) and the integration suite (dist/mcp.js). No vscode import.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export interface McpSession {
  call(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<{ text: string; isError: boolean }>;
  listTools(): Promise<string[]>;
  close(): Promise<void>;
  /** The server process's pid (fault tests kill it). */
  pid: number | null;
}

/** Starts `node <serverJs> --root <ws> [...extra]` and connects the SDK client to it. */
export async function startMcp(serverJs: string, ws: string, extra: string[] = [], nodePath = process.execPath): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: nodePath,
    args: [serverJs, '--root', ws, ...extra],
    env: { ...(process.env as Record<string, string>), ELECTRON_RUN_AS_NODE: '1' },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'agent-context-tests', version: '1.0.0' });
  await client.connect(transport);
  return {
    async call(name, args, signal) {
      const r = await client.callTool({ name, arguments: args }, undefined, { signal, timeout: 300_000 });
      const content = r.content as { type: string; text?: string }[];
      return { text: content.map((c) => c.text ?? '').join(''), isError: r.isError === true };
    },
    async listTools() {
      return (await client.listTools()).tools.map((t) => t.name);
    },
    close: () => client.close(),
    get pid() {
      return transport.pid;
    },
  };
}
