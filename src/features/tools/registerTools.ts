import * as vscode from 'vscode';
import { stopTokenizerWorker, useTokenizerWorker } from '../../core/output/tokens';
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
  // Token counts (ledger, references, briefing) run on a worker until the tokenizer is loaded, so its
  // first load (~280 ms of CPU) never blocks the extension host; started at the first count only.
  useTokenizerWorker();
  context.subscriptions.push(invoked, runTerminal, { dispose: () => void stopTokenizerWorker() });
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
