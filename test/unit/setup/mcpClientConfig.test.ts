import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mcpClientCommand, mcpClientConfig } from '../../../src/core/setup/mcpClientConfig';

test('the copied configuration is the file content only: valid JSON for Claude Code and Cursor', () => {
  for (const client of ['claude', 'cursor'] as const) {
    const text = mcpClientConfig(client, '/home/u/store/mcp.js', ['/w/my app', '/w/b']);
    const cfg = JSON.parse(text) as { mcpServers: Record<string, { command: string; args: string[] }> };
    assert.deepEqual(cfg.mcpServers['agent-context'], { command: 'node', args: ['/home/u/store/mcp.js', '--root', '/w/my app', '--root', '/w/b'] });
  }
  assert.match(mcpClientConfig('codex', '/s/mcp.js', ['/w']), /^\[mcp_servers\.agent-context\]\ncommand = "node"\nargs = \["\/s\/mcp\.js", "--root", "\/w"\]\n$/);
});

test('the claude mcp add command is offered separately, with paths quoted for the shell', () => {
  assert.equal(mcpClientCommand('claude', '/s/mcp.js', ["/w/it's here"]), `claude mcp add agent-context -- node /s/mcp.js --root '/w/it'\\''s here'`);
  assert.equal(mcpClientCommand('cursor', '/s/mcp.js', ['/w']), undefined);
});
