import * as path from 'node:path';
import * as vscode from 'vscode';
import { type ScratchEntry } from '../../core/scratch/scratchEntry';
import { loadPins } from '../../core/scratch/pins';
import { type ScratchIndex } from '../../core/scratch/index/scratchIndex';
import { followScratchEvents, scanFirstOffThread, scratchIndexChanged, sharedScratchIndex } from '../../core/scratch/index/sharedIndex';
import { KeyedState } from '../../core/keyedState';
import { estimateTokensFromBytes, formatTokens } from '../../core/output/tokens';
import { registerTreeForTests } from '../../api';
import { countLabel, formatAge, formatBytes, formatLocalTime, groupDigits, plural } from '../../core/output/humanize';
import { AgentContextFolder, AgentFeed, touches } from '../../editor/agentFeed';
import { noteTooltip, onDidChangeNotes } from '../notes/noteDecorations';
import { isInside, leavesFolder, toPosixRelative } from '../../core/workspace/relativePaths';
import { agentPath } from '../../core/workspace/layout';

/** One folder of scratch with its subtree totals. */
interface DirIndex {
  rel: string;
  count: number;
  bytes: number;
}

interface FolderState {
  index: ScratchIndex;
  pinned: Set<string>;
}

/** Files per page: a folder shows its newest ones and a node that pages the rest. */
export const FILE_PAGE = 200;
/** More changed paths than this in one batch: revalidate the whole index instead of updating path by path. */
const MAX_UPDATE_PATHS = 500;

/** Tree nodes of the Scratch view. */
export type ScratchNode =
  | { kind: 'root'; folder: AgentContextFolder }
  | { kind: 'dir'; folder: AgentContextFolder; dir: DirIndex; abs: string }
  /** `now`: when its page was listed, so files with equal times show equal ages. */
  | { kind: 'file'; folder: AgentContextFolder; entry: ScratchEntry; pinned: boolean; now: number }
  /** "… N older files": expands to the next page of a folder's files. */
  | { kind: 'older'; folder: AgentContextFolder; rel: string; offset: number; older: number }
  /** A folder the index could not list (no permission, a symlinked scratch folder): shown, not hidden. */
  | { kind: 'problem'; folder: AgentContextFolder; file: string; message: string };

