/**
 * The listing of the notes (noteFile.ts is their format), flat in the number of notes.
 *
 * A heavy user's folder holds thousands of notes, and the briefing, the terminal tool and the editor's
 * decorations list them often. Each process keeps every note as listed: its file's parse from
 * fs/fileDigests.ts (under the file's stat; also in `.agent/.cache/notes.json`, so a new process stats
 * the note files instead of reading them) and its orphan mark from its target's facts (orphans.ts,
 * under the target's stamp). A listing does only what changed asks for:
 * - the notes folder's stamp changed (a note added, deleted or replaced by rename): the folder is
 *   listed and each note file stat-checked; only new or changed files are read, their targets checked;
 * - recheckNotes(root, files) (the editor's change feed names the note files that changed): those
 *   files alone, and the folder's new stamp is taken as seen (the feed reports every file of it);
 * - recheckNotes(root): every note file and every target;
 * - otherwise the answer comes from memory; when the last look is REFRESH_MS old, one round re-checks
 *   the next VERIFY_BATCH note files and VERIFY_BATCH targets in turn, so an edit no watcher reported
 *   (another process, a target file outside .agent/) is seen within a few listings, and no listing
 *   costs more than a round.
 * Where the notes folder is watched (on Linux this module watches it itself, one inotify watch; the
 * editor's change feed reports every note file instead: notesReportedByCaller), a note edited in
 * place is seen at the next listing, not a few rounds later, and the rounds of note files become a
 * safety net, one per WATCHED_REFRESH_MS: at 10,000 notes a round's 500 stats were 2–6 ms of every
 * call that came two seconds after the last (bench rows 19n, 19p).
 * Orphan marks cost a stat (or a read) of every target: 10,000 notes are 10,000 more stats. Callers
 * that show only a few notes (the briefing, the terminal tool, the editor's decorations) list with
 * `marks: false` and check the notes they show (withCurrentOrphans). The targets are then checked
 * only from the first listing that asks for marks on, and kept current after that.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { leadsOutside, outsideLinkMessage } from '../workspace/linkGuard';
import { pool } from '../fs/pool';
import { factsOf, lineNeedOf, reasonFrom, stampOf, statOf, type TargetCache, type TargetFacts } from './orphans';
import { FileDigests, type DigestSpec } from '../fs/fileDigests';
import { processCache, processSet, tuning } from '../processState';
import { round } from '../rollingCheck';
import { FolderWatch, queuedEventsHeard, type FolderEvent } from '../fs/folderWatch';
import { err, type FileError, type Result } from '../result';
import { NOTES_DIR, parseNote, type ListedNote, type Note } from './noteFile';
import { matchNotes } from './noteText';
import { isInside } from '../workspace/relativePaths';
import { agentDirOf } from '../workspace/layout';
import { settledStamp } from '../fs/stamps';
import { yieldNow } from '../eventLoop';

/** A listing this long after the last look re-checks a round of note files and targets. */
const REFRESH_MS = 2_000;
/** Note files, and targets, re-checked per round. */
const VERIFY_BATCH = 500;
/** Where every change of a note file is reported (a watch, a caller's feed): note files get a round at most this often. */
const WATCHED_REFRESH_MS = 30_000;
/** Targets read at once while checking. */
const CONCURRENCY = 32;
/** Notes handled between yields to the event loop in a listing's loops over every note. */
const YIELD_EVERY = 2000;

/** One note file as listed: its parse, and the note with its orphan mark from its target's `facts` (kept while both are unchanged). */
interface Listed {
  parsed: Result<Note>;
  facts?: TargetFacts;
  shown?: ListedNote;
}

