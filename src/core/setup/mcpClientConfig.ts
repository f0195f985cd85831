/*
 * Ready-to-paste configurations that start the Agent Context MCP server from a stable copy of
 * mcp.js (the extension's own folder changes with every update).
 */

/** MCP clients we write a configuration for. */
export type McpClient = 'claude' | 'cursor' | 'codex';

/** Where each client reads its configuration from (shown to the user). */
export const MCP_CLIENT_TARGETS: Record<McpClient, string> = {
  claude: '.mcp.json in the project',
  cursor: '.cursor/mcp.json in the project (or ~/.cursor/mcp.json)',
  codex: '~/.codex/config.toml',
};

const tomlString = (s: string): string => JSON.stringify(s);

const serverArgs = (mcpJs: string, roots: readonly string[]): string[] => [mcpJs, ...roots.flatMap((r) => ['--root', r])];

/**
 * The configuration file's text for one client: node + mcp.js + --root for each folder. It is the
 * file's content and nothing else (valid JSON, or TOML for Codex), so it can be pasted as it is.
 */
export function mcpClientConfig(client: McpClient, mcpJs: string, roots: readonly string[], nodePath = 'node'): string {
  const args = serverArgs(mcpJs, roots);
  if (client === 'codex') {
    return `[mcp_servers.agent-context]\ncommand = ${tomlString(nodePath)}\nargs = [${args.map(tomlString).join(', ')}]\n`;
  }
  return JSON.stringify({ mcpServers: { 'agent-context': { command: nodePath, args } } }, null, 2) + '\n';
}

/** The client's own command that registers the server instead (`claude mcp add …`), for the clients that have one. */
export function mcpClientCommand(client: McpClient, mcpJs: string, roots: readonly string[], nodePath = 'node'): string | undefined {
  if (client !== 'claude') return undefined;
  const quoted = serverArgs(mcpJs, roots).map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
  return `claude mcp add agent-context -- ${nodePath} ${quoted}`;
}
