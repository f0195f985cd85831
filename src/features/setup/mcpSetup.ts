import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { writeFileAtomic } from '../../core/fs/fsAtomic';
import { MCP_CLIENT_TARGETS, mcpClientCommand, mcpClientConfig, type McpClient } from '../../core/setup/mcpClientConfig';
import { setting, workspaceFolders } from '../../editor/settings';
import { notify } from '../../editor/notify';

/**
 * Copies dist/mcp.js and the agents' hook program and scripts (agent-hook.js, agent-hook.sh,
 * agent-context-shell.sh, secret-keywords.ere, opencode-plugin.mjs) with their lazily loaded dist/tokenizer.js,
 * dist/re2.js, dist/search-deps.js, dist/catalog-worker.js and dist/digest-check.js into global storage, where the paths survive updates; returns mcp.js's path.
 */
export async function installServerCopy(context: vscode.ExtensionContext): Promise<string> {
  const dir = path.join(context.globalStorageUri.fsPath, 'mcp');
  for (const name of ['mcp.js', 'agent-hook.js', 'agent-hook.sh', 'agent-context-shell.sh', 'secret-keywords.ere', 'opencode-plugin.mjs', 'tokenizer.js', 're2.js', 'search-deps.js', 'catalog-worker.js', 'digest-check.js']) {
    const src = path.join(context.extensionUri.fsPath, 'dist', name);
    await writeFileAtomic(path.join(dir, name), await fs.promises.readFile(src));
    if (name.endsWith('.sh')) await fs.promises.chmod(path.join(dir, name), 0o755);
  }
  return path.join(dir, 'mcp.js');
}

/** The copy-config command and the optional registration of the server in VS Code's own MCP list. */
export function registerMcpSetup(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('agentContext.copyMcpConfig', async (preset?: McpClient) => {
      const roots = workspaceFolders().map((f) => f.path);
      if (roots.length === 0) {
        void notify.error('open a workspace folder first; the MCP server serves that folder.');
        return;
      }
      const pick = preset ?? (await vscode.window.showQuickPick(
        [
          { label: 'Claude Code', client: 'claude' as const },
          { label: 'Cursor', client: 'cursor' as const },
          { label: 'Codex', client: 'codex' as const },
        ],
        { title: 'Copy MCP configuration for…' },
      ))?.client;
      if (!pick) return;
      let mcpJs: string;
      try {
        mcpJs = await installServerCopy(context);
      } catch (e) {
        void notify.error(`could not copy the MCP server to ${context.globalStorageUri.fsPath}: ${(e as Error).message}`);
        return;
      }
      const text = mcpClientConfig(pick, mcpJs, roots);
      await vscode.env.clipboard.writeText(text);
      log.info(`MCP config for ${pick} copied; server at ${mcpJs}`);
      // The clipboard holds the file's content only; the CLI's own command is offered on its own button.
      const cli = mcpClientCommand(pick, mcpJs, roots);
      const copyCli = 'Copy CLI Command Instead';
      void notify.info(
        `MCP configuration copied. Paste it into ${MCP_CLIENT_TARGETS[pick]}${cli ? ', or copy the claude mcp add command instead' : ''}. Commands run only if you add --allow-run or list them under run.allowList in .agent/config.yaml.`,
        ...(cli ? [copyCli] : []),
      ).then(async (choice) => {
        if (choice !== copyCli || !cli) return;
        await vscode.env.clipboard.writeText(cli);
        void notify.info(`copied "${cli}". Run it in a terminal in the project.`);
      });
    }),
  );

  const changed = new vscode.EventEmitter<void>();
  context.subscriptions.push(changed);
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('agentContext.mcp.registerInVSCode')) changed.fire();
    }),
  );
  try {
    context.subscriptions.push(
      vscode.lm.registerMcpServerDefinitionProvider('agentContext.mcp', {
        onDidChangeMcpServerDefinitions: changed.event,
        // Off by default: Copilot already sees these tools through vscode.lm and would see each twice.
        provideMcpServerDefinitions: () => {
          if (!setting('mcp.registerInVSCode')) return [];
          const roots = workspaceFolders().map((f) => f.path);
          if (roots.length === 0) return [];
          const script = path.join(context.extensionUri.fsPath, 'dist', 'mcp.js');
          return [
            new vscode.McpStdioServerDefinition('Agent Context', process.execPath, [script, ...roots.flatMap((r) => ['--root', r])], { ELECTRON_RUN_AS_NODE: '1' }, '0.1.0'),
          ];
        },
      }),
    );
  } catch (e) {
    log.warn(`MCP server definition provider not registered: ${(e as Error).message}`);
  }
}
