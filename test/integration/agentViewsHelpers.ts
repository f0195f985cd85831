// Helpers for the integration suites: reach the extension and its test API, read the sidebar views
// the way a user sees them, and call tools as chat does (vscode.lm.invokeTool).
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

/** The extension's API (activating it if needed). */
export async function agentApi(): Promise<AgentContextApi> {
  return (await extension()).exports;
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

/**
 * Opens the Agent Context container, expands the pane if collapsed, and waits for a row containing
 * `text` (the tree renders only the rows in view: `end` scrolls to the bottom first).
 */
export async function waitForPaneRow(title: string, text: string, timeout = 20_000, end = false): Promise<string[]> {
  await ui.openViewContainer('Agent Context');
  const expanded = await ui.attribute(`${paneSelector(title)} .pane-header`, 'aria-expanded').catch(() => null);
  if (expanded === 'false') await ui.click(`${paneSelector(title)} .pane-header`);
  return waitFor(async () => {
    if (end) await ui.press('End', { selector: `${paneSelector(title)} .monaco-list` });
    const rows = await paneRows(title);
    return rows.some((r) => r.includes(text)) ? rows : undefined;
  }, { timeout, message: `the ${title} view shows a row with "${text}"` });
}

/** Calls a tool the way chat does and returns its text. */
export async function invoke(name: string, input: Record<string, unknown>): Promise<string> {
  const r = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined });
  return r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

/** The workspace folder path of the run (single-folder runs). */
export function wsRoot(): string {
  return vscode.workspace.workspaceFolders![0].uri.fsPath;
}
