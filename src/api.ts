import * as vscode from 'vscode';
import { notesListedOn } from './features/notes/noteDecorations';

/** A tree node as plain data: what a user sees in a view row, for integration tests. */
export interface SnapshotNode {
  label: string;
  description?: string;
  tooltip?: string;
  contextValue?: string;
  /** ThemeIcon id (e.g. `pass-filled`), or the icon path for file icons. */
  icon?: string;
  /** `resourceUri.fsPath` when the row shows a file or folder. */
  resourceUri?: string;
  /** The command a click runs, with its arguments' files/lines when it opens one. */
  command?: string;
  collapsible: boolean;
  /** Drawn expanded at first (TreeItemCollapsibleState.Expanded). */
  expanded: boolean;
  children: SnapshotNode[];
}

/** What `activate()` returns: hooks for integration tests. */
export interface AgentContextApi {
  /** Resolves a registered view's whole tree (getChildren + getTreeItem) into plain nodes. */
  treeSnapshot(viewId: string): Promise<SnapshotNode[]>;
  /** The view ids registered for snapshots. */
  views(): string[];
  /**
   * Builds what a view shows when it is first drawn: the top level and every node that starts
   * expanded, as TreeItems (collapsed nodes are not opened). Returns how many items that made.
   * The benchmark times this inside the extension host.
   */
  renderView(viewId: string): Promise<number>;
  /**
   * Where the note decorations' last listing ran: on their worker thread, or on the extension host's
   * (the worker failed); undefined before the first. A package missing dist/notes-worker.js shows here.
   */
  notesListedOn(): 'worker' | 'extension host' | undefined;
  /** How many times a registered view has told VS Code its tree changed (a refresh), since it registered: an idle editor's views stay still. */
  viewChanges(viewId: string): number;
  /** Time spent inside activate(), in milliseconds (set when activate() returns). */
  activationMs?: number;
  /** This window's workspace storage folder (where other extensions, Copilot Chat among them, keep theirs); unset without a workspace. */
  workspaceStorage?: string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyProvider = vscode.TreeDataProvider<any>;
const trees = new Map<string, AnyProvider>();
const changes = new Map<string, number>();

/** Makes a view's provider available to `treeSnapshot` (every view registers itself: Plan, Scratch, Skills, Terminals, ...). */
export function registerTreeForTests(viewId: string, provider: AnyProvider): vscode.Disposable {
  trees.set(viewId, provider);
  changes.set(viewId, 0);
  const counting = provider.onDidChangeTreeData?.(() => changes.set(viewId, (changes.get(viewId) ?? 0) + 1));
  return new vscode.Disposable(() => {
    counting?.dispose();
    if (trees.get(viewId) === provider) trees.delete(viewId);
  });
}

function text(v: string | vscode.TreeItemLabel | vscode.MarkdownString | boolean | undefined): string | undefined {
  if (v === undefined || typeof v === 'boolean') return undefined;
  if (typeof v === 'string') return v;
  if (v instanceof vscode.MarkdownString) return v.value;
  return (v as vscode.TreeItemLabel).label;
}

function iconOf(item: vscode.TreeItem): string | undefined {
  const i = item.iconPath;
  if (!i) return undefined;
  if (i instanceof vscode.ThemeIcon) return i.id;
  if (i instanceof vscode.Uri) return i.fsPath;
  if (typeof i === 'string') return i;
  if ('light' in i) return String((i.light as vscode.Uri).fsPath ?? i.light);
  return undefined;
}

async function snapshot(provider: AnyProvider, element: unknown, depth: number): Promise<SnapshotNode[]> {
  const kids = (await provider.getChildren(element as never)) ?? [];
  const out: SnapshotNode[] = [];
  for (const k of kids) {
    let item = await provider.getTreeItem(k);
    // What the user sees on hover: VS Code asks resolveTreeItem for a row without a tooltip.
    if (item.tooltip === undefined && provider.resolveTreeItem) item = (await provider.resolveTreeItem(item, k, new vscode.CancellationTokenSource().token)) ?? item;
    const collapsible = (item.collapsibleState ?? vscode.TreeItemCollapsibleState.None) !== vscode.TreeItemCollapsibleState.None;
    out.push({
      label: text(item.label) ?? item.resourceUri?.path.split('/').pop() ?? '',
      description: text(item.description),
      tooltip: text(item.tooltip as string | vscode.MarkdownString | undefined),
      contextValue: item.contextValue,
      icon: iconOf(item),
      resourceUri: item.resourceUri?.fsPath,
      command: item.command?.command,
      collapsible,
      expanded: item.collapsibleState === vscode.TreeItemCollapsibleState.Expanded,
      children: collapsible && depth < 8 ? await snapshot(provider, k, depth + 1) : [],
    });
  }
  return out;
}

async function renderVisible(provider: AnyProvider, element: unknown, depth: number): Promise<number> {
  const kids = (await provider.getChildren(element as never)) ?? [];
  let n = 0;
  for (const k of kids) {
    const item = await provider.getTreeItem(k);
    n++;
    if (item.collapsibleState === vscode.TreeItemCollapsibleState.Expanded && depth < 8) n += await renderVisible(provider, k, depth + 1);
  }
  return n;
}

/** The API object `activate()` returns. */
export const agentContextApi: AgentContextApi = {
  async treeSnapshot(viewId: string): Promise<SnapshotNode[]> {
    const p = trees.get(viewId);
    if (!p) throw new Error(`no tree registered for ${viewId}; registered: ${[...trees.keys()].join(', ') || 'none'}`);
    return snapshot(p, undefined, 0);
  },
  views: () => [...trees.keys()],
  viewChanges(viewId: string): number {
    if (!trees.has(viewId)) throw new Error(`no tree registered for ${viewId}; registered: ${[...trees.keys()].join(', ') || 'none'}`);
    return changes.get(viewId) ?? 0;
  },
  notesListedOn,
  async renderView(viewId: string): Promise<number> {
    const p = trees.get(viewId);
    if (!p) throw new Error(`no tree registered for ${viewId}; registered: ${[...trees.keys()].join(', ') || 'none'}`);
    return renderVisible(p, undefined, 0);
  },
};
