import type * as vscode from 'vscode';
import type { AgentFeed } from '../../editor/agentFeed';
import { registerCleanupCommands } from './cleanupCommands';
import { registerScratchCommands } from './scratchCommands';
import { createScratchView } from './scratchView';

/** The Scratch view, its file commands and cleanup. */
export function registerScratch(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, feed: AgentFeed): void {
  const view = createScratchView(context, feed);
  registerScratchCommands(context, log, feed, view);
  registerCleanupCommands(context, log, feed, view);
}
