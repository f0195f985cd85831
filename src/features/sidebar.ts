import * as vscode from 'vscode';
import { registerCleanupCommands } from './scratch/cleanupCommands';
import { registerPlanCommands } from './plan/planCommands';
import { registerScratchCommands } from './scratch/scratchCommands';
import { registerSkillsCommands } from './skills/skillsCommands';
import { AgentFolders } from '../editor/agentFolders';
import { createPlanView } from './plan/planView';
import { createScratchView } from './scratch/scratchView';
import { createSkillsView } from './skills/skillsView';

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
