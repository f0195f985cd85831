import * as vscode from 'vscode';
import { addCleanupProtection } from '../scratch/cleanupCommands';
import { createTerminalsView } from './terminalsView';
import { CaptureManager } from './captureManager';

let active: CaptureManager | undefined;

/** Terminal capture into `.agent/terminals/` and the Terminals view. */
export function registerTerminalCapture(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): CaptureManager {
  const manager = new CaptureManager(log);
  active = manager;
  context.subscriptions.push(manager, addCleanupProtection(() => manager.protectedPaths()));
  createTerminalsView(context, manager);
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
