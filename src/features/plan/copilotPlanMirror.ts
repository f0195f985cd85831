import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { mirroredPlanName, mirrorPlan } from '../../core/plan/mirroredPlans';
import { formatFileError } from '../../core/result';
import { agentDirOf } from '../../core/workspace/agentLayout';
import { debounce } from '../../editor/debounce';
import { diskFolders, secretRules } from '../../editor/settings';

/** Where Copilot Chat's memory tool keeps `/memories/session/<file>`: <its workspace storage>/memory-tool/memories/<session>/. */
const COPILOT_STORAGE = 'github.copilot-chat';

/**
 * Mirrors the plan of VS Code's Plan agent (`/memories/session/plan.md`, in Copilot Chat's workspace
 * storage, beside this extension's own) into `.agent/plans/copilot-<session>.md` of the first folder
 * that has `.agent/`. Watched from outside the workspace, and checked every few seconds: any event
 * under the memory tool's folder, and each check, rescans its few session folders (a watcher outside
 * the workspace can miss a file written into a folder created a moment before, or a rewrite deep in
 * it). Files whose size and time are unchanged are not read again. Also read at start, for plans
 * written while the extension was not running.
 * Nothing happens in a window without a workspace or `.agent/`.
 */
export function registerCopilotPlanMirror(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): void {
  const storage = context.storageUri;
  if (!storage || storage.scheme !== 'file' || !vscode.workspace.isTrusted) return;
  const workspaceStorage = path.dirname(storage.fsPath);
  const seen = new Map<string, string>(); // plan.md -> size:mtime when last mirrored
  const agentDir = (): string | undefined => {
    const folder = diskFolders().find((f) => fs.existsSync(agentDirOf(f.uri.fsPath)));
    return folder ? agentDirOf(folder.uri.fsPath) : undefined;
  };
  let running: Promise<void> | undefined;
  let again = false;
  const scan = (): void => {
    if (running) {
      again = true;
      return;
    }
    running = mirrorAll()
      .catch((e) => log.warn(`Copilot plan mirror: ${String(e)}`))
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          scan();
        }
      });
  };
  const mirrorAll = async (): Promise<void> => {
    const dir = agentDir();
    if (!dir) return;
    const rules = secretRules([path.dirname(dir)]);
    for (const owner of safeList(workspaceStorage).filter((n) => n.toLowerCase() === COPILOT_STORAGE)) {
      const memories = path.join(workspaceStorage, owner, 'memory-tool', 'memories');
      for (const session of safeList(memories)) {
        const file = path.join(memories, session, 'plan.md');
        const st = await fs.promises.stat(file).catch(() => undefined);
        if (!st?.isFile()) continue; // no plan in this session, or cleaned up by Copilot: a mirror stays
        const key = `${st.size}:${st.mtimeMs}`;
        if (seen.get(file) === key) continue;
        const text = await fs.promises.readFile(file, 'utf8').catch(() => undefined);
        if (text === undefined) continue;
        const r = await mirrorPlan(dir, mirroredPlanName('copilot', session), text, `VS Code's Plan agent (Copilot Chat: /memories/session/plan.md of chat session ${session})`, rules);
        if (!r.ok) {
          log.warn(`Copilot plan mirror: ${formatFileError(r.error)}`);
          continue;
        }
        seen.set(file, key);
        if (r.value.changed) log.info(`Copilot plan mirrored to ${path.relative(path.dirname(dir), r.value.file)}`);
      }
    }
  };
  const flush = debounce(scan, 300);
  const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(workspaceStorage), '*/memory-tool/**'));
  context.subscriptions.push(watcher, watcher.onDidCreate(flush), watcher.onDidChange(flush), flush);
  // The watcher alone is not enough: outside the workspace VS Code may watch only the top folder
  // (a CI run saw the session folder's creation but not the later rewrite of plan.md in it). A
  // check every few seconds costs a few stats (this window's sessions), and reads only what changed.
  const start = setTimeout(flush, 2000);
  const poll = setInterval(scan, POLL_MS);
  context.subscriptions.push({ dispose: () => (clearTimeout(start), clearInterval(poll)) });
}

/** How often the memory tool's session folders are checked besides the watcher. */
const POLL_MS = 4000;

function safeList(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}
