import * as vscode from 'vscode';
import * as path from 'node:path';
import { forgetMemory, listMemory, listMemoryFiles, markMemoryReviewed, preferencesPath, rememberMemory, type MemoryEntry, type MemoryFile } from '../../core/memory';
import { formatFileError } from '../../core/result';
import { AgentFolderTree, openAtLine } from '../../editor/agentFolderTree';
import { clip } from '../../core/output/text';
import { formatBytes, formatLocalTime, groupDigits, plural } from '../../core/output/humanize';
import { sectionNode } from '../../editor/sectionedTree';
import type { AgentFeed, AgentContextFolder } from '../../editor/agentFeed';
import { notify } from '../../editor/notify';

type Node =
  | { kind: 'folder'; root: AgentContextFolder }
  | { kind: 'entry'; root: AgentContextFolder; entry: MemoryEntry }
  | { kind: 'more'; root: AgentContextFolder; rest: MemoryEntry[] }
  | { kind: 'notes'; root: AgentContextFolder; files: MemoryFile[] }
  | { kind: 'note'; root: AgentContextFolder; file: MemoryFile }
  | { kind: 'error'; root: AgentContextFolder; message: string }
  | { kind: 'empty'; message: string };

/** Entries per page, in file order; the rest behind "… N more entries" (2,000 entries were 2,000 rows sent to the editor at every start: bench row 19a). */
export const MEMORY_PAGE = 100;

/** The first page of `entries`, then a node holding the rest. */
function paged(root: AgentContextFolder, entries: MemoryEntry[]): Node[] {
  const out: Node[] = entries.slice(0, MEMORY_PAGE).map((entry): Node => ({ kind: 'entry', root, entry }));
  if (entries.length > MEMORY_PAGE) out.push({ kind: 'more', root, rest: entries.slice(MEMORY_PAGE) });
  return out;
}

/** A folder's one row when it has nothing (and the section's, in the Memory & Agents view). */
export const MEMORY_EMPTY = 'Nothing remembered yet (.agent/memory/)';

/** The Memory part of the Memory & Agents view (`agentContext.memory`): preferences.yaml entries (review marks) and memory/*.md notes. */
export class MemoryView extends AgentFolderTree<Node> {
  constructor(feed: AgentFeed) {
    super(feed, 'memory');
  }

  getTreeItem(n: Node): vscode.TreeItem {
    switch (n.kind) {
      case 'folder': {
        const it = new vscode.TreeItem(n.root.name, vscode.TreeItemCollapsibleState.Expanded);
        it.iconPath = new vscode.ThemeIcon('root-folder');
        it.contextValue = 'memoryFolder';
        return it;
      }
      case 'entry': {
        const e = n.entry;
        const it = new vscode.TreeItem(e.key, vscode.TreeItemCollapsibleState.None);
        // The warning icon marks the entry once; the words say what it asks for (no second ⚠ glyph).
        it.description = (e.review ? 'needs review · ' : '') + clip(e.value, 80);
        // The Markdown tooltip comes from resolveTreeItem on hover: 2,000 entries' tooltips were made,
        // and lexed by VS Code, at every draw (bench row 19b).
        it.iconPath = e.review ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground')) : new vscode.ThemeIcon('symbol-key');
        it.contextValue = e.review ? 'memoryEntryReview' : 'memoryEntry';
        it.command = openAtLine(preferencesPath(n.root.agentDir), e.line);
        it.id = `memory:${n.root.agentDir}:${e.key}`;
        return it;
      }
      case 'more': {
        const n2 = n.rest.length;
        const it = new vscode.TreeItem(`… ${plural(n2, 'more entry', 'more entries')}`, vscode.TreeItemCollapsibleState.Collapsed);
        const review = n.rest.filter((e) => e.review).length;
        if (review) it.description = `${groupDigits(review)} need${review === 1 ? 's' : ''} review`;
        it.id = `memory-more:${n.root.agentDir}:${n.rest[0].key}`;
        it.iconPath = new vscode.ThemeIcon(review ? 'warning' : 'ellipsis', review ? new vscode.ThemeColor('list.warningForeground') : undefined);
        it.tooltip = `Expand to list the next ${MEMORY_PAGE} of ${groupDigits(n2)} more entries of ${path.basename(preferencesPath(n.root.agentDir))}, in file order`;
        return it;
      }
      case 'notes': {
        const it = new vscode.TreeItem('Notes', vscode.TreeItemCollapsibleState.Expanded);
        it.description = `${n.files.length} in .agent/memory/`;
        it.iconPath = new vscode.ThemeIcon('notebook');
        return it;
      }
      case 'note': {
        const abs = path.join(n.root.root, n.file.path);
        const it = new vscode.TreeItem(vscode.Uri.file(abs), vscode.TreeItemCollapsibleState.None);
        it.label = n.file.name;
        it.description = n.file.title;
        it.tooltip = `${n.file.path} · ${formatBytes(n.file.bytes)}`;
        it.contextValue = 'memoryNote';
        it.command = openAtLine(abs, 1);
        return it;
      }
      case 'error': {
        const it = new vscode.TreeItem(n.message, vscode.TreeItemCollapsibleState.None);
        it.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('list.errorForeground'));
        it.tooltip = `${n.message}\nFix the file; nothing is rewritten while it is invalid.`;
        it.command = openAtLine(preferencesPath(n.root.agentDir), Number(/:(\d+):/.exec(n.message)?.[1] ?? 1));
        return it;
      }
      case 'empty':
        return new vscode.TreeItem(n.message, vscode.TreeItemCollapsibleState.None);
    }
  }

  /** An entry's tooltip (value, who and when, review, earlier values), made when the user hovers it. */
  resolveTreeItem(it: vscode.TreeItem, n: Node): vscode.TreeItem {
    if (n.kind !== 'entry' || it.tooltip !== undefined) return it;
    const e = n.entry;
    const md = new vscode.MarkdownString();
    md.appendMarkdown(`**${e.key}**\n\n`);
    md.appendCodeblock(e.value, 'text');
    md.appendMarkdown(`\n${e.source ? `by ${e.source}` : ''}${e.updated ? ` · updated ${formatLocalTime(e.updated)}` : ''}\n`);
    if (e.review) md.appendMarkdown('\n\n**Needs review**: this value contradicted an earlier one (below). Edit it or mark it reviewed.\n');
    for (const h of [...e.history].reverse().slice(0, 5)) md.appendMarkdown(`\n- was \`${clip(h.value, 100).replace(/`/g, "'")}\`${h.updated ? ` (${formatLocalTime(h.updated)})` : ''}`);
    it.tooltip = md;
    return it;
  }

  async getChildren(n?: Node): Promise<Node[]> {
    // Nothing at the top (one folder, empty): the view's welcome content (package.json viewsWelcome)
    // explains it; in a multi-root workspace each empty folder keeps its one-line note.
    if (!n) return (await this.rootNodes((root) => ({ kind: 'folder', root }), (root) => this.folderChildren(root))).filter((x) => x.kind !== 'empty');
    if (n.kind === 'folder') return this.folderChildren(n.root);
    if (n.kind === 'more') return paged(n.root, n.rest);
    if (n.kind === 'notes') return n.files.map((file) => ({ kind: 'note', root: n.root, file }));
    return [];
  }

  private async folderChildren(root: AgentContextFolder): Promise<Node[]> {
    const out: Node[] = [];
    const entries = await listMemory(root.agentDir);
    if (!entries.ok) out.push({ kind: 'error', root, message: formatFileError(entries.error) });
    else out.push(...paged(root, entries.value));
    const files = await listMemoryFiles(root.agentDir);
    if (files.length) out.push({ kind: 'notes', root, files });
    if (out.length === 0) out.push({ kind: 'empty', message: MEMORY_EMPTY });
    return out;
  }
}

