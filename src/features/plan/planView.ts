import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { isMarkdownPlanName, markdownChildren, markdownHasChildren, MarkdownParent } from '../../core/plan/markdownPlan';
import { Plan, PlanStep, StepStatus } from '../../core/plan/planDocument';
import { PlanFileVersion } from '../../core/plan/planEdit';
import { digestOf, planDigests, type PlanDigestPlan } from '../../core/plan/planDigests';
import { loadPlanFile, readOnlyPlanOwner } from '../../core/plan/planFiles';
import { PlanOrder } from '../../core/plan/planOrder';
import { FileError } from '../../core/result';
import { fileKeyOf, sameFileKey, type FileKey } from '../../core/fs/stamps';
import { registerTreeForTests } from '../../api';
import { AgentContextFolder, AgentFeed, touches } from '../../editor/agentFeed';
import { agentDirOf } from '../../core/workspace/agentLayout';
import { planExtraChildren, planExtraItem, planExtraNodes, type PlanExtraNode } from './planExtras';
import { noteTooltip, onDidChangeNotes } from '../notes/noteDecorations';
import { toPosixRelative } from '../../core/workspace/relativePaths';
import { groupDigits, plural } from '../../core/output/humanize';

/** Tree nodes of the Plan view. */
export type PlanNode =
  | { kind: 'folder'; folder: AgentContextFolder }
  /** `open`: drawn expanded (the plan files, and the few newest unfinished plans of the plan folders). */
  | { kind: 'plan'; folder: AgentContextFolder; file: string; row: PlanDigestPlan; showFile: boolean; open: boolean }
  | { kind: 'step'; folder: AgentContextFolder; file: string; step: PlanStep; version: PlanFileVersion; plan?: Plan }
  /** Markdown plans: a heading (grouping items, or the outline of a plan without checkboxes) and a plain list item. */
  | { kind: 'section'; folder: AgentContextFolder; file: string; plan: Plan; version: PlanFileVersion; index: number }
  | { kind: 'text'; folder: AgentContextFolder; file: string; text: string; line: number }
  | { kind: 'error'; folder: AgentContextFolder; error: FileError; absFile: string }
  | { kind: 'empty'; folder: AgentContextFolder }
  /** "… N older plans": expands to the next page of the plan folders' plans. */
  | { kind: 'olderPlans'; folder: AgentContextFolder; skip: number; older: number }
  /** Recent progress and the feature list (src/features/plan/planExtras.ts). */
  | { kind: 'extra'; node: PlanExtraNode };

const STATUS_ICON: Record<StepStatus, [string, string | undefined]> = {
  pending: ['circle-large-outline', undefined],
  in_progress: ['sync', 'charts.blue'],
  completed: ['pass-filled', 'testing.iconPassed'],
  blocked: ['warning', 'list.warningForeground'],
  cancelled: ['circle-slash', 'disabledForeground'],
};

/**
 * Plans per page from the plan folders (plans/, scratch/plans/, .opencode/plans/), newest first: a
 * year of planning sessions leaves a thousand there, and the view shows the recent ones and a node
 * that pages the rest, as the Terminals and Scratch views do.
 */
export const PLAN_PAGE = 20;

/**
 * Plans of the plan folders drawn expanded: the newest unfinished ones of the first page. The
 * others show their objective and progress on one row and open on a click, so the view draws about
 * as much with a thousand plans as with one (bench row 19f), and the plans being worked on stand out.
 */
export const OPEN_FOLDER_PLANS = 3;

/** Display words for statuses ("in progress"). */
export function statusLabel(s: string): string {
  return s.replace(/_/g, ' ');
}

