import * as vscode from 'vscode';
import { agentContextApi, type AgentContextApi } from './api';
import { AgentFeed } from './editor/agentFeed';
import { registerAgents } from './features/agents/agentsView';
import { registerBriefing } from './features/briefing/briefingCommands';
import { registerMemoryAgentsView } from './features/memory/memoryAgentsView';
import { registerMemory } from './features/memory/memoryView';
import { registerNotes } from './features/notes/noteCommands';
import { registerPlan } from './features/plan/registerPlan';
import { registerSavings } from './features/savings/savingsStatusBar';
import { registerScratch } from './features/scratch/registerScratch';
import { registerSetup } from './features/setup/registerSetup';
import { registerSkills } from './features/skills/registerSkills';
import { registerTerminals, stopTerminalCapture } from './features/terminals/registerTerminals';
import { registerTools } from './features/tools/registerTools';
import { registerWalkthrough } from './features/walkthrough/walkthrough';

/**
 * Entry point: the log, the one change feed of `.agent/` folders, then one registration per
 * feature (src/features/<feature>/); every disposable goes into context.subscriptions.
 */
export function activate(context: vscode.ExtensionContext): AgentContextApi {
  const started = performance.now();
  const log = vscode.window.createOutputChannel('Agent Context', { log: true });
  const feed = new AgentFeed(log);
  context.subscriptions.push(log, feed);
  registerSetup(context, log);
  registerPlan(context, log, feed);
  registerScratch(context, log, feed);
  registerSkills(context, log, feed);
  registerTerminals(context, log, feed);
  registerMemoryAgentsView(context, registerMemory(context, log, feed), registerAgents(context, feed));
  registerNotes(context, log, feed);
  registerBriefing(context, log, feed);
  const toolInvoked = registerTools(context, log);
  registerSavings(context, log, feed, toolInvoked);
  registerWalkthrough(context, log, feed, toolInvoked);
  if (context.storageUri?.scheme === 'file') agentContextApi.workspaceStorage = vscode.Uri.joinPath(context.storageUri, '..').fsPath;
  agentContextApi.activationMs = performance.now() - started;
  // The benchmark (row 7) reads this line from the editor's logs.
  log.info(`Agent Context activated in ${agentContextApi.activationMs.toFixed(1)} ms`);
  return agentContextApi;
}

/** Awaited by VS Code before the subscriptions are disposed: running terminal commands get their closing records. */
export function deactivate(): Promise<void> {
  return stopTerminalCapture();
}
