import * as path from 'node:path';
import * as vscode from 'vscode';
import { scanScratch, ScratchEntry, ScratchInventory } from '../core/scratch/inventory';
import { loadPins } from '../core/scratch/pins';
import { estimateTokensFromBytes, formatTokens } from '../core/tokens';
import { registerTreeForTests } from '../api';
import { AgentFolder, AgentFolders, folderLabel, touches } from './agentFolders';
import { noteTooltip, onDidChangeNotes } from './noteDecorations';

/** One folder of scratch, with its direct children and subtree totals. */
interface DirIndex {
  rel: string;
  dirs: string[];
  files: ScratchEntry[];
  count: number;
  bytes: number;
}

interface FolderState {
  inv: ScratchInventory;
  dirs: Map<string, DirIndex>;
  pinned: Set<string>;
}

/** Tree nodes of the Scratch view. */
export type ScratchNode =
  | { kind: 'root'; folder: AgentFolder }
  | { kind: 'dir'; folder: AgentFolder; dir: DirIndex; abs: string }
  | { kind: 'file'; folder: AgentFolder; entry: ScratchEntry; pinned: boolean };

/** Formats a byte size for people: `512 B`, `3.4 KB`, `12.0 MB`. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(1)} GB`;
}

/** `1 file · 12 B`, `10,003 files · 39.1 KB`. */
export function countLabel(files: number, bytes: number): string {
  return `${files.toLocaleString('en-US')} file${files === 1 ? '' : 's'} · ${formatBytes(bytes)}`;
}

/** Formats an age: `just now`, `5m`, `3h`, `2d`. */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

function indexInventory(inv: ScratchInventory): Map<string, DirIndex> {
  const dirs = new Map<string, DirIndex>();
  const get = (rel: string): DirIndex => {
    let d = dirs.get(rel);
    if (!d) {
      d = { rel, dirs: [], files: [], count: 0, bytes: 0 };
      dirs.set(rel, d);
      if (rel !== '') get(path.posix.dirname(rel) === '.' ? '' : path.posix.dirname(rel)).dirs.push(rel);
    }
    return d;
  };
  get('');
  for (const d of inv.dirs) get(d);
  // inv.files is newest first, so each folder's files stay newest first.
  for (const f of inv.files) {
    const parent = path.posix.dirname(f.rel) === '.' ? '' : path.posix.dirname(f.rel);
    get(parent).files.push(f);
    for (let p: string = parent; ; p = path.posix.dirname(p) === '.' ? '' : path.posix.dirname(p)) {
      const d = get(p);
      d.count++;
      d.bytes += f.size;
      if (p === '') break;
    }
  }
  for (const d of dirs.values()) d.dirs.sort();
  return dirs;
}

