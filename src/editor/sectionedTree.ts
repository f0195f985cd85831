import * as vscode from 'vscode';

/** One part of a sectioned view: a header row and, below it, what its own tree provider lists at its top. */
export interface TreeSection {
  /** Part of the header row's id, and of the test registration (`<viewId>:<id>`). */
  readonly id: string;
  readonly label: string;
  /** ThemeIcon id of the header row. */
  readonly icon: string;
  /** The one row under the header when the section has nothing (the other section does). */
  readonly emptyMessage: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly provider: vscode.TreeDataProvider<any>;
}

/** A row of the sectioned view: a section's header (no node), its empty note, or a node of the section's own provider. */
export type SectionRow =
  | { readonly section: TreeSection; readonly kind: 'header' }
  | { readonly section: TreeSection; readonly kind: 'empty' }
  | { readonly section: TreeSection; readonly kind: 'node'; readonly node: unknown };

/**
 * Several trees in one view, each under its own header row (the Memory & Agents view: two small
 * trees that were two views). One view instead of two, because VS Code hands the room a collapsed
 * view frees to the lowest open view, and lets no extension set a view's size: opening two small
 * views at once and closing them again left the Plan cut to its minimum for good (issue 49).
 *
 * With nothing in any section the view's top is empty, so its welcome content explains it.
 */
export class SectionedTree implements vscode.TreeDataProvider<SectionRow>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly subscriptions: vscode.Disposable[];
  /** Each section's top as the last look at the view's top read it, for its header's first expansion (one read per redraw, not two). */
  private pending = new Map<TreeSection, SectionRow[]>();

  constructor(private readonly viewId: string, readonly sections: readonly TreeSection[]) {
    // A section's provider refreshing refreshes the view: the header rows' presence depends on every section.
    this.subscriptions = sections.flatMap((s) =>
      s.provider.onDidChangeTreeData
        ? [
            s.provider.onDidChangeTreeData(() => {
              this.pending.clear();
              this.changed.fire();
            }),
          ]
        : [],
    );
  }

  getTreeItem(row: SectionRow): vscode.TreeItem | Thenable<vscode.TreeItem> {
    if (row.kind === 'node') return row.section.provider.getTreeItem(row.node);
    if (row.kind === 'empty') return new vscode.TreeItem(row.section.emptyMessage, vscode.TreeItemCollapsibleState.None);
    const it = new vscode.TreeItem(row.section.label, vscode.TreeItemCollapsibleState.Expanded);
    it.id = `${this.viewId}:${row.section.id}`;
    it.iconPath = new vscode.ThemeIcon(row.section.icon);
    return it;
  }

  async resolveTreeItem(item: vscode.TreeItem, row: SectionRow, token: vscode.CancellationToken): Promise<vscode.TreeItem> {
    const resolve = row.section.provider.resolveTreeItem;
    if (row.kind !== 'node' || !resolve) return item;
    return (await resolve.call(row.section.provider, item, row.node, token)) ?? item;
  }

  async getChildren(row?: SectionRow): Promise<SectionRow[]> {
    if (!row) {
      const tops = await Promise.all(this.sections.map((s) => this.top(s)));
      // The headers start expanded: VS Code asks for their children next, in the same redraw.
      this.pending = new Map(this.sections.map((s, i) => [s, tops[i]]));
      return tops.every((t) => t.length === 0) ? [] : this.sections.map((section) => ({ section, kind: 'header' }));
    }
    if (row.kind === 'header') {
      const top = this.pending.get(row.section) ?? (await this.top(row.section));
      this.pending.delete(row.section);
      return top.length === 0 ? [{ section: row.section, kind: 'empty' }] : top;
    }
    if (row.kind === 'empty') return [];
    const kids = (await row.section.provider.getChildren(row.node)) ?? [];
    return kids.map((node) => ({ section: row.section, kind: 'node', node }));
  }

  /** What one section shows under its header, as the view shows it: for tests, one snapshot per section. */
  sectionProvider(id: string): vscode.TreeDataProvider<SectionRow> {
    const section = this.sections.find((s) => s.id === id);
    if (!section) throw new Error(`no section ${id} in ${this.viewId}`);
    return {
      getTreeItem: (row) => this.getTreeItem(row),
      resolveTreeItem: (item, row, token) => this.resolveTreeItem(item, row, token),
      getChildren: async (row) => {
        if (row) return this.getChildren(row);
        // As the view: nothing when every section is empty (the welcome content shows instead).
        return (await this.getChildren()).length === 0 ? [] : this.getChildren({ section, kind: 'header' });
      },
    };
  }

  private async top(section: TreeSection): Promise<SectionRow[]> {
    const kids = (await section.provider.getChildren(undefined)) ?? [];
    return kids.map((node) => ({ section, kind: 'node', node }));
  }

  dispose(): void {
    this.changed.dispose();
    for (const d of this.subscriptions) d.dispose();
  }
}

/** The section's own node a command on a row of a sectioned view receives (commands are given the row). */
export function sectionNode(arg: unknown): unknown {
  const row = arg as Partial<SectionRow> | undefined;
  return row && row.kind === 'node' && row.section ? (row as { node: unknown }).node : arg;
}
