import * as vscode from 'vscode';
import { addCleanupProtection } from '../commands/cleanup';
import { createTerminalsView } from '../views/terminalsView';
import { CaptureManager } from './captureManager';

/** Terminal capture into `.agent/terminals/` and the Terminals view. */
export function registerTerminalCapture(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): CaptureManager {
  const manager = new CaptureManager(log);
  context.subscriptions.push(manager, addCleanupProtection(() => manager.protectedPaths()));
  createTerminalsView(context, manager);
  return manager;
}
