/*
 * Ready-to-paste configurations that start the Agent Context MCP server from a stable copy of
 * mcp.js (the extension's own folder changes with every update).
 */

/** MCP clients we write a configuration for. */
export type McpClient = 'claude' | 'cursor' | 'codex';

/** Where each client reads its configuration from (shown to the user). */
export const MCP_CLIENT_TARGETS: Record<McpClient, string> = {
  claude: '.mcp.json in the project (or run the `claude mcp add` line)',
  cursor: '.cursor/mcp.json in the project (or ~/.cursor/mcp.json)',
  codex: '~/.codex/config.toml',
};

const tomlString = (s: string): string => JSON.stringify(s);

/** The configuration text for one client: node + mcp.js + --root for each folder. */
export function mcpClientConfig(client: McpClient, mcpJs: string, roots: readonly string[], nodePath = 'node'): string {
  const args = [mcpJs, ...roots.flatMap((r) => ['--root', r])];
  if (client === 'codex') {
    return `[mcp_servers.agent-context]\ncommand = ${tomlString(nodePath)}\nargs = [${args.map(tomlString).join(', ')}]\n`;
  }
  const json = JSON.stringify({ mcpServers: { 'agent-context': { command: nodePath, args } } }, null, 2);
  if (client === 'claude') {
    const quoted = args.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
    return `${json}\n\n# or: claude mcp add agent-context -- ${nodePath} ${quoted}\n`;
  }
  return json + '\n';
}
