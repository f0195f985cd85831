import { type ListedNote } from './noteFile';
import { byCreated } from './notes';
import type { FileError } from '../result';
import { yieldNow } from '../eventLoop';

/**
 * What changed in one folder's notes between two listings, as the index takes it: the notes new or
 * changed (in listing order, oldest first) and the note files gone. A listing on a worker thread
 * (notesWorker.ts) sends it as columns plus each note as JSON, which the index parses only when an
 * item asks for that note: at a heavy user's size the editor's first listing is 10,000 notes, and
 * parsing them all (and collecting their garbage) was a large part of the ~120 ms of the extension
 * host's thread that listing cost at each start.
 */
export interface NotesDiff {
  /** Each changed note's file (`.agent/human/notes/<id>.md`) and target path. */
  files: string[];
  paths: string[];
  /** Each changed note's terminal and command (NaN: none). */
  terminals: Float64Array;
  commands: Float64Array;
  /**
   * Each changed note as JSON (a diff from another thread): note i is json.slice(at[i], at[i + 1]).
   * One string with offsets: cloned as one block, and a note that no item shows is never sliced out.
   */
  json?: { text: string; at: Int32Array };
  /** Or the notes themselves (a diff made on this thread). */
  notes?: ListedNote[];
  /** Note files no longer listed. */
  removed: string[];
  /** The folder's unreadable note files, as the listing gives them. */
  errors: FileError[];
}

/** A note as the index holds it: its keys, and the note itself or its JSON until an item asks for it. */
interface Slot {
  file: string;
  path: string;
  /** `terminal:command`, when it names one. */
  command?: string;
  /** The apply that filed it. */
  seq: number;
  note?: ListedNote;
  /** The diff's JSON and where this note is in it. */
  json?: { text: string; at: Int32Array };
  i?: number;
}

/** The diff from `sent` (each note file's note as last diffed) to `listing`. */
export function diffListing(sent: ReadonlyMap<string, ListedNote>, listing: readonly ListedNote[], errors: readonly FileError[]): NotesDiff {
  const changed: ListedNote[] = [];
  /** How many of the files sent are still listed: when all are, none was removed. */
  let kept = 0;
  for (const n of listing) {
    const was = sent.get(n.file);
    if (was !== undefined) kept++;
    if (was !== n) changed.push(n);
  }
  const removed: string[] = [];
  if (kept < sent.size) {
    const seen = new Set(listing.map((n) => n.file));
    for (const f of sent.keys()) if (!seen.has(f)) removed.push(f);
  }
  return { ...columns(changed), notes: changed, removed, errors: [...errors] };
}

/** Diffs one folder's successive listings: each note file's note as last diffed. */
export class ListingDiffer {
  private readonly sent = new Map<string, ListedNote>();

  /** The diff from the last listing to `listing`, which becomes the last. */
  next(listing: readonly ListedNote[], errors: readonly FileError[]): NotesDiff {
    const d = diffListing(this.sent, listing, errors);
    for (const f of d.removed) this.sent.delete(f);
    for (const n of d.notes ?? []) this.sent.set(n.file, n);
    return d;
  }
}

/** A diff's columns for `notes`. */
export function columns(notes: readonly ListedNote[]): Pick<NotesDiff, 'files' | 'paths' | 'terminals' | 'commands'> {
  const terminals = new Float64Array(notes.length).fill(NaN);
  const commands = new Float64Array(notes.length).fill(NaN);
  notes.forEach((n, i) => {
    if (n.terminal !== undefined && n.command !== undefined) {
      terminals[i] = n.terminal;
      commands[i] = n.command;
    }
  });
  return { files: notes.map((n) => n.file), paths: notes.map((n) => n.path), terminals, commands };
}

/**
 * Files `s` under `key`. A diff lists its notes oldest first, so a list of its notes alone is in
 * order; a list that holds older slots (filed by an earlier apply: its first one is) goes into
 * `existing`, to be sorted (its notes parsed for that).
 */
function file(map: Map<string, Slot[]>, key: string, s: Slot, existing: Set<Slot[]>): void {
  const list = map.get(key);
  if (!list) map.set(key, [s]);
  else {
    if (list[0].seq !== s.seq) existing.add(list);
    list.push(s);
  }
}

function remove(map: Map<string, Slot[]>, key: string, s: Slot): void {
  const list = map.get(key);
  if (!list) return;
  const i = list.indexOf(s);
  if (i >= 0) list.splice(i, 1);
  if (list.length === 0) map.delete(key);
}

