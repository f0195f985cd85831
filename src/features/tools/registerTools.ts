import * as vscode from 'vscode';
import { TOOL_DEFINITIONS } from '../../core/tools/toolDefinitions';
import type { ToolName } from '../../core/tools/toolNames';
import { LmTool } from './lmTool';
import { RunTerminal } from './runTerminal';

/** A tool call made in this editor has ended (its ledger line is written). */
export interface ToolInvoked {
  name: ToolName;
  ok: boolean;
}

/** Registers every tool of toolDefinitions.ts with vscode.lm; returns the event of calls made here. */
export function registerTools(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): vscode.Event<ToolInvoked> {
  const invoked = new vscode.EventEmitter<ToolInvoked>();
  const runTerminal = new RunTerminal('agentContext_run');
  context.subscriptions.push(invoked, runTerminal);
  for (const def of TOOL_DEFINITIONS) {
    try {
      context.subscriptions.push(vscode.lm.registerTool(def.name, new LmTool(def, log, (ok) => invoked.fire({ name: def.name, ok }), def.streamsOutput ? runTerminal : undefined)));
    } catch (e) {
      // A definition without its package.json entry: VS Code refuses it; the others still work.
      log.error(`could not register tool ${def.name}: ${(e as Error).message}`);
    }
  }
  return invoked.event;
}
