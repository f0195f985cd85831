import * as path from 'node:path';
import * as vscode from 'vscode';
import { registerTreeForTests } from '../../api';
import { type TerminalCommand, type TerminalInfo } from '../../core/terminal/terminalFormat';
import { listTerminalsPage, readTerminalIndexTail } from '../../core/terminal/terminalIndex';
import { exitKind, formatExit, type ExitKind } from '../../core/terminal/commandExit';
import { formatAge, formatLocalTime, groupDigits } from '../../core/output/humanize';
import { groupByAgent, hasAgentHistory, type AgentGroup } from '../../core/terminal/agentCommands/sessionGroups';
import { foldCommandSpool } from '../../core/terminal/agentCommands/sessionFold';
import { terminalCatalog, type CatalogTerminal } from '../../core/terminal/catalog/terminalCatalog';
import { terminalSummary } from '../../core/terminal/terminalSummary';
import type { CaptureManager } from './captureManager';
import { noteTooltip, onDidChangeNotes } from '../notes/noteDecorations';
import type { AgentFeed } from '../../editor/agentFeed';
import { debounce } from '../../editor/debounce';
import { notify } from '../../editor/notify';

export const TERMINALS_VIEW_ID = 'agentContext.terminals';
export const OPEN_TERMINAL_LINE_COMMAND = 'agentContext.terminals.openAtLine';

/** Tree nodes of the Terminals view. */
export type TerminalsNode =
  | { kind: 'terminal'; agentDir: string; info: TerminalInfo; live: boolean; running: boolean; last?: TerminalCommand; multiRoot: boolean }
  /** One agent's own shell commands, by session (the agent-command history: core/terminal/agentCommands/). */
  | { kind: 'agent'; agentDir: string; group: AgentGroup; lastFailed?: { info: TerminalInfo; cmd: TerminalCommand }; multiRoot: boolean }
  /** One session of an agent: its capture, like a terminal's. */
  | { kind: 'session'; agentDir: string; info: TerminalInfo; commands: number; last?: TerminalCommand; lastFailed?: TerminalCommand }
  /** "… N older sessions" of an agent. */
  | { kind: 'olderSessions'; agentDir: string; group: AgentGroup; skip: number; older: number }
  /** The integrated terminals of a folder that also has agent sessions. */
  | { kind: 'terminalsGroup'; agentDir: string; terminals: CatalogTerminal[]; multiRoot: boolean }
  | { kind: 'command'; agentDir: string; info: TerminalInfo; cmd: TerminalCommand }
  /** "… N older commands": expands to the next page (commands numbered below `before`). */
  | { kind: 'olderCommands'; agentDir: string; info: TerminalInfo; before: number; older: number }
  /** "… N older terminals": expands to the next page of a folder's terminals (`grouped`: of these, when the folder also has agent sessions). */
  | { kind: 'olderTerminals'; agentDir: string; skip: number; older: number; multiRoot: boolean; grouped?: CatalogTerminal[] }
  | { kind: 'problem'; message: string };

/** Commands per page: a terminal shows its newest ones and a node that pages the rest. */
export const COMMAND_PAGE = 200;
/** Terminals per page (live ones first, then newest). */
export const TERMINAL_PAGE = 50;
/** An agent's sessions per page (newest first). */
export const SESSION_PAGE = 50;

/** An icon for every way a command can stand (the compiler insists on each): none is a bare "?". */
const EXIT_ICONS: Record<ExitKind, [string, string?]> = {
  running: ['loading~spin'],
  succeeded: ['pass', 'testing.iconPassed'],
  failed: ['error', 'testing.iconFailed'],
  closedByExit: ['sign-out'],
  terminalClosed: ['close'],
  captureStopped: ['debug-pause'],
  captureFailed: ['warning', 'list.warningForeground'],
  noStatus: ['circle-outline'],
};

function statusIcon(c: TerminalCommand | undefined): vscode.ThemeIcon {
  if (!c) return new vscode.ThemeIcon('terminal');
  const [icon, color] = EXIT_ICONS[exitKind(c)];
  return new vscode.ThemeIcon(icon, color ? new vscode.ThemeColor(color) : undefined);
}

function short(s: string, n = 60): string {
  return s.length > n ? s.slice(0, n - 1) + '…' : s;
}

function exitText(c: TerminalCommand): string {
  if (c.status === 'running') return 'running';
  if (exitKind(c) === 'closedByExit') return 'closed the terminal';
  const d = c.durationMs === null ? '' : ` · ${(c.durationMs / 1000).toFixed(1)}s`;
  return `${formatExit(c.exitCode, c.exitUnknown)}${d}${c.outputMissing === 'all' ? ' · output not delivered by VS Code' : c.outputMissing === 'start' ? ' · start of output not delivered' : ''}`;
}

