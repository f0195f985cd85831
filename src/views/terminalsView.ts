import * as path from 'node:path';
import * as vscode from 'vscode';
import { registerTreeForTests } from '../api';
import { agentDirOf, hasAgentFolder } from '../core/agentLayout';
import { listTerminals, readTerminalIndex, type TerminalCommand, type TerminalInfo } from '../core/terminal/terminalIndex';
import { formatExit } from '../core/terminal/commandExit';
import type { CaptureManager } from '../terminal/captureManager';
import { noteTooltip, onDidChangeNotes } from './noteDecorations';

export const TERMINALS_VIEW_ID = 'agentContext.terminals';
export const OPEN_TERMINAL_LINE_COMMAND = 'agentContext.terminals.openAtLine';

/** Tree nodes of the Terminals view. */
export type TerminalsNode =
  | { kind: 'terminal'; agentDir: string; info: TerminalInfo; live: boolean; running: boolean; last?: TerminalCommand; multiRoot: boolean }
  | { kind: 'command'; agentDir: string; info: TerminalInfo; cmd: TerminalCommand }
  | { kind: 'problem'; message: string };

const MAX_COMMANDS = 200;

function statusIcon(c: TerminalCommand | undefined): vscode.ThemeIcon {
  if (!c) return new vscode.ThemeIcon('terminal');
  if (c.status === 'running') return new vscode.ThemeIcon('loading~spin');
  if (c.exitCode === 0) return new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed'));
  if (c.exitCode === null) return new vscode.ThemeIcon('question');
  return new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed'));
}

function short(s: string, n = 60): string {
  return s.length > n ? s.slice(0, n - 1) + '…' : s;
}

function exitText(c: TerminalCommand): string {
  if (c.status === 'running') return 'running';
  const d = c.durationMs === null ? '' : ` · ${(c.durationMs / 1000).toFixed(1)}s`;
  return `${formatExit(c.exitCode, c.exitUnknown)}${d}${c.outputMissing === 'all' ? ' · output not delivered by VS Code' : c.outputMissing === 'start' ? ' · start of output not delivered' : ''}`;
}

