import type * as vscode from 'vscode';
import type { AgentFeed } from '../../editor/agentFeed';
import { registerPlanCommands } from './planCommands';
import { createPlanView } from './planView';

/** The Plan view (plans, progress, features of every folder with `.agent/`) and its step commands. */
export function registerPlan(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, feed: AgentFeed): void {
  registerPlanCommands(context, log, createPlanView(context, feed));
}
