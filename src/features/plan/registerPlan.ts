import type * as vscode from 'vscode';
import type { AgentFeed } from '../../editor/agentFeed';
import { registerCopilotPlanMirror } from './copilotPlanMirror';
import { registerPlanCommands } from './planCommands';
import { createPlanView } from './planView';
import { registerFeatureListKey } from './featureListKey';

/** The Plan view (plans, progress, features of every folder with `.agent/`), its step commands, and the mirror of VS Code's Plan agent's plan. */
export function registerPlan(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, feed: AgentFeed): void {
  registerPlanCommands(context, log, createPlanView(context, feed));
  registerCopilotPlanMirror(context, log);
  registerFeatureListKey(context, feed);
}