/** The Plan view: per plan file its objective and progress, steps below; one error node per unreadable plan. */
export class PlanTreeProvider implements vscode.TreeDataProvider<PlanNode>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<PlanNode | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly sub: vscode.Disposable;
  private readonly notesSub: vscode.Disposable;

  constructor(private readonly feed: AgentFeed) {
    this.sub = feed.onDidChange((changes) => {
      if (!touches(changes, 'plan')) return;
      for (const c of changes) {
        const order = this.orders.get(agentDirOf(c.root));
        if (!order) continue;
        if (c.paths && !c.areas.has('agent')) order.changed(c.paths);
        else order.invalidate();
      }
      this.refresh();
    });
    this.notesSub = onDidChangeNotes(() => this.refresh()); // notes from the user show on steps
  }

  /**
   * Called with the view's description: the progress of the plan being worked on ("in progress ·
   * 3/5 done"), which a plan row's own description loses at the sidebar's default width (its
   * objective takes the row). Undefined when no plan has a checklist.
   */
  onSummary: ((text: string | undefined) => void) | undefined;

  /** Per `.agent/` folder, its folder plans newest first (kept current from the feed's changed paths). */
  private readonly orders = new Map<string, PlanOrder>();

  /** getChildren calls VS Code is waiting for, and whether a redraw was asked for meanwhile. */
  private inFlight = 0;
  private redrawAfter = false;

  /** Redraws the view; `reread` (the Refresh command) lists and stats the plan folders again. */
  refresh(reread = false): void {
    if (reread) for (const o of this.orders.values()) o.invalidate();
    // Asked while VS Code waits for some children: sent once they are out. A redraw that crossed a
    // pending request could leave a multi-root folder's group drawn open and empty (multiroot test).
    if (this.inFlight > 0) {
      this.redrawAfter = true;
      return;
    }
    this.emitter.fire(undefined);
  }

  async getChildren(node?: PlanNode): Promise<PlanNode[]> {
    this.inFlight++;
    try {
      return await this.childrenOf(node);
    } catch (e) {
      // Named in the view, not thrown: VS Code would draw a thrown request as no children at all.
      const folder = node && 'folder' in node ? node.folder : this.feed.folders[0];
      if (!folder) throw e;
      return [{ kind: 'error', folder, error: { file: toPosixRelative(folder.root, folder.agentDir), message: `cannot list the plans: ${(e as Error).message}` }, absFile: folder.agentDir }];
    } finally {
      if (--this.inFlight === 0 && this.redrawAfter) {
        this.redrawAfter = false;
        setTimeout(() => this.refresh(), 0);
      }
    }
  }

  private async childrenOf(node?: PlanNode): Promise<PlanNode[]> {
    if (!node) {
      await this.feed.ready;
      const folders = this.feed.folders;
      if (this.feed.grouped) return folders.map((folder) => ({ kind: 'folder', folder }));
      return folders.length > 0 ? this.plansOf(folders[0]) : [];
    }
    if (node.kind === 'folder') return this.plansOf(node.folder);
    if (node.kind === 'plan') {
      // The row came from the plan's digest: its steps are read when it is drawn open.
      const l = await this.load(node.file, toPosixRelative(node.folder.root, node.file));
      if (!l.ok) return [{ kind: 'error', folder: node.folder, error: l.error, absFile: node.file }];
      const full = { folder: node.folder, file: node.file, plan: { ...l.value.plan, file: node.file }, version: l.value.version };
      if (full.plan.format === 'markdown') return this.markdownNodes(full, { kind: 'plan' });
      return full.plan.steps.map((step) => ({ kind: 'step', folder: node.folder, file: node.file, step, version: full.version }));
    }
    if (node.kind === 'section') return this.markdownNodes(node, { kind: 'section', index: node.index });
    if (node.kind === 'step' && node.plan) return this.markdownNodes({ ...node, plan: node.plan }, { kind: 'step', id: node.step.id });
    if (node.kind === 'extra') return (await planExtraChildren(node.node)).map((n) => ({ kind: 'extra', node: n }));
    if (node.kind === 'olderPlans') return this.planPage(node.folder, node.skip);
    return [];
  }

  private markdownNodes(n: { folder: AgentContextFolder; file: string; plan: Plan; version: PlanFileVersion }, parent: MarkdownParent): PlanNode[] {
    const { folder, file, plan, version } = n;
    return markdownChildren(plan, parent).map((c): PlanNode => {
      if (c.kind === 'step') return { kind: 'step', folder, file, step: c.step, version, plan };
      if (c.kind === 'section') return { kind: 'section', folder, file, plan, version, index: c.index };
      return { kind: 'text', folder, file, text: c.text, line: c.line };
    });
  }

  private async plansOf(folder: AgentContextFolder): Promise<PlanNode[]> {
    const extras = (await planExtraNodes(folder.agentDir)).map((node): PlanNode => ({ kind: 'extra', node }));
    return [...(await this.planFilesOf(folder)), ...extras];
  }

  private async planFilesOf(folder: AgentContextFolder): Promise<PlanNode[]> {
    const nodes = await this.planPage(folder, 0);
    return nodes.length > 0 ? nodes : [{ kind: 'empty', folder }];
  }

  /**
   * The single plan files (on the first page) and a page of the plan folders' plans, newest first,
   * then "… N older plans". Only what is shown is read: each under its stat, parsed again only when
   * that changed.
   */
  private async planPage(folder: AgentContextFolder, skip: number): Promise<PlanNode[]> {
    let order = this.orders.get(folder.agentDir);
    if (!order) this.orders.set(folder.agentDir, (order = new PlanOrder(folder.agentDir)));
    const page = await order.page(skip, PLAN_PAGE);
    const files = skip === 0 ? [...page.fixed, ...page.files] : page.files;
    const showFile = page.fixed.length + page.total > 1;
    const out: PlanNode[] = [];
    // Each row from the plan's digest (objective, status, progress), read and parsed only when the
    // file's stat changed since any process last did: a page of 20 plans parsed at each start took
    // ~40 ms of the extension host's CPU (bench row 19a). The plans drawn open are parsed for their
    // steps (childrenOf).
    const rel = (f: string): string => toPosixRelative(folder.root, f);
    const digests = await planDigests(folder.agentDir, files, rel, { only: true });
    const gone: string[] = [];
    const fixed = new Set(skip === 0 ? page.fixed : []);
    let openLeft = skip === 0 ? OPEN_FOLDER_PLANS : 0;
    for (const file of files) {
      let row = digests.get(file)?.plan;
      if (row?.error !== undefined) {
        // The error with its line, from a read of its own (the digest keeps it as text).
        const l = await this.load(file, rel(file));
        if (!l.ok && /cannot read: .*ENOENT/.test(l.error.message)) row = undefined;
        else if (!l.ok) {
          out.push({ kind: 'error', folder, error: l.error, absFile: file });
          continue;
        } else row = digestOf(file, rel(file), l).plan; // mended since the digest: the watcher's refresh follows
      }
      if (!row) gone.push(file); // deleted while refreshing (or no longer a file); the watcher brings the next refresh
      else {
        const open = fixed.has(file) || (openLeft > 0 && row.done < row.total);
        if (open && !fixed.has(file)) openLeft--;
        out.push({ kind: 'plan', folder, file, row, showFile, open });
      }
    }
    order.changed(gone);
    if (skip === 0 && folder === this.feed.folders[0]) this.onSummary?.(planSummary(out));
    const older = page.total - skip - page.files.length;
    if (older > 0) out.push({ kind: 'olderPlans', folder, skip: skip + PLAN_PAGE, older });
    // Forget parses of plans that are gone (the rest stay for the pages a user expands again).
    if (skip === 0) for (const f of this.parsed.keys()) if (f.startsWith(folder.agentDir) && !page.fixed.includes(f) && !order.has(f)) this.parsed.delete(f);
    return out;
  }

  /**
   * Parsed plan files by path, each under the stat it was read with: a refresh (for every progress
   * entry, note or plan edit) parses again only the files that changed, not a thousand plans in plans/.
   */
  private readonly parsed = new Map<string, { key: FileKey; loaded: Awaited<ReturnType<typeof loadPlanFile>> }>();

  private async load(file: string, rel: string): ReturnType<typeof loadPlanFile> {
    // A sync stat (a few µs): each page draws 20+ plans, and async stats cost a turn of the event loop each.
    let st: fs.Stats | undefined;
    try {
      st = fs.statSync(file, { throwIfNoEntry: false });
    } catch {
      st = undefined;
    }
    const had = this.parsed.get(file);
    if (st && had && sameFileKey(had.key, st)) return had.loaded;
    const loaded = await loadPlanFile(file, rel);
    if (st && loaded.ok) this.parsed.set(file, { key: fileKeyOf(st), loaded });
    else this.parsed.delete(file);
    return loaded;
  }

  getTreeItem(node: PlanNode): vscode.TreeItem {
    switch (node.kind) {
      case 'extra':
        return planExtraItem(node.node);
      case 'folder': {
        const item = new vscode.TreeItem(node.folder.name, vscode.TreeItemCollapsibleState.Expanded);
        item.id = `folder:${node.folder.root}`;
        item.iconPath = new vscode.ThemeIcon('root-folder');
        item.tooltip = vscode.workspace.asRelativePath(node.folder.agentDir);
        item.contextValue = 'agentFolder';
        return item;
      }
      case 'plan': {
        const { row } = node;
        const markdown = isMarkdownPlanName(node.file);
        const outline = row.outline === true;
        const objective = row.objective ?? '';
        // Plans without a checklist (Claude Code writes one per planning session) start collapsed.
        const item = new vscode.TreeItem(objective, outline || !node.open ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.Expanded);
        item.id = `plan:${node.file}`;
        const rel = toPosixRelative(node.folder.root, node.file);
        const progress = outline ? 'no checklist' : `${row.done}/${row.total} done`;
        const owner = readOnlyPlanOwner(node.folder.agentDir, node.file) ?? row.mirror;
        item.description = [row.status ? statusLabel(row.status) : undefined, progress, owner ? `${owner} · read-only` : undefined, node.showFile ? rel : undefined].filter(Boolean).join(' · ');
        item.tooltip = `${objective}\n${rel}${row.status ? `\nstatus: ${row.status}` : ''}\n${outline ? 'No checklist items ("- [ ] …"); its headings are shown' : `${row.done} of ${row.total} ${markdown ? 'items checked' : 'steps done'}`}`;
        item.iconPath = new vscode.ThemeIcon(markdown ? 'markdown' : 'checklist');
        item.contextValue = 'planFile';
        item.command = openAt(node.file, row.objectiveLine ?? 1);
        return item;
      }
      case 'step': {
        const { step } = node;
        const md = node.plan?.format === 'markdown';
        const nested = md && markdownHasChildren(node.plan!, step.id);
        const item = new vscode.TreeItem(step.description || `Step ${step.id}`, nested ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
        item.id = `step:${node.file}#${step.id}`;
        // The icon shows the status; the row's width goes to the description. The tooltip has the
        // full description (the label may be cut) and the status in words, as the screen reader does.
        const [icon, color] = STATUS_ICON[step.status];
        item.iconPath = new vscode.ThemeIcon(icon, color ? new vscode.ThemeColor(color) : undefined);
        const where = `${toPosixRelative(node.folder.root, node.file)}:${step.line}`;
        item.tooltip = [step.description, `${md ? 'Item' : 'Step'} ${step.id} · ${statusLabel(step.status)} · ${where}`, step.notes?.trimEnd(), step.evidence?.length ? `Evidence: ${step.evidence.join(', ')}` : undefined]
          .filter(Boolean)
          .join('\n\n');
        item.accessibilityInformation = { label: `${step.description || `Step ${step.id}`}, ${statusLabel(step.status)}` };
        // Markdown items add `.markdown`: their context menu offers Toggle Checkbox.
        // An agent's own plan (read-only): no menu that would edit it.
        item.contextValue = readOnlyPlanOwner(node.folder.agentDir, node.file, node.version.text) ? `planStepReadOnly.${step.status}` : `planStep.${step.status}${md ? '.markdown' : ''}`;
        item.command = openAt(node.file, step.line);
        const noted = noteTooltip(vscode.Uri.file(node.file), item.tooltip, { step: String(step.id), startLine: step.line, endLine: step.line });
        if (noted) {
          item.tooltip = noted;
          item.description = '✎ note';
        }
        return item;
      }
      case 'section': {
        const sec = node.plan.sections![node.index];
        const item = new vscode.TreeItem(sec.title || '(untitled heading)', node.plan.steps.length > 0 ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `section:${node.file}#${node.index}`;
        item.iconPath = new vscode.ThemeIcon('symbol-string'); // as VS Code's own Markdown outline shows headings
        item.tooltip = `${'#'.repeat(sec.level)} ${sec.title}\n${toPosixRelative(node.folder.root, node.file)}:${sec.line}`;
        item.contextValue = 'planSection';
        item.command = openAt(node.file, sec.line);
        return item;
      }
      case 'text': {
        const item = new vscode.TreeItem(node.text || '(empty item)', vscode.TreeItemCollapsibleState.None);
        item.id = `text:${node.file}:${node.line}`;
        item.iconPath = new vscode.ThemeIcon('circle-small-filled');
        item.tooltip = `${node.text}\n${toPosixRelative(node.folder.root, node.file)}:${node.line}`;
        item.contextValue = 'planText';
        item.command = openAt(node.file, node.line);
        return item;
      }
      case 'error': {
        const e = node.error;
        const item = new vscode.TreeItem(`${e.file}${e.line !== undefined ? ` line ${e.line}` : ''}: ${e.message}`, vscode.TreeItemCollapsibleState.None);
        item.id = `error:${node.absFile}`;
        item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('list.errorForeground'));
        item.tooltip = `${e.file}${e.line !== undefined ? `:${e.line}` : ''}: ${e.message}\n\nFix the file and save it; the view updates by itself. Nothing was changed.`;
        item.contextValue = 'planError';
        item.command = openAt(node.absFile, e.line ?? 1);
        return item;
      }
      case 'olderPlans': {
        const item = new vscode.TreeItem(`… ${plural(node.older, 'older plan')}`, vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `olderPlans:${node.folder.agentDir}@${node.skip}`;
        item.tooltip = `Expand to list the next ${PLAN_PAGE} of ${groupDigits(node.older)} older plans (.agent/plans/, .agent/scratch/plans/ and agents' own plan folders; newest first).`;
        item.iconPath = new vscode.ThemeIcon('history');
        item.contextValue = 'agentContext.olderItems';
        return item;
      }
      case 'empty': {
        const item = new vscode.TreeItem('No plan yet', vscode.TreeItemCollapsibleState.None);
        item.description = '.agent/plan.yaml';
        item.tooltip = 'Agents write their plan to .agent/plan.yaml (also read: .agent/plan.md, .agent/plans/*.yaml and *.md, .agent/scratch/current_plan.yaml, .agent/scratch/plans/*.yaml).';
        item.iconPath = new vscode.ThemeIcon('info');
        item.contextValue = 'planEmpty';
        return item;
      }
    }
  }

  dispose(): void {
    this.sub.dispose();
    this.notesSub.dispose();
    this.emitter.dispose();
  }
}

/** The progress of the first plan not yet done (else the first plan with a checklist), as the view's description shows it. */
function planSummary(nodes: readonly PlanNode[]): string | undefined {
  const plans = nodes.flatMap((n) => (n.kind === 'plan' && n.row.outline !== true && n.row.total > 0 ? [n.row] : []));
  const row = plans.find((r) => r.done < r.total) ?? plans[0];
  if (!row) return undefined;
  return [row.status ? statusLabel(row.status) : undefined, `${row.done}/${row.total} done`].filter(Boolean).join(' · ');
}

/** A command that opens a file with the cursor on a 1-based line. */
export function openAt(file: string, line: number): vscode.Command {
  const pos = new vscode.Position(Math.max(0, line - 1), 0);
  return { command: 'vscode.open', title: 'Open', arguments: [vscode.Uri.file(file), { selection: new vscode.Range(pos, pos), preview: true }] };
}

/** Registers the Plan view (and its test hook). */
export function createPlanView(context: vscode.ExtensionContext, feed: AgentFeed): PlanTreeProvider {
  const provider = new PlanTreeProvider(feed);
  const view = vscode.window.createTreeView('agentContext.plan', { treeDataProvider: provider, showCollapseAll: true });
  provider.onSummary = (text) => {
    if (view.description !== text) view.description = text;
  };
  context.subscriptions.push(provider, view, registerTreeForTests('agentContext.plan', provider));
  return provider;
}
