/*
 * A stdio MCP server with one tool, `prompt`, for Claude Code's --permission-prompt-tool: it stands
 * for the user being asked. Every request is appended as a JSON line to AGENT_CONTEXT_PROMPT_LOG
 * (what the user would have been shown), and the answer is "deny".
 * Run: node out/test/realClient/permissionPromptServer.js
 */
import * as fs from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const server = new Server({ name: 'ask', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [{ name: 'prompt', description: 'Asks the user whether a tool may run.', inputSchema: { type: 'object', properties: { tool_name: { type: 'string' }, input: { type: 'object' } } } }],
}));
server.setRequestHandler(CallToolRequestSchema, async (req) => {
  const log = process.env.AGENT_CONTEXT_PROMPT_LOG;
  if (log) fs.appendFileSync(log, `${JSON.stringify(req.params.arguments ?? {})}\n`);
  return { content: [{ type: 'text' as const, text: JSON.stringify({ behavior: 'deny', message: 'The user said no.' }) }] };
});
void server.connect(new StdioServerTransport());
