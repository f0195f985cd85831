import * as vscode from 'vscode';
import { formatLocalTime, groupDigits, plural } from '../../core/output/humanize';
import * as path from 'node:path';
import { agentActivityChanged, readFindings, recentAgents, type AgentSummary, type Finding } from '../../core/agents';
import { agentDirOf } from '../../core/workspace/agentLayout';
import { AgentFolderTree, openAtLine } from '../../editor/agentFolderTree';
import { clip } from '../../core/output/text';
import type { AgentFeed, AgentContextFolder } from '../../editor/agentFeed';

type Node =
  | { kind: 'folder'; root: AgentContextFolder }
  | { kind: 'agent'; root: AgentContextFolder; agent: AgentSummary }
  | { kind: 'findings'; root: AgentContextFolder; agent: AgentSummary }
  | { kind: 'finding'; root: AgentContextFolder; agent: AgentSummary; finding: Finding }
  | { kind: 'file'; root: AgentContextFolder; agent: AgentSummary; rel: string }
  /** "… N older agents": expands to the next page (less recently active). */
  | { kind: 'older'; root: AgentContextFolder; offset: number; older: number }
  | { kind: 'empty'; message: string };

/** Agents per page: the most recently active first; the rest behind "… N older agents". */
export const AGENT_PAGE = 25;

const STATUS_ICON: Record<string, [string, string?]> = {
  idle: ['circle-outline'],
  working: ['sync', 'charts.blue'],
  blocked: ['debug-pause', 'charts.yellow'],
  done: ['pass', 'testing.iconPassed'],
  failed: ['error', 'testing.iconFailed'],
};

/** A folder's one row when it has nothing (and the section's, in the Memory & Agents view). */
export const AGENTS_EMPTY = 'No sub-agents yet (.agent/agents/<id>/)';

/** The Agents part of the Memory & Agents view (`agentContext.memory`): sub-agents with status and progress, most recently active first and paged; findings and files as children. */
export class AgentsView extends AgentFolderTree<Node> {
  constructor(feed: AgentFeed) {
    super(feed, 'agents');
    // The ranking checks a few agents per call (core/agents/agentRanking.ts): the agents the watcher
    // saw written (by any process) are checked at the refresh these events cause, whatever their turn.
    this.disposables.push(feed.on(['agents'], (changes) => {
      for (const c of changes) agentActivityChanged(agentDirOf(c.root), c.paths);
    }));
  }

