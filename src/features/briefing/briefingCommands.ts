import * as vscode from 'vscode';
import * as path from 'node:path';
import { composeBriefingAsync } from '../../core/briefing/composeBriefing';
import { gatherBriefing } from '../../core/briefing/briefingSources';
import { acceptFeatures, checkFeatures } from '../../core/plan/featureList';
import { archiveText } from '../../core/history/archive';
import { formatFileError } from '../../core/result';
import type { AgentFeed, AgentContextFolder } from '../../editor/agentFeed';
import { formatBytes, plural } from '../../core/output/humanize';
import { ReadOnlyDocument } from '../../editor/readOnlyDocument';
import { clip } from '../../core/output/text';
import { notify } from '../../editor/notify';
import { secretRules } from '../../editor/settings';
import { maskSecrets } from '../../core/secrets';
import { countTokensAsync } from '../../core/output/tokens';

async function pickRoot(feed: AgentFeed, purpose: string): Promise<AgentContextFolder | undefined> {
  const roots = await feed.current();
  if (roots.length === 0) {
    void notify.error(`no workspace folder has a .agent folder, so there is nothing to ${purpose}. Run "Agent Context: Initialize .agent Folder" first.`);
    return undefined;
  }
  if (roots.length === 1) return roots[0];
  const pick = await vscode.window.showQuickPick(roots.map((r) => ({ label: r.name, description: r.root, root: r })), { title: `Agent Context: which folder's .agent to ${purpose}?` });
  return pick?.root;
}

/** The briefing of the first `.agent/` folder (the one tools use), shown read-only; returns its text. */
async function showBriefing(feed: AgentFeed, docs: ReadOnlyDocument): Promise<string | undefined> {
  const roots = await feed.current();
  const root = roots[0] ?? (await pickRoot(feed, 'brief'));
  if (!root) return undefined;
  const composed = await composeBriefingAsync(await gatherBriefing(root.agentDir));
  // What agentContext_briefing returns: its secrets masked (core/tools/maskToolText.ts).
  const text = maskSecrets(composed.text, secretRules([root.root])).text;
  const tokens = text === composed.text ? composed.tokens : (await countTokensAsync(text)).tokens;
  await docs.show(`${text}\n\n<!-- ${tokens} tokens; the same text agentContext_briefing returns -->\n`);
  return text;
}

/** Archives the given text, else the active editor's selection or whole document, as history/session-<ULID>.md. */
async function archiveCommand(feed: AgentFeed, log: vscode.LogOutputChannel, given?: unknown): Promise<string | undefined> {
  let text = typeof given === 'string' ? given : undefined;
  let title: string | undefined;
  const editor = vscode.window.activeTextEditor;
  if (text === undefined && editor) {
    text = editor.selection.isEmpty ? editor.document.getText() : editor.document.getText(editor.selection);
    title = path.basename(editor.document.fileName);
  }
  if (!text) {
    void notify.info('open or select the text to archive (a chat transcript pasted into an editor works), then run "Archive Text to History" again.');
    return undefined;
  }
  const root = await pickRoot(feed, 'archive into');
  if (!root) return undefined;
  // History is append-only: show what would go in and ask first.
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  const first = text.split('\n').find((l) => l.trim()) ?? '';
  const from = title ? `${editor && !editor.selection.isEmpty ? 'the selection in ' : ''}${title}` : 'the given text';
  const pick = await notify.warn(
    `Archive ${formatBytes(Buffer.byteLength(text))} (${plural(lines, 'line')}) from ${from} into ${root.name}'s .agent/history/?`,
    { modal: true, detail: `It starts with: "${clip(first, 120)}"\n\nHistory is append-only: Agent Context never edits or removes an archived session.` },
    'Archive',
  );
  if (pick !== 'Archive') return undefined;
  const r = await archiveText(root.agentDir, text, { title, source: 'command' });
  if (!r.ok) {
    void notify.error(`could not archive: ${formatFileError(r.error)}`);
    return undefined;
  }
  log.info(`archived ${r.value.bytes} bytes to ${r.value.path}`);
  void notify.info(`archived to ${r.value.path} (append-only).`, 'Open').then((o) => {
    if (o) void vscode.window.showTextDocument(vscode.Uri.file(path.join(root.root, r.value.path)));
  });
  return r.value.path;
}

/** Shows how features.json differs from the accepted version and, after the user confirms, accepts it. */
async function acceptCommand(feed: AgentFeed, log: vscode.LogOutputChannel, onDone: () => void): Promise<boolean> {
  const root = await pickRoot(feed, 'accept the feature list of');
  if (!root) return false;
  const st = await checkFeatures(root.agentDir);
  if (!st.ok) {
    void notify.error(`${formatFileError(st.error)} — fix the file first.`);
    return false;
  }
  if (!st.value || !st.value.tampered) {
    void notify.info(st.value ? `${st.value.path} matches its accepted version; nothing to accept.` : 'There is no .agent/features.json.');
    return false;
  }
  const lines = st.value.diffText.split('\n');
  const shown = lines.slice(0, 15).join('\n') + (lines.length > 15 ? `\n… and ${lines.length - 15} more` : '');
  const pick = await notify.warn(
    `Accept the changed feature list?`,
    { modal: true, detail: `${st.value.path} differs from the last accepted version:\n\n${shown}\n\nAccepting makes this the list tools work from.` },
    'Accept',
  );
  if (pick !== 'Accept') return false;
  const r = await acceptFeatures(root.agentDir, { by: 'user' });
  if (!r.ok) {
    void notify.error(`${formatFileError(r.error)}`);
    return false;
  }
  log.info(`feature list accepted (${plural(r.value.total, 'feature')}) in ${root.agentDir}`);
  onDone();
  return true;
}

/** The briefing / archive-to-history / accept-feature-list commands. */
export function registerBriefing(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, feed: AgentFeed): void {
  const docs = new ReadOnlyDocument('agent-context-briefing', 'Briefing.md');
  context.subscriptions.push(
    docs,
    vscode.commands.registerCommand('agentContext.briefing', () => showBriefing(feed, docs)),
    vscode.commands.registerCommand('agentContext.archiveToHistory', (text?: unknown) => archiveCommand(feed, log, text)),
    vscode.commands.registerCommand('agentContext.acceptFeatures', () =>
      acceptCommand(feed, log, () => void vscode.commands.executeCommand('agentContext.plan.refresh')),
    ),
  );
}