/** The Terminals view: one node per captured terminal, its commands newest first; a click opens N.txt at the command. */
export class TerminalsTreeProvider implements vscode.TreeDataProvider<TerminalsNode>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<TerminalsNode | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private timer: NodeJS.Timeout | undefined;
  private readonly subs: vscode.Disposable[] = [];

  constructor(private readonly manager: CaptureManager) {
    this.subs.push(manager.onDidChange(() => this.refresh()));
    this.subs.push(onDidChangeNotes(() => this.refresh())); // notes from the user show in tooltips
    for (const f of vscode.workspace.workspaceFolders ?? []) {
      // Files from other windows and earlier sessions: react to files appearing and going, not to every append.
      const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(f, '.agent/terminals/*.txt'), false, true, false);
      this.subs.push(w, w.onDidCreate(() => this.refresh()), w.onDidDelete(() => this.refresh()));
    }
  }

  /** Debounced refresh (commands end in bursts). */
  refresh(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.emitter.fire(undefined);
    }, 300);
  }

  async getChildren(node?: TerminalsNode): Promise<TerminalsNode[]> {
    if (!node) return this.roots();
    if (node.kind !== 'terminal') return [];
    const idx = await readTerminalIndex(node.agentDir, node.info.n);
    if (!idx.ok) return [{ kind: 'problem', message: `${idx.error.file}: ${idx.error.message}` }];
    const cmds = idx.value.commands.slice(-MAX_COMMANDS).reverse();
    return cmds.map((cmd) => ({ kind: 'command', agentDir: node.agentDir, info: node.info, cmd }));
  }

  private async roots(): Promise<TerminalsNode[]> {
    const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
    const live = this.manager.liveStates();
    const out: TerminalsNode[] = [];
    for (const f of folders) {
      if (!(await hasAgentFolder(f.uri.fsPath))) continue;
      const agentDir = agentDirOf(f.uri.fsPath);
      const list = await listTerminals(agentDir);
      if (!list.ok) {
        out.push({ kind: 'problem', message: `${list.error.file}: ${list.error.message}` });
        continue;
      }
      for (const info of [...list.value].reverse()) {
        const state = live.find((l) => l.agentDir === agentDir && l.n === info.n);
        const idx = await readTerminalIndex(agentDir, info.n);
        const last = idx.ok ? idx.value.commands[idx.value.commands.length - 1] : undefined;
        out.push({ kind: 'terminal', agentDir, info, live: !!state && !info.closed, running: !!state?.running, last, multiRoot: folders.length > 1 });
      }
    }
    return out;
  }

  getTreeItem(node: TerminalsNode): vscode.TreeItem {
    if (node.kind === 'problem') {
      const item = new vscode.TreeItem(node.message, vscode.TreeItemCollapsibleState.None);
      item.iconPath = new vscode.ThemeIcon('warning');
      return item;
    }
    if (node.kind === 'terminal') {
      const { info } = node;
      const label = `${info.name} (${info.n})`;
      const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.Collapsed);
      item.id = `${node.agentDir}#${info.n}`;
      const state = node.live ? 'live' : 'closed';
      const parts = [node.last ? short(node.last.commandLine, 40) : 'no commands yet', state];
      if (!info.shellIntegration) parts.unshift('no shell integration');
      if (node.multiRoot) parts.push(path.basename(path.dirname(node.agentDir)));
      item.description = parts.join(' · ');
      item.iconPath = info.shellIntegration ? statusIcon(node.last) : new vscode.ThemeIcon('warning');
      item.contextValue = `agentContext.terminal.${state}`;
      item.tooltip = new vscode.MarkdownString(
        [
          `**${info.name}** — .agent/${info.file}`,
          `shell ${info.shell ?? '?'} · started ${info.started ?? '?'} · ${state}`,
          info.shellIntegration ? '' : '\n\n$(warning) Shell integration was not active: VS Code delivers no output for this terminal, so nothing is recorded.',
          node.last ? `\n\nlast: \`${node.last.commandLine}\` — ${exitText(node.last)}` : '',
        ].join('\n'),
        true,
      );
      return item;
    }
    const { cmd } = node;
    const item = new vscode.TreeItem(short(cmd.commandLine || '(empty command line)'), vscode.TreeItemCollapsibleState.None);
    item.id = `${node.agentDir}#${node.info.n}#${cmd.command}`;
    item.description = exitText(cmd);
    item.iconPath = statusIcon(cmd);
    item.contextValue = 'agentContext.terminalCommand';
    const file = path.join(node.agentDir, cmd.file);
    const range = cmd.lastLine === null ? `${cmd.firstLine}–` : `${cmd.firstLine}–${cmd.lastLine}`;
    item.tooltip = `${cmd.commandLine}\ncwd ${cmd.cwd ?? '?'} · started ${cmd.started}\n.agent/${cmd.file} lines ${range}`;
    const noted = noteTooltip(vscode.Uri.file(file), item.tooltip, { startLine: cmd.headerLine, endLine: cmd.lastLine ?? Number.MAX_SAFE_INTEGER, terminal: node.info.n, command: cmd.command });
    if (noted) {
      item.tooltip = noted;
      item.description = `${item.description} · ✎ note`;
    }
    item.command = { command: OPEN_TERMINAL_LINE_COMMAND, title: 'Open Output', arguments: [file, cmd.headerLine] };
    return item;
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const s of this.subs) s.dispose();
    this.emitter.dispose();
  }
}

/** Opens a capture file with the given 1-based line at the top and selected. */
async function openAtLine(file: string, line: number): Promise<void> {
  try {
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    const l = Math.max(0, Math.min(doc.lineCount - 1, line - 1));
    const editor = await vscode.window.showTextDocument(doc, { preview: true, selection: new vscode.Range(l, 0, l, 0) });
    editor.revealRange(new vscode.Range(l, 0, l, 0), vscode.TextEditorRevealType.AtTop);
  } catch (e) {
    void vscode.window.showErrorMessage(`Agent Context: cannot open ${file}: ${(e as Error).message}. The file may have been rotated or cleaned up; refresh the Terminals view.`);
  }
}

/** Registers the Terminals view and its open-at-line command. */
export function createTerminalsView(context: vscode.ExtensionContext, manager: CaptureManager): TerminalsTreeProvider {
  const provider = new TerminalsTreeProvider(manager);
  const view = vscode.window.createTreeView(TERMINALS_VIEW_ID, { treeDataProvider: provider, showCollapseAll: true });
  context.subscriptions.push(
    provider,
    view,
    registerTreeForTests(TERMINALS_VIEW_ID, provider),
    vscode.commands.registerCommand(OPEN_TERMINAL_LINE_COMMAND, (file: string, line: number) => openAtLine(file, line)),
    vscode.commands.registerCommand('agentContext.terminals.refresh', () => provider.refresh()),
  );
  return provider;
}
