import * as vscode from 'vscode';
import { notify } from '../../editor/notify';
import { cleanupScratch, CleanupReport, summarizeCleanup } from '../../core/scratch/scratchCleanup';
import { formatBytes, plural } from '../../core/output/humanize';
import { scratchDirOf } from '../../core/scratch/scratchEntry';
import type { RetentionPolicy } from '../../core/scratch/retention';
import { retentionSettings, setting } from '../../editor/settings';
import { formatFileError } from '../../core/result';
import { deletePermanently } from '../../core/fs/trash';
import { EDITOR_TRASH } from '../../editor/editorTrash';
import { AgentContextFolder, AgentFeed } from '../../editor/agentFeed';
import { ScratchTreeProvider } from './scratchView';
import { describeCleanupPreview } from '../../core/scratch/cleanupPreview';
import { WALKTHROUGH_SIGNAL_COMMAND } from '../../core/setup/walkthroughSignals';
import { cleanupTerminals, describeTerminalCleanup, describeTerminalCleanups, noTerminalCleanup, type TerminalCleanupReport } from '../../core/terminal/terminalRetention';

/** Extra paths cleanup must keep (e.g. open terminals' files); features add theirs with addCleanupProtection. */
const protectors: (() => readonly string[])[] = [];

/** Lets another feature keep files out of cleanup (returns absolute paths; folders protect their contents). */
export function addCleanupProtection(fn: () => readonly string[]): vscode.Disposable {
  protectors.push(fn);
  return new vscode.Disposable(() => {
    const i = protectors.indexOf(fn);
    if (i >= 0) protectors.splice(i, 1);
  });
}

/** The retention policy from `agentContext.scratch.*` settings for a folder. */
export function retentionPolicyFor(folder: AgentContextFolder): RetentionPolicy {
  return retentionSettings(folder.folder.uri);
}

/** What the cleanup commands return (also to integration tests). */
export interface CleanupResult {
  summary: string;
  reports: CleanupReport[];
  /** The folder of each report (same order). */
  folders: AgentContextFolder[];
  /** Each folder's terminal captures over `agentContext.terminals.maxAgeDays` (same order). */
  terminals: TerminalCleanupReport[];
  errors: string[];
}

/** The scratch summary, then what happened to terminal captures when anything did. */
function combine(reports: CleanupReport[], terminals: TerminalCleanupReport[], dryRun: boolean): string {
  const clauses = describeTerminalCleanups(terminals);
  const scratch = combineScratch(reports, dryRun);
  if (clauses.length === 0) return scratch;
  return `${scratch}; ${clauses.join('; ')}`;
}

function combineScratch(reports: CleanupReport[], dryRun: boolean): string {
  const n = reports.reduce((s, r) => s + r.removedCount, 0);
  const bytes = reports.reduce((s, r) => s + r.removedBytes, 0);
  const pinned = reports.reduce((s, r) => s + r.keptPinned, 0);
  const gone = reports.reduce((s, r) => s + (r.deletedPermanently ?? 0), 0);
  if (reports.length === 1) return reports[0].summary;
  const files = `${plural(n, 'file')} (${formatBytes(bytes)})`;
  if (dryRun) return `Would remove ${files}, keep ${pinned} pinned`;
  if (n === 0) return `Removed nothing, kept ${pinned} pinned`;
  return gone === 0 ? `Moved ${files} to the trash, kept ${pinned} pinned` : `Moved ${plural(n - gone, 'file')} to the trash and deleted ${gone} permanently (${formatBytes(bytes)} in all), kept ${pinned} pinned`;
}

/**
 * Runs cleanup on every folder with `.agent/`: scratch by its limits, then the captures of closed
 * terminals and ended agent sessions older than `agentContext.terminals.maxAgeDays` (the terminals
 * open in this window are protected). Scratch files with no usable trash are deleted only after the
 * user agrees in a modal dialog (`interactive`), never at startup; terminal captures never are.
 */
