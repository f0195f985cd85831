import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { VSCODE_HOOK_FILE } from '../../../src/core/setup/agents/vscodeAgent';

const ws = () => vscode.workspace.workspaceFolders![0].uri.fsPath;

// VS Code's agent is one entry of "Set Up Agent…" ('vscode'); its set-up covers both harnesses.
describe('Set Up Agent… for VS Code\'s agent: the Copilot harness (VS Code 1.140+) too', () => {
  it('writes the Copilot runtime\'s user hook file and MCP server (the editor\'s own Node, the scripts\' copy in global storage); undo removes both', async () => {
    const copilot = path.join(process.env.COPILOT_HOME || path.join(os.homedir(), '.copilot'));
    const hooks = path.join(copilot, 'hooks/agent-context.json');
    const mcp = path.join(copilot, 'mcp-config.json');
    assert.equal(fs.existsSync(hooks), false, `${hooks} exists before the set-up`);
    try {
      const r = await vscode.commands.executeCommand<{ changed: string[]; created: string[] }>('agentContext.setupAgent', 'vscode');
      assert.ok(r, 'the set-up ran');
      assert.ok(fs.existsSync(path.join(ws(), VSCODE_HOOK_FILE)), 'the Local harness\'s hook file is written too');
      const file = JSON.parse(fs.readFileSync(hooks, 'utf8')) as { version: number; hooks: Record<string, { bash: string }[]> };
      assert.equal(file.version, 1);
      assert.deepEqual(Object.keys(file.hooks).sort(), ['postToolUse', 'sessionStart']);
      const bash = file.hooks.postToolUse[0].bash;
      assert.ok(bash.includes(`AGENT_CONTEXT_NODE=${process.execPath}`), bash);
      // `bash …/agent-hook.sh`: VS Code's Copilot Chat runs this file's commands with /bin/sh too (copilotRuntime.ts).
      const dist = /bash (\S+)\/agent-hook\.sh copilot-cli postToolUse$/.exec(bash)?.[1];
      assert.ok(dist && fs.existsSync(path.join(dist, 'agent-hook.js')) && fs.existsSync(path.join(dist, 'mcp.js')), `the hook's scripts are not where it says: ${bash}`);
      assert.ok(!dist.startsWith(vscode.extensions.getExtension('agent-context.agent-context')!.extensionPath), 'the hook points into the extension folder, which an update replaces');
      const server = (JSON.parse(fs.readFileSync(mcp, 'utf8')) as { mcpServers: Record<string, { command: string; args: string[] }> }).mcpServers['agent-context'];
      assert.deepEqual(server.args, [path.join(dist, 'mcp.js'), '--allow-run']);
      assert.equal(server.command, process.execPath);
    } finally {
      await vscode.commands.executeCommand('agentContext.undoAgentSetup', 'vscode');
      await vscode.commands.executeCommand('notifications.clearAll');
      fs.rmSync(path.join(ws(), '.github/hooks'), { recursive: true, force: true });
    }
    assert.equal(fs.existsSync(hooks), false);
    assert.equal(fs.existsSync(mcp), false);
    assert.equal(fs.existsSync(path.join(ws(), VSCODE_HOOK_FILE)), false);
  });
});
