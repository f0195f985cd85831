import * as path from 'node:path';
import * as vscode from 'vscode';
import { scratchDirOf } from '../../core/scratch/scratchEntry';
import { setPinned } from '../../core/scratch/pins';
import { formatFileError } from '../../core/result';
import { deletePermanently, moveToTrash, pathsWithoutTrash, type TrashOutcome } from '../../core/fs/trash';
import { EDITOR_TRASH } from '../../editor/editorTrash';
import { AgentFeed } from '../../editor/agentFeed';
import { ScratchNode, ScratchTreeProvider } from './scratchView';
import { toPosixRelative } from '../../core/workspace/relativePaths';
import { notify } from '../../editor/notify';
import { plural } from '../../core/output/humanize';

type FileNode = Extract<ScratchNode, { kind: 'file' | 'dir' }>;

/** The nodes a command applies to: the multi-selection when the clicked node is part of it. */
function targets(node: ScratchNode | undefined, selected: readonly ScratchNode[] | undefined): FileNode[] {
  const all = selected && node && selected.includes(node) ? selected : node ? [node] : [];
  return all.filter((n): n is FileNode => n.kind === 'file' || n.kind === 'dir');
}

const pathOf = (n: FileNode) => (n.kind === 'file' ? n.entry.path : n.abs);

/** Registers the Scratch view's item commands: delete to trash, pin/unpin, reveal, copy path, refresh. */
export function registerScratchCommands(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, feed: AgentFeed, provider: ScratchTreeProvider): void {
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
      return deleteItems(nodes);
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

  /**
   * Delete as VS Code's Explorer does: to the trash, asking first unless the user turned that off
   * (`explorer.confirmDelete`); a permanent delete (no trash here) is always asked about. Then says
   * what happened.
   */
  async function deleteItems(nodes: FileNode[]): Promise<TrashOutcome | undefined> {
    const paths = nodes.map(pathOf);
    const one = paths.length === 1;
    const what = one ? `'${path.basename(paths[0])}'` : plural(paths.length, 'scratch item');
    const list = { detail: paths.slice(0, 10).map((p) => toPosixRelative(nodes[0].folder.root, p)).join('\n') + (paths.length > 10 ? `\n… and ${paths.length - 10} more` : '') };
    const noTrash = await pathsWithoutTrash(paths, EDITOR_TRASH);
    if (noTrash.length > 0) {
      const them = noTrash.length === 1 ? `'${path.basename(noTrash[0])}'` : plural(noTrash.length, 'item');
      const answer = await notify.warn(`No trash is available for ${them} on this system. Delete ${noTrash.length === 1 ? 'it' : 'them'} permanently?`, { modal: true, detail: 'This cannot be undone.' }, 'Delete Permanently');
      if (answer !== 'Delete Permanently') return undefined;
    } else if (vscode.workspace.getConfiguration('explorer').get<boolean>('confirmDelete', true)) {
      const answer = await notify.warn(`Move ${what} to the trash?`, { modal: true, detail: `${one ? '' : `${list.detail}\n\n`}You can restore ${one ? 'it' : 'them'} from the trash.` }, 'Move to Trash');
      if (answer !== 'Move to Trash') return undefined;
    }
    const res = await moveToTrash(paths.filter((p) => !noTrash.includes(p)), EDITOR_TRASH);
    // Agreed above, or found only now (a move across file systems): nothing left without a question.
    const permanent = [...noTrash, ...res.noTrash.filter((p) => !noTrash.includes(p))];
    const late = res.noTrash.filter((p) => !noTrash.includes(p));
    let deleted: TrashOutcome | undefined;
    if (late.length === 0 || (await notify.warn(`No trash is available for ${plural(late.length, 'item')} on this system. Delete ${late.length === 1 ? 'it' : 'them'} permanently?`, { modal: true, detail: 'This cannot be undone.' }, 'Delete Permanently')) === 'Delete Permanently') {
      deleted = permanent.length > 0 ? await deletePermanently(permanent, scratchDirOf(nodes[0].folder.agentDir)) : undefined;
    }
    res.noTrash = deleted ? [] : late;
    res.failed.push(...(deleted?.failed ?? []));
    for (const f of res.failed) {
      log.warn(`delete ${f.path}: ${f.message}`);
      void notify.error(`could not delete ${path.basename(f.path)}: ${f.message}`);
    }
    const trashed = res.trashed.length;
    const gone = deleted?.trashed.length ?? 0;
    const name = (n: number, list: readonly { path: string }[]) => (n === 1 ? path.basename(list[0].path) : plural(n, 'scratch item'));
    const said = [trashed ? `moved ${name(trashed, res.trashed)} to the trash` : '', gone ? `deleted ${name(gone, deleted!.trashed)} permanently` : ''].filter(Boolean).join(' and ');
    if (said) {
      log.info(`scratch: ${said}`);
      void notify.info(`${said}.`);
    }
    res.trashed.push(...(deleted?.trashed ?? []));
    provider.refresh();
    return res;
  }

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
    feed.queue(nodes[0].folder.root, ['scratch']);
    provider.refresh();
    return nodes.length;
  }
}
