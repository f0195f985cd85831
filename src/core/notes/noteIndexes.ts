/**
 * The editor's notes of every workspace folder, by target path and by terminal command (one
 * NoteIndex per folder), kept up to date from the change feed: what the note decorations and the
 * views' tooltips read (src/features/notes/noteDecorations.ts is their glue).
 *
 * The listings run on a worker thread (notesWorker.ts) until it fails: then this thread lists the
 * notes, every folder's index starts again from a whole listing, and the caller redraws everything
 * ('all'). That happens once per process, with one warning naming why the worker stopped.
 */
import * as path from 'node:path';
import { type ListedNote } from './noteFile';
import { notesReportedByCaller, recheckNotes, sharedNotes } from './notes';
import { matchNotes, type NoteQuery } from './noteText';
import { NoteIndex } from './noteIndex';
import { NotesWorker } from './notesWorker';

/** Per folder, the target paths whose notes changed; 'all' when every decoration may have. */
export type NotesTouched = 'all' | [root: string, rels: Set<string>][];

export class NoteIndexes {
  /** Per folder (its path as the editor gives it), its notes by target path and by terminal command. */
  private readonly indexes = new Map<string, NoteIndex>();
  /** Lists the notes off this thread until it fails; then this thread lists them. */
  private readonly worker = new NotesWorker();
  /** Per folder (resolved), the note files the change feed named since the worker's last listing ('all': every one). */
  private readonly recheck = new Map<string, Set<string> | 'all'>();
  /** Whether this thread lists the notes (the worker failed). */
  private listingHere = false;
  private disposed = false;
  /** Where the last listing ran. */
  listedOn: 'worker' | 'this thread' | undefined;

  /** `warn`: a message for the user's log (the worker stopped; a note file skipped, and why). */
  constructor(private readonly warn: (message: string) => void) {}

  /**
   * The change feed reports note files of `root` added, edited or deleted (`files`, relative or
   * absolute as it names them; undefined: any may have): the next listing checks them, and so does
   * every other listing in this process (the briefing's, the terminal tool's).
   */
  changed(root: string, files: readonly string[] | undefined): void {
    recheckNotes(root, files);
    const key = path.resolve(root);
    const had = this.recheck.get(key) ?? new Set<string>();
    this.recheck.set(key, !files || had === 'all' ? 'all' : new Set([...had, ...files]));
  }

  /**
   * Lists the notes of `folders` (what changed since the last listing) into their indexes and
   * forgets folders no longer among them; undefined once disposed.
   */
  async refresh(folders: readonly string[]): Promise<NotesTouched | undefined> {
    let touched: NotesTouched = [];
    for (const root of folders) {
      // The change feed reports every note file that changes (on Linux it watches the notes folder
      // itself, whatever files.watcherExclude says): the listings need no watch of their own.
      const reported = process.platform === 'linux';
      if (reported) notesReportedByCaller(root);
      let index = this.indexes.get(root);
      const key = path.resolve(root);
      const recheck = this.recheck.get(key);
      this.recheck.delete(key);
      let diff = this.listingHere ? undefined : await this.worker.list(root, { recheck: recheck === 'all' ? 'all' : recheck && [...recheck], reported, fresh: !index });
      if (this.disposed) return undefined;
      if (!diff && !this.listingHere) {
        // From now on this thread lists the notes: every folder's index starts again from its listings.
        this.warn(`listing notes on a worker thread stopped (${this.worker.failure}); listing them on this thread`);
        this.listingHere = true;
        this.indexes.clear();
        await this.refresh(folders);
        return this.disposed ? undefined : 'all';
      }
      if (!index) this.indexes.set(root, (index = new NoteIndex()));
      if (!diff) {
        // The listing itself, not a copy: the index keeps the notes (10,000 at a heavy user's size).
        const { notes, errors } = await sharedNotes(root, { marks: false });
        diff = index.diffOf(notes, errors);
      }
      this.listedOn = this.listingHere ? 'this thread' : 'worker';
      for (const e of diff.errors) this.warn(`note skipped: ${e.file}${e.line ? `:${e.line}` : ''}: ${e.message}`);
      const rels = await index.apply(diff);
      if (this.disposed) return undefined;
      touched.push([root, rels]);
    }
    for (const root of this.indexes.keys()) {
      if (folders.includes(root)) continue;
      this.indexes.delete(root);
      touched = 'all';
    }
    return touched;
  }

  /** The notes of folder `root` covering `q` (a target path relative to it, lines, a terminal command), from memory. */
  notesFor(root: string, q: NoteQuery): ListedNote[] {
    const index = this.indexes.get(root);
    if (!index) return [];
    const candidates = index.candidates(q.path, q.terminal, q.command);
    return candidates.length ? matchNotes(candidates, q) : [];
  }

  dispose(): void {
    this.disposed = true;
    this.worker.dispose();
  }
}
