import * as fs from 'node:fs';
import * as path from 'node:path';
import { ulid } from 'ulid';
import * as YAML from 'yaml';
import { leadsOutside, outsideLinkMessage } from '../workspace/linkGuard';
import { pool } from '../fs/pool';
import { factsOf, lineNeedOf, reasonFrom, stampOf, statOf, type TargetCache, type TargetFacts } from './orphans';
import { createExclusive } from '../fs/fsAtomic';
import { FileDigests, round, type DigestSpec } from '../fs/fileDigests';
import { FolderWatch, queuedEventsHeard, type FolderEvent } from '../fs/folderWatch';
import { err, ok, type FileError, type Result } from '../result';

/**
 * Notes from the user to the agent: one Markdown file per note under `.agent/human/notes/`, named
 * `<id>.md`, with YAML frontmatter (see docs/notes-format.md). Files are never rewritten by the
 * extension; a note whose target is gone is reported as orphaned, never dropped.
 */
export const NOTES_DIR = '.agent/human/notes';

const MAX_TEXT = 4000;

/** What a note is attached to: a workspace-relative file, optionally a line range, a terminal command or a plan step. */
export interface NoteTarget {
  path: string; // workspace-relative, `/`-separated
  startLine?: number; // 1-based, inclusive
  endLine?: number;
  terminal?: number; // N of .agent/terminals/N.txt
  command?: number; // the command's index in that terminal's index
  step?: string; // plan step id
}

/** A note as stored. */
export interface Note extends NoteTarget {
  id: string;
  author: string;
  created: string; // ISO 8601
  text: string;
  file: string; // the note's own file, workspace-relative
}

/** A note as listed: `orphaned` says why its target is gone (computed on every read, never stored). */
export interface ListedNote extends Note {
  orphaned?: string;
}

/** What addNote needs. */
export interface NewNote extends NoteTarget {
  text: string;
  author: string;
  now?: Date;
}

/** Normalises a workspace-relative path and refuses ones that leave the workspace. */
export function normalizeTargetPath(p: string): Result<string, string> {
  const slashed = p.replace(/\\/g, '/');
  if (slashed === '' || path.posix.isAbsolute(slashed) || /^[A-Za-z]:/.test(slashed)) {
    return err(`target "${p}" must be a path relative to the workspace folder`);
  }
  const norm = path.posix.normalize(slashed).replace(/\/$/, '');
  if (norm === '..' || norm.startsWith('../')) return err(`target "${p}" is outside the workspace`);
  return ok(norm);
}

function validLine(n: unknown): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n >= 1;
}

/** Renders a note file: frontmatter then the text. */
export function serializeNote(note: Omit<Note, 'file'>): string {
  const fm: Record<string, unknown> = { id: note.id, target: note.path };
  if (note.startLine !== undefined) {
    fm.lines = note.endLine !== undefined && note.endLine !== note.startLine ? `${note.startLine}-${note.endLine}` : `${note.startLine}`;
  }
  if (note.terminal !== undefined) fm.terminal = note.terminal;
  if (note.command !== undefined) fm.command = note.command;
  if (note.step !== undefined) fm.step = note.step;
  fm.author = note.author;
  fm.created = note.created;
  return `---\n${YAML.stringify(fm)}---\n${note.text.trimEnd()}\n`;
}

const NUMERIC_KEYS = new Set(['terminal', 'command']);
const KNOWN_KEYS = new Set(['id', 'target', 'lines', 'terminal', 'command', 'step', 'author', 'created']);
/** A plain scalar YAML would read as something other than a string (bool, null, number). */
const YAML_NON_STRING = /^(?:true|false|yes|no|on|off|null|~|[-+]?(?:\.inf|\.nan|[0-9][0-9_]*(?:\.[0-9]*)?(?:e[-+]?[0-9]+)?|\.[0-9]+(?:e[-+]?[0-9]+)?|0x[0-9a-f]+|0o[0-7]+))$/i;

/**
 * The frontmatter as the serializer writes it, without a YAML parser (a tenth of the time, for
 * folders of thousands of notes): one `key: value` line per known key, each value a plain scalar
 * that YAML would read as the same string (or, for terminal/command, as a whole number). Anything
 * else (quotes, comments, other keys, a value YAML would read otherwise) returns undefined, and the
 * YAML parser decides.
 */
