import * as vscode from 'vscode';
import {
  WALKTHROUGH_SIGNALS,
  detectWalkthroughSignals,
  pathCompletesSignal,
  walkthroughContextKey,
  type WalkthroughSignal,
} from '../../core/setup/walkthroughSignals';
import { toPosixRelative } from '../../core/workspace/relativePaths';

/** The walkthrough's full id, as `workbench.action.openWalkthrough` takes it. */
export const WALKTHROUGH_ID = 'agent-context.agent-context#agentContext.getStarted';

const EXISTING_DELAY_MS = 10_000;

/**
 * Sets the context keys the walkthrough's `onContext:` completion events wait for, when the file
 * that proves a step was done appears (a terminal capture, a tool ledger line, a pin, a note).
 * Each watcher is narrow and is disposed once its step is complete, so nothing stays on the
 * terminal's write path.
 */
export function registerWalkthrough(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): void {
  const done = new Set<WalkthroughSignal>();
  const watchers = new Map<WalkthroughSignal, vscode.Disposable[]>();

  const complete = (key: WalkthroughSignal) => {
    if (done.has(key)) return;
    done.add(key);
    void vscode.commands.executeCommand('setContext', walkthroughContextKey(key), true);
    log.debug(`walkthrough: ${key} done`);
    for (const d of watchers.get(key) ?? []) d.dispose();
    watchers.delete(key);
  };

  const watchFolders = () => {
    for (const ds of watchers.values()) for (const d of ds) d.dispose();
    watchers.clear();
    for (const signal of WALKTHROUGH_SIGNALS) {
      if (done.has(signal.key)) continue;
      const ds: vscode.Disposable[] = [];
      for (const folder of vscode.workspace.workspaceFolders ?? []) {
        if (folder.uri.scheme !== 'file') continue;
        const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, signal.glob), false, false, true);
        const on = (uri: vscode.Uri) => {
          const rel = toPosixRelative(folder.uri.fsPath, uri.fsPath);
          if (pathCompletesSignal(rel, signal.key)) complete(signal.key);
        };
        ds.push(w, w.onDidCreate(on), w.onDidChange(on));
      }
      watchers.set(signal.key, ds);
    }
  };

  // What is already there counts too (a user who captured terminals before opening the walkthrough),
  // but not at once: VS Code registers an extension's walkthrough asynchronously (up to ~5 s after
  // start-up, waiting on its experiment service), and a completion context key that is already true
  // at registration is recorded without checking the step, and never checks it later in the session.
  const detectExisting = () => {
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      if (folder.uri.scheme === 'file') for (const key of detectWalkthroughSignals(folder.uri.fsPath)) complete(key);
    }
  };

  context.subscriptions.push(
    vscode.workspace.onDidChangeWorkspaceFolders(() => {
      watchFolders();
      detectExisting();
    }),
    { dispose: () => { for (const ds of watchers.values()) for (const d of ds) d.dispose(); } },
    vscode.commands.registerCommand('agentContext.openWalkthrough', () =>
      vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH_ID, false),
    ),
  );
  // Off the activation path.
  setTimeout(watchFolders, 0);
  const timer = setTimeout(detectExisting, EXISTING_DELAY_MS);
  context.subscriptions.push({ dispose: () => clearTimeout(timer) });
}
