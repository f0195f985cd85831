import * as fs from 'node:fs';
import * as path from 'node:path';
import { ulid } from 'ulid';
import * as YAML from 'yaml';
import { pool } from '../fs/pool';
import { createExclusive } from '../fs/fsAtomic';
import { FileDigests, type DigestSpec } from '../fs/fileDigests';
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

/** Counts a file's lines, stopping early once `atLeast` lines are seen (terminal files can be large). */
async function hasLines(file: string, atLeast: number): Promise<{ enough: boolean; lines: number }> {
  let lines = 0;
  let last = -1;
  const stream = fs.createReadStream(file, { highWaterMark: 64 * 1024 });
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
    last = chunk[chunk.length - 1];
    if (lines >= atLeast) {
      stream.destroy();
      return { enough: true, lines };
    }
  }
  if (last !== -1 && last !== 10) lines++; // a last line without a final newline still counts
  return { enough: lines >= atLeast, lines };
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** What the orphan checks of the notes on one target need to know of it, read once per target. */
interface TargetFacts {
  exists: boolean;
  isFile: boolean;
  /** Lines counted, up to `countedTo` (a count ≥ countedTo means "at least"). */
  lines: number;
  countedTo: number;
  /** The text, for plan step notes (plan files are small). */
  text?: string;
}

async function targetFacts(file: string, lineNeed: number, needText: boolean): Promise<TargetFacts> {
  let stat: fs.Stats;
  try {
    stat = await fs.promises.stat(file);
  } catch {
    return { exists: false, isFile: false, lines: 0, countedTo: 0 };
  }
  if (!stat.isFile()) return { exists: true, isFile: false, lines: 0, countedTo: 0 };
  const facts: TargetFacts = { exists: true, isFile: true, lines: 0, countedTo: lineNeed };
  if (lineNeed > 0) facts.lines = (await hasLines(file, lineNeed)).lines;
  if (needText) facts.text = await fs.promises.readFile(file, 'utf8').catch(() => '');
  return facts;
}

function reasonFrom(note: NoteTarget, f: TargetFacts): string | undefined {
  if (!f.exists) return `${note.path} no longer exists`;
  if (!f.isFile) return undefined; // a note on a folder
  // A plan step is anchored by its id (edits move its lines); other targets by their line range.
  if (note.endLine !== undefined && note.step === undefined && f.lines < note.endLine) {
    return `${note.path} has ${f.lines} lines now; lines ${note.startLine}-${note.endLine} are gone`;
  }
  if (note.step !== undefined) {
    const re = new RegExp(`\\bid:\\s*["']?${escapeRegExp(note.step)}["']?\\s*(?:[,}#]|$)`, 'm');
    if (!re.test(f.text ?? '')) return `step "${note.step}" is no longer in ${note.path}`;
  }
  return undefined;
}

const lineNeedOf = (n: NoteTarget): number => (n.endLine !== undefined && n.step === undefined ? n.endLine : 0);

/** Why a note's target is gone (file deleted, lines or plan step no longer there), or undefined when it is still there. */
export async function orphanReason(root: string, note: NoteTarget): Promise<string | undefined> {
  return reasonFrom(note, await targetFacts(path.join(root, note.path), lineNeedOf(note), note.step !== undefined));
}

// ── Listing, flat in the number of notes ──
// A heavy user's folder holds thousands of notes, and the briefing and the terminal tool list them on
// every call. Each note file's parse is kept by fs/fileDigests.ts under the file's stat (in memory and
// in `.agent/.cache/notes.json`, so a new process stats the note files instead of reading them), and
// per target its orphan check (re-done when the target's stat changes). A listing re-checks the files
// only when the notes folder changed (a note added or deleted: one stat) or its last check is
// VERIFY_MS old; then the answer waits for the check. Otherwise it is answered from memory and, when
// the check is older than REFRESH_MS, checked again in the background, so a note edited in place or a
// target file that changed is seen by the next listing.

/** A listing whose last full check is older than this waits for a new one. */
const VERIFY_MS = 30_000;
/** A listing whose last full check is older than this starts a new one in the background. */
const REFRESH_MS = 2_000;
/** Targets read at once while checking. */
const CONCURRENCY = 32;

type Stamp = string;
const stampOf = (st: fs.Stats): Stamp => `${st.mtimeMs}:${st.size}:${st.ino}`;

interface NotesSnapshot {
  dir: Stamp;
  checkedAt: number;
  /** What the orphan checks know of each target (workspace-relative path), under the target's stamp. */
  targets: Map<string, { stamp: Stamp | undefined; facts: TargetFacts }>;
  result: { notes: ListedNote[]; errors: FileError[] };
  /** A check running now (listings share it). */
  checking?: Promise<void>;
  /** Bumped by recheckNotes; `checkedGen` is the value the last finished check started under. */
  gen: number;
  checkedGen: number;
}

const snapshots = new Map<string, NotesSnapshot>();

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
 * Makes the next listing of a folder's notes (every folder's without `root`) wait for a full check,
 * as when the change feed saw a note file change. What did not change is not read again.
 */
export function recheckNotes(root?: string): void {
  for (const [k, s] of snapshots) if (root === undefined || k === path.resolve(root)) s.gen++;
}

/**
 * The facts of one target for notes needing `lineNeed` lines counted (and its text): from `cache`
 * when the target's stamp did not change, else read again (and kept there).
 */