function plainFrontmatter(lines: string[]): Record<string, string | number> | undefined {
  const out: Record<string, string | number> = {};
  for (const line of lines) {
    const m = /^([a-z]+): ((?:-(?=[^ ])|[A-Za-z0-9_./])[A-Za-z0-9_./@+:-]*(?: [A-Za-z0-9_./@+-][A-Za-z0-9_./@+:-]*)*)$/.exec(line);
    if (!m || !KNOWN_KEYS.has(m[1]) || m[1] in out) return undefined;
    const v = m[2];
    if (v.endsWith(':') || v.includes(': ')) return undefined;
    if (NUMERIC_KEYS.has(m[1])) {
      if (!/^(?:0|[1-9][0-9]*)$/.test(v)) return undefined;
      out[m[1]] = Number(v);
    } else if (m[1] === 'lines') {
      out[m[1]] = v; // parsed from its text below either way
    } else {
      if (YAML_NON_STRING.test(v)) return undefined;
      out[m[1]] = v;
    }
  }
  return out;
}

/** Parses one note file's text; errors name the note file and line. */
export function parseNote(text: string, file: string): Result<Note> {
  const fail = (message: string, line?: number) => err<FileError>({ file, line, message });
  const src = text.replace(/^\uFEFF/, '');
  const lines = src.split(/\r?\n/);
  if (lines[0].trim() !== '---') return fail('a note starts with a "---" line opening its YAML frontmatter', 1);
  const close = lines.indexOf('---', 1);
  if (close === -1) return fail('the frontmatter is not closed by a "---" line', 1);
  let fm = plainFrontmatter(lines.slice(1, close)) as Record<string, unknown> | null | undefined;
  if (fm === undefined) {
    const doc = YAML.parseDocument(lines.slice(1, close).join('\n'));
    if (doc.errors.length > 0) {
      const e = doc.errors[0];
      return fail(e.message.split('\n')[0], (e.linePos?.[0].line ?? 0) + 1);
    }
    fm = doc.toJSON() as Record<string, unknown> | null;
  }
  if (!fm || typeof fm !== 'object' || Array.isArray(fm)) return fail('the frontmatter must be a YAML mapping', 2);
  const lineOf = (key: string): number => {
    const i = lines.slice(1, close).findIndex((l) => l.startsWith(`${key}:`));
    return i === -1 ? 2 : i + 2;
  };
  for (const key of ['id', 'target', 'author', 'created']) {
    const v = fm[key];
    if (v instanceof Date) fm[key] = v.toISOString();
    else if (typeof v !== 'string' || v.trim() === '') return fail(`"${key}" is required and must be a string`, lineOf(key));
  }
  const target = normalizeTargetPath(fm.target as string);
  if (!target.ok) return fail(target.error, lineOf('target'));
  const note: Note = {
    id: fm.id as string,
    path: target.value,
    author: fm.author as string,
    created: fm.created as string,
    text: lines.slice(close + 1).join('\n').trim(),
    file,
  };
  if (fm.lines !== undefined) {
    const m = /^(\d+)(?:\s*-\s*(\d+))?$/.exec(String(fm.lines).trim());
    const start = m ? Number(m[1]) : NaN;
    const end = m?.[2] !== undefined ? Number(m[2]) : start;
    if (!m || start < 1 || end < start) return fail(`"lines" must be "N" or "A-B" with 1 ≤ A ≤ B, got "${String(fm.lines)}"`, lineOf('lines'));
    note.startLine = start;
    note.endLine = end;
  }
  for (const key of ['terminal', 'command'] as const) {
    if (fm[key] === undefined) continue;
    if (typeof fm[key] !== 'number' || !Number.isInteger(fm[key]) || (fm[key] as number) < 0) {
      return fail(`"${key}" must be a whole number`, lineOf(key));
    }
    note[key] = fm[key] as number;
  }
  if (fm.step !== undefined) note.step = String(fm.step);
  return ok(note);
}

