import * as vscode from 'vscode';
import * as path from 'node:path';
import type { AgentFeed } from '../../editor/agentFeed';
import { matchNotes, notesReportedByCaller, notesTooltipMarkdown, recheckNotes, sharedNotes, withCurrentOrphans, type ListedNote } from '../../core/notes/notes';
import { NoteIndex } from '../../core/notes/noteIndex';
import { NotesWorker } from '../../core/notes/notesWorker';
import { toPosixRelative } from '../../core/workspace/relativePaths';

/** More files whose notes changed than this: the decorations are redrawn as a whole. */
const MAX_URIS_FIRED = 200;

/**
 * Marks files that carry notes from the user with a badge and the notes in the tooltip, and keeps
 * an in-memory copy of every folder's notes so views can add them to their items' tooltips.
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
  /** Per folder (fsPath), its notes by target path and by terminal command (core/notes/noteIndex.ts). */
  private readonly indexes = new Map<string, NoteIndex>();
  /** Lists the notes off this thread (core/notes/notesWorker.ts) until it fails; then this thread lists them. */
  private readonly worker = new NotesWorker();
  /** Per folder, the note files the change feed named since the worker's last listing ('all': every one). */
  private readonly recheck = new Map<string, Set<string> | 'all'>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly log: vscode.LogOutputChannel, feed: AgentFeed) {
    // Notes added, edited or deleted (by this window or any other process), the notes folder
    // coming or going, folders added or removed: the change feed reports each as `notes` or `agent`.
    // The listings then check the note files the feed names (all of them when it names none): the
    // worker's, and this thread's, so every listing in this window (briefing, terminal tool) sees
    // the change at once.
    this.disposables.push(feed.on(['notes'], (changes) => {
      for (const c of changes) {
        const files = c.areas.has('agent') || !c.paths ? undefined : [...c.paths];
        recheckNotes(c.root, files);
        const root = path.resolve(c.root);
        const had = this.recheck.get(root) ?? new Set<string>();
        this.recheck.set(root, !files || had === 'all' ? 'all' : new Set([...had, ...files]));
      }
      this.refresh().catch((e: unknown) => this.log.error(`reading notes failed: ${String(e)}`));
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

  private async refreshNow(redrawAll = false): Promise<void> {
    /** Per folder, the target paths whose notes changed; 'all' when every decoration may have. */
    let touched: [string, Set<string>][] | 'all' = redrawAll ? 'all' : [];
    const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
    for (const root of folders) {
      // The change feed reports every note file that changes (on Linux it watches the notes folder
      // itself, whatever files.watcherExclude says): the listings need no watch of their own.
      const reported = process.platform === 'linux';
      if (reported) notesReportedByCaller(root);
      let index = this.indexes.get(root);
      const recheck = this.recheck.get(path.resolve(root));
      this.recheck.delete(path.resolve(root));
      let diff = await this.worker.list(root, { recheck: recheck === 'all' ? 'all' : recheck && [...recheck], reported, fresh: !index });
      if (this.disposed) return;
      if (!diff && !this.listingHere) {
        // From now on this thread lists the notes: every folder's index starts again from its listings.
        this.log.warn(`listing notes on a worker thread stopped (${this.worker.failure}); listing them on the extension host's thread`);
        this.listingHere = true;
        this.indexes.clear();
        return this.refreshNow(true);
      }
      if (!index) this.indexes.set(root, (index = new NoteIndex()));
      if (!diff) {
        // The listing itself, not a copy: the index keeps the notes (10,000 at a heavy user's size).
        const { notes, errors } = await sharedNotes(root, { marks: false });
        diff = index.diffOf(notes, errors);
      }
      this.listedOn = this.listingHere ? 'extension host' : 'worker';
      for (const e of diff.errors) this.log.warn(`note skipped: ${e.file}${e.line ? `:${e.line}` : ''}: ${e.message}`);
      const rels = await index.apply(diff);
      if (touched !== 'all') touched.push([root, rels]);
    }
    for (const root of this.indexes.keys()) {
      if (folders.includes(root)) continue;
      this.indexes.delete(root);
      touched = 'all';
    }
    const count = touched === 'all' ? Infinity : touched.reduce((n, [, rels]) => n + rels.size, 0);
    if (count === 0) return;
    // Thousands of files (the first listing): "every decoration may have changed" is one message,
    // where the list of URIs cost ~30 ms to make and send (bench row 19b); their paths are not even joined.
    this.changed.fire(touched === 'all' || count > MAX_URIS_FIRED ? undefined : touched.flatMap(([root, rels]) => [...rels].map((rel) => vscode.Uri.file(path.join(root, rel)))));
    this.notesChanged.fire();
  }

  private disposed = false;
  /** Whether this thread lists the notes (the worker failed). */
  private listingHere = false;
  /** Where the last listing ran. */
  listedOn: 'worker' | 'extension host' | undefined;

  /** The notes covering a file (and optionally lines of it or a terminal command), from memory. */
  notesFor(uri: vscode.Uri, startLine?: number, endLine?: number, extra?: { terminal?: number; command?: number; step?: string }): ListedNote[] {
    const folder = vscode.workspace.getWorkspaceFolder(uri);
    const index = folder ? this.indexes.get(folder.uri.fsPath) : undefined;
    if (!folder || !index) return [];
    const rel = toPosixRelative(folder.uri.fsPath, uri.fsPath);
    const candidates = index.candidates(rel, extra?.terminal, extra?.command);
    return candidates.length ? matchNotes(candidates, { path: rel, startLine, endLine, ...extra }) : [];
  }

  async provideFileDecoration(uri: vscode.Uri): Promise<vscode.FileDecoration | undefined> {
    if (uri.scheme !== 'file') return undefined;
    const listed = this.notesFor(uri);
    if (listed.length === 0) return undefined;
    const root = vscode.workspace.getWorkspaceFolder(uri)?.uri.fsPath;
    // Its notes' targets as they are now (a stat each; what the listing left unchecked).
    const notes = root ? await withCurrentOrphans(root, listed).catch(() => listed) : listed;
    const orphaned = notes.filter((n) => n.orphaned).length;
    const tooltip = notes.length === 1 ? '1 note for the agent' : `${notes.length} notes for the agent`;
    return new vscode.FileDecoration('✎', orphaned ? `${tooltip} (${orphaned} orphaned)` : tooltip);
  }

  dispose(): void {
    this.disposed = true;
    this.worker.dispose();
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
