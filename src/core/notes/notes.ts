import * as fs from 'node:fs';
import * as path from 'node:path';
import { ulid } from 'ulid';
import * as YAML from 'yaml';
import { createExclusive } from '../fs/fsAtomic';
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

/** Parses one note file's text; errors name the note file and line. */
export function parseNote(text: string, file: string): Result<Note> {
  const fail = (message: string, line?: number) => err<FileError>({ file, line, message });
  const src = text.replace(/^\uFEFF/, '');
  const lines = src.split(/\r?\n/);
  if (lines[0].trim() !== '---') return fail('a note starts with a "---" line opening its YAML frontmatter', 1);
  const close = lines.indexOf('---', 1);
  if (close === -1) return fail('the frontmatter is not closed by a "---" line', 1);
  const doc = YAML.parseDocument(lines.slice(1, close).join('\n'));
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    return fail(e.message.split('\n')[0], (e.linePos?.[0].line ?? 0) + 1);
  }
  const fm = doc.toJSON() as Record<string, unknown> | null;
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

/** Why a note's target is gone (file deleted, lines or plan step no longer there), or undefined when it is still there. */
export async function orphanReason(root: string, note: NoteTarget): Promise<string | undefined> {
  const file = path.join(root, note.path);
  let stat: fs.Stats;
  try {
    stat = await fs.promises.stat(file);
  } catch {
    return `${note.path} no longer exists`;
  }
  if (!stat.isFile()) return undefined; // a note on a folder
  // A plan step is anchored by its id (edits move its lines); other targets by their line range.
  if (note.endLine !== undefined && note.step === undefined) {
    const r = await hasLines(file, note.endLine);
    if (!r.enough) return `${note.path} has ${r.lines} lines now; lines ${note.startLine}-${note.endLine} are gone`;
  }
  if (note.step !== undefined) {
    const text = await fs.promises.readFile(file, 'utf8');
    const re = new RegExp(`\\bid:\\s*["']?${escapeRegExp(note.step)}["']?\\s*(?:[,}#]|$)`, 'm');
    if (!re.test(text)) return `step "${note.step}" is no longer in ${note.path}`;
  }
  return undefined;
}

/** Lists every note, oldest first, with orphaned ones marked; unreadable note files come back as errors. */
export async function listNotes(root: string): Promise<{ notes: ListedNote[]; errors: FileError[] }> {
  const dir = path.join(root, NOTES_DIR);
  let names: string[];
  try {
    names = (await fs.promises.readdir(dir)).filter((n) => n.endsWith('.md')).sort();
  } catch {
    return { notes: [], errors: [] };
  }
  const notes: ListedNote[] = [];
  const errors: FileError[] = [];
  for (const name of names) {
    const rel = `${NOTES_DIR}/${name}`;
    let text: string;
    try {
      text = await fs.promises.readFile(path.join(dir, name), 'utf8');
    } catch (e) {
      errors.push({ file: rel, message: `cannot read it: ${(e as Error).message}` });
      continue;
    }
    const parsed = parseNote(text, rel);
    if (!parsed.ok) {
      errors.push(parsed.error);
      continue;
    }
    const orphaned = await orphanReason(root, parsed.value);
    notes.push(orphaned ? { ...parsed.value, orphaned } : parsed.value);
  }
  notes.sort((a, b) => a.created.localeCompare(b.created) || a.id.localeCompare(b.id));
  return { notes, errors };
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
  return matchNotes(notes, { path: targetPath, startLine, endLine, ...extra });
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