export async function runCleanup(feed: AgentFeed, log: vscode.LogOutputChannel, opts: { dryRun: boolean; interactive: boolean; only?: ReadonlySet<string> }): Promise<CleanupResult> {
  await feed.ready;
  const reports: CleanupReport[] = [];
  const done: AgentContextFolder[] = [];
  const terminals: TerminalCleanupReport[] = [];
  const errors: string[] = [];
  const extra = protectors.flatMap((p) => {
    try {
      return [...p()];
    } catch {
      return [];
    }
  });
  for (const folder of feed.folders) {
    const r = await cleanupScratch({ workspaceRoot: folder.root, policy: retentionPolicyFor(folder), extraProtected: extra, dryRun: opts.dryRun, only: opts.only, trash: EDITOR_TRASH });
    if (!r.ok) {
      errors.push(formatFileError(r.error));
      continue;
    }
    const t = await cleanupTerminals({ agentDir: folder.agentDir, maxAgeDays: setting('terminals.maxAgeDays', folder.folder.uri), openFiles: extra, dryRun: opts.dryRun, only: opts.only, trash: EDITOR_TRASH });
    if (!t.ok) errors.push(formatFileError(t.error));
    const rep = r.value;
    if (rep.noTrash.length > 0 && opts.interactive) {
      const answer = await notify.warn(
        `No trash is available for ${plural(rep.noTrash.length, 'scratch file')} in ${folder.folder.name} (this system or file system has none). Delete them permanently?`,
        { modal: true, detail: rep.noTrash.slice(0, 10).map((f) => f.rel).join('\n') + (rep.noTrash.length > 10 ? `\n… and ${rep.noTrash.length - 10} more` : '') },
        'Delete Permanently',
      );
      if (answer === 'Delete Permanently') {
        const del = await deletePermanently(rep.noTrash.map((f) => f.path), scratchDirOf(folder.agentDir));
        const gone = new Set(del.trashed.map((t) => t.path));
        rep.removed.push(...rep.noTrash.filter((f) => gone.has(f.path)));
        rep.deletedPermanently = (rep.deletedPermanently ?? 0) + gone.size;
        rep.noTrash = rep.noTrash.filter((f) => !gone.has(f.path));
        rep.failed.push(...del.failed);
        summarizeCleanup(rep);
        log.info(`permanently deleted ${plural(gone.size, 'file')} in ${folder.root}`);
      }
    }
    const tr: TerminalCleanupReport = t.ok ? t.value : noTerminalCleanup(opts.dryRun, 0);
    reports.push(rep);
    done.push(folder);
    terminals.push(tr);
    const tSummary = describeTerminalCleanup(tr);
    log.info(`cleanup ${opts.dryRun ? '(dry run) ' : ''}${folder.root}: ${rep.summary}${tSummary ? `; ${tSummary}` : ''}`);
    for (const item of opts.dryRun ? [] : tr.removed) log.info(`cleanup: moved terminal ${item.n} (${item.name}) to the trash: ${item.files.join(', ')}`);
    for (const f of [...rep.failed, ...tr.failed]) log.warn(`cleanup: ${f.path}: ${f.message}`);
  }
  return { summary: reports.length > 0 ? combine(reports, terminals, opts.dryRun) : '', reports, folders: done, terminals, errors };
}

/**
 * Clean Up Scratch…, the Scratch view's primary action: a dry run first, then a modal listing what
 * would go (and which rule keeps the rest) with a "Move N Files to Trash" button; only the listed
 * files are moved, and only after that click. Returns the cleanup, or undefined when declined.
 */
