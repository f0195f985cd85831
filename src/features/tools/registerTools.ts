import * as vscode from 'vscode';
import { TOOL_DEFINITIONS } from '../../core/tools/toolDefinitions';
import { registerSavingsStatusBar } from '../savings/savingsStatusBar';
import { LmTool } from './lmTool';
import { registerMcpSetup } from '../setup/mcpSetup';
import { RunTerminal } from './runTerminal';
import { walkthroughContextKey } from '../../core/setup/walkthroughSignals';

/** Registers every tool of toolDefinitions.ts with vscode.lm, the savings status-bar item and the MCP setup command. */
export function registerTools(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): void {
  const savings = registerSavingsStatusBar(context, log);
  const onInvoked = (): void => {
    savings.refresh();
    // The walkthrough's "Try a tool" step: an in-editor call completes it at once; the ledger
    // watcher in commands/walkthrough.ts still covers calls from the MCP server.
    void vscode.commands.executeCommand('setContext', walkthroughContextKey('toolUsed'), true);
  };
  const runTerminal = new RunTerminal('agentContext_run');
  context.subscriptions.push(runTerminal);
  for (const def of TOOL_DEFINITIONS) {
    try {
      context.subscriptions.push(vscode.lm.registerTool(def.name, new LmTool(def, log, onInvoked, def.streamsOutput ? runTerminal : undefined)));
    } catch (e) {
      // A definition without its package.json entry: VS Code refuses it; the others still work.
      log.error(`could not register tool ${def.name}: ${(e as Error).message}`);
    }
  }
  registerMcpSetup(context, log);
}
