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
  /**
   * Per folder, the notes by target path and by terminal command: a tree item's tooltip looks up its
   * own notes instead of matching every note (each item of every view asks; thousands of notes).
   */
  private indexes = new Map<string, { byPath: Map<string, ListedNote[]>; byCommand: Map<string, ListedNote[]> }>();
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
    // Only the files whose notes changed get their decoration asked for again (not every noted file).
    const signature = (map: Map<string, ListedNote[]>): Map<string, string> => {
      const sig = new Map<string, string>();
      for (const [root, notes] of map) {
        for (const n of notes) {
          const f = path.join(root, n.path);
          sig.set(f, `${sig.get(f) ?? ''}${n.id}:${n.orphaned ?? ''}|`);
        }
      }
      return sig;
    };
    const before = signature(this.byFolder);
    const after = signature(next);
    const touched = new Set<string>();
    for (const [f, sig] of after) if (before.get(f) !== sig) touched.add(f);
    for (const f of before.keys()) if (!after.has(f)) touched.add(f);
    this.byFolder = next;
    this.indexes = new Map([...next].map(([root, notes]) => {
      const byPath = new Map<string, ListedNote[]>();
      const byCommand = new Map<string, ListedNote[]>();
      const add = (m: Map<string, ListedNote[]>, k: string, n: ListedNote): void => {
        const list = m.get(k);
        if (list) list.push(n);
        else m.set(k, [n]);
      };
      for (const n of notes) {
        add(byPath, n.path, n);
        if (n.terminal !== undefined && n.command !== undefined) add(byCommand, `${n.terminal}:${n.command}`, n);
      }
      return [root, { byPath, byCommand }];
    }));
    this.changed.fire([...touched].map((p) => vscode.Uri.file(p)));
    this.notesChanged.fire();
  }

  /** The notes covering a file (and optionally lines of it or a terminal command), from memory. */
  notesFor(uri: vscode.Uri, startLine?: number, endLine?: number, extra?: { terminal?: number; command?: number; step?: string }): ListedNote[] {
    const folder = vscode.workspace.getWorkspaceFolder(uri);
    const index = folder ? this.indexes.get(folder.uri.fsPath) : undefined;
    if (!folder || !index) return [];
    const rel = toPosixRelative(folder.uri.fsPath, uri.fsPath);
    // The only notes matchNotes can pick: those on this path, and those naming this terminal command.
    const onPath = index.byPath.get(rel) ?? [];
    const onCommand = extra?.terminal !== undefined && extra.command !== undefined ? (index.byCommand.get(`${extra.terminal}:${extra.command}`) ?? []).filter((n) => !onPath.includes(n)) : [];
    const candidates = onCommand.length ? [...onPath, ...onCommand].sort((a, b) => a.created.localeCompare(b.created) || a.id.localeCompare(b.id)) : onPath;
    return candidates.length ? matchNotes(candidates, { path: rel, startLine, endLine, ...extra }) : [];
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