async function reviewAndClean(feed: AgentFeed, log: vscode.LogOutputChannel, scratch: ScratchTreeProvider): Promise<CleanupResult | undefined> {
  if (!vscode.workspace.isTrusted) {
    void notify.warn('Agent Context: this workspace is in Restricted Mode; trust it to clean up scratch.');
    return undefined;
  }
  const dry = await runCleanup(feed, log, { dryRun: true, interactive: false });
  for (const e of dry.errors) void notify.error(`Agent Context: ${e}`);
  if (dry.reports.length === 0) return undefined;
  const multi = feed.grouped;
  const inputs = dry.reports.map((report, i) => ({ folder: multi ? dry.folders[i].folder.name : undefined, report, policy: retentionPolicyFor(dry.folders[i]), terminals: dry.terminals[i] }));
  const preview = describeCleanupPreview(inputs);
  if (!preview.button) {
    // Nothing to decide: a notification, as Clean Up Scratch Now gives (a modal is for decisions).
    void notify.info(`${preview.message} ${preview.detail.replace(/\n+/g, " ")}`.trim());
    if (dry.errors.length === 0) void vscode.commands.executeCommand(WALKTHROUGH_SIGNAL_COMMAND, 'cleanedUp');
    return dry;
  }
  const answer = await notify.warn(preview.message, { modal: true, detail: preview.detail }, preview.button);
  if (answer !== preview.button) return undefined;
  const only = new Set([...dry.reports.flatMap((r) => r.removed.map((f) => f.path)), ...dry.terminals.flatMap((r) => r.removed.map((t) => t.files[0]))]);
  const res = await runCleanup(feed, log, { dryRun: false, interactive: true, only });
  scratch.refresh();
  for (const e of res.errors) void notify.error(`Agent Context: ${e}`);
  if (res.reports.length > 0) void notify.info(res.summary);
  if (res.reports.length > 0 && res.errors.length === 0) void vscode.commands.executeCommand(WALKTHROUGH_SIGNAL_COMMAND, 'cleanedUp');
  return res;
}

/** Registers Clean Up Scratch… (reviewed), Clean Up Scratch Now (no preview), the dry run, and the optional cleanup at startup. */
export function registerCleanupCommands(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, feed: AgentFeed, scratch: ScratchTreeProvider): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('agentContext.scratch.cleanupReview', () => reviewAndClean(feed, log, scratch)),
    vscode.commands.registerCommand('agentContext.scratch.cleanup', async (): Promise<CleanupResult | undefined> => {
      if (!vscode.workspace.isTrusted) {
        void notify.warn('Agent Context: this workspace is in Restricted Mode; trust it to clean up scratch.');
        return undefined;
      }
      const res = await runCleanup(feed, log, { dryRun: false, interactive: true });
      scratch.refresh();
      for (const e of res.errors) void notify.error(`Agent Context: ${e}`);
      if (res.reports.length > 0) void notify.info(res.summary);
      if (res.reports.length > 0 && res.errors.length === 0) void vscode.commands.executeCommand(WALKTHROUGH_SIGNAL_COMMAND, 'cleanedUp');
      return res;
    }),
    vscode.commands.registerCommand('agentContext.scratch.cleanupDryRun', async (): Promise<CleanupResult> => {
      const res = await runCleanup(feed, log, { dryRun: true, interactive: false });
      for (const e of res.errors) void notify.error(`Agent Context: ${e}`);
      if (res.reports.length === 0) return res;
      const lines = [
        ...res.reports.flatMap((r) => r.removed.map((f) => `${f.path}  (${f.reason}, ${f.size} bytes)`)),
        ...res.terminals.flatMap((r) => r.removed.map((t) => `${t.files.join(', ')}  (closed terminal capture, not written for over ${plural(r.maxAgeDays, 'day')}, ${t.bytes} bytes)`)),
      ];
      void notify.info(`${res.summary}.`, ...(lines.length > 0 ? ['Show List'] : [])).then(async (a) => {
        if (a !== 'Show List') return;
        const doc = await vscode.workspace.openTextDocument({ content: `${res.summary}\n\n${lines.join('\n')}\n`, language: 'plaintext' });
        await vscode.window.showTextDocument(doc, { preview: true });
      });
      return res;
    }),
  );
  const onStartup = setting('scratch.cleanupOnStartup');
  if (onStartup && vscode.workspace.isTrusted) {
    // Off the activation path: a few seconds later, never asking, never deleting permanently.
    const t = setTimeout(() => {
      void runCleanup(feed, log, { dryRun: false, interactive: false }).then((r) => {
        if (r.summary) log.info(`startup cleanup: ${r.summary}`);
        scratch.refresh();
      });
    }, 3000);
    context.subscriptions.push({ dispose: () => clearTimeout(t) });
  }
}
