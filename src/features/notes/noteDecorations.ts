import * as vscode from 'vscode';
import * as path from 'node:path';
import type { AgentFeed } from '../../editor/agentFeed';
import { type ListedNote } from '../../core/notes/noteFile';
import { withCurrentOrphans } from '../../core/notes/notes';
import { notesTooltipMarkdown } from '../../core/notes/noteText';
import { NoteIndexes } from '../../core/notes/noteIndexes';
import { toPosixRelative } from '../../core/workspace/relativePaths';
import { plural } from '../../core/output/humanize';

/** More files whose notes changed than this: the decorations are redrawn as a whole. */
const MAX_URIS_FIRED = 200;

/**
 * Marks files that carry notes from the user with a badge and the notes in the tooltip, and keeps
 * an in-memory copy of every folder's notes (core/notes/noteIndexes.ts: listed on a worker thread)
 * so views can add them to their items' tooltips.
 * The listing leaves orphan marks out (a stat of every note's target, 10,000 at a heavy user's
 * size, at every start): a badge checks the notes of its own file when VS Code asks for it, and the
 * views' tooltips show the marks once some listing checked them (the Notes list command does).
 */
export class NoteDecorationProvider implements vscode.FileDecorationProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri[] | undefined>();
  readonly onDidChangeFileDecorations = this.changed.event;
  private readonly notesChanged = new vscode.EventEmitter<void>();
  /** Fires after the notes were re-read and some changed (a note added, edited or deleted, an orphan mark). */
  readonly onDidChangeNotes = this.notesChanged.event;
  private readonly notes: NoteIndexes;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(log: vscode.LogOutputChannel, feed: AgentFeed) {
    this.notes = new NoteIndexes((m) => log.warn(m));
    // Notes added, edited or deleted (by this window or any other process), the notes folder
    // coming or going, folders added or removed: the change feed reports each as `notes` or `agent`.
    this.disposables.push(feed.on(['notes'], (changes) => {
      for (const c of changes) this.notes.changed(c.root, c.areas.has('agent') || !c.paths ? undefined : [...c.paths]);
      this.refresh().catch((e: unknown) => log.error(`reading notes failed: ${String(e)}`));
    }));
  }

  /** Refreshes run one after another: a first index is built over several turns of the event loop. */
  private queue: Promise<void> = Promise.resolve();

  /** Re-reads the notes of every workspace folder; redraws the files whose notes changed. */
  refresh(): Promise<void> {
    const run = this.queue.then(() => this.refreshNow());
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async refreshNow(): Promise<void> {
    const touched = await this.notes.refresh((vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath));
    if (touched === undefined) return; // disposed
    const count = touched === 'all' ? Infinity : touched.reduce((n, [, rels]) => n + rels.size, 0);
    if (count === 0) return;
    // Thousands of files (the first listing): "every decoration may have changed" is one message,
    // where the list of URIs cost ~30 ms to make and send (bench row 19b); their paths are not even joined.
    this.changed.fire(touched === 'all' || count > MAX_URIS_FIRED ? undefined : touched.flatMap(([root, rels]) => [...rels].map((rel) => vscode.Uri.file(path.join(root, rel)))));
    this.notesChanged.fire();
  }

  /** Where the last listing ran. */
  get listedOn(): 'worker' | 'extension host' | undefined {
    const on = this.notes.listedOn;
    return on === 'this thread' ? 'extension host' : on;
  }

  /** The notes covering a file (and optionally lines of it or a terminal command), from memory. */
  notesFor(uri: vscode.Uri, startLine?: number, endLine?: number, extra?: { terminal?: number; command?: number; step?: string }): ListedNote[] {
    const folder = vscode.workspace.getWorkspaceFolder(uri);
    if (!folder) return [];
    return this.notes.notesFor(folder.uri.fsPath, { path: toPosixRelative(folder.uri.fsPath, uri.fsPath), startLine, endLine, ...extra });
  }

  async provideFileDecoration(uri: vscode.Uri): Promise<vscode.FileDecoration | undefined> {
    if (uri.scheme !== 'file') return undefined;
    const listed = this.notesFor(uri);
    if (listed.length === 0) return undefined;
    const root = vscode.workspace.getWorkspaceFolder(uri)?.uri.fsPath;
    // Its notes' targets as they are now (a stat each; what the listing left unchecked).
    const notes = root ? await withCurrentOrphans(root, listed).catch(() => listed) : listed;
    const orphaned = notes.filter((n) => n.orphaned).length;
    const tooltip = `${plural(notes.length, 'note')} for the agent`;
    return new vscode.FileDecoration('✎', orphaned ? `${tooltip} (${orphaned} orphaned)` : tooltip);
  }

  dispose(): void {
    this.notes.dispose();
    for (const d of this.disposables) d.dispose();
    this.changed.dispose();
    this.notesChanged.dispose();
  }
}

// The one provider of this window, so tree views can add notes to their tooltips without plumbing.
let current: NoteDecorationProvider | undefined;
// Lives as long as the module, so a view can subscribe whether it registers before or after the notes.
const anyNotesChanged = new vscode.EventEmitter<void>();

/** Registers the provider; views then call noteTooltip() when they build a tree item. */
export function registerNoteDecorations(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, feed: AgentFeed): NoteDecorationProvider {
  const provider = new NoteDecorationProvider(log, feed);
  current = provider;
  context.subscriptions.push(provider.onDidChangeNotes(() => anyNotesChanged.fire()));
  context.subscriptions.push(provider, vscode.window.registerFileDecorationProvider(provider), {
    dispose: () => {
      if (current === provider) current = undefined;
    },
  });
  // The first read comes with the feed's first look at the folders, after activate() returns.
  return provider;
}

/**
 * For tree views: the notes on a file (or lines of it, or a terminal command) as a Markdown tooltip,
 * or undefined when there are none. Pass the item's existing tooltip to keep it above the notes.
 */
export function noteTooltip(
  uri: vscode.Uri,
  base?: string | vscode.MarkdownString,
  range?: { startLine?: number; endLine?: number; terminal?: number; command?: number; step?: string },
): vscode.MarkdownString | undefined {
  const notes = current?.notesFor(uri, range?.startLine, range?.endLine, { terminal: range?.terminal, command: range?.command, step: range?.step }) ?? [];
  if (notes.length === 0) return undefined;
  const head = base === undefined ? '' : typeof base === 'string' ? escapeMarkdown(base).replace(/\n/g, '  \n') : base.value;
  const md = new vscode.MarkdownString((head ? head + '\n\n---\n\n' : '') + notesTooltipMarkdown(notes));
  return md;
}

/** Where this window's note decorations last listed the notes (see AgentContextApi.notesListedOn). */
export function notesListedOn(): 'worker' | 'extension host' | undefined {
  return current?.listedOn;
}

/** Subscribes to note changes (for views whose tooltips include notes); safe to call before registration. */
export function onDidChangeNotes(listener: () => void): vscode.Disposable {
  return anyNotesChanged.event(listener);
}

function escapeMarkdown(s: string): string {
  return s.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}
