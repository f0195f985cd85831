import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { mirroredPlanName, mirrorPlan } from '../../core/plan/mirroredPlans';
import { formatFileError } from '../../core/result';
import { agentDirOf } from '../../core/workspace/agentLayout';
import { debounce } from '../../editor/debounce';

/** Where Copilot Chat's memory tool keeps `/memories/session/<file>`: <its workspace storage>/memory-tool/memories/<session>/. */
const COPILOT_STORAGE = 'github.copilot-chat';
const SESSION_PLAN = /(?:^|\/)memory-tool\/memories\/([^/]+)\/plan\.md$/;

/**
 * Mirrors the plan of VS Code's Plan agent (`/memories/session/plan.md`, in Copilot Chat's workspace
 * storage, beside this extension's own) into `.agent/plans/copilot-<session>.md` of the first folder
 * that has `.agent/`. Watched from outside the workspace; read once at start for plans written while
 * the extension was not running. Nothing happens in a window without a workspace or `.agent/`.
 */
export function registerCopilotPlanMirror(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): void {
  const storage = context.storageUri;
  if (!storage || storage.scheme !== 'file' || !vscode.workspace.isTrusted) return;
  const workspaceStorage = path.dirname(storage.fsPath);
  const pending = new Set<string>();
  const agentDir = (): string | undefined => {
    const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file' && fs.existsSync(agentDirOf(f.uri.fsPath)));
    return folder ? agentDirOf(folder.uri.fsPath) : undefined;
  };
  const flush = debounce(() => void mirrorPending(), 300);
  const mirrorPending = async (): Promise<void> => {
    const dir = agentDir();
    const files = [...pending];
    pending.clear();
    if (!dir) return;
    for (const file of files) {
      const m = SESSION_PLAN.exec(file.split(path.sep).join('/'));
      if (!m) continue;
      const text = await fs.promises.readFile(file, 'utf8').catch(() => undefined);
      if (text === undefined) continue; // cleaned up by Copilot: the mirror stays
      const r = await mirrorPlan(dir, mirroredPlanName('copilot', m[1]), text, `VS Code's Plan agent (Copilot Chat: /memories/session/plan.md of chat session ${m[1]})`);
      if (!r.ok) log.warn(`Copilot plan mirror: ${formatFileError(r.error)}`);
      else if (r.value.changed) log.info(`Copilot plan mirrored to ${path.relative(path.dirname(dir), r.value.file)}`);
    }
  };
  const note = (uri: vscode.Uri): void => {
    pending.add(uri.fsPath);
    flush();
  };
  const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(workspaceStorage), '*/memory-tool/memories/*/plan.md'));
  context.subscriptions.push(watcher, watcher.onDidCreate(note), watcher.onDidChange(note), flush);
  // Plans written while Agent Context was not running: a few small folders, read once after start.
  const start = setTimeout(() => {
    for (const owner of safeList(workspaceStorage).filter((n) => n.toLowerCase() === COPILOT_STORAGE)) {
      const memories = path.join(workspaceStorage, owner, 'memory-tool', 'memories');
      for (const session of safeList(memories)) {
        const file = path.join(memories, session, 'plan.md');
        if (fs.existsSync(file)) note(vscode.Uri.file(file));
      }
    }
  }, 2000);
  context.subscriptions.push({ dispose: () => clearTimeout(start) });
}

function safeList(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}
