import * as vscode from 'vscode';
import { formatLocalTime } from '../../core/output/humanize';
import * as path from 'node:path';
import { progressPath, type ProgressEntry } from '../../core/plan/progress';
import { readProgressTail } from '../../core/plan/progress';
import { checkFeatures, featuresPath, featuresSummary, type Feature, type FeatureSummary } from '../../core/plan/featureList';
import { formatFileError } from '../../core/result';
import { openAtLine } from '../../editor/agentFolderTree';
import { clip } from '../../core/output/text';

/** How many progress entries the Plan view shows ("Recent progress"). */
const RECENT = 5;

/** Nodes this feature contributes to the Plan view (below the plans): recent progress and the feature list. */
export type PlanExtraNode =
  | { kind: 'progress'; agentDir: string; entries: ProgressEntry[]; total: number }
  | { kind: 'progressEntry'; agentDir: string; entry: ProgressEntry }
  | { kind: 'features'; agentDir: string; state: FeatureSummary }
  | { kind: 'featureDiff'; agentDir: string; line: string }
  | { kind: 'feature'; agentDir: string; index: number; feature: Feature }
  | { kind: 'featuresError'; agentDir: string; message: string; line?: number };

/** The extra top-level nodes for one `.agent/` folder (none when it has neither progress.md nor features.json). */
export async function planExtraNodes(agentDir: string): Promise<PlanExtraNode[]> {
  const out: PlanExtraNode[] = [];
  // Only the end of progress.md is read: a progress entry appended to a long log costs the same as to a short one.
  const { entries, total } = await readProgressTail(agentDir, RECENT);
  if (entries.length) out.push({ kind: 'progress', agentDir, entries: [...entries].reverse(), total });
  const f = await featuresOf(agentDir);
  if (!f.ok) out.push({ kind: 'featuresError', agentDir, message: formatFileError(f.error), line: f.error.line });
  else if (f.value) out.push({ kind: 'features', agentDir, state: f.value });
  return out;
}

// The Features row from the summary (core/plan/featureList.ts): the list itself is read when the row is expanded.
function featuresOf(agentDir: string): ReturnType<typeof featuresSummary> {
  return featuresSummary(agentDir);
}

/** Children of an extra node (a Features row reads and checks the list when it is expanded). */
export async function planExtraChildren(n: PlanExtraNode): Promise<PlanExtraNode[]> {
  if (n.kind === 'progress') return n.entries.map((entry) => ({ kind: 'progressEntry', agentDir: n.agentDir, entry }));
  if (n.kind === 'features') {
    const r = await checkFeatures(n.agentDir);
    if (!r.ok) return [{ kind: 'featuresError', agentDir: n.agentDir, message: formatFileError(r.error), line: r.error.line }];
    if (!r.value) return [];
    const st = r.value;
    const diff = st.tampered ? st.diffText.split('\n').map((line): PlanExtraNode => ({ kind: 'featureDiff', agentDir: n.agentDir, line })) : [];
    return [...diff, ...st.features.map((feature, index): PlanExtraNode => ({ kind: 'feature', agentDir: n.agentDir, index, feature }))];
  }
  return [];
}

/** The TreeItem of an extra node. */
export function planExtraItem(n: PlanExtraNode): vscode.TreeItem {
  switch (n.kind) {
    case 'progress': {
      const it = new vscode.TreeItem('Recent progress', vscode.TreeItemCollapsibleState.Expanded);
      it.description = `${n.entries.length} of ${n.total} · .agent/progress.md`;
      it.iconPath = new vscode.ThemeIcon('history');
      it.command = openAtLine(progressPath(n.agentDir), n.entries[0]?.line);
      it.contextValue = 'progressLog';
      it.id = `progress:${n.agentDir}`;
      return it;
    }
    case 'progressEntry': {
      const e = n.entry;
      const it = new vscode.TreeItem(clip(e.title || '(untitled)', 80), vscode.TreeItemCollapsibleState.None);
      it.description = formatLocalTime(e.date);
      const md = new vscode.MarkdownString(`**${formatLocalTime(e.date)} — ${e.title}**\n\n`);
      if (e.done) md.appendText(clip(e.done, 800) + '\n\n');
      if (e.next) md.appendMarkdown(`**Next:** `).appendText(clip(e.next, 400));
      it.tooltip = md;
      it.iconPath = new vscode.ThemeIcon('debug-stackframe-dot');
      it.command = openAtLine(progressPath(n.agentDir), e.line);
      return it;
    }
    case 'features': {
      const s = n.state;
      const it = new vscode.TreeItem('Features', vscode.TreeItemCollapsibleState.Collapsed);
      it.description = `${s.passing}/${s.total} passing${s.tampered ? ' · ⚠ changed outside setPasses' : ''}`;
      it.iconPath = s.tampered ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground')) : new vscode.ThemeIcon('beaker');
      it.tooltip = s.tampered
        ? new vscode.MarkdownString('**.agent/features.json was changed outside setPasses** since the last accepted version. Tools refuse to mark features until you review the difference and run **Accept Feature List**.\n\n').appendCodeblock(s.diffText, 'diff')
        : `${s.path}: ${s.passing} of ${s.total} features pass`;
      it.contextValue = s.tampered ? 'featuresTampered' : 'features';
      if (s.tampered) it.collapsibleState = vscode.TreeItemCollapsibleState.Expanded;
      it.command = openAtLine(featuresPath(n.agentDir), 1);
      it.id = `features:${n.agentDir}`;
      return it;
    }
    case 'featureDiff': {
      const it = new vscode.TreeItem(n.line, vscode.TreeItemCollapsibleState.None);
      it.iconPath = new vscode.ThemeIcon(n.line.startsWith('-') ? 'diff-removed' : n.line.startsWith('+') ? 'diff-added' : 'diff-modified', new vscode.ThemeColor('list.warningForeground'));
      it.tooltip = `${n.line}\n\nRun "Agent Context: Accept Feature List" if this change is intended.`;
      it.contextValue = 'featureDiff';
      return it;
    }
    case 'feature': {
      const f = n.feature;
      const it = new vscode.TreeItem(clip(f.description, 100), vscode.TreeItemCollapsibleState.None);
      it.description = `${f.passes ? 'passes' : 'not passing'}${f.category ? ` · ${f.category}` : ''}`;
      it.iconPath = f.passes ? new vscode.ThemeIcon('pass-filled', new vscode.ThemeColor('testing.iconPassed')) : new vscode.ThemeIcon('circle-large-outline');
      it.tooltip = [`#${n.index} ${f.description}`, f.category && `category: ${f.category}`, ...f.steps.map((s, i) => `${i + 1}. ${s}`)].filter(Boolean).join('\n');
      it.contextValue = f.passes ? 'feature.passes' : 'feature.failing';
      return it;
    }
    case 'featuresError': {
      const it = new vscode.TreeItem(n.message, vscode.TreeItemCollapsibleState.None);
      it.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('list.errorForeground'));
      it.tooltip = `${n.message}\n\nFix ${path.basename(featuresPath(n.agentDir))}; nothing is changed while it is invalid.`;
      it.command = openAtLine(featuresPath(n.agentDir), n.line);
      return it;
    }
  }
}
