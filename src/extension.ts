import * as vscode from 'vscode';
import { registerInitializeCommand } from './commands/initialize';
import { registerAddInstructionsCommand } from './commands/addInstructions';
import { registerNotes } from './commands/notes';
import { registerWalkthrough } from './commands/walkthrough';

/** Entry point: one registration per feature, every disposable into context.subscriptions. */
export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel('Agent Context', { log: true });
  context.subscriptions.push(log);
  registerInitializeCommand(context, log);
  registerAddInstructionsCommand(context, log);
  registerNotes(context, log);
  registerWalkthrough(context, log);
  log.info('Agent Context activated');
}

export function deactivate(): void {}
