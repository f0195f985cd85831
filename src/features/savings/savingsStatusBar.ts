import * as vscode from 'vscode';
import { ledgerPath, ledgerReport } from '../../core/history/ledger';
import { LedgerToday } from '../../core/history/ledgerToday';
import { cacheFile } from '../../core/workspace/cacheFiles';
import { defaultFolder } from '../../core/workspace/workspacePaths';
import { workspaceFolders } from '../../editor/settings';
import { agentDirOf } from '../../core/workspace/agentLayout';
import type { AgentFeed } from '../../editor/agentFeed';
import { debounce } from '../../editor/debounce';
import { ReadOnlyDocument } from '../../editor/readOnlyDocument';
import type { ToolInvoked } from '../tools/registerTools';
import { notify } from '../../editor/notify';
import { groupDigits, plural } from '../../core/output/humanize';

/** How often the status bar re-reads the ledger's end without a file event. */
const SAFETY_POLL_MS = 10_000;

function short(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/**
 * Status-bar item: tokens the tools kept out of the agent's context today (raw − returned, from
 * the ledger in .agent/history/, including MCP calls), opening the per-tool/per-day report.
 */
export function registerSavings(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, feed: AgentFeed, toolInvoked: vscode.Event<ToolInvoked>): void {
  const item = vscode.window.createStatusBarItem('agentContext.savings', vscode.StatusBarAlignment.Right, 90);
  item.name = 'Agent Context: Tokens Kept Out';
  item.command = 'agentContext.showToolReport';
  context.subscriptions.push(item);
  let follower: LedgerToday | undefined;
  let agentDir: string | undefined;

  const update = async (): Promise<void> => {
    const folder = defaultFolder(workspaceFolders());
    const dir = folder ? agentDirOf(folder.path) : undefined;
    if (dir !== agentDir) {
      agentDir = dir;
      // Reads only today's end of the ledger, then what is appended: never the whole history.
      follower = dir ? new LedgerToday(() => ledgerPath(dir), cacheFile(dir, 'ledgerToday')) : undefined;
    }
    if (!follower) {
      item.hide();
      return;
    }
    const s = await follower.poll();
    const calls = plural(s.today.calls, 'tool call');
    item.text = `$(fold-down) ${short(s.today.savedTokens)} tokens kept out`;
    // Read aloud instead of the text, which would say "fold-down" for the icon.
    item.accessibilityInformation = {
      label: `Agent Context kept ${groupDigits(s.today.savedTokens)} tokens out of the agent's context today, in ${calls}. Opens the report per tool and per day.`,
      role: 'button',
    };
    item.tooltip = new vscode.MarkdownString(
      `**Agent Context** kept **${groupDigits(s.today.savedTokens)}** tokens out of the agent's context today ` +
        `(${calls}: ${groupDigits(s.today.rawTokens)} raw → ${groupDigits(s.today.returnedTokens)} returned).\n\nClick for the report per tool and per day.`,
    );
    if (s.hasEntries) item.show();
    else item.hide();
  };
  const refresh = debounce(() => void update().catch((e) => log.warn(`savings status: ${(e as Error).message}`)), 300);
  // Ledger lines from this window's tools and from MCP servers and hooks (the ledger may be split by
  // month), the history folder coming or going, folders added or removed: all reach the feed.
  context.subscriptions.push(refresh, feed.on(['history'], refresh), toolInvoked(refresh));
  // File watchers can drop or coalesce events (a busy machine, network file systems): a slow poll
  // keeps the count right anyway. Each poll is a stat and a read of what was appended, if anything.
  const safety = setInterval(refresh, SAFETY_POLL_MS);
  safety.unref?.();
  context.subscriptions.push({ dispose: () => clearInterval(safety) });

  const report = new ReadOnlyDocument('agent-context-report', 'Tool Report.md');
  context.subscriptions.push(
    report,
    vscode.commands.registerCommand('agentContext.showToolReport', async () => {
      const folder = defaultFolder(workspaceFolders());
      if (!folder) {
        void notify.info('open a folder with .agent/ to see the tool report.');
        return;
      }
      // From per-file totals folded incrementally (core/ledger.ts): any ledger size, every month.
      // Rendered (its tables are the point), from a read-only document: nothing to save on close.
      await report.preview(await ledgerReport(agentDirOf(folder.path)));
    }),
  );
  refresh();
}
