import * as vscode from 'vscode';
import {
  detectWalkthroughSignals,
  walkthroughContextKey,
  walkthroughStepId,
  WALKTHROUGH_ID,
  WALKTHROUGH_SIGNAL_COMMAND,
  WALKTHROUGH_SIGNALS,
  type WalkthroughSignal,
} from '../../core/setup/walkthroughSignals';
import type { AgentFeed } from '../../editor/agentFeed';
import type { ToolInvoked } from '../tools/registerTools';
import { diskFolders } from '../../editor/settings';

/** Set in the workspace's state once the cleanup command ran here (no file proves it). */
const CLEANED_UP = 'agentContext.walkthrough.cleanedUp';

/** The Welcome page and the walkthrough page are editors without a public input type. */
function isWelcomeTab(tab: vscode.Tab): boolean {
  return tab.input === undefined && (/^Welcome$/.test(tab.label) || /^Walkthrough\b/.test(tab.label) || tab.label.includes('Agent Context'));
}

/**
 * The walkthrough's checkmarks follow the open workspace. VS Code keeps walkthrough progress per
 * profile, so a step done in one project showed done in the next (a new folder without .agent/
 * showed "Create the .agent folder" checked). Here each step's state comes from this window's
 * workspace (detectWalkthroughSignals: the file that proves it; the cleanup, from the workspace's
 * state), and is pushed to VS Code at start-up (package.json's `onWalkthrough` activation brings
 * the extension up in a folder without .agent/ when the walkthrough opens), whenever it changes
 * (the change feed, a tool call, a feature's WALKTHROUGH_SIGNAL_COMMAND) and whenever a
 * Welcome/walkthrough page appears (another window may have written the profile's progress):
 *   - the context key `agentContext.walkthrough.<key>`, true or false, which the steps'
 *     completionEvents wait for (VS Code checks a step when it becomes true while the page is up);
 *   - VS Code's own commands welcome.markStepComplete / welcome.markStepIncomplete, which set the
 *     profile's stored progress to this workspace's (and work before VS Code registered the
 *     walkthrough, which it does lazily). Were they gone in some VS Code, the keys still check
 *     steps; only unchecking would be lost.
 */
export function registerWalkthrough(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, feed: AgentFeed, toolInvoked: vscode.Event<ToolInvoked>): void {
  /** What was last pushed for each signal. */
  const pushed = new Map<WalkthroughSignal, boolean>();
  const push = (key: WalkthroughSignal, holds: boolean, again: boolean): void => {
    if (!again && pushed.get(key) === holds) return;
    if (pushed.get(key) !== holds) log.debug(`walkthrough: ${key} ${holds ? 'done' : 'not done'} in this workspace`);
    pushed.set(key, holds);
    void vscode.commands.executeCommand('setContext', walkthroughContextKey(key), holds);
    // Before VS Code has registered the walkthrough, the command stores the progress and then fails
    // to find the step to announce it: the progress is what counts.
    vscode.commands.executeCommand(holds ? 'welcome.markStepComplete' : 'welcome.markStepIncomplete', walkthroughStepId(key)).then(undefined, () => undefined);
  };
  /** The signals that hold in this window's workspace (a few stats per folder). */
  const holding = (): Set<WalkthroughSignal> => {
    const out = new Set<WalkthroughSignal>();
    // `.agent/` may be missing, and other signals still count in a folder without it.
    for (const f of diskFolders()) for (const k of detectWalkthroughSignals(f.uri.fsPath)) out.add(k);
    if (context.workspaceState.get<boolean>(CLEANED_UP)) out.add('cleanedUp');
    return out;
  };
  const sync = (again = false): void => {
    const now = holding();
    for (const s of WALKTHROUGH_SIGNALS) push(s.key, now.has(s.key), again);
  };

  let pageOpen = false;
  const onTabs = (): void => {
    const open = vscode.window.tabGroups.all.some((g) => g.tabs.some(isWelcomeTab));
    if (open && !pageOpen) sync(true);
    pageOpen = open;
  };

  context.subscriptions.push(
    // A file that proves a step came or went (or a whole folder changed): look again.
    feed.onDidChange(() => sync()),
    toolInvoked((t) => {
      if (t.ok) sync();
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => sync()),
    vscode.window.tabGroups.onDidChangeTabs(onTabs),
    vscode.commands.registerCommand(WALKTHROUGH_SIGNAL_COMMAND, async (key: unknown) => {
      if (key === 'cleanedUp') await context.workspaceState.update(CLEANED_UP, true);
      sync();
    }),
    vscode.commands.registerCommand('agentContext.openWalkthrough', () => vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH_ID, false)),
  );
  sync(true);
  onTabs();
}
