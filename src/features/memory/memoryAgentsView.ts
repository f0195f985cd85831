import * as vscode from 'vscode';
import { registerTreeForTests } from '../../api';
import { SectionedTree } from '../../editor/sectionedTree';
import { AGENTS_EMPTY, type AgentsView } from '../agents/agentsView';
import { MEMORY_EMPTY, type MemoryView } from './memoryView';

/** The view id of Memory & Agents (the id of the Memory view it grew from, so its menus kept their `when`). */
export const MEMORY_AGENTS_VIEW = 'agentContext.memory';

/**
 * The Memory & Agents view: what the agent remembers and its sub-agents, one collapsed view with
 * a section each (see SectionedTree for why one view). Tests read each section as the view shows it,
 * as `agentContext.memory:memory` and `agentContext.memory:agents`.
 */
export function registerMemoryAgentsView(context: vscode.ExtensionContext, memory: MemoryView, agents: AgentsView): void {
  const tree = new SectionedTree(MEMORY_AGENTS_VIEW, [
    { id: 'memory', label: 'Memory', icon: 'symbol-key', emptyMessage: MEMORY_EMPTY, provider: memory },
    { id: 'agents', label: 'Agents', icon: 'organization', emptyMessage: AGENTS_EMPTY, provider: agents },
  ]);
  context.subscriptions.push(
    tree,
    vscode.window.createTreeView(MEMORY_AGENTS_VIEW, { treeDataProvider: tree }),
    registerTreeForTests(MEMORY_AGENTS_VIEW, tree),
    ...tree.sections.map((s) => registerTreeForTests(`${MEMORY_AGENTS_VIEW}:${s.id}`, tree.sectionProvider(s.id))),
    vscode.commands.registerCommand('agentContext.memory.refresh', () => {
      memory.refresh();
      agents.refresh();
    }),
  );
}
