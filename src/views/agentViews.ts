import * as vscode from 'vscode';
import { registerCleanupCommands } from '../commands/cleanup';
import { registerPlanCommands } from '../commands/planCommands';
import { registerScratchCommands } from '../commands/scratchCommands';
import { registerSkillsCommands } from '../commands/skillsCommands';
import { AgentFolders } from './agentFolders';
import { createPlanView } from './planView';
import { createScratchView } from './scratchView';
import { createSkillsView } from './skillsView';

/** The sidebar: Plan, Scratch and Skills views over every folder with `.agent/`, their commands, and cleanup. */
export function registerAgentViews(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): AgentFolders {
  const folders = new AgentFolders(log);
  context.subscriptions.push(folders);
  const plan = createPlanView(context, folders);
  const scratch = createScratchView(context, folders);
  const skills = createSkillsView(context, folders);
  registerPlanCommands(context, log, plan);
  registerScratchCommands(context, log, folders, scratch);
  registerCleanupCommands(context, log, folders, scratch);
  registerSkillsCommands(context, log, skills);
  return folders;
}
