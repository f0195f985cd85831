/**
 * Notes from the user to the agent: one Markdown file per note under `.agent/human/notes/`, named
 * `<id>.md`, with YAML frontmatter (see docs/notes-format.md). This file is the format: what a note
 * is, how one is written (addNote) and read (parseNote). Files are never rewritten by the
 * extension; a note whose target is gone is reported as orphaned, never dropped (notes.ts lists
 * them; noteText.ts shows them).
 */
import * as path from 'node:path';
import { ulid } from 'ulid';
import * as YAML from 'yaml';
import { createExclusive } from '../fs/fsAtomic';
import { err, ok, type FileError, type Result } from '../result';
import { leavesFolder } from '../workspace/relativePaths';
import { agentRel } from '../workspace/layout';

export const NOTES_DIR = agentRel('notes');

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
  if (leavesFolder(norm)) return err(`target "${p}" is outside the workspace`);
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
