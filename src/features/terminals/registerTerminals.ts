import * as vscode from 'vscode';
import { addCleanupProtection } from '../scratch/cleanupCommands';
import { createTerminalsView } from './terminalsView';
import { CaptureManager } from './captureManager';
import type { AgentFeed } from '../../editor/agentFeed';

let active: CaptureManager | undefined;

/** Terminal capture into `.agent/terminals/` and the Terminals view. */
export function registerTerminals(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, feed: AgentFeed): CaptureManager {
  const manager = new CaptureManager(log);
  active = manager;
  context.subscriptions.push(manager, addCleanupProtection(() => manager.protectedPaths()));
  createTerminalsView(context, manager, feed, log);
  return manager;
}

/**
 * For deactivate(): ends every running command's record with the reason and waits until the files
 * are on disk. Disposal alone cannot wait, and the extension host may exit right after it.
 */
export async function stopTerminalCapture(): Promise<void> {
  await active?.shutdown();
  active = undefined;
}
