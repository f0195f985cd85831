import * as vscode from 'vscode';
import {
  detectWalkthroughSignals,
  pathCompletesSignal,
  SIGNAL_VALUES,
  walkthroughContextKey,
  WALKTHROUGH_SIGNAL_COMMAND,
  WALKTHROUGH_SIGNALS,
  type WalkthroughSignal,
} from '../../core/setup/walkthroughSignals';
import { toPosixRelative } from '../../core/workspace/relativePaths';
import type { AgentFeed } from '../../editor/agentFeed';
import type { ToolInvoked } from '../tools/registerTools';

/** The walkthrough's full id, as `workbench.action.openWalkthrough` takes it. */
export const WALKTHROUGH_ID = 'agent-context.agent-context#agentContext.getStarted';

/**
 * VS Code registers the walkthrough (with a race of up to 5 s against its experiment service) only
 * when a Welcome or walkthrough page first needs it; a flip this long after such a page appears is
 * after the registration.
 */
const AFTER_PAGE_OPENS_MS = 6_000;

/** The Welcome page and the walkthrough page are editors without a public input type. */
function isWelcomeTab(tab: vscode.Tab): boolean {
  return tab.input === undefined && (/^Welcome$/.test(tab.label) || /^Walkthrough\b/.test(tab.label) || tab.label.includes('Agent Context'));
}

/**
 * Sets the context keys the walkthrough's completion events wait for, only when the step's action
 * succeeded: the file that proves it appeared (a command captured, a tool ledger line, a pin, a
 * note, `.agent/` itself) as the change feed reports it, a tool call made in this editor, or a
 * feature reporting success through WALKTHROUGH_SIGNAL_COMMAND (the cleanup, a note). What is
 * already on disk counts too. Each held key flips between two values (SIGNAL_VALUES) whenever a
 * Welcome/walkthrough page appears, and once more a few seconds after the session's first one, so a
 * step whose key was set before VS Code registered the walkthrough still checks when the page opens.
 */
export function registerWalkthrough(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, feed: AgentFeed, toolInvoked: vscode.Event<ToolInvoked>): void {
  const held = new Map<WalkthroughSignal, number>();
  const setKey = (key: WalkthroughSignal, value: number) => {
    held.set(key, value);
    void vscode.commands.executeCommand('setContext', walkthroughContextKey(key), value);
  };
  const complete = (key: WalkthroughSignal): void => {
    if (held.has(key)) return;
    log.debug(`walkthrough: ${key} done`);
    setKey(key, SIGNAL_VALUES[0]);
  };
  const flipAll = (): void => {
    for (const [key, v] of held) setKey(key, v === SIGNAL_VALUES[0] ? SIGNAL_VALUES[1] : SIGNAL_VALUES[0]);
  };
  const detectExisting = (root: string): void => {
    for (const key of detectWalkthroughSignals(root)) complete(key);
  };
  const detectAll = (): void => {
    // `.agent/` may be missing, and other signals still count in a folder without it.
    for (const f of vscode.workspace.workspaceFolders ?? []) if (f.uri.scheme === 'file') detectExisting(f.uri.fsPath);
  };

  let flipTimer: NodeJS.Timeout | undefined;
  let pageOpen = false;
  let lateFlipDone = false;
  const onTabs = (): void => {
    const open = vscode.window.tabGroups.all.some((g) => g.tabs.some(isWelcomeTab));
    if (open && !pageOpen) {
      detectAll();
      flipAll();
      // The late flip is for the first page of the session only (VS Code may register the
      // walkthrough after the keys were set). Later it would re-render a page the user is working
      // from and take the focus from a quick input they are typing into (the note's text lost
      // its last word in a CI run).
      if (!lateFlipDone) {
        lateFlipDone = true;
        clearTimeout(flipTimer);
        flipTimer = setTimeout(flipAll, AFTER_PAGE_OPENS_MS);
      }
    }
    pageOpen = open;
  };

  context.subscriptions.push(
    feed.onDidChange((changes) => {
      for (const c of changes) {
        // A whole folder (start-up, a folder added, too many paths at once): look at what is there.
        if (!c.paths) {
          detectExisting(c.root);
          continue;
        }
        for (const p of c.paths) {
          const rel = toPosixRelative(c.root, p);
          for (const s of WALKTHROUGH_SIGNALS) if (!held.has(s.key) && pathCompletesSignal(rel, s.key)) complete(s.key);
        }
      }
    }),
    toolInvoked((t) => {
      if (t.ok) complete('toolUsed');
    }),
    vscode.window.tabGroups.onDidChangeTabs(onTabs),
    { dispose: () => clearTimeout(flipTimer) },
    vscode.commands.registerCommand(WALKTHROUGH_SIGNAL_COMMAND, (key: unknown) => {
      if (WALKTHROUGH_SIGNALS.some((s) => s.key === key)) complete(key as WalkthroughSignal);
    }),
    vscode.commands.registerCommand('agentContext.openWalkthrough', () => vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH_ID, false)),
  );
  detectAll();
  onTabs();
}
