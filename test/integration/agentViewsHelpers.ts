// Helpers for the foundation's integration suites (plan, scratch, skills, cleanup, initialize,
// multiroot): reach the extension's test API and read the sidebar views the way a user sees them.
import * as vscode from 'vscode';
import type { AgentContextApi, SnapshotNode } from '../../src/api';
import { ui, waitFor } from './bridge';

export type { SnapshotNode };

/** The extension's API (activating it if needed). */
export async function agentApi(): Promise<AgentContextApi> {
  const ext = await waitFor(() => vscode.extensions.getExtension<AgentContextApi>('agent-context.agent-context'), { message: 'extension present' });
  return ext.isActive ? ext.exports : await ext.activate();
}

/** Every node of a snapshot, depth first. */
export function flatten(nodes: readonly SnapshotNode[]): SnapshotNode[] {
  return nodes.flatMap((n) => [n, ...flatten(n.children)]);
}

/** Polls a view's snapshot until `pick` returns something truthy (generous timeout, never a timing assertion). */
export async function waitForTree<T>(viewId: string, pick: (nodes: SnapshotNode[]) => T, message: string, timeout = 20_000): Promise<NonNullable<T>> {
  const api = await agentApi();
  return waitFor(async () => pick(await api.treeSnapshot(viewId)), { timeout, message });
}

/** CSS/Playwright selector of a sidebar view pane by its title. */
export function paneSelector(title: string): string {
  return `.pane:has(.pane-header[aria-label^="${title}"])`;
}

/** The visible rows' text of a view pane. */
export async function paneRows(title: string): Promise<string[]> {
  return ui.texts(`${paneSelector(title)} .monaco-list-row`);
}

/** Scrolls a view to its top (the tree renders only the rows in view): focus its list, press Home. */
export async function scrollToTop(title: string): Promise<void> {
  await ui.press('Home', { selector: `${paneSelector(title)} .monaco-list` });
}

/** Opens the Agent Context container and waits until a row of `title` contains `text`. */
export async function waitForRow(title: string, text: string, timeout = 20_000): Promise<string[]> {
  await ui.openViewContainer('Agent Context');
  await scrollToTop(title).catch(() => undefined);
  return waitFor(async () => {
    const rows = await paneRows(title);
    return rows.some((r) => r.includes(text)) ? rows : undefined;
  }, { timeout, message: `the ${title} view shows a row with "${text}"` });
}

/** The workspace folder path of the run (single-folder runs). */
export function wsRoot(): string {
  return vscode.workspace.workspaceFolders![0].uri.fsPath;
}
