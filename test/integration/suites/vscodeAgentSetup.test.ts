import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { VSCODE_HOOK_FILE } from '../../../src/core/setup/agents/vscodeAgent';

const ws = () => vscode.workspace.workspaceFolders![0].uri.fsPath;

describe('Set Up VS Code Agent (Copilot)', () => {
  it('with chat.useHooks off: writes the hook file and says in one line that the agent will not run it; undo removes it', async () => {
    const chat = vscode.workspace.getConfiguration('chat');
    await chat.update('useHooks', false, vscode.ConfigurationTarget.Global);
    const file = path.join(ws(), VSCODE_HOOK_FILE);
    try {
      const r = await vscode.commands.executeCommand<{ file: string; changed: boolean; warning?: string }>('agentContext.setupVscodeAgent');
      assert.equal(r?.file, VSCODE_HOOK_FILE);
      assert.ok(fs.existsSync(file));
      assert.equal(r?.warning, `Agent Context: wrote ${VSCODE_HOOK_FILE}, but VS Code's agent runs no hooks while chat.useHooks is off.`);
    } finally {
      await chat.update('useHooks', undefined, vscode.ConfigurationTarget.Global);
      await vscode.commands.executeCommand('agentContext.undoVscodeAgent');
      await vscode.commands.executeCommand('notifications.clearAll');
    }
    assert.equal(fs.existsSync(file), false);
    fs.rmSync(path.join(ws(), '.github/hooks'), { recursive: true, force: true });
  });
});

describe('Set Up VS Code Agent: the Copilot harness (VS Code 1.140+) too', () => {
  it('writes the Copilot runtime\'s user hook file and MCP server (the editor\'s own Node, the scripts\' copy in global storage); undo removes both', async () => {
    const copilot = path.join(process.env.COPILOT_HOME || path.join(os.homedir(), '.copilot'));
    const hooks = path.join(copilot, 'hooks/agent-context.json');
    const mcp = path.join(copilot, 'mcp-config.json');
    assert.equal(fs.existsSync(hooks), false, `${hooks} exists before the set-up`);
    try {
      await vscode.commands.executeCommand('agentContext.setupVscodeAgent');
      const file = JSON.parse(fs.readFileSync(hooks, 'utf8')) as { version: number; hooks: Record<string, { bash: string }[]> };
      assert.equal(file.version, 1);
      assert.deepEqual(Object.keys(file.hooks).sort(), ['postToolUse', 'sessionStart']);
      const bash = file.hooks.postToolUse[0].bash;
      assert.ok(bash.includes(`AGENT_CONTEXT_NODE=${process.execPath}`), bash);
      const dist = /bash (\S+)\/agent-hook\.sh copilot-cli postToolUse$/.exec(bash)?.[1];
      assert.ok(dist && fs.existsSync(path.join(dist, 'agent-hook.js')) && fs.existsSync(path.join(dist, 'mcp.js')), `the hook's scripts are not where it says: ${bash}`);
      assert.ok(!dist.startsWith(vscode.extensions.getExtension('agent-context.agent-context')!.extensionPath), 'the hook points into the extension folder, which an update replaces');
      const server = (JSON.parse(fs.readFileSync(mcp, 'utf8')) as { mcpServers: Record<string, { command: string; args: string[] }> }).mcpServers['agent-context'];
      assert.deepEqual(server.args, [path.join(dist, 'mcp.js'), '--allow-run']);
      assert.equal(server.command, process.execPath);
    } finally {
      await vscode.commands.executeCommand('agentContext.undoVscodeAgent');
      await vscode.commands.executeCommand('notifications.clearAll');
      fs.rmSync(path.join(ws(), '.github/hooks'), { recursive: true, force: true });
    }
    assert.equal(fs.existsSync(hooks), false);
    assert.equal(fs.existsSync(mcp), false);
  });
});
