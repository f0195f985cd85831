import type * as vscode from 'vscode';
import type { AgentFeed } from '../../editor/agentFeed';
import { registerSkillsCommands } from './skillsCommands';
import { createSkillsView } from './skillsView';

/** The Skills view and its commands. */
export function registerSkills(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, feed: AgentFeed): void {
  registerSkillsCommands(context, log, createSkillsView(context, feed));
}
