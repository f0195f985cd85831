import * as vscode from 'vscode';
import type { ChangeArea } from '../core/workspace/agentLayout';
import type { AgentFeed, AgentContextFolder } from './agentFeed';

/** Opens a file at a 1-based line. */
export function openAtLine(file: string, line?: number): vscode.Command {
  const l = Math.max(0, (line ?? 1) - 1);
  return { command: 'vscode.open', title: 'Open', arguments: [vscode.Uri.file(file), { selection: new vscode.Range(l, 0, l, 0) }] };
}

/**
 * Base of the Memory and Agents views: owns the change event and refreshes when the change feed
 * reports its area (the feed debounces; folders added or removed arrive as whole-folder changes).
 */
export abstract class AgentFolderTree<T> implements vscode.TreeDataProvider<T>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<T | undefined | void>();
  readonly onDidChangeTreeData = this.changed.event;
  protected readonly disposables: vscode.Disposable[] = [];

  constructor(protected readonly feed: AgentFeed, area: ChangeArea) {
    this.disposables.push(feed.on([area], () => this.refresh()));
  }

  /** Re-reads everything now. */
  refresh(): void {
    this.changed.fire();
  }

  abstract getTreeItem(element: T): vscode.TreeItem;
  abstract getChildren(element?: T): Promise<T[]>;

  /** The top level these views share: one group per folder with `.agent/` when the feed groups, or the only folder's children directly. */
  protected async rootNodes(group: (root: AgentContextFolder) => T, folderChildren: (root: AgentContextFolder) => Promise<T[]>): Promise<T[]> {
    await this.feed.ready;
    const roots = this.feed.folders;
    if (roots.length === 0) return [];
    if (this.feed.grouped) return roots.map(group);
    return folderChildren(roots[0]);
  }

  dispose(): void {
    this.changed.dispose();
    for (const d of this.disposables) d.dispose();
  }
}