/** The Terminals view: one node per captured terminal, its commands newest first; a click opens N.txt at the command. */
export class TerminalsTreeProvider implements vscode.TreeDataProvider<TerminalsNode>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<TerminalsNode | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  /** Debounced refresh (commands end in bursts). */
  readonly refresh = debounce(() => this.emitter.fire(undefined), 300);
  private readonly subs: vscode.Disposable[] = [this.refresh];

  constructor(private readonly manager: CaptureManager, private readonly feed: AgentFeed, private readonly log?: vscode.LogOutputChannel) {
    this.subs.push(manager.onDidChange(() => this.refresh()));
    this.subs.push(onDidChangeNotes(() => this.refresh())); // notes from the user show in tooltips
    // Mirrors from other windows and earlier sessions appearing or going, in any folder, also one added later
    // (the feed reports terminals only for files created or deleted, never for an append).
    this.subs.push(feed.on(['terminals'], () => this.refresh()));
  }

  async getChildren(node?: TerminalsNode): Promise<TerminalsNode[]> {
    if (!node) return this.roots();
    if (node.kind === 'terminal' || node.kind === 'session') return this.commandPage(node.agentDir, node.info);
    if (node.kind === 'agent') return this.sessionPage(node.agentDir, node.group, 0);
    if (node.kind === 'olderSessions') return this.sessionPage(node.agentDir, node.group, node.skip);
    if (node.kind === 'terminalsGroup') return this.catalogTerminalPage(node.agentDir, node.terminals, 0, node.multiRoot);
    if (node.kind === 'olderCommands') return this.commandPage(node.agentDir, node.info, node.before);
    if (node.kind === 'olderTerminals') return node.grouped ? this.catalogTerminalPage(node.agentDir, node.grouped, node.skip, node.multiRoot) : this.terminalPage(node.agentDir, node.skip, node.multiRoot);
    return [];
  }

  /** The newest COMMAND_PAGE commands (below `before`), newest first, read from the end of the index only. */
  private async commandPage(agentDir: string, info: TerminalInfo, before?: number): Promise<TerminalsNode[]> {
    const page = await readTerminalIndexTail(agentDir, info.n, { count: COMMAND_PAGE, before });
    if (!page.ok) return [{ kind: 'problem', message: `${page.error.file}: ${page.error.message}` }];
    const out: TerminalsNode[] = [...page.value.commands].reverse().map((cmd) => ({ kind: 'command', agentDir, info, cmd }));
    if (page.value.older > 0 && page.value.commands.length > 0) {
      out.push({ kind: 'olderCommands', agentDir, info, before: page.value.commands[0].command, older: page.value.older });
    }
    return out;
  }

  private async roots(): Promise<TerminalsNode[]> {
    await this.feed.ready;
    const out: TerminalsNode[] = [];
    // Rows name their folder when the views group by folder (the feed's one answer).
    const multiRoot = this.feed.grouped;
    for (const { agentDir } of this.feed.folders) {
      // Without agents' own commands the view is the terminals alone; with them, one group per agent, then the terminals.
      out.push(...(hasAgentHistory(agentDir) ? await this.groupedRoots(agentDir, multiRoot) : await this.terminalPage(agentDir, 0, multiRoot)));
    }
    return out;
  }

  /** A folder's agents (newest activity first, each with its last failure), then its integrated terminals as one group. */
  private async groupedRoots(agentDir: string, multiRoot: boolean): Promise<TerminalsNode[]> {
    // Agents' commands waiting in the spool go into their sessions first; a record that cannot be taken is named in the log (set aside, never lost).
    const fold = await foldCommandSpool(agentDir).catch((e: unknown) => ({ problems: [`${agentDir}: the agent-command history could not be updated: ${(e as Error).message}`] }));
    for (const p of fold.problems) this.log?.warn(`Agent-command history: ${p}`);
    const cat = await terminalCatalog(agentDir, { need: 'last' });
    if (!cat.ok) return [{ kind: 'problem', message: `${cat.error.file}: ${cat.error.message}` }];
    const { agents, terminals } = groupByAgent(cat.value);
    const out: TerminalsNode[] = [];
    for (const group of agents) {
      // The newest session whose brief knows a failure: that command is read (one index tail).
      const failing = group.sessions.find((s) => s.brief.lastFailed);
      let lastFailed: { info: TerminalInfo; cmd: TerminalCommand } | undefined;
      if (failing) {
        const sum = await terminalSummary(agentDir, failing.n);
        if (sum.lastFailed) lastFailed = { info: failing.info, cmd: sum.lastFailed };
      }
      out.push({ kind: 'agent', agentDir, group, lastFailed, multiRoot });
    }
    if (terminals.length > 0) out.push({ kind: 'terminalsGroup', agentDir, terminals, multiRoot });
    return out;
  }

  /** A page of an agent's sessions, newest first, each with its command count, last command and last failure. */
  private async sessionPage(agentDir: string, group: AgentGroup, skip: number): Promise<TerminalsNode[]> {
    const page = group.sessions.slice(skip, skip + SESSION_PAGE);
    const nodes = await Promise.all(
      page.map(async ({ info }): Promise<TerminalsNode> => {
        const sum = await terminalSummary(agentDir, info.n);
        return { kind: 'session', agentDir, info, commands: sum.commands, last: sum.last, lastFailed: sum.lastFailed };
      }),
    );
    const older = group.sessions.length - skip - page.length;
    if (older > 0) nodes.push({ kind: 'olderSessions', agentDir, group, skip: skip + SESSION_PAGE, older });
    return nodes;
  }

  /** A page of the integrated terminals of a grouped folder: live ones first, then newest. */
  private async catalogTerminalPage(agentDir: string, terminals: CatalogTerminal[], skip: number, multiRoot: boolean): Promise<TerminalsNode[]> {
    const live = this.manager.liveStates().filter((l) => l.agentDir === agentDir);
    const liveNs = new Set(live.map((l) => l.n));
    // By `n`, not `info`: a lazy catalog reads N.txt for each info looked at, and this sorts every integrated terminal.
    const ordered = [...terminals].sort((a, b) => Number(liveNs.has(b.n)) - Number(liveNs.has(a.n)) || b.n - a.n);
    const page = ordered.slice(skip, skip + TERMINAL_PAGE);
    const nodes = await Promise.all(
      page.map(async ({ info }): Promise<TerminalsNode> => {
        const state = live.find((l) => l.n === info.n);
        const tail = await readTerminalIndexTail(agentDir, info.n, { count: 1 });
        const last = tail.ok ? tail.value.commands[tail.value.commands.length - 1] : undefined;
        return { kind: 'terminal', agentDir, info, live: !!state && !info.closed, running: !!state?.running, last, multiRoot };
      }),
    );
    const older = ordered.length - skip - page.length;
    if (older > 0) nodes.push({ kind: 'olderTerminals', agentDir, skip: skip + TERMINAL_PAGE, older, multiRoot, grouped: terminals });
    return nodes;
  }

  /** A page of a folder's terminals: live ones first, then newest; each with its last command (one small read from the end of its index). */
  private async terminalPage(agentDir: string, skip: number, multiRoot: boolean): Promise<TerminalsNode[]> {
    const live = this.manager.liveStates().filter((l) => l.agentDir === agentDir);
    const list = await listTerminalsPage(agentDir, { count: TERMINAL_PAGE, skip, first: live.map((l) => l.n) });
    if (!list.ok) return [{ kind: 'problem', message: `${list.error.file}: ${list.error.message}` }];
    const nodes = await Promise.all(
      list.value.terminals.map(async (info): Promise<TerminalsNode> => {
        const state = live.find((l) => l.n === info.n);
        const tail = await readTerminalIndexTail(agentDir, info.n, { count: 1 });
        const last = tail.ok ? tail.value.commands[tail.value.commands.length - 1] : undefined;
        return { kind: 'terminal', agentDir, info, live: !!state && !info.closed, running: !!state?.running, last, multiRoot };
      }),
    );
    const older = list.value.total - skip - list.value.terminals.length;
    if (older > 0) nodes.push({ kind: 'olderTerminals', agentDir, skip: skip + TERMINAL_PAGE, older, multiRoot });
    return nodes;
  }

  getTreeItem(node: TerminalsNode): vscode.TreeItem {
    if (node.kind === 'agent' || node.kind === 'session' || node.kind === 'olderSessions' || node.kind === 'terminalsGroup') return agentHistoryItem(node, Date.now());
    if (node.kind === 'olderCommands' || node.kind === 'olderTerminals') {
      const what = node.kind === 'olderCommands' ? 'command' : 'terminal';
      const item = new vscode.TreeItem(`… ${groupDigits(node.older)} older ${what}${node.older === 1 ? '' : 's'}`, vscode.TreeItemCollapsibleState.Collapsed);
      item.id = node.kind === 'olderCommands' ? `${node.agentDir}#${node.info.n}#older<${node.before}` : `${node.agentDir}#older-terminals@${node.skip}`;
      item.tooltip = node.kind === 'olderCommands'
        ? `Expand to list the next ${COMMAND_PAGE} of ${groupDigits(node.older)} older commands. All of them are in .agent/${node.info.file} and ${node.info.n}.index.jsonl.`
        : `Expand to list the next ${TERMINAL_PAGE} of ${groupDigits(node.older)} older terminals (.agent/terminals/).`;
      item.iconPath = new vscode.ThemeIcon('history');
      item.contextValue = 'agentContext.olderItems';
      return item;
    }
    if (node.kind === 'problem') {
      const item = new vscode.TreeItem(node.message, vscode.TreeItemCollapsibleState.None);
      item.iconPath = new vscode.ThemeIcon('warning');
      return item;
    }
    if (node.kind === 'terminal' && node.info.error) {
      // N.txt exists but cannot be read (a folder in its place, no permission): say so, no commands to list.
      const { info } = node;
      const item = new vscode.TreeItem(`${info.name} (${info.n})`, vscode.TreeItemCollapsibleState.None);
      item.id = `${node.agentDir}#${info.n}`;
      item.description = info.error;
      item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('list.errorForeground'));
      item.tooltip = `${vscode.workspace.asRelativePath(path.join(node.agentDir, info.file))} ${info.error}`;
      item.accessibilityInformation = { label: `${info.name} (${info.n}): ${info.error}` };
      item.contextValue = 'agentContext.terminal.unreadable';
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
      // The tooltip comes from resolveTreeItem, on hover: a page of 50 Markdown tooltips cost ~20 ms at every draw.
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
    item.tooltip = `${cmd.commandLine}\n${exitText(cmd)}\ncwd ${cmd.cwd ?? 'unknown'} · started ${formatLocalTime(cmd.started)}\n${vscode.workspace.asRelativePath(file)} lines ${range}`;
    const noted = noteTooltip(vscode.Uri.file(file), item.tooltip, { startLine: cmd.headerLine, endLine: cmd.lastLine ?? Number.MAX_SAFE_INTEGER, terminal: node.info.n, command: cmd.command });
    if (noted) {
      item.tooltip = noted;
      item.description = `${item.description} · ✎ note`;
    }
    item.command = { command: OPEN_TERMINAL_LINE_COMMAND, title: 'Open Output', arguments: [file, cmd.headerLine] };
    return item;
  }

  /** A terminal row's tooltip, made when the user hovers it (VS Code asks only for rows without one). */
  resolveTreeItem(item: vscode.TreeItem, node: TerminalsNode): vscode.TreeItem {
    if (node.kind !== 'terminal' || node.info.error || item.tooltip !== undefined) return item;
    const { info } = node;
    const state = node.live ? 'live' : 'closed';
    item.tooltip = new vscode.MarkdownString(
      [
        `**${info.name}** — ${vscode.workspace.asRelativePath(path.join(node.agentDir, info.file))}`,
        `shell ${info.shell ?? 'unknown'} · started ${info.started ? formatLocalTime(info.started) : 'unknown'} · ${state}`,
        info.shellIntegration ? '' : '\n\n$(warning) Shell integration was not active: VS Code delivers no output for this terminal, so nothing is recorded.',
        node.last ? `\n\nlast: \`${node.last.commandLine}\` — ${exitText(node.last)}` : '',
      ].join('\n'),
      true,
    );
    return item;
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
    this.emitter.dispose();
  }
}

