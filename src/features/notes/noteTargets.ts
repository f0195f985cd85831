import * as path from 'node:path';
import * as vscode from 'vscode';
import { findPlanFiles, loadPlanFile } from '../../core/plan/planFiles';
import { currentScratchIndex } from '../../core/scratch/index/sharedIndex';
import { recentTerminalCommands } from '../../core/notes/recentCommands';
import { AGENT_DIR, agentDirOf, hasAgentFolder } from '../../core/workspace/agentLayout';
import { toPosixRelative } from '../../core/workspace/relativePaths';

/** What the Quick Pick offers: each item carries the same element the views pass to the command. */
export interface NoteTargetItem extends vscode.QuickPickItem {
  element?: unknown;
}

const MAX_SCRATCH = 30;
const MAX_STEPS = 200;

function short(s: string, n = 80): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > n ? one.slice(0, n - 1) + '…' : one;
}

/**
 * The items a note can be attached to when "Add Note for the Agent…" runs without a target (from
 * the palette or the walkthrough): plan steps, scratch files (newest first) and the last commands
 * of the newest captured terminals, grouped by separators. Each item's `element` has the shape of
 * the view node it stands for, so `targetFromElement` reads it like a right-click in that view.
 */
export async function listNoteTargets(folders: readonly vscode.WorkspaceFolder[]): Promise<NoteTargetItem[]> {
  // `folders`: the folders on disk (diskFolders()).
  const steps: NoteTargetItem[] = [];
  const scratch: NoteTargetItem[] = [];
  const commands: NoteTargetItem[] = [];
  const multi = folders.length > 1;
  for (const folder of folders) {
    const root = folder.uri.fsPath;
    if (!(await hasAgentFolder(root))) continue;
    const agentDir = agentDirOf(root);
    const where = (rel: string) => (multi ? `${folder.name}: ${rel}` : rel);
    for (const file of await findPlanFiles(agentDir)) {
      const rel = toPosixRelative(root, file);
      const loaded = await loadPlanFile(file, rel);
      if (!loaded.ok) continue;
      for (const step of loaded.value.plan.steps) {
        if (steps.length >= MAX_STEPS) break;
        steps.push({ label: `$(list-ordered) ${short(step.description)}`, description: `step ${step.id} · ${step.status.replace('_', ' ')}`, detail: where(`${rel}:${step.line}`), element: { kind: 'step', step, file } });
      }
    }
    // The index this process keeps (what the Scratch view shows), not a walk of all of scratch for
    // 30 names: each folder's newest page (what the index holds even when it started from its
    // summary), the newest of them all first (ties by path, as the index orders them).
    const ix = await currentScratchIndex(agentDir);
    const newest = ix.folders().flatMap((rel) => ix.filesPage(rel, 0, MAX_SCRATCH).entries);
    newest.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
    for (const f of newest.slice(0, MAX_SCRATCH)) {
      scratch.push({ label: `$(file) ${f.rel}`, description: 'scratch file', detail: where(toPosixRelative(root, f.path)), element: { kind: 'file', entry: { path: f.path } } });
    }
    for (const { info, cmd } of await recentTerminalCommands(agentDir)) {
      const exit = cmd.status === 'running' ? 'running' : cmd.exitCode === null ? 'exit unknown' : `exit ${cmd.exitCode}`;
      commands.push({
        label: `$(terminal) ${short(cmd.commandLine || '(empty command line)')}`,
        description: `terminal ${info.n} (${info.name}), command ${cmd.command} · ${exit}`,
        detail: where(path.posix.join(AGENT_DIR, cmd.file)),
        element: { kind: 'command', agentDir, info, cmd },
      });
    }
  }
  const out: NoteTargetItem[] = [];
  const group = (label: string, items: NoteTargetItem[]) => {
    if (items.length === 0) return;
    out.push({ label, kind: vscode.QuickPickItemKind.Separator }, ...items);
  };
  group('Plan steps', steps);
  group('Scratch files', scratch);
  group('Terminal commands', commands);
  return out;
}

/**
 * Asks which item the note is for; undefined when there is nothing to pick or the user cancelled.
 * The picker is returned still open (`picker`): the caller shows its next input in its place and
 * then disposes it. Hiding it first would hand the keyboard back to what had it before, and a
 * walkthrough page takes the Enter's key-up as a click on its step and then focuses that step (a
 * quarter-second later, after the note box had opened): the note typed next went nowhere.
 */
export async function pickNoteTarget(folders: readonly vscode.WorkspaceFolder[]): Promise<{ element: unknown; picker: vscode.Disposable } | 'none' | undefined> {
  const items = await listNoteTargets(folders);
  if (items.length === 0) return 'none';
  const picker = vscode.window.createQuickPick<NoteTargetItem>();
  picker.title = 'Add Note for the Agent';
  picker.placeholder = 'Which item is the note about? (a plan step, a scratch file or a terminal command)';
  picker.matchOnDescription = true;
  picker.matchOnDetail = true;
  // A click elsewhere (the walkthrough page re-rendering) must not close it before the user chose.
  picker.ignoreFocusOut = true;
  picker.items = items;
  const pick = await new Promise<NoteTargetItem | undefined>((resolve) => {
    picker.onDidAccept(() => resolve(picker.selectedItems[0]));
    picker.onDidHide(() => resolve(undefined));
    picker.show();
  });
  if (!pick) {
    picker.dispose();
    return undefined;
  }
  return { element: pick.element, picker };
}
