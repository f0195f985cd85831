import * as vscode from 'vscode';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  BEGIN_MARKER,
  INSTRUCTION_FILES,
  applyInstructions,
  formatInstructionReports,
  readInstructionsRecord,
  type InstructionFileReport,
} from '../../core/setup/instructions';
import { formatFileError } from '../../core/result';
import { notify } from '../../editor/notify';

const OFFERED_KEY = 'agentContext.instructions.offered';

/** Fires when Add Agent Instructions ran, whatever started it (the palette, the walkthrough, the offer): the offer is then answered. */
const instructionsAdded = new vscode.EventEmitter<void>();

async function pickFolder(arg: unknown): Promise<vscode.WorkspaceFolder | undefined> {
  if (arg instanceof vscode.Uri) return vscode.workspace.getWorkspaceFolder(arg);
  // A command link (the offer's) passes the folder as a URI string.
  if (typeof arg === 'string' && arg.includes(':')) return vscode.workspace.getWorkspaceFolder(vscode.Uri.parse(arg));
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (folders.length <= 1) return folders[0];
  return vscode.window.showWorkspaceFolderPick({ placeHolder: 'Add agent instructions to which folder?' });
}

/** Runs the core for one folder and tells the user what happened; returns the per-file reports (tests read them). */
async function addInstructions(folder: vscode.WorkspaceFolder, log: vscode.LogOutputChannel): Promise<InstructionFileReport[] | undefined> {
  const result = await applyInstructions(folder.uri.fsPath);
  if (!result.ok) {
    const msg = formatFileError(result.error);
    log.error(`add instructions: ${msg}`);
    void notify.error(`could not add agent instructions: ${msg}`);
    return undefined;
  }
  const reports = result.value;
  instructionsAdded.fire();
  const summary = formatInstructionReports(reports);
  log.info(`add instructions in ${folder.uri.fsPath}: ${summary}`);
  const written = reports.find((r) => r.action === 'created' || r.action === 'added' || r.action === 'updated');
  const show = (m: string, ...items: string[]) =>
    reports.some((r) => r.action === 'error') ? notify.warn(m, ...items) : notify.info(m, ...items);
  void show(`Agent Context: ${summary}`, ...(written ? ['Open'] : [])).then((choice) => {
    if (choice === 'Open' && written) void vscode.window.showTextDocument(vscode.Uri.joinPath(folder.uri, written.file));
  });
  return reports;
}

/** Registers "Agent Context: Add Agent Instructions" (`agentContext.addInstructions`, optional folder Uri argument). */
export function registerAddInstructionsCommand(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('agentContext.addInstructions', async (arg?: unknown) => {
      const folder = await pickFolder(arg);
      if (!folder) {
        if (!vscode.workspace.workspaceFolders?.length) {
          void notify.error('open a folder first, then add agent instructions.');
        }
        return undefined;
      }
      return addInstructions(folder, log);
    }),
  );
}

/** True when some instruction file of the folder already has the block or the user opted out of it. */
async function alreadyHandled(root: string): Promise<boolean> {
  const record = await readInstructionsRecord(root);
  if (!record.ok || record.value.length > 0) return true;
  for (const rel of INSTRUCTION_FILES) {
    try {
      if ((await fs.promises.readFile(path.join(root, rel), 'utf8')).includes(BEGIN_MARKER)) return true;
    } catch {
      // missing file: nothing to say
    }
  }
  return false;
}

/**
 * Offers to add the agent instructions, once per workspace, right after `.agent/` was initialized.
 * Called from the Initialize command; never blocks it. The question is a progress notification, the
 * one kind of notification an extension can take away: it leaves the Notifications centre as soon as
 * it is answered anywhere (its link, Add Agent Instructions from the palette or the walkthrough) or
 * declined with its Cancel button, instead of lingering there after the fact.
 */
export function offerAgentInstructions(context: vscode.ExtensionContext, folderUri: vscode.Uri, log: vscode.LogOutputChannel): void {
  if (context.workspaceState.get<boolean>(OFFERED_KEY)) return;
  void (async () => {
    if (await alreadyHandled(folderUri.fsPath)) return;
    await context.workspaceState.update(OFFERED_KEY, true);
    const add = `command:agentContext.addInstructions?${encodeURIComponent(JSON.stringify([folderUri.toString()]))}`;
    await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Agent Context', cancellable: true }, (progress, token) => {
      progress.report({ message: `Tell agents how to use .agent/ with a short block in AGENTS.md (and CLAUDE.md or .github/copilot-instructions.md if present)? [Add Agent Instructions](${add})` });
      return new Promise<void>((resolve) => {
        const subs = [token.onCancellationRequested(() => done()), instructionsAdded.event(() => done())];
        function done(): void {
          for (const d of subs) d.dispose();
          resolve();
        }
      });
    });
  })().catch((e: unknown) => log.error(`offering agent instructions failed: ${String(e)}`));
}