interface NotesSnapshot {
  /** The notes folder's stamp when last listed. */
  dir: string | undefined;
  /** Note file (absolute path) → what it lists as. */
  listed: Map<string, Listed>;
  /** What the orphan checks know of each target (workspace-relative path). */
  targets: TargetCache;
  /** Note files named by recheckNotes since the last listing, or 'all'. */
  pending: Set<string> | 'all';
  lookedAt: number;
  /** Where the next round starts, in the note files and in the targets. */
  cursor: { notes: number; targets: number };
  /** When note files last had a round (see WATCHED_REFRESH_MS). */
  notesRoundAt: number;
  /** This module's own watch of the notes folder (Linux, unless a caller reports the changes). */
  watch?: FolderWatch;
  /** Note files the own watch saw change since the last listing ('all': it was set up anew and may have missed some). */
  fromWatch: Set<string> | 'all';
  /** The listing, sorted; cleared when a note changes. */
  result?: { notes: ListedNote[]; errors: FileError[] };
  /** Updates run one at a time. */
  queue: Promise<void>;
  /** Whether every listed note's orphan mark is kept (from the first listing that asked for marks). */
  marked: boolean;
}

const snapshots = processCache<string, NotesSnapshot>((s) => s.watch?.dispose());
/** Workspace folders (resolved) whose caller reports every change of a note file with recheckNotes. */
const reportedByCaller = processSet<string>();

/**
 * Says that the caller reports every change of `root`'s note files with recheckNotes (the editor's
 * change feed, which watches the folder already): no watch of this module's own is set up for it,
 * and its note files get the rounds of a watched folder.
 */
export function notesReportedByCaller(root: string): void {
  const abs = path.resolve(root);
  reportedByCaller.add(abs);
  const s = snapshots.get(abs);
  s?.watch?.dispose();
  if (s) s.watch = undefined;
}

/** Whether every change of the folder's note files reaches the snapshot (a live watch, or a caller that reports them). */
function notesWatched(abs: string, snap: NotesSnapshot): boolean {
  return reportedByCaller.has(abs) || snap.watch?.live === true;
}

/** Whether `file` (absolute, resolved) is a note file directly in the notes folder `dir`. */
function isNoteFileOf(dir: string, file: string): boolean {
  return path.dirname(file) === dir && file.endsWith('.md');
}

/**
 * This module's watch of `abs`'s notes folder. Its events only add note files to check: unlike a
 * caller's report (recheckNotes), they never stand for the folder's stamp, so a note added or
 * deleted is still found by the stamp, as without the watch, even when its event comes late.
 */
function watchNotes(abs: string): FolderWatch | undefined {
  const dir = path.join(abs, NOTES_DIR);
  const seen = (file: string, kind: FolderEvent): void => {
    const s = snapshots.get(abs);
    if (!s) return;
    if (kind === 'rewatched' || file === dir) s.fromWatch = 'all';
    else if (s.fromWatch !== 'all' && isNoteFileOf(dir, file)) s.fromWatch.add(file);
  };
  try {
    return new FolderWatch([dir], seen);
  } catch {
    return undefined; // no watch here: the rounds alone keep the notes current
  }
}

function isNote(o: unknown): o is Note {
  const n = o as Note;
  return !!n && typeof n === 'object' && typeof n.id === 'string' && typeof n.path === 'string' && typeof n.author === 'string' && typeof n.created === 'string' && typeof n.text === 'string' && typeof n.file === 'string';
}

/** Each note file's parse (a note, or why it is not one), as kept in `.agent/.cache/notes.json`. */
const NOTE_DIGESTS: DigestSpec<Result<Note>> = {
  cache: 'notesDigests',
  version: 2,
  valid: (v: unknown): v is Result<Note> => {
    const r = v as Result<Note>;
    return !!r && typeof r === 'object' && (r.ok === true ? isNote(r.value) : r.ok === false && typeof r.error?.file === 'string' && typeof r.error.message === 'string');
  },
};

/** Reads and parses one note file (sync: an async read per file costs ~10× the CPU, for thousands of them). */
function readNote(file: string): Result<Note> {
  return parseNote(fs.readFileSync(file, 'utf8'), `${NOTES_DIR}/${path.basename(file)}`);
}

/**
 * Makes the next listing of a folder's notes (every folder's without `root`) check again: with
 * `files` (absolute paths, as a file watcher reports them), only the note files among them, else every
 * note file and target. What did not change is not read again.
 */