/** The Scratch view: files under `.agent/scratch/` with size, age and estimated tokens, newest first. */
export class ScratchTreeProvider implements vscode.TreeDataProvider<ScratchNode>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<ScratchNode | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  /**
   * Each folder's index (the one this process shares with the tools: sharedIndex.ts) and pins. The
   * index is scanned once, then kept up to date from file events and Refresh at the cost of what
   * changed (ScratchIndex.update / revalidate). A failed scan or update is forgotten, so the next
   * render scans again instead of failing for good.
   */
  private readonly state = new KeyedState<FolderState>((root) => this.build(root));
  private readonly resolved = new Map<string, FolderState>();
  private readonly sub: vscode.Disposable;
  private readonly notesSub = onDidChangeNotes(() => this.emitter.fire(undefined)); // notes show in tooltips
  /** Called with the totals after each scan (for the view's description). */
  onTotals: ((files: number, bytes: number) => void) | undefined;

  constructor(private readonly feed: AgentFeed) {
    // Every scratch event below goes to the shared index, whether the view or a tool built it.
    followScratchEvents();
    // A first start's scan of every scratch file runs on the check worker, not on the host's thread.
    scanFirstOffThread();
    this.sub = feed.onDidChange((c) => {
      if (!touches(c, 'scratch')) return;
      for (const ch of c) {
        if (!ch.areas.has('scratch') && !ch.areas.has('agent')) continue;
        const pinsChanged = ch.areas.has('agent') || !ch.paths || [...ch.paths].some((p) => path.basename(p) === 'pins.json');
        // Known paths: one lstat each. Unknown or too many (or .agent/ itself came or went): revalidate
        // the whole index, which still lists only folders that changed.
        const paths = ch.areas.has('agent') || !ch.paths || ch.paths.size > MAX_UPDATE_PATHS ? undefined : ch.paths;
        const agentDir = this.feed.folders.find((f) => f.root === ch.root)?.agentDir;
        if (!agentDir) continue;
        const applied = scratchIndexChanged(agentDir, paths);
        this.updateFolder(ch.root, async (st) => {
          await applied;
          st.index = await sharedScratchIndex(agentDir); // a failed update forgot the old one
          if (pinsChanged) await this.reloadPins(st);
        });
      }
      this.emitter.fire(undefined);
    });
  }

  /** Re-reads what changed in every folder (not every file: see ScratchIndex.revalidate) and redraws. */
  refresh(): void {
    for (const f of this.feed.folders) {
      const applied = scratchIndexChanged(f.agentDir, undefined);
      this.updateFolder(f.root, async (st) => {
        await applied;
        st.index = await sharedScratchIndex(f.agentDir);
        await this.reloadPins(st);
      });
    }
    this.emitter.fire(undefined);
  }

  private updateFolder(root: string, step: (st: FolderState) => Promise<void>): void {
    if (!this.state.has(root)) return; // not shown yet: the first render scans
    void this.state.update(root, step).then((ran) => (ran ? this.updateTotals() : this.emitter.fire(undefined)));
  }

  private async reloadPins(st: FolderState): Promise<void> {
    const pins = await loadPins(st.index.agentDir);
    st.pinned = pins.ok ? pins.value : new Set<string>();
  }

  private async build(root: string): Promise<FolderState> {
    const folder = this.feed.folders.find((f) => f.root === root);
    if (!folder) throw new Error(`${root} has no .agent/ folder`);
    const [index, pins] = await Promise.all([sharedScratchIndex(folder.agentDir), loadPins(folder.agentDir)]);
    const st: FolderState = { index, pinned: pins.ok ? pins.value : new Set<string>() };
    this.resolved.set(root, st);
    void this.updateTotals();
    return st;
  }

  /** The index of a folder (scanned once, then kept up to date from file events). */
  stateOf(folder: AgentContextFolder): Promise<FolderState> {
    return this.state.get(folder.root);
  }

  private async updateTotals(): Promise<void> {
    let files = 0;
    let bytes = 0;
    for (const f of this.feed.folders) {
      if (!this.state.has(f.root)) continue;
      let st: FolderState;
      try {
        st = await this.state.get(f.root);
      } catch {
        continue; // unreadable: the view shows the error when it renders
      }
      this.resolved.set(f.root, st);
      const t = st.index.totals();
      files += t.files;
      bytes += t.bytes;
    }
    this.onTotals?.(files, bytes);
  }

  async getChildren(node?: ScratchNode): Promise<ScratchNode[]> {
    if (!node) {
      await this.feed.ready;
      const folders = this.feed.folders;
      if (folders.length === 0) this.onTotals?.(0, 0);
      if (this.feed.grouped) {
        await Promise.all(folders.map((f) => this.stateOf(f)));
        return folders.map((folder) => ({ kind: 'root', folder }));
      }
      return folders.length > 0 ? this.childrenOf(folders[0], '', 0) : [];
    }
    if (node.kind === 'root') return this.childrenOf(node.folder, '', 0);
    if (node.kind === 'dir') return this.childrenOf(node.folder, node.dir.rel, 0);
    if (node.kind === 'older') return this.childrenOf(node.folder, node.rel, node.offset);
    return [];
  }

  /** A folder's subfolders (first page only) and a page of its files, newest first, then "… N older files". */
  private async childrenOf(folder: AgentContextFolder, rel: string, offset: number): Promise<ScratchNode[]> {
    const st = await this.stateOf(folder);
    const dir = st.index.folder(rel);
    const out: ScratchNode[] = [];
    if (offset === 0) {
      // What the index could not list in this folder (at the top also the scratch folder itself) is
      // marked, so an empty-looking view is never mistaken for an empty folder.
      for (const e of st.index.errors) {
        const where = toPosixRelative(st.index.scratchDir, e.file);
        const parent = where === '' || leavesFolder(where) ? '' : path.posix.dirname(where).replace(/^\.$/, '');
        if (parent === rel) out.push({ kind: 'problem', folder, file: e.file, message: e.message });
      }
    }
    if (!dir) return out;
    if (offset === 0) {
      for (const d of dir.subdirs) {
        const sub = st.index.folder(d);
        const abs = path.join(st.index.scratchDir, d);
        // An empty folder (tool_outputs/ right after Initialize) is not content: the view keeps its
        // empty-state text. One holding a folder that could not be listed stays, to show the problem.
        if (sub && (sub.count > 0 || st.index.errors.some((e) => isInside(abs, e.file)))) out.push({ kind: 'dir', folder, dir: { rel: d, count: sub.count, bytes: sub.bytes }, abs });
      }
    }
    await st.index.ensureFiles(rel, offset + FILE_PAGE);
    const page = st.index.filesPage(rel, offset, FILE_PAGE);
    const now = Date.now();
    for (const entry of page.entries) out.push({ kind: 'file', folder, entry, pinned: st.pinned.has(entry.path), now });
    const older = page.total - offset - page.entries.length;
    if (older > 0) out.push({ kind: 'older', folder, rel, offset: offset + FILE_PAGE, older });
    return out;
  }

  getTreeItem(node: ScratchNode): vscode.TreeItem {
    if (node.kind === 'problem') {
      const rel = vscode.workspace.asRelativePath(node.file);
      const item = new vscode.TreeItem(rel, vscode.TreeItemCollapsibleState.None);
      item.id = `scratch-problem:${node.file}`;
      item.description = `cannot be listed: ${node.message}`;
      item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('list.errorForeground'));
      item.tooltip = `${rel}: ${node.message}`;
      item.accessibilityInformation = { label: `${rel} cannot be listed: ${node.message}` };
      item.contextValue = 'scratchProblem';
      return item;
    }
    if (node.kind === 'older') {
      const item = new vscode.TreeItem(`… ${plural(node.older, 'older file')}`, vscode.TreeItemCollapsibleState.Collapsed);
      item.id = `scratch-older:${node.folder.root}:${node.rel}@${node.offset}`;
      item.iconPath = new vscode.ThemeIcon('history');
      item.tooltip = `Expand to list the next ${FILE_PAGE} of ${groupDigits(node.older)} older files in .agent/scratch/${node.rel}`;
      item.contextValue = 'agentContext.olderItems';
      return item;
    }
    if (node.kind === 'root') {
      const item = new vscode.TreeItem(node.folder.name, vscode.TreeItemCollapsibleState.Expanded);
      item.id = `scratch-root:${node.folder.root}`;
      item.iconPath = new vscode.ThemeIcon('root-folder');
      const s = this.resolved.get(node.folder.root);
      if (s) item.description = countLabel(s.index.totals().files, s.index.totals().bytes);
      item.tooltip = vscode.workspace.asRelativePath(agentPath(node.folder.agentDir, 'scratch'));
      item.contextValue = 'scratchRoot';
      return item;
    }
    if (node.kind === 'dir') {
      const item = new vscode.TreeItem(vscode.Uri.file(node.abs), vscode.TreeItemCollapsibleState.Collapsed);
      item.id = `scratch-dir:${node.abs}`;
      item.description = countLabel(node.dir.count, node.dir.bytes);
      item.tooltip = `${vscode.workspace.asRelativePath(node.abs)}\n${item.description}`;
      item.contextValue = 'scratchFolder';
      return item;
    }
    const e = node.entry;
    const item = new vscode.TreeItem(vscode.Uri.file(e.path), vscode.TreeItemCollapsibleState.None);
    item.id = `scratch-file:${e.path}`;
    item.description = fileFacts(node).join(' · ');
    // The tooltip (path, size, age, tokens, date, notes) comes from resolveTreeItem on hover: made for
    // 200 rows at every draw, it was ~30 ms of the start-up's longest blocks (bench row 19b).
    item.contextValue = e.symlink ? 'scratchSymlink' : node.pinned ? 'scratchFile.pinned' : 'scratchFile';
    if (e.symlink) item.iconPath = new vscode.ThemeIcon('file-symlink-file');
    else item.command = { command: 'vscode.open', title: 'Open', arguments: [vscode.Uri.file(e.path)] };
    return item;
  }

  /** A file row's tooltip, made when the user hovers it (VS Code asks only for rows without one). */
  resolveTreeItem(item: vscode.TreeItem, node: ScratchNode): vscode.TreeItem {
    if (node.kind !== 'file' || item.tooltip !== undefined) return item;
    const e = node.entry;
    const text = `${vscode.workspace.asRelativePath(e.path)}\n${fileFacts(node).join('\n')}\nmodified ${formatLocalTime(e.mtimeMs)}`;
    item.tooltip = noteTooltip(vscode.Uri.file(e.path), text) ?? text;
    return item;
  }

  dispose(): void {
    this.sub.dispose();
    this.notesSub.dispose();
    this.emitter.dispose();
  }
}

/** What a file row says of its file: pinned, a symlink, size, age, tokens. */
function fileFacts(node: Extract<ScratchNode, { kind: 'file' }>): string[] {
  const e = node.entry;
  const parts = [formatBytes(e.size), formatAge(node.now - e.mtimeMs), formatTokens(estimateTokensFromBytes(e.size))];
  if (node.pinned) parts.unshift('pinned');
  if (e.symlink) parts.unshift('symlink, not followed');
  return parts;
}

/** Registers the Scratch view; its description shows file count and total size. */
export function createScratchView(context: vscode.ExtensionContext, feed: AgentFeed): ScratchTreeProvider {
  const provider = new ScratchTreeProvider(feed);
  const view = vscode.window.createTreeView('agentContext.scratch', { treeDataProvider: provider, showCollapseAll: true, canSelectMany: true });
  provider.onTotals = (files, bytes) => {
    view.description = files === 0 && bytes === 0 ? undefined : countLabel(files, bytes);
  };
  context.subscriptions.push(provider, view, registerTreeForTests('agentContext.scratch', provider));
  return provider;
}