/**
 * The Memory part of the Memory & Agents view (registered with the Agents part in
 * memoryAgentsView.ts) and its edit / delete / mark-reviewed commands.
 */
export function registerMemory(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, feed: AgentFeed): MemoryView {
  const view = new MemoryView(feed);
  type EntryNode = Extract<Node, { kind: 'entry' }>;
  // The commands get the view's row; its memory node is inside.
  const entryOf = (arg: unknown): EntryNode | undefined => {
    const n = sectionNode(arg) as Node | undefined;
    return n && n.kind === 'entry' ? n : undefined;
  };
  context.subscriptions.push(
    view,
    vscode.commands.registerCommand('agentContext.memory.edit', async (arg?: unknown) => {
      const n = entryOf(arg);
      if (!n) return void notify.info('choose a memory entry in the Memory & Agents view to edit.');
      const value = await vscode.window.showInputBox({ title: `Edit memory "${n.entry.key}"`, value: n.entry.value, prompt: 'The old value is kept in the entry history.' });
      if (value === undefined || value === n.entry.value) return;
      const r = await rememberMemory(n.root.agentDir, n.entry.key, value, { source: 'user' });
      if (!r.ok) return void notify.error(`could not save "${n.entry.key}": ${formatFileError(r.error)}`);
      log.info(`memory: ${n.entry.key} edited by the user`);
      view.refresh();
    }),
    vscode.commands.registerCommand('agentContext.memory.delete', async (arg?: unknown) => {
      const n = entryOf(arg);
      if (!n) return void notify.info('choose a memory entry in the Memory & Agents view to delete.');
      const pick = await notify.warn(
        `Delete memory "${n.entry.key}"?`,
        { modal: true, detail: `${n.entry.value}\n\nA copy is kept in .agent/history/memory-forgotten.jsonl.` },
        'Delete',
      );
      if (pick !== 'Delete') return;
      const r = await forgetMemory(n.root.agentDir, n.entry.key);
      if (!r.ok) return void notify.error(`could not delete "${n.entry.key}": ${formatFileError(r.error)}`);
      log.info(`memory: ${n.entry.key} deleted by the user`);
      view.refresh();
    }),
    vscode.commands.registerCommand('agentContext.memory.markReviewed', async (arg?: unknown) => {
      const n = entryOf(arg);
      if (!n) return;
      const r = await markMemoryReviewed(n.root.agentDir, n.entry.key);
      if (!r.ok) return void notify.error(`${formatFileError(r.error)}`);
      view.refresh();
    }),
  );
  return view;
}