/** The rows of the agent-command history: an agent, a session, older sessions, the integrated terminals' group. */
function agentHistoryItem(node: Extract<TerminalsNode, { kind: 'agent' | 'session' | 'olderSessions' | 'terminalsGroup' }>, now: number): vscode.TreeItem {
  if (node.kind === 'terminalsGroup') {
    const n = node.terminals.length;
    const item = new vscode.TreeItem('Integrated terminals', vscode.TreeItemCollapsibleState.Expanded);
    item.id = `${node.agentDir}#terminals`;
    item.description = `${groupDigits(n)} terminal${n === 1 ? '' : 's'}${node.multiRoot ? ` · ${path.basename(path.dirname(node.agentDir))}` : ''}`;
    item.iconPath = new vscode.ThemeIcon('terminal');
    item.contextValue = 'agentContext.terminalsGroup';
    return item;
  }
  if (node.kind === 'olderSessions') {
    const item = new vscode.TreeItem(`… ${groupDigits(node.older)} older session${node.older === 1 ? '' : 's'}`, vscode.TreeItemCollapsibleState.Collapsed);
    item.id = `${node.agentDir}#agent:${node.group.agent}@${node.skip}`;
    item.iconPath = new vscode.ThemeIcon('history');
    item.tooltip = `Expand to list the next ${SESSION_PAGE} of ${groupDigits(node.older)} older sessions of ${node.group.label} (.agent/terminals/).`;
    item.contextValue = 'agentContext.olderItems';
    return item;
  }
  if (node.kind === 'agent') {
    const { group } = node;
    const count = group.sessions.length;
    const item = new vscode.TreeItem(group.label, vscode.TreeItemCollapsibleState.Collapsed);
    item.id = `${node.agentDir}#agent:${group.agent}`;
    const parts = [`${groupDigits(count)} session${count === 1 ? '' : 's'}`, group.lastMs ? `active ${formatAge(now - group.lastMs)}` : 'no commands yet'];
    // The last failure, visible without expanding.
    if (node.lastFailed) parts.push(`last failed ${formatAge(now - commandEndMs(node.lastFailed.cmd))}: ${short(node.lastFailed.cmd.commandLine, 30)}`);
    if (node.multiRoot) parts.push(path.basename(path.dirname(node.agentDir)));
    item.description = parts.join(' · ');
    item.iconPath = new vscode.ThemeIcon(group.open > 0 ? 'hubot' : 'robot');
    item.tooltip = `${group.label}: its own shell commands, recorded by Agent Context's hook. ${groupDigits(count)} session${count === 1 ? '' : 's'} (${group.open} open).${node.lastFailed ? `\nLast failure: ${node.lastFailed.cmd.commandLine} — ${exitText(node.lastFailed.cmd)} (terminal ${node.lastFailed.info.n}, command #${node.lastFailed.cmd.command})` : ''}`;
    item.contextValue = 'agentContext.agentCommands';
    return item;
  }
  const { info } = node;
  const sid = info.session ?? 'unknown';
  const item = new vscode.TreeItem(`session ${sid.length > 12 ? `${sid.slice(0, 12)}…` : sid} (${info.n})`, vscode.TreeItemCollapsibleState.Collapsed);
  item.id = `${node.agentDir}#${info.n}`;
  const parts = [`${groupDigits(node.commands)} command${node.commands === 1 ? '' : 's'}`];
  if (node.last) parts.push(formatAge(now - commandEndMs(node.last)));
  if (node.lastFailed) parts.push(`last failed: #${node.lastFailed.command} ${short(node.lastFailed.commandLine, 30)} (${formatExit(node.lastFailed.exitCode, node.lastFailed.exitUnknown)})`);
  parts.push(info.closed ? 'ended' : 'open');
  item.description = parts.join(' · ');
  item.iconPath = statusIcon(node.last);
  item.tooltip = `${info.name}\nsession ${sid} · started ${info.started ? formatLocalTime(info.started) : 'unknown'} · ${info.closed ? 'ended' : 'open'}\n${vscode.workspace.asRelativePath(path.join(node.agentDir, info.file))}`;
  item.contextValue = `agentContext.agentSession.${info.closed ? 'closed' : 'live'}`;
  return item;
}

/** When a command ended (its start plus its duration; its start when that is unknown). */
function commandEndMs(c: TerminalCommand): number {
  return Date.parse(c.started) + (c.durationMs ?? 0);
}

/** Opens a capture file with the given 1-based line at the top and selected. */
async function openAtLine(file: string, line: number): Promise<void> {
  try {
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    const l = Math.max(0, Math.min(doc.lineCount - 1, line - 1));
    const editor = await vscode.window.showTextDocument(doc, { preview: true, selection: new vscode.Range(l, 0, l, 0) });
    editor.revealRange(new vscode.Range(l, 0, l, 0), vscode.TextEditorRevealType.AtTop);
  } catch (e) {
    void notify.error(`cannot open ${file}: ${(e as Error).message}. The file may have been rotated or cleaned up; refresh the Terminals view.`);
  }
}

/** Registers the Terminals view and its open-at-line command. */
export function createTerminalsView(context: vscode.ExtensionContext, manager: CaptureManager, feed: AgentFeed, log?: vscode.LogOutputChannel): TerminalsTreeProvider {
  const provider = new TerminalsTreeProvider(manager, feed, log);
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
