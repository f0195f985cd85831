import * as vscode from 'vscode';
import * as path from 'node:path';
import type { AgentFeed } from '../../editor/agentFeed';
import { listNotes, matchNotes, notesTooltipMarkdown, recheckNotes, type ListedNote } from '../../core/notes/notes';
import { toPosixRelative } from '../../core/workspace/relativePaths';

/**
 * Marks files that carry notes from the user with a badge and the notes in the tooltip, and keeps
 * an in-memory copy of every folder's notes so views can add them to their items' tooltips.
 */
export class NoteDecorationProvider implements vscode.FileDecorationProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri[] | undefined>();
  readonly onDidChangeFileDecorations = this.changed.event;
  private readonly notesChanged = new vscode.EventEmitter<void>();
  /** Fires after the notes were re-read (a note added, edited or deleted). */
  readonly onDidChangeNotes = this.notesChanged.event;
  private byFolder = new Map<string, ListedNote[]>(); // folder fsPath → notes
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly log: vscode.LogOutputChannel, feed: AgentFeed) {
    // Notes added, edited or deleted (by this window or any other process), the notes folder
    // coming or going, folders added or removed: the change feed reports each as `notes` or `agent`.
    // Every listing in this window (briefing, terminal tool) then checks the notes again at once.
    this.disposables.push(feed.on(['notes'], () => {
      recheckNotes();
      this.refresh().catch((e: unknown) => this.log.error(`reading notes failed: ${String(e)}`));
    }));
  }

  /** Re-reads the notes of every workspace folder and refreshes the decorations. */
  async refresh(): Promise<void> {
    const next = new Map<string, ListedNote[]>();
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      const { notes, errors } = await listNotes(folder.uri.fsPath);
      for (const e of errors) this.log.warn(`note skipped: ${e.file}${e.line ? `:${e.line}` : ''}: ${e.message}`);
      if (notes.length > 0) next.set(folder.uri.fsPath, notes);
    }
    const touched = new Set<string>();
    for (const map of [this.byFolder, next]) {
      for (const [root, notes] of map) for (const n of notes) touched.add(path.join(root, n.path));
    }
    this.byFolder = next;
    this.changed.fire([...touched].map((p) => vscode.Uri.file(p)));
    this.notesChanged.fire();
  }

  /** The notes covering a file (and optionally lines of it or a terminal command), from memory. */
  notesFor(uri: vscode.Uri, startLine?: number, endLine?: number, extra?: { terminal?: number; command?: number; step?: string }): ListedNote[] {
    const folder = vscode.workspace.getWorkspaceFolder(uri);
    const notes = folder ? this.byFolder.get(folder.uri.fsPath) : undefined;
    if (!folder || !notes) return [];
    const rel = toPosixRelative(folder.uri.fsPath, uri.fsPath);
    return matchNotes(notes, { path: rel, startLine, endLine, ...extra });
  }

  provideFileDecoration(uri: vscode.Uri): vscode.FileDecoration | undefined {
    if (uri.scheme !== 'file') return undefined;
    const notes = this.notesFor(uri);
    if (notes.length === 0) return undefined;
    const orphaned = notes.filter((n) => n.orphaned).length;
    const tooltip = notes.length === 1 ? '1 note for the agent' : `${notes.length} notes for the agent`;
    return new vscode.FileDecoration('✎', orphaned ? `${tooltip} (${orphaned} orphaned)` : tooltip);
  }

  dispose(): void {
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

/** Subscribes to note changes (for views whose tooltips include notes); safe to call before registration. */
export function onDidChangeNotes(listener: () => void): vscode.Disposable {
  return anyNotesChanged.event(listener);
}

function escapeMarkdown(s: string): string {
  return s.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}
