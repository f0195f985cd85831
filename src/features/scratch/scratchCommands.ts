import * as path from 'node:path';
import * as vscode from 'vscode';
import { scratchDirOf } from '../../core/scratch/scratchEntry';
import { setPinned } from '../../core/scratch/pins';
import { formatFileError } from '../../core/result';
import { deletePermanently, moveToTrash } from '../../core/fs/trash';
import { AgentFeed } from '../../editor/agentFeed';
import { ScratchNode, ScratchTreeProvider } from './scratchView';
import { toPosixRelative } from '../../core/workspace/relativePaths';
import { notify } from '../../editor/notify';

type FileNode = Extract<ScratchNode, { kind: 'file' | 'dir' }>;

/** The nodes a command applies to: the multi-selection when the clicked node is part of it. */
function targets(node: ScratchNode | undefined, selected: readonly ScratchNode[] | undefined): FileNode[] {
  const all = selected && node && selected.includes(node) ? selected : node ? [node] : [];
  return all.filter((n): n is FileNode => n.kind === 'file' || n.kind === 'dir');
}

const pathOf = (n: FileNode) => (n.kind === 'file' ? n.entry.path : n.abs);

/** Registers the Scratch view's item commands: delete to trash, pin/unpin, reveal, copy path, refresh. */
export function registerScratchCommands(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, folders: AgentFeed, provider: ScratchTreeProvider): void {
  const readOnly = () => {
    if (vscode.workspace.isTrusted) return false;
    void notify.warn('this workspace is in Restricted Mode; scratch is read-only.');
    return true;
  };
  context.subscriptions.push(
    vscode.commands.registerCommand('agentContext.scratch.refresh', () => provider.refresh()),
    vscode.commands.registerCommand('agentContext.scratch.delete', async (node?: ScratchNode, selected?: ScratchNode[]) => {
      const nodes = targets(node, selected);
      if (nodes.length === 0 || readOnly()) return undefined;
      const paths = nodes.map(pathOf);
      const res = await moveToTrash(paths);
      if (res.noTrash.length > 0) {
        const answer = await notify.warn(
          `No trash is available for ${res.noTrash.length === 1 ? path.basename(res.noTrash[0]) : `${res.noTrash.length} items`} on this system. Delete permanently?`,
          { modal: true },
          'Delete Permanently',
        );
        if (answer === 'Delete Permanently') {
          const del = await deletePermanently(res.noTrash, scratchDirOf(nodes[0].folder.agentDir));
          res.trashed.push(...del.trashed);
          res.failed.push(...del.failed);
        }
      }
      for (const f of res.failed) {
        log.warn(`delete ${f.path}: ${f.message}`);
        void notify.error(`could not delete ${path.basename(f.path)}: ${f.message}`);
      }
      log.info(`scratch: moved ${res.trashed.length} item(s) to the trash`);
      provider.refresh();
      return res;
    }),
    vscode.commands.registerCommand('agentContext.scratch.pin', (node?: ScratchNode, selected?: ScratchNode[]) => pin(node, selected, true)),
    vscode.commands.registerCommand('agentContext.scratch.unpin', (node?: ScratchNode, selected?: ScratchNode[]) => pin(node, selected, false)),
    vscode.commands.registerCommand('agentContext.scratch.reveal', async (node?: ScratchNode) => {
      const [n] = targets(node, undefined);
      if (n) await vscode.commands.executeCommand('revealInExplorer', vscode.Uri.file(pathOf(n)));
    }),
    vscode.commands.registerCommand('agentContext.scratch.copyPath', async (node?: ScratchNode, selected?: ScratchNode[]) => {
      const nodes = targets(node, selected);
      if (nodes.length === 0) return undefined;
      const text = nodes.map((n) => toPosixRelative(n.folder.root, pathOf(n))).join('\n');
      await vscode.env.clipboard.writeText(text);
      void vscode.window.setStatusBarMessage(`Copied ${text.includes('\n') ? `${nodes.length} paths` : text}`, 3000);
      return text;
    }),
  );

  async function pin(node: ScratchNode | undefined, selected: ScratchNode[] | undefined, pinned: boolean) {
    const nodes = targets(node, selected).filter((n) => n.kind === 'file');
    if (nodes.length === 0 || readOnly()) return undefined;
    for (const n of nodes) {
      const r = await setPinned(n.folder.agentDir, pathOf(n), pinned);
      if (!r.ok) {
        void notify.error(`could not ${pinned ? 'pin' : 'unpin'} ${path.basename(pathOf(n))}: ${formatFileError(r.error)}`);
        break;
      }
    }
    folders.queue(nodes[0].folder.root, ['scratch']);
    provider.refresh();
    return nodes.length;
  }
}
