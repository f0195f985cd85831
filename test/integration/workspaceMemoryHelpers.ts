// Helpers for the memory / agents / briefing suites: the extension's test API, view snapshots and
// rows as a user sees them, and tool calls through vscode.lm.invokeTool.
import * as vscode from 'vscode';
import type { AgentContextApi, SnapshotNode } from '../../src/api';
import { ui, waitFor } from './bridge';

export type { SnapshotNode };

/** The extension (activated). */
export async function extension(): Promise<vscode.Extension<AgentContextApi>> {
  const ext = await waitFor(() => vscode.extensions.getExtension<AgentContextApi>('agent-context.agent-context'), { message: 'extension present' });
  if (!ext.isActive) await ext.activate();
  return ext;
}

/** Polls a view's snapshot until `pick` returns something truthy. */
export async function waitForNodes<T>(viewId: string, pick: (nodes: SnapshotNode[]) => T, message: string, timeout = 20_000): Promise<NonNullable<T>> {
  const api = (await extension()).exports;
  return waitFor(async () => pick(await api.treeSnapshot(viewId)), { timeout, message });
}

/** Every node of a snapshot, depth first. */
export function allNodes(nodes: readonly SnapshotNode[]): SnapshotNode[] {
  return nodes.flatMap((n) => [n, ...allNodes(n.children)]);
}

/** Selector of a sidebar view pane by its title. */
export function pane(title: string): string {
  return `.pane:has(.pane-header[aria-label^="${title}"])`;
}

/**
 * Opens the Agent Context container, expands the pane if collapsed, and waits for a row containing
 * `text` (the tree renders only the rows in view: `end` scrolls to the bottom first).
 */
export async function waitForPaneRow(title: string, text: string, timeout = 20_000, end = false): Promise<string[]> {
  await ui.openViewContainer('Agent Context');
  const expanded = await ui.attribute(`${pane(title)} .pane-header`, 'aria-expanded').catch(() => null);
  if (expanded === 'false') await ui.click(`${pane(title)} .pane-header`);
  return waitFor(async () => {
    if (end) await ui.press('End', { selector: `${pane(title)} .monaco-list` });
    const rows = await ui.texts(`${pane(title)} .monaco-list-row`);
    return rows.some((r) => r.includes(text)) ? rows : undefined;
  }, { timeout, message: `the ${title} view shows a row with "${text}"` });
}

/** Calls a tool the way chat does and returns its text. */
export async function invoke(name: string, input: Record<string, unknown>): Promise<string> {
  const r = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined });
  return r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

/** The workspace folder of the run. */
export function wsRoot(): string {
  return vscode.workspace.workspaceFolders![0].uri.fsPath;
}