/** Writes a new note under `.agent/human/notes/` and returns it; bad input is an error saying what to fix. */
export async function addNote(root: string, input: NewNote): Promise<Result<Note, string>> {
  const target = normalizeTargetPath(input.path);
  if (!target.ok) return target;
  const text = input.text.trim();
  if (text === '') return err('the note is empty; write what the agent should know');
  if (text.length > MAX_TEXT) return err(`the note is ${text.length} characters; keep it under ${MAX_TEXT} (put long material in a file and point to it)`);
  if (input.startLine !== undefined || input.endLine !== undefined) {
    if (!validLine(input.startLine) || !validLine(input.endLine ?? input.startLine) || (input.endLine ?? input.startLine) < input.startLine) {
      return err(`line range ${input.startLine}-${input.endLine} is not a valid 1-based range`);
    }
  }
  const now = input.now ?? new Date();
  const id = ulid(now.getTime());
  const note: Note = {
    id,
    path: target.value,
    ...(input.startLine !== undefined ? { startLine: input.startLine, endLine: input.endLine ?? input.startLine } : {}),
    ...(input.terminal !== undefined ? { terminal: input.terminal } : {}),
    ...(input.command !== undefined ? { command: input.command } : {}),
    ...(input.step !== undefined ? { step: input.step } : {}),
    author: input.author.trim() || 'user',
    created: now.toISOString(),
    text,
    file: `${NOTES_DIR}/${id}.md`,
  };
  if (!(await createExclusive(path.join(root, note.file), serializeNote(note)))) {
    return err(`${note.file} already exists; try again`);
  }
  return ok(note);
}

// ── Listing, flat in the number of notes ──
// A heavy user's folder holds thousands of notes, and the briefing, the terminal tool and the editor's
// decorations list them often. Each process keeps every note as listed: its file's parse from
// fs/fileDigests.ts (under the file's stat; also in `.agent/.cache/notes.json`, so a new process stats
// the note files instead of reading them) and its orphan mark from its target's facts (orphans.ts,
// under the target's stamp). A listing does only what changed asks for:
// - the notes folder's stamp changed (a note added, deleted or replaced by rename): the folder is
//   listed and each note file stat-checked; only new or changed files are read, their targets checked;
// - recheckNotes(root, files) (the editor's change feed names the note files that changed): those
//   files alone, and the folder's new stamp is taken as seen (the feed reports every file of it);
// - recheckNotes(root): every note file and every target;
// - otherwise the answer comes from memory; when the last look is REFRESH_MS old, one round re-checks
//   the next VERIFY_BATCH note files and VERIFY_BATCH targets in turn, so an edit no watcher reported
//   (another process, a target file outside .agent/) is seen within a few listings, and no listing
//   costs more than a round.
// Where the notes folder is watched (on Linux this module watches it itself, one inotify watch; the
// editor's change feed reports every note file instead: notesReportedByCaller), a note edited in
// place is seen at the next listing, not a few rounds later, and the rounds of note files become a
// safety net, one per WATCHED_REFRESH_MS: at 10,000 notes a round's 500 stats were 2–6 ms of every
// call that came two seconds after the last (bench rows 19n, 19p).
// Orphan marks cost a stat (or a read) of every target: 10,000 notes are 10,000 more stats. Callers
// that show only a few notes (the briefing, the terminal tool, the editor's decorations) list with
// `marks: false` and check the notes they show (withCurrentOrphans). The targets are then checked
// only from the first listing that asks for marks on, and kept current after that.

/** A listing this long after the last look re-checks a round of note files and targets. */
const REFRESH_MS = 2_000;
/** Note files, and targets, re-checked per round. */
const VERIFY_BATCH = 500;
/** Where every change of a note file is reported (a watch, a caller's feed): note files get a round at most this often. */
const WATCHED_REFRESH_MS = 30_000;
/** The notes folder's stamp alone is trusted once its last change is this old (see update). */
const SETTLE_MS = 2_000;
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

const snapshots = new Map<string, NotesSnapshot>();
/** Workspace folders (resolved) whose caller reports every change of a note file with recheckNotes. */
const reportedByCaller = new Set<string>();
/** Whether this module watches notes folders itself: on Linux (tests turn it off to try the rounds alone). */
let ownWatch = process.platform === 'linux';

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

