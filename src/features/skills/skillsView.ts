import * as os from 'node:os';
import * as vscode from 'vscode';
import { formatFileError } from '../../core/result';
import { groupDigits, plural } from '../../core/output/humanize';
import { loadSkills, Skill } from '../../core/skills/skillsIndex';
import { registerTreeForTests } from '../../api';
import { AgentContextFolder, AgentFeed, touches } from '../../editor/agentFeed';

/** Tree nodes of the Skills view. */
export type SkillNode =
  | { kind: 'folder'; folder: AgentContextFolder }
  | { kind: 'source'; folder: AgentContextFolder; source: Skill['source']; skills: Skill[] }
  | { kind: 'skill'; folder: AgentContextFolder; skill: Skill }
  | { kind: 'more'; folder: AgentContextFolder; source: Skill['source']; skills: Skill[] };

/** Skills per page of a source folder, by name; the rest behind "… N more skills" (500 skills were 500 rows sent to the editor at every start: bench row 19a). */
export const SKILL_PAGE = 100;

function paged(folder: AgentContextFolder, source: Skill['source'], skills: Skill[]): SkillNode[] {
  const out: SkillNode[] = skills.slice(0, SKILL_PAGE).map((skill) => ({ kind: 'skill', folder, skill }));
  if (skills.length > SKILL_PAGE) out.push({ kind: 'more', folder, source, skills: skills.slice(SKILL_PAGE) });
  return out;
}

/** The Skills view: one node per skill, grouped by source folder; broken frontmatter gets a warning. */
export class SkillsTreeProvider implements vscode.TreeDataProvider<SkillNode>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<SkillNode | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly sub: vscode.Disposable;

  constructor(private readonly feed: AgentFeed) {
    this.sub = feed.onDidChange((c) => {
      if (touches(c, 'skills')) this.refresh();
    });
  }

  refresh(): void {
    this.emitter.fire(undefined);
  }

  /** Every skill of every folder with `.agent/` (for Copy Skill Index). */
  async allSkills(): Promise<{ folder: AgentContextFolder; skills: Skill[] }[]> {
    await this.feed.ready;
    return Promise.all(this.feed.folders.map(async (folder) => ({ folder, skills: await loadSkills(folder.root) })));
  }

  async getChildren(node?: SkillNode): Promise<SkillNode[]> {
    if (!node) {
      await this.feed.ready;
      const folders = this.feed.folders;
      if (this.feed.grouped) return folders.map((folder) => ({ kind: 'folder', folder }));
      return folders.length > 0 ? this.sourcesOf(folders[0]) : [];
    }
    if (node.kind === 'folder') return this.sourcesOf(node.folder);
    if (node.kind === 'source' || node.kind === 'more') return paged(node.folder, node.source, node.skills);
    return [];
  }

  private async sourcesOf(folder: AgentContextFolder): Promise<SkillNode[]> {
    // The home folders VS Code's agent loads skills from too (~/.copilot/skills, ~/.claude/skills, ~/.agents/skills).
    const skills = await loadSkills(folder.root, { home: os.homedir() });
    const bySource = new Map<Skill['source'], Skill[]>();
    for (const s of skills) bySource.set(s.source, [...(bySource.get(s.source) ?? []), s]);
    return [...bySource].map(([source, list]) => ({ kind: 'source', folder, source, skills: list }));
  }

  getTreeItem(node: SkillNode): vscode.TreeItem {
    if (node.kind === 'folder') {
      const item = new vscode.TreeItem(node.folder.name, vscode.TreeItemCollapsibleState.Expanded);
      item.id = `skills-folder:${node.folder.root}`;
      item.iconPath = new vscode.ThemeIcon('root-folder');
      item.contextValue = 'agentFolder';
      return item;
    }
    if (node.kind === 'source') {
      const item = new vscode.TreeItem(node.source, vscode.TreeItemCollapsibleState.Expanded);
      item.id = `skills-source:${node.folder.root}/${node.source}`;
      const broken = node.skills.filter((s) => s.error).length;
      item.description = `${plural(node.skills.length, 'skill')}${broken ? `, ${broken} broken` : ''}`;
      item.iconPath = new vscode.ThemeIcon('folder-library');
      item.contextValue = 'skillSource';
      return item;
    }
    if (node.kind === 'more') {
      const n = node.skills.length;
      const item = new vscode.TreeItem(`… ${plural(n, 'more skill')}`, vscode.TreeItemCollapsibleState.Collapsed);
      item.id = `skills-more:${node.folder.root}/${node.source}/${node.skills[0].file}`;
      const broken = node.skills.filter((s) => s.error).length;
      if (broken) item.description = `${groupDigits(broken)} broken`;
      item.iconPath = new vscode.ThemeIcon(broken ? 'warning' : 'ellipsis', broken ? new vscode.ThemeColor('list.warningForeground') : undefined);
      item.tooltip = `Expand to list the next ${SKILL_PAGE} of ${groupDigits(n)} more skills in ${node.source}`;
      return item;
    }
    const s = node.skill;
    const item = new vscode.TreeItem(s.name, vscode.TreeItemCollapsibleState.None);
    item.id = `skill:${s.file}`;
    if (s.error) {
      item.description = s.error.message;
      item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
      item.tooltip = `${formatFileError(s.error)}\n\nThis skill is left out of the skill index until its frontmatter is fixed.`;
      item.contextValue = 'skill.broken';
    } else {
      item.description = s.description;
      item.iconPath = new vscode.ThemeIcon('book');
      item.tooltip = `${s.name}: ${s.description}\n${s.rel}`;
      item.contextValue = 'skill';
    }
    const line = s.error?.line ?? 1;
    const pos = new vscode.Position(line - 1, 0);
    item.command = { command: 'vscode.open', title: 'Open', arguments: [vscode.Uri.file(s.file), { selection: new vscode.Range(pos, pos), preview: true }] };
    return item;
  }

  dispose(): void {
    this.sub.dispose();
    this.emitter.dispose();
  }
}

/** Registers the Skills view. */
export function createSkillsView(context: vscode.ExtensionContext, feed: AgentFeed): SkillsTreeProvider {
  const provider = new SkillsTreeProvider(feed);
  const view = vscode.window.createTreeView('agentContext.skills', { treeDataProvider: provider, showCollapseAll: true });
  context.subscriptions.push(provider, view, registerTreeForTests('agentContext.skills', provider));
  return provider;
}
