import * as vscode from 'vscode';
import { detectWalkthroughSignals, pathCompletesSignal, walkthroughContextKey, WALKTHROUGH_SIGNALS, type WalkthroughSignal } from '../../core/setup/walkthroughSignals';
import { toPosixRelative } from '../../core/workspace/relativePaths';
import type { AgentFeed } from '../../editor/agentFeed';
import type { ToolInvoked } from '../tools/registerTools';

/** The walkthrough's full id, as `workbench.action.openWalkthrough` takes it. */
export const WALKTHROUGH_ID = 'agent-context.agent-context#agentContext.getStarted';

const EXISTING_DELAY_MS = 10_000;

/**
 * Sets the context keys the walkthrough's `onContext:` completion events wait for, when the file
 * that proves a step was done appears (a terminal capture, a tool ledger line, a pin, a note), as
 * the change feed reports it; a tool call made in this editor completes "Try a tool" at once.
 * Once every step is done the subscription ends, so nothing stays on the terminal's write path.
 */
export function registerWalkthrough(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, feed: AgentFeed, toolInvoked: vscode.Event<ToolInvoked>): void {
  const done = new Set<WalkthroughSignal>();
  const complete = (key: WalkthroughSignal): void => {
    if (done.has(key)) return;
    done.add(key);
    void vscode.commands.executeCommand('setContext', walkthroughContextKey(key), true);
    log.debug(`walkthrough: ${key} done`);
    if (done.size === WALKTHROUGH_SIGNALS.length) subs.dispose();
  };

  // What is already there counts too (a user who captured terminals before opening the walkthrough),
  // but not at once: VS Code registers an extension's walkthrough asynchronously (up to ~5 s after
  // start-up, waiting on its experiment service), and a completion context key that is already true
  // at registration is recorded without checking the step, and never checks it later in the session.
  let existingChecked = false;
  const detectExisting = (root: string): void => {
    for (const key of detectWalkthroughSignals(root)) complete(key);
  };

  const subs = vscode.Disposable.from(
    feed.onDidChange((changes) => {
      for (const c of changes) {
        // A whole folder (start-up, a folder added, too many paths at once): look at what is there.
        if (!c.paths) {
          if (existingChecked) detectExisting(c.root);
          continue;
        }
        for (const p of c.paths) {
          const rel = toPosixRelative(c.root, p);
          for (const s of WALKTHROUGH_SIGNALS) if (!done.has(s.key) && pathCompletesSignal(rel, s.key)) complete(s.key);
        }
      }
    }),
    toolInvoked((t) => {
      if (t.ok) complete('toolUsed');
    }),
  );
  const timer = setTimeout(() => {
    existingChecked = true;
    for (const f of feed.folders) detectExisting(f.root);
    // `.agent/` itself may be missing, and other signals still count in a folder without it.
    for (const f of vscode.workspace.workspaceFolders ?? []) if (f.uri.scheme === 'file') detectExisting(f.uri.fsPath);
  }, EXISTING_DELAY_MS);
  context.subscriptions.push(subs, { dispose: () => clearTimeout(timer) }, vscode.commands.registerCommand('agentContext.openWalkthrough', () =>
    vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH_ID, false),
  ));
}