export function recheckNotes(root?: string, files?: readonly string[]): void {
  for (const [abs, s] of snapshots) {
    if (root !== undefined && abs !== path.resolve(root)) continue;
    const dir = path.join(abs, NOTES_DIR);
    for (const f of files ?? [dir]) {
      if (s.pending === 'all') break;
      const file = path.resolve(f);
      if (isNoteFileOf(dir, file)) s.pending.add(file);
      // The folder itself or one holding it (created, deleted, renamed): everything may have changed.
      else if (isInside(file, dir)) s.pending = 'all';
    }
  }
}

/** Brings `snap` up to date with what changed (see above); with `marks`, every note's orphan mark too. */
async function update(root: string, snap: NotesSnapshot, marks: boolean): Promise<void> {
  const dir = path.join(root, NOTES_DIR);
  const dirStat = statOf(dir);
  const dirStamp = stampOf(dirStat);
  const pending = snap.pending;
  snap.pending = new Set();
  const fromWatch = snap.fromWatch;
  snap.fromWatch = new Set();
  /** Orphan marks asked for the first time: every target is checked below. */
  const firstMarks = marks && !snap.marked;
  const marking = marks || snap.marked;
  if (!dirStat) {
    snap.marked = marking;
    if (snap.listed.size) snap.result = undefined;
    snap.listed.clear();
    snap.dir = undefined;
    return;
  }
  const digests = FileDigests.of(agentDirOf(root), NOTE_DIGESTS);
  const read = async (f: string): Promise<Result<Note>> => readNote(f);
  const full = pending === 'all' || fromWatch === 'all' || (pending.size === 0 && dirStamp !== snap.dir);
  // A file added or removed in the same clock tick as the change last seen can leave the folder's
  // stamp as it was: while the folder's stamp is not settled (fs/stamps.ts), listings compare its names.
  const unsettled = !full && pending.size === 0 && !settledStamp(dirStat, Date.now());
  let looked: string[] = [];
  /** Targets to check again whatever their notes: all of them, or this round's. */
  let targetsToCheck: string[] = [];
  if (full || unsettled) {
    let names: string[];
    try {
      names = (await fs.promises.readdir(dir)).filter((n) => n.endsWith('.md')).sort();
    } catch {
      names = [];
    }
    // Concatenation, not path.join (a readdir name has no separator): 35 ms for 10,000 names otherwise.
    const present = names.map((n) => dir + path.sep + n);
    if (snap.listed.size > 0) {
      const known = new Set(present);
      for (const f of snap.listed.keys()) {
        if (!known.has(f)) {
          snap.listed.delete(f);
          snap.result = undefined;
        }
      }
    }
    // Every file stat-checked when the folder changed (a note replaced by rename keeps its name); new names only otherwise.
    looked = full ? present : present.filter((f) => !snap.listed.has(f));
    if (pending === 'all') targetsToCheck = [...snap.targets.keys()];
  }
  if (!full) {
    looked.push(...(pending as Set<string>));
    // Files the own watch saw change (an edit in place leaves the folder's stamp as it was).
    if ((fromWatch as Set<string>).size) looked = [...new Set([...looked, ...(fromWatch as Set<string>)])];
    const now = Date.now();
    if (now - snap.lookedAt > REFRESH_MS) {
      // Note files: each listing's round, or one per WATCHED_REFRESH_MS where every change is reported anyway.
      if (!notesWatched(path.resolve(root), snap) || now - snap.notesRoundAt > WATCHED_REFRESH_MS) {
        const notes = round([...snap.listed.keys()], snap.cursor.notes, VERIFY_BATCH);
        snap.cursor.notes = notes.next;
        snap.notesRoundAt = now;
        looked = [...new Set([...looked, ...notes.items])];
      }
      const targets = round([...snap.targets.keys()], snap.cursor.targets, VERIFY_BATCH);
      snap.cursor.targets = targets.next;
      targetsToCheck = targets.items;
    }
    if (looked.length === 0 && targetsToCheck.length === 0 && !firstMarks) {
      return;
    }
  }
  const got = full ? await digests.get(looked, read) : await digests.refresh(looked, read);
  snap.lookedAt = Date.now();
  snap.dir = dirStamp;
  // Note files: what each lists as now; a new or changed note's target is checked below.
  const changed = new Map<string, Result<Note>>();
  let k = 0;
  for (const f of looked) {
    // 10,000 notes at a first listing: the editor's thread gets a turn between slices.
    if (++k % YIELD_EVERY === 0) await yieldNow();
    const e = got.failed.get(f);
    let parsed = got.values.get(f) ?? (e && err<FileError>({ file: `${NOTES_DIR}/${path.basename(f)}`, message: `cannot read it: ${e.message}` }));
    if (!parsed && statOf(f)) {
      // Not a regular file (a symlink, a folder named *.md): read as is, never remembered; a link out of the workspace is not read.
      const out = await leadsOutside(root, f);
      try {
        if (out) throw new Error(outsideLinkMessage(out));
        parsed = readNote(f);
      } catch (x) {
        parsed = err({ file: `${NOTES_DIR}/${path.basename(f)}`, message: `cannot read it: ${(x as Error).message}` });
      }
    }
    if (!parsed) {
      if (snap.listed.delete(f)) snap.result = undefined;
    } else if (snap.listed.get(f)?.parsed !== parsed) changed.set(f, parsed);
  }
  // Targets: each read once (as many lines as its notes need), again only when its stamp changed.
  const need = new Map<string, { lines: number; text: boolean }>();
  const want = (rel: string, lines: number, text: boolean): void => {
    const n = need.get(rel);
    need.set(rel, { lines: Math.max(n?.lines ?? 0, lines), text: !!n?.text || text });
  };
  if (marking) {
    for (const rel of targetsToCheck) {
      const had = snap.targets.get(rel);
      if (had) want(rel, had.facts.countedTo, had.facts.text !== undefined);
    }
    for (const p of changed.values()) if (p.ok) want(p.value.path, lineNeedOf(p.value), p.value.step !== undefined);
    if (firstMarks) for (const l of snap.listed.values()) if (l.parsed.ok) want(l.parsed.value.path, lineNeedOf(l.parsed.value), l.parsed.value.step !== undefined);
  }
  const before = new Map([...need.keys()].map((rel) => [rel, snap.targets.get(rel)?.facts]));
  let n = 0;
  await pool([...need], CONCURRENCY, async ([rel, w]) => {
    // Sync stats in slices: thousands of targets must not block the thread for long.
    if (++n % 1000 === 0) await yieldNow();
    await factsOf(root, rel, w.lines, w.text, snap.targets);
  });
  // Orphan marks: again for the changed notes, and for every note whose target's facts changed.
  const show = (f: string, parsed: Result<Note>): void => {
    const old = snap.listed.get(f);
    const facts = parsed.ok ? snap.targets.get(parsed.value.path)?.facts : undefined;
    const orphaned = parsed.ok && facts ? reasonFrom(parsed.value, facts) : undefined;
    if (old?.parsed === parsed && old.shown?.orphaned === orphaned) {
      old.facts = facts;
      return;
    }
    snap.listed.set(f, { parsed, facts, shown: parsed.ok ? (orphaned ? { ...parsed.value, orphaned } : parsed.value) : undefined });
    snap.result = undefined;
  };
  k = 0;
  for (const [f, parsed] of changed) {
    if (++k % YIELD_EVERY === 0) await yieldNow();
    show(f, parsed);
  }
  // A pass over every note only when a target's facts changed (or the marks are new).
  if (firstMarks || (marking && (pending === 'all' || [...before].some(([rel, f]) => f && snap.targets.get(rel)?.facts !== f)))) {
    for (const [f, l] of snap.listed) if (l.parsed.ok && l.facts !== snap.targets.get(l.parsed.value.path)?.facts) show(f, l.parsed);
  }
  snap.marked = marking;
  if (full) {
    // Targets no note points at any more are forgotten.
    const inUse = new Set<string>();
    for (const l of snap.listed.values()) if (l.parsed.ok) inUse.add(l.parsed.value.path);
    for (const rel of snap.targets.keys()) if (!inUse.has(rel)) snap.targets.delete(rel);
  }
}