/** The Scratch view: files under `.agent/scratch/` with size, age and estimated tokens, newest first. */
export class ScratchTreeProvider implements vscode.TreeDataProvider<ScratchNode>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<ScratchNode | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly state = new Map<string, Promise<FolderState>>();
  private readonly resolved = new Map<string, FolderState>();
  private readonly sub: vscode.Disposable;
  private readonly notesSub = onDidChangeNotes(() => this.emitter.fire(undefined)); // notes show in tooltips
  /** Called with the totals after each scan (for the view's description). */
  onTotals: ((files: number, bytes: number) => void) | undefined;

  constructor(private readonly folders: AgentFolders) {
    this.sub = folders.onDidChange((c) => {
      if (!touches(c, 'scratch')) return;
      for (const ch of c) if (ch.areas.has('scratch') || ch.areas.has('agent')) this.state.delete(ch.root);
      this.emitter.fire(undefined);
    });
  }

  /** Forgets every scan and redraws. */
  refresh(): void {
    this.state.clear();
    this.emitter.fire(undefined);
  }

  /** The inventory of a folder (scanned at most once per refresh). */
  stateOf(folder: AgentFolder): Promise<FolderState> {
    let s = this.state.get(folder.root);
    if (!s) {
      s = (async () => {
        const [inv, pins] = await Promise.all([scanScratch(folder.agentDir), loadPins(folder.agentDir)]);
        const st: FolderState = { inv, dirs: indexInventory(inv), pinned: pins.ok ? pins.value : new Set<string>() };
        this.resolved.set(folder.root, st);
        return st;
      })();
      this.state.set(folder.root, s);
      void s.then(() => this.updateTotals());
    }
    return s;
  }

  private async updateTotals(): Promise<void> {
    let files = 0;
    let bytes = 0;
    for (const f of this.folders.folders) {
      const s = this.state.get(f.root);
      if (!s) continue;
      const st = await s;
      files += st.inv.files.length;
      bytes += st.inv.totalBytes;
    }
    this.onTotals?.(files, bytes);
  }

  async getChildren(node?: ScratchNode): Promise<ScratchNode[]> {
    if (!node) {
      await this.folders.ready;
      const folders = this.folders.folders;
      if (folders.length === 0) this.onTotals?.(0, 0);
      if (this.folders.multiRoot) {
        await Promise.all(folders.map((f) => this.stateOf(f)));
        return folders.map((folder) => ({ kind: 'root', folder }));
      }
      return folders.length > 0 ? this.childrenOf(folders[0], '') : [];
    }
    if (node.kind === 'root') return this.childrenOf(node.folder, '');
    if (node.kind === 'dir') return this.childrenOf(node.folder, node.dir.rel);
    return [];
  }

  private async childrenOf(folder: AgentFolder, rel: string): Promise<ScratchNode[]> {
    const st = await this.stateOf(folder);
    const dir = st.dirs.get(rel);
    if (!dir) return [];
    return [
      ...dir.dirs.map((d): ScratchNode => ({ kind: 'dir', folder, dir: st.dirs.get(d)!, abs: path.join(st.inv.scratchDir, d) })),
      ...dir.files.map((entry): ScratchNode => ({ kind: 'file', folder, entry, pinned: st.pinned.has(entry.path) })),
    ];
  }

  getTreeItem(node: ScratchNode): vscode.TreeItem {
    if (node.kind === 'root') {
      const item = new vscode.TreeItem(folderLabel(node.folder), vscode.TreeItemCollapsibleState.Expanded);
      item.id = `scratch-root:${node.folder.root}`;
      item.iconPath = new vscode.ThemeIcon('root-folder');
      const s = this.resolved.get(node.folder.root);
      if (s) item.description = countLabel(s.inv.files.length, s.inv.totalBytes);
      item.tooltip = path.join(node.folder.agentDir, 'scratch');
      item.contextValue = 'scratchRoot';
      return item;
    }
    if (node.kind === 'dir') {
      const item = new vscode.TreeItem(vscode.Uri.file(node.abs), vscode.TreeItemCollapsibleState.Collapsed);
      item.id = `scratch-dir:${node.abs}`;
      item.description = countLabel(node.dir.count, node.dir.bytes);
      item.contextValue = 'scratchFolder';
      return item;
    }
    const e = node.entry;
    const item = new vscode.TreeItem(vscode.Uri.file(e.path), vscode.TreeItemCollapsibleState.None);
    item.id = `scratch-file:${e.path}`;
    const parts = [formatBytes(e.size), formatAge(Date.now() - e.mtimeMs), formatTokens(estimateTokensFromBytes(e.size))];
    if (node.pinned) parts.unshift('pinned');
    if (e.symlink) parts.unshift('symlink, not followed');
    item.description = parts.join(' · ');
    item.tooltip = `${path.join('.agent/scratch', e.rel)}\n${parts.join('\n')}\nmodified ${new Date(e.mtimeMs).toLocaleString()}`;
    item.tooltip = noteTooltip(vscode.Uri.file(e.path), item.tooltip) ?? item.tooltip;
    item.contextValue = e.symlink ? 'scratchSymlink' : node.pinned ? 'scratchFile.pinned' : 'scratchFile';
    if (e.symlink) item.iconPath = new vscode.ThemeIcon('file-symlink-file');
    else item.command = { command: 'vscode.open', title: 'Open', arguments: [vscode.Uri.file(e.path)] };
    return item;
  }

  dispose(): void {
    this.sub.dispose();
    this.notesSub.dispose();
    this.emitter.dispose();
  }
}

/** Registers the Scratch view; its description shows file count and total size. */
export function createScratchView(context: vscode.ExtensionContext, folders: AgentFolders): ScratchTreeProvider {
  const provider = new ScratchTreeProvider(folders);
  const view = vscode.window.createTreeView('agentContext.scratch', { treeDataProvider: provider, showCollapseAll: true, canSelectMany: true });
  provider.onTotals = (files, bytes) => {
    view.description = files === 0 && bytes === 0 ? undefined : countLabel(files, bytes);
  };
  context.subscriptions.push(provider, view, registerTreeForTests('agentContext.scratch', provider));
  return provider;
}