/**
 * One folder's notes by target path and by terminal command, for the tooltip of each tree item and
 * file decoration (thousands of notes, asked once per item). It takes diffs (`apply`), or whole
 * listings (`update`, which diffs by identity: a listing keeps the same object for a note that did
 * not change, so one note added costs a pass of identity checks, not a rebuild). Either way only
 * the notes that changed are touched, and the target paths whose notes changed are returned. An
 * index takes its notes from one source: a worker's diffs, or this thread's listings.
 */
export class NoteIndex {
  private readonly byFile = new Map<string, Slot>();
  private readonly byPath = new Map<string, Slot[]>();
  private readonly byCommand = new Map<string, Slot[]>();
  /** For this thread's listings (`diffOf`, `update`). */
  private readonly differ = new ListingDiffer();
  /** How many diffs were applied. */
  private applied = 0;

  /** How many notes it holds. */
  get size(): number {
    return this.byFile.size;
  }

  /**
   * Applies a diff a slice of notes at a time with a turn of the event loop between slices (a first
   * diff is 10,000 notes at a heavy user's size: built in one go with its garbage collection, such a
   * first index blocked every extension 188 ms at start-up, bench row 19x). Returns the target paths
   * whose notes changed.
   */
  async apply(diff: NotesDiff, slice = 1000): Promise<Set<string>> {
    const touched = new Set<string>();
    const seq = ++this.applied;
    /** Lists that held notes before this diff: sorted at the end. */
    const existing = new Set<Slot[]>();
    for (const f of diff.removed) {
      const s = this.byFile.get(f);
      if (s) this.drop(s, touched);
    }
    for (let i = 0; i < diff.files.length; i++) {
      if (i > 0 && i % slice === 0) await yieldNow();
      const old = this.byFile.get(diff.files[i]);
      if (old) this.drop(old, touched);
      const t = diff.terminals[i];
      const s: Slot = { file: diff.files[i], path: diff.paths[i], note: diff.notes?.[i], json: diff.json, i, seq };
      if (!Number.isNaN(t)) s.command = `${t}:${diff.commands[i]}`;
      this.byFile.set(s.file, s);
      touched.add(s.path);
      file(this.byPath, s.path, s, existing);
      if (s.command !== undefined) file(this.byCommand, s.command, s, existing);
    }
    let k = 0;
    for (const list of existing) {
      if (++k % slice === 0) await yieldNow();
      list.sort(this.order);
    }
    return touched;
  }

  /** What changed from the listing this index last diffed (this thread's) to `listing`: to be applied next. */
  diffOf(listing: readonly ListedNote[], errors: readonly FileError[] = []): NotesDiff {
    return this.differ.next(listing, errors);
  }

  /** Takes a whole listing (this thread's): applies what changed since the last one. */
  async update(listing: readonly ListedNote[]): Promise<Set<string>> {
    return this.apply(this.diffOf(listing));
  }

  /** The maps and keys a note is filed under. */
  private keysOf(s: Slot): [Map<string, Slot[]>, string][] {
    return s.command === undefined ? [[this.byPath, s.path]] : [[this.byPath, s.path], [this.byCommand, s.command]];
  }

  private drop(s: Slot, touched: Set<string>): void {
    touched.add(s.path);
    this.byFile.delete(s.file);
    for (const [map, key] of this.keysOf(s)) remove(map, key, s);
  }

  /** Oldest first (byCreated), on the slots' notes. */
  private readonly order = (a: Slot, b: Slot): number => byCreated(this.noteOf(a), this.noteOf(b));

  /** The note of a slot, parsed from its JSON the first time it is asked for. */
  private noteOf(s: Slot): ListedNote {
    if (!s.note) {
      const { text, at } = s.json!;
      s.note = JSON.parse(text.slice(at[s.i!], at[s.i! + 1])) as ListedNote;
      s.json = undefined;
    }
    return s.note;
  }

  /** The notes matchNotes may pick for an item: those on `rel` and those naming the terminal command, oldest first. */
  candidates(rel: string, terminal?: number, command?: number): ListedNote[] {
    const onPath = this.byPath.get(rel) ?? [];
    const onCommand = terminal === undefined || command === undefined ? [] : (this.byCommand.get(`${terminal}:${command}`) ?? []).filter((s) => s.path !== rel);
    const slots = onCommand.length ? [...onPath, ...onCommand].sort(this.order) : onPath;
    return slots.map((s) => this.noteOf(s));
  }
}

/** `notes` as one diff's JSON (see NotesDiff.json). */
export function jsonOf(notes: readonly ListedNote[]): { text: string; at: Int32Array } {
  const at = new Int32Array(notes.length + 1);
  const parts: string[] = [];
  let pos = 0;
  notes.forEach((n, i) => {
    const j = JSON.stringify(n);
    parts.push(j);
    pos += j.length;
    at[i + 1] = pos;
  });
  return { text: parts.join(''), at };
}