/**
 * The notes given, with their orphan marks checked against their targets as they are now (a listing's
 * marks may be a few seconds old): for the few notes shown to an agent. A target unchanged since the
 * listing checked it is not read again; a changed one is read here and left for the listing's next
 * round (which then updates the marks of every note on it).
 */
export async function withCurrentOrphans<T extends Note>(root: string, notes: T[]): Promise<(T & { orphaned?: string })[]> {
  const abs = path.resolve(root);
  const cache = snapshots.get(abs)?.targets;
  return Promise.all(notes.map(async (n) => {
    const reason = reasonFrom(n, await factsOf(abs, n.path, lineNeedOf(n), n.step !== undefined, cache, false));
    const { orphaned: _old, ...rest } = n as T & { orphaned?: string };
    return (reason ? { ...rest, orphaned: reason } : rest) as T & { orphaned?: string };
  }));
}

/**
 * Oldest first, then by id: code-unit order of the ISO times and ULIDs (ASCII, so the same order as
 * localeCompare's, whose collation cost ~7 ms per sort of 10,000 notes at each start).
 */
export function byCreated(a: Pick<Note, 'created' | 'id'>, b: Pick<Note, 'created' | 'id'>): number {
  if (a.created !== b.created) return a.created < b.created ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * Lists every note, oldest first, with orphaned ones marked; unreadable note files come back as
 * errors. An unchanged note is the same object from one listing to the next. Answered from what
 * this process read, checking what changed (see above). With `marks: false` the orphan marks are
 * those known (none until some listing asked for them): for callers that check what they show
 * with withCurrentOrphans.
 */
export async function listNotes(root: string, opts: { marks?: boolean } = {}): Promise<{ notes: ListedNote[]; errors: FileError[] }> {
  const r = await sharedNotes(root, opts);
  return { notes: [...r.notes], errors: [...r.errors] };
}

/**
 * listNotes' answer itself, not a copy: the same arrays from one call to the next while no note
 * changed, so a caller can keep what it derives from them (keyed by the array) across calls.
 */
export async function sharedNotes(root: string, opts: { marks?: boolean } = {}): Promise<{ readonly notes: readonly ListedNote[]; readonly errors: readonly FileError[] }> {
  const abs = path.resolve(root);
  let snap = snapshots.get(abs);
  if (!snap) {
    snap = { dir: undefined, listed: new Map(), targets: new Map(), pending: 'all', lookedAt: 0, cursor: { notes: 0, targets: 0 }, notesRoundAt: Date.now(), fromWatch: new Set(), queue: Promise.resolve(), marked: false };
    // Set before the first listing: whatever changes after it is reported.
    if (tuning.ownNotesWatch && !reportedByCaller.has(abs)) snap.watch = watchNotes(abs);
    snapshots.set(abs, snap);
  } else if (snap.watch) {
    // A change made before this call is in `fromWatch` (an immediate alone can run before the loop polls again).
    await queuedEventsHeard();
  }
  const s = snap;
  const run = s.queue.then(() => update(abs, s, opts.marks !== false));
  s.queue = run.catch(() => undefined);
  await run;
  if (!s.result) {
    const notes: ListedNote[] = [];
    const errors: FileError[] = [];
    for (const l of s.listed.values()) {
      if (l.shown) notes.push(l.shown);
      else if (!l.parsed.ok) errors.push(l.parsed.error);
    }
    notes.sort(byCreated);
    errors.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
    s.result = { notes, errors };
  }
  return s.result;
}

/** The notes attached to a file or to lines of it (overlapping ranges count), orphaned ones included and marked. */
export async function notesFor(root: string, targetPath: string, startLine?: number, endLine?: number, extra?: { terminal?: number; command?: number; step?: string }): Promise<ListedNote[]> {
  const { notes } = await listNotes(root);
  return withCurrentOrphans(root, matchNotes(notes, { path: targetPath, startLine, endLine, ...extra }));
}