async function factsOf(root: string, rel: string, lineNeed: number, needText: boolean, cache: NotesSnapshot['targets'] | undefined): Promise<TargetFacts> {
  const file = path.join(root, rel);
  const stamp = await fs.promises.stat(file).then(stampOf, () => undefined);
  const had = cache?.get(rel);
  if (had && had.stamp === stamp && had.facts.countedTo >= lineNeed && (!needText || had.facts.text !== undefined)) return had.facts;
  const facts = await targetFacts(file, Math.max(lineNeed, had && had.stamp === stamp ? had.facts.countedTo : 0), needText);
  cache?.set(rel, { stamp, facts });
  return facts;
}

/** Re-checks every note file and target, reusing what did not change; updates `snap` in place. */
async function check(root: string, dir: string, dirStamp: Stamp, snap: NotesSnapshot): Promise<void> {
  const started = Date.now();
  const gen = snap.gen;
  let names: string[];
  try {
    names = (await fs.promises.readdir(dir)).filter((n) => n.endsWith('.md')).sort();
  } catch {
    names = [];
  }
  const paths = names.map((n) => path.join(dir, n));
  const { values, failed } = await FileDigests.of(path.join(root, '.agent'), NOTE_DIGESTS).get(paths, async (f) => readNote(f));
  const files = new Map<string, Result<Note>>();
  for (const f of paths) {
    const e = failed.get(f);
    let parsed = values.get(f) ?? (e && err<FileError>({ file: `${NOTES_DIR}/${path.basename(f)}`, message: `cannot read it: ${e.message}` }));
    if (!parsed) {
      // Not a regular file (a symlink, a folder named *.md) or gone since the readdir: read as is, never remembered.
      try {
        parsed = readNote(f);
      } catch (x) {
        parsed = err({ file: `${NOTES_DIR}/${path.basename(f)}`, message: `cannot read it: ${(x as Error).message}` });
      }
    }
    files.set(path.basename(f), parsed);
  }
  // Orphan checks: each target read once (as many lines as its notes need), again only when its stamp changed.
  const need = new Map<string, { lines: number; text: boolean }>();
  for (const name of names) {
    const p = files.get(name)!;
    if (!p.ok) continue;
    const n = need.get(p.value.path) ?? { lines: 0, text: false };
    need.set(p.value.path, { lines: Math.max(n.lines, lineNeedOf(p.value)), text: n.text || p.value.step !== undefined });
  }
  const targets: NotesSnapshot['targets'] = new Map();
  const facts = new Map<string, TargetFacts>();
  await pool([...need], CONCURRENCY, async ([rel, n]) => {
    const had = snap.targets.get(rel);
    if (had) targets.set(rel, had);
    facts.set(rel, await factsOf(root, rel, n.lines, n.text, targets));
  });
  const notes: ListedNote[] = [];
  const errors: FileError[] = [];
  for (const name of names) {
    const p = files.get(name)!;
    if (!p.ok) {
      errors.push(p.error);
      continue;
    }
    const orphaned = reasonFrom(p.value, facts.get(p.value.path)!);
    notes.push(orphaned ? { ...p.value, orphaned } : p.value);
  }
  notes.sort((a, b) => a.created.localeCompare(b.created) || a.id.localeCompare(b.id));
  snap.dir = dirStamp;
  snap.checkedAt = started;
  snap.checkedGen = gen;
  snap.targets = targets;
  snap.result = { notes, errors };
}

/**
 * The notes given, with their orphan marks checked against their targets as they are now (a listing's
 * marks may be a few seconds old): for the few notes shown to an agent. A check whose target did not
 * change since is not done again.
 */
export async function withCurrentOrphans<T extends Note>(root: string, notes: T[]): Promise<(T & { orphaned?: string })[]> {
  const abs = path.resolve(root);
  const cache = snapshots.get(abs)?.targets;
  return Promise.all(notes.map(async (n) => {
    const reason = reasonFrom(n, await factsOf(abs, n.path, lineNeedOf(n), n.step !== undefined, cache));
    const { orphaned: _old, ...rest } = n as T & { orphaned?: string };
    return (reason ? { ...rest, orphaned: reason } : rest) as T & { orphaned?: string };
  }));
}

/**
 * Lists every note, oldest first, with orphaned ones marked; unreadable note files come back as
 * errors. Answered from what this process read when the notes folder did not change (see above).
 */
export async function listNotes(root: string): Promise<{ notes: ListedNote[]; errors: FileError[] }> {
  const abs = path.resolve(root);
  const dir = path.join(abs, NOTES_DIR);
  let dirStamp: Stamp;
  try {
    dirStamp = stampOf(await fs.promises.stat(dir));
  } catch {
    snapshots.delete(abs);
    return { notes: [], errors: [] };
  }
  let snap = snapshots.get(abs);
  if (!snap) {
    snap = { dir: '', checkedAt: 0, targets: new Map(), result: { notes: [], errors: [] }, gen: 0, checkedGen: -1 };
    snapshots.set(abs, snap);
  }
  const s = snap;
  const run = (): Promise<void> => {
    s.checking ??= check(abs, dir, dirStamp, s).finally(() => {
      s.checking = undefined;
    });
    return s.checking;
  };
  const age = Date.now() - s.checkedAt;
  const gen = s.gen;
  if (s.dir !== dirStamp || age > VERIFY_MS || s.checkedGen < gen) {
    await run();
    // A check that started earlier (an older state of the folder, or before a recheck): once more.
    if (s.dir !== dirStamp || s.checkedGen < gen) await run();
  } else if (age > REFRESH_MS) void run().catch(() => undefined);
  return { notes: [...s.result.notes], errors: [...s.result.errors] };
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
export function matchNotes<T extends Note>(notes: T[], q: NoteQuery): T[] {
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