  getTreeItem(n: Node): vscode.TreeItem {
    switch (n.kind) {
      case 'folder': {
        const it = new vscode.TreeItem(n.root.name, vscode.TreeItemCollapsibleState.Expanded);
        it.iconPath = new vscode.ThemeIcon('root-folder');
        return it;
      }
      case 'agent': {
        const a = n.agent;
        const it = new vscode.TreeItem(a.id, vscode.TreeItemCollapsibleState.Collapsed);
        const s = a.status;
        it.description = s ? `${s.status} · ${Math.round(s.progress * 100)}%` : a.statusError ? 'status unreadable' : 'no status';
        const [icon, color] = STATUS_ICON[s?.status ?? ''] ?? ['person'];
        it.iconPath = a.statusError ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground')) : new vscode.ThemeIcon(icon, color ? new vscode.ThemeColor(color) : undefined);
        const md = new vscode.MarkdownString(`**${a.id}** — ${a.folder}/\n\n`);
        if (s) md.appendMarkdown(`${s.status}, ${Math.round(s.progress * 100)}%${s.updated ? `, updated ${formatLocalTime(s.updated)}` : ''}\n\n${s.details ? clip(s.details, 400) : ''}`);
        if (a.statusError) md.appendMarkdown(`status.json: ${a.statusError}`);
        it.tooltip = md;
        it.contextValue = 'agent';
        it.id = `agent:${n.root.agentDir}:${a.id}`;
        return it;
      }
      case 'findings': {
        const it = new vscode.TreeItem('Findings', n.agent.findings ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
        it.description = `${n.agent.findings}`;
        it.iconPath = new vscode.ThemeIcon('list-unordered');
        it.resourceUri = vscode.Uri.file(path.join(n.root.root, n.agent.folder, 'findings.md'));
        it.command = openAtLine(it.resourceUri.fsPath, 1);
        it.contextValue = 'agentFindings';
        return it;
      }
      case 'finding': {
        const f = n.finding;
        const it = new vscode.TreeItem(clip(f.text.split('\n')[0] || '(empty)', 80), vscode.TreeItemCollapsibleState.None);
        it.description = formatLocalTime(f.time);
        it.tooltip = new vscode.MarkdownString().appendCodeblock(clip(f.text, 1500), 'markdown');
        it.iconPath = new vscode.ThemeIcon('note');
        it.command = openAtLine(path.join(n.root.root, n.agent.folder, 'findings.md'), f.line);
        return it;
      }
      case 'file': {
        const abs = path.join(n.root.root, n.agent.folder, n.rel);
        const it = new vscode.TreeItem(vscode.Uri.file(abs), vscode.TreeItemCollapsibleState.None);
        it.label = n.rel;
        it.command = openAtLine(abs, 1);
        it.contextValue = 'agentFile';
        return it;
      }
      case 'older': {
        const it = new vscode.TreeItem(`… ${plural(n.older, 'older agent')}`, vscode.TreeItemCollapsibleState.Collapsed);
        it.id = `agents-older:${n.root.agentDir}@${n.offset}`;
        it.iconPath = new vscode.ThemeIcon('history');
        it.tooltip = `Expand to list the next ${AGENT_PAGE} of ${groupDigits(n.older)} less recently active agents in .agent/agents/`;
        it.contextValue = 'agentContext.olderItems';
        return it;
      }
      case 'empty':
        return new vscode.TreeItem(n.message, vscode.TreeItemCollapsibleState.None);
    }
  }

  async getChildren(n?: Node): Promise<Node[]> {
    // Nothing at the top (one folder, empty): the view's welcome content (package.json viewsWelcome)
    // explains it; in a multi-root workspace each empty folder keeps its one-line note.
    if (!n) return (await this.rootNodes((root) => ({ kind: 'folder', root }), (root) => this.folderChildren(root))).filter((x) => x.kind !== 'empty');
    switch (n.kind) {
      case 'folder':
        return this.folderChildren(n.root);
      case 'older':
        return this.page(n.root, n.offset);
      case 'agent':
        return [{ kind: 'findings', root: n.root, agent: n.agent }, ...n.agent.files.map((rel): Node => ({ kind: 'file', root: n.root, agent: n.agent, rel }))];
      case 'findings': {
        const r = await readFindings(n.root.agentDir, n.agent.id);
        // Newest first: that is what a user checks.
        return r.ok ? [...r.value.findings].reverse().slice(0, 200).map((finding): Node => ({ kind: 'finding', root: n.root, agent: n.agent, finding })) : [];
      }
      default:
        return [];
    }
  }

  private async folderChildren(root: AgentContextFolder): Promise<Node[]> {
    const nodes = await this.page(root, 0);
    return nodes.length === 0 ? [{ kind: 'empty', message: AGENTS_EMPTY }] : nodes;
  }

  /**
   * One page of agents, most recently active first, then "… N older agents": only the agents shown
   * are read (the others cost a stat each), so hundreds of finished agents do not slow the view.
   */
  private async page(root: AgentContextFolder, offset: number): Promise<Node[]> {
    const { total, agents } = await recentAgents(root.agentDir, AGENT_PAGE, offset);
    const out: Node[] = agents.map((agent) => ({ kind: 'agent', root, agent }));
    const older = total - offset - agents.length;
    if (older > 0 && agents.length > 0) out.push({ kind: 'older', root, offset: offset + agents.length, older });
    return out;
  }
}

/** The Agents part of the Memory & Agents view (registered with the Memory part in features/memory/memoryAgentsView.ts). */
export function registerAgents(context: vscode.ExtensionContext, feed: AgentFeed): AgentsView {
  const view = new AgentsView(feed);
  context.subscriptions.push(view);
  return view;
}
