import { byCreated, type ListedNote } from './notes';

function push(map: Map<string, ListedNote[]>, key: string, n: ListedNote): void {
  const list = map.get(key);
  if (list) list.push(n);
  else map.set(key, [n]);
}

/**
 * One folder's notes by target path and by terminal command, for the tooltip of each tree item and
 * file decoration (thousands of notes, asked once per item). `update` takes a new listing and touches
 * only the notes that changed: a listing keeps the same object for a note that did not change
 * (listNotes), so one note added costs a pass of identity checks, not a rebuild.
 */
export class NoteIndex {
  private notes = new Set<ListedNote>();
  private readonly byPath = new Map<string, ListedNote[]>();
  private readonly byCommand = new Map<string, ListedNote[]>();

  /**
   * The index of a first listing, built a slice of notes at a time with a turn of the event loop
   * between slices: in the extension host 10,000 notes built in one go (with the garbage collection
   * they caused) blocked every extension 188 ms at start-up (bench row 19x). Returns the index and
   * the target paths that have notes.
   */
  static async build(listing: readonly ListedNote[], slice = 1000): Promise<{ index: NoteIndex; touched: Set<string> }> {
    const index = new NoteIndex();
    const touched = new Set<string>();
    for (let i = 0; i < listing.length; i++) {
      if (i > 0 && i % slice === 0) await new Promise((r) => setImmediate(r));
      index.add(listing[i], touched);
    }
    let k = 0;
    for (const map of [index.byPath, index.byCommand]) {
      for (const list of map.values()) {
        if (++k % slice === 0) await new Promise((r) => setImmediate(r));
        if (list.length > 1) list.sort(byCreated);
      }
    }
    index.notes = new Set(listing);
    return { index, touched };
  }

  /** How many notes it holds. */
  get size(): number {
    return this.notes.size;
  }

  /** Adds a note to the lists, unsorted (the first listing sorts each list once, not per note). */
  private add(n: ListedNote, touched: Set<string>): void {
    touched.add(n.path);
    push(this.byPath, n.path, n);
    if (n.terminal !== undefined && n.command !== undefined) push(this.byCommand, `${n.terminal}:${n.command}`, n);
  }

  /**
   * Takes a listing; returns the target paths whose notes changed (added, removed, edited, orphan
   * mark). Note by note: a first listing of many notes is for build().
   */
  update(listing: readonly ListedNote[]): Set<string> {
    const next = new Set(listing);
    const touched = new Set<string>();
    const edit = (n: ListedNote, add: boolean): void => {
      touched.add(n.path);
      const keys: [Map<string, ListedNote[]>, string][] = [[this.byPath, n.path]];
      if (n.terminal !== undefined && n.command !== undefined) keys.push([this.byCommand, `${n.terminal}:${n.command}`]);
      for (const [map, key] of keys) {
        const list = (map.get(key) ?? []).filter((x) => x !== n);
        if (add) list.push(n);
        if (list.length) map.set(key, list.sort(byCreated));
        else map.delete(key);
      }
    };
    for (const n of this.notes) if (!next.has(n)) edit(n, false);
    for (const n of listing) if (!this.notes.has(n)) edit(n, true);
    this.notes = next;
    return touched;
  }

  /** The notes matchNotes may pick for an item: those on `rel` and those naming the terminal command, oldest first. */
  candidates(rel: string, terminal?: number, command?: number): ListedNote[] {
    const onPath = this.byPath.get(rel) ?? [];
    if (terminal === undefined || command === undefined) return onPath;
    const onCommand = (this.byCommand.get(`${terminal}:${command}`) ?? []).filter((n) => n.path !== rel);
    return onCommand.length ? [...onPath, ...onCommand].sort(byCreated) : onPath;
  }
}