/** Tests: whether listings watch notes folders themselves (returns the previous setting); off stops the watches set up so far. */
export function setOwnNotesWatch(on: boolean): boolean {
  const was = ownWatch;
  ownWatch = on;
  if (!on) {
    for (const s of snapshots.values()) {
      s.watch?.dispose();
      s.watch = undefined;
    }
  }
  return was;
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
  name: 'notes',
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
      else if (file === dir || dir.startsWith(file + path.sep)) s.pending = 'all';
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
  const digests = FileDigests.of(path.join(root, '.agent'), NOTE_DIGESTS);
  const read = async (f: string): Promise<Result<Note>> => readNote(f);
  const full = pending === 'all' || fromWatch === 'all' || (pending.size === 0 && dirStamp !== snap.dir);
  // A file added or removed in the same clock tick as the change last seen can leave the folder's
  // stamp as it was: while the folder changed less than SETTLE_MS ago, listings compare its names.
  const unsettled = !full && pending.size === 0 && Date.now() - Math.max(dirStat.mtimeMs, dirStat.ctimeMs) < SETTLE_MS;
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
    if (++k % YIELD_EVERY === 0) await new Promise((r) => setImmediate(r));
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
    if (++n % 1000 === 0) await new Promise((r) => setImmediate(r));
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
    if (++k % YIELD_EVERY === 0) await new Promise((r) => setImmediate(r));
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
    if (ownWatch && !reportedByCaller.has(abs)) snap.watch = watchNotes(abs);
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

/** What a caller is looking at: a file, optionally a line range, or a terminal's command. */
export interface NoteQuery {
  path: string;
  startLine?: number;
  endLine?: number;
  terminal?: number;
  command?: number;
  step?: string; // a plan step id: its notes match whatever lines the step has moved to
}

/** Picks the notes that cover a target: same terminal command, same plan step, or same file with overlapping lines (or no lines on either side). */
export function matchNotes<T extends Note>(notes: readonly T[], q: NoteQuery): T[] {
  const target = normalizeTargetPath(q.path);
  const want = target.ok ? target.value : q.path;
  return notes.filter((n) => {
    if (q.terminal !== undefined && q.command !== undefined && n.terminal === q.terminal && n.command === q.command) return true;
    if (n.path !== want) return false;
    if (q.step !== undefined && n.step !== undefined) return n.step === q.step;
    if (q.startLine === undefined || n.startLine === undefined) return true;
    const qEnd = q.endLine ?? q.startLine;
    return n.startLine <= qEnd && (n.endLine ?? n.startLine) >= q.startLine;
  });
}

/** The notes attached to a file or to lines of it (overlapping ranges count), orphaned ones included and marked. */
export async function notesFor(root: string, targetPath: string, startLine?: number, endLine?: number, extra?: { terminal?: number; command?: number; step?: string }): Promise<ListedNote[]> {
  const { notes } = await listNotes(root);
  return withCurrentOrphans(root, matchNotes(notes, { path: targetPath, startLine, endLine, ...extra }));
}

function where(n: Note): string {
  if (n.terminal !== undefined && n.command !== undefined) return `terminal ${n.terminal} command ${n.command}`;
  if (n.step !== undefined) return `step "${n.step}" of ${n.path}`;
  if (n.startLine !== undefined) return `${n.path}:${n.startLine}${n.endLine !== n.startLine ? `-${n.endLine}` : ''}`;
  return n.path;
}

/** One line an agent reads: who, when, on what, the text (shortened to `maxText` chars) and where the full note is. */
export function formatNoteForAgent(n: ListedNote, maxText = 300): string {
  const flat = n.text.replace(/\s+/g, ' ');
  const text = flat.length > maxText ? flat.slice(0, maxText - 1) + '…' : flat;
  const orphan = n.orphaned ? ` [orphaned: ${n.orphaned}]` : '';
  return `- ${n.author}, ${n.created.slice(0, 16).replace('T', ' ')} UTC, on ${where(n)}: "${text}" (${n.file})${orphan}`;
}

/** A "Notes from the user" section within `maxBytes` UTF-8 bytes; empty string when there are no notes. */
export function formatNotesSection(notes: ListedNote[], maxBytes = 1024, heading = 'Notes from the user (follow them):'): string {
  if (notes.length === 0) return '';
  const out = [heading];
  let bytes = Buffer.byteLength(heading);
  for (let i = 0; i < notes.length; i++) {
    const line = formatNoteForAgent(notes[i]);
    const rest = `- and ${notes.length - i} more in ${NOTES_DIR}/`;
    const fits = bytes + 1 + Buffer.byteLength(line) + (i < notes.length - 1 ? 1 + Buffer.byteLength(rest) : 0) <= maxBytes;
    if (!fits) {
      out.push(rest);
      break;
    }
    out.push(line);
    bytes += 1 + Buffer.byteLength(line);
  }
  return out.join('\n');
}

/** Markdown for a tree item's or decoration's tooltip: each note's author, time and text. */
export function notesTooltipMarkdown(notes: ListedNote[]): string {
  return notes
    .map((n) => `**Note from ${n.author}** (${n.created.slice(0, 16).replace('T', ' ')} UTC)${n.orphaned ? ` — orphaned: ${n.orphaned}` : ''}\n\n${n.text}`)
    .join('\n\n---\n\n');
}
