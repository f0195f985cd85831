import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from '../fs/fsAtomic';
import { err, ok, type FileError, type Result } from '../result';
import { isInside } from '../workspace/relativePaths';

/** The marker comments that delimit the managed block; each must stand on a line of its own. */
export const BEGIN_MARKER = '<!-- agent-context:begin -->';
export const END_MARKER = '<!-- agent-context:end -->';

/** Instruction files agents read, in the order they are checked; AGENTS.md is created when none exists. */
export const INSTRUCTION_FILES = ['AGENTS.md', '.github/copilot-instructions.md', 'CLAUDE.md'] as const;

/** Where the record of files that once had the block is kept (the opt-out memory). */
export const INSTRUCTIONS_RECORD = '.agent/instructions.json';

// Kept short on purpose: agents pay for every token of it on every turn (unit test: ≤ 250 tokens,
// markers included). Tool names are the fixed ones from the tools issue.
const SNIPPET_LINES = [
  '## Agent Context: the `.agent/` folder is your overflow memory',
  '- Plan: `.agent/plan.yaml`. After a context reset re-read it (or call `agentContext_briefing`). Keep step statuses current as you work.',
  '- Scratch: `.agent/scratch/` for working files; tool output is offloaded to `.agent/scratch/tool_outputs/`.',
  '- Terminals: `.agent/terminals/N.txt` mirrors every terminal, yours too; after a failure `agentContext_terminal` `lastFailed` gives its error lines.',
  '- Skills: `.agent/skills/<name>/SKILL.md` (`agentContext_skill`). Memory: `.agent/memory/` (`agentContext_memory`).',
  '- Notes from the user: `.agent/human/notes/`. Follow them.',
  '- Run noisy commands (builds, tests, installs) with `agentContext_run`: you get a short reference, not the whole output.',
  '- Grep (`agentContext_grep`) and read line ranges (`agentContext_read`) instead of reading whole files.',
];

const NOTICE = '<!-- Managed by the Agent Context extension: this block is replaced on updates. Delete both markers to opt out. -->';

/** The block as written into a file (markers included), joined with the given line ending. */
export function instructionBlock(eol = '\n'): string {
  return [BEGIN_MARKER, NOTICE, ...SNIPPET_LINES, END_MARKER].join(eol);
}

/** What upsertInstructionBlock decided for one file's text. */
export type UpsertOutcome =
  | { optedOut: false; text: string; changed: boolean }
  | { optedOut: true }
  | { optedOut: false; error: { line: number; message: string } };

/** The line ending a text mostly uses (`\n` for text without any). */
export function dominantEol(text: string): '\n' | '\r\n' {
  const crlf = text.split('\r\n').length - 1;
  const lf = text.split('\n').length - 1 - crlf;
  return crlf > lf ? '\r\n' : '\n';
}

interface MarkerLine {
  kind: 'begin' | 'end';
  line: number; // 1-based
  start: number; // offset of the line's first character
  end: number; // offset just past the line's content (before its line ending)
}

function findMarkers(text: string): MarkerLine[] {
  const found: MarkerLine[] = [];
  let start = 0;
  let line = 1;
  while (start <= text.length) {
    const nl = text.indexOf('\n', start);
    const stop = nl === -1 ? text.length : nl;
    const contentEnd = stop > start && text[stop - 1] === '\r' ? stop - 1 : stop;
    const content = text.slice(start, contentEnd).trim();
    if (content === BEGIN_MARKER) found.push({ kind: 'begin', line, start, end: contentEnd });
    else if (content === END_MARKER) found.push({ kind: 'end', line, start, end: contentEnd });
    if (nl === -1) break;
    start = nl + 1;
    line++;
  }
  return found;
}

/**
 * Inserts or refreshes the managed block in one instruction file's text, touching nothing outside it.
 * `previouslyAdded` says the block was once written to this file: without markers it is then an opt-out.
 */
export function upsertInstructionBlock(fileText: string, previouslyAdded = false): UpsertOutcome {
  const markers = findMarkers(fileText);
  const eol = dominantEol(fileText);
  const block = instructionBlock(eol);
  if (markers.length === 0) {
    if (previouslyAdded) return { optedOut: true };
    let text: string;
    if (fileText.length === 0) text = block + eol;
    else if (fileText.endsWith('\n')) {
      // One blank line between the user's text and the block (none added if there is one already).
      const blank = fileText.endsWith('\n\n') || fileText.endsWith('\r\n\r\n');
      text = fileText + (blank ? '' : eol) + block + eol;
    } else {
      // No trailing newline: the user's text stays byte-identical and the file still ends without one.
      text = fileText + eol + eol + block;
    }
    return { optedOut: false, text, changed: true };
  }
  const begins = markers.filter((m) => m.kind === 'begin');
  const ends = markers.filter((m) => m.kind === 'end');
  if (begins.length !== 1 || ends.length !== 1 || markers[0].kind !== 'begin') {
    const lines = markers.map((m) => `${m.kind} marker on line ${m.line}`).join(', ');
    return {
      optedOut: false,
      error: {
        line: markers[0].line,
        message: `expected one ${BEGIN_MARKER} followed by one ${END_MARKER}, found ${lines}; keep exactly one pair (or delete both to opt out) and run again`,
      },
    };
  }
  const [b, e] = markers;
  const text = fileText.slice(0, b.start) + block + fileText.slice(e.end);
  return { optedOut: false, text, changed: text !== fileText };
}

/** What happened to one instruction file. */
export interface InstructionFileReport {
  file: string; // workspace-relative, `/`-separated
  action: 'created' | 'added' | 'updated' | 'unchanged' | 'optedOut' | 'error';
  message?: string;
}

interface InstructionsRecord {
  version: 1;
  files: string[];
}

/** Reads `.agent/instructions.json`; a missing file is an empty record, a broken one an error naming it. */
export async function readInstructionsRecord(root: string): Promise<Result<string[]>> {
  const file = path.join(root, INSTRUCTIONS_RECORD);
  let raw: string;
  try {
    raw = await fs.promises.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return ok([]);
    return err({ file: INSTRUCTIONS_RECORD, message: `cannot read it: ${(e as Error).message}` });
  }
  try {
    const parsed = JSON.parse(raw) as Partial<InstructionsRecord>;
    if (!Array.isArray(parsed.files) || !parsed.files.every((f) => typeof f === 'string')) {
      return err({ file: INSTRUCTIONS_RECORD, line: 1, message: 'expected {"version": 1, "files": ["AGENTS.md", ...]}' });
    }
    return ok(parsed.files);
  } catch (e) {
    return err({ file: INSTRUCTIONS_RECORD, line: 1, message: `invalid JSON (${(e as Error).message}); fix or delete the file` });
  }
}

async function upsertFile(root: string, realRoot: string, rel: string, had: Set<string>, seen: Set<string>): Promise<InstructionFileReport> {
  const real = await fs.promises.realpath(path.join(root, rel));
  if (!isInside(realRoot, real)) return { file: rel, action: 'error', message: 'is a link to a file outside the workspace; left alone' };
  if (seen.has(real)) return { file: rel, action: 'unchanged', message: `same file as ${path.relative(realRoot, real)}` };
  seen.add(real);
  const before = await fs.promises.readFile(real, 'utf8');
  const outcome = upsertInstructionBlock(before, had.has(rel));
  if (outcome.optedOut) return { file: rel, action: 'optedOut', message: 'markers removed after the block was added; left alone' };
  if ('error' in outcome) return { file: rel, action: 'error', message: `${rel}:${outcome.error.line}: ${outcome.error.message}` };
  if (!outcome.changed) return { file: rel, action: 'unchanged' };
  // Refuse to clobber an edit made between our read and our write.
  if ((await fs.promises.readFile(real, 'utf8')) !== before) {
    return { file: rel, action: 'error', message: 'changed while it was being updated; run the command again' };
  }
  await writeFileAtomic(real, outcome.text);
  return { file: rel, action: before.includes(BEGIN_MARKER) ? 'updated' : 'added' };
}

/**
 * Writes or refreshes the block in every instruction file of a workspace folder that exists (or creates
 * AGENTS.md when none does), honouring opt-outs recorded in `.agent/instructions.json`.
 */
export async function applyInstructions(root: string): Promise<Result<InstructionFileReport[], FileError>> {
  const record = await readInstructionsRecord(root);
  if (!record.ok) return record;
  const had = new Set(record.value);
  const realRoot = await fs.promises.realpath(root);

  const existing: string[] = [];
  for (const rel of INSTRUCTION_FILES) {
    if (fs.existsSync(path.join(root, rel))) existing.push(rel);
  }
  const reports: InstructionFileReport[] = [];
  if (existing.length === 0) {
    if (had.has('AGENTS.md')) {
      // The user deleted the file we created: that is an opt-out too.
      return ok([{ file: 'AGENTS.md', action: 'optedOut', message: 'deleted after the block was added; not recreated' }]);
    }
    await writeFileAtomic(path.join(root, 'AGENTS.md'), instructionBlock('\n') + '\n');
    had.add('AGENTS.md');
    reports.push({ file: 'AGENTS.md', action: 'created' });
  }

  const seen = new Set<string>(); // real paths: CLAUDE.md is often a symlink to AGENTS.md
  for (const rel of existing) {
    try {
      const report = await upsertFile(root, realRoot, rel, had, seen);
      if (report.action !== 'error' && report.action !== 'optedOut') had.add(rel);
      reports.push(report);
    } catch (e) {
      reports.push({ file: rel, action: 'error', message: (e as Error).message });
    }
  }

  const files = [...had].sort();
  if (files.join('\n') !== [...record.value].sort().join('\n')) {
    await writeFileAtomic(path.join(root, INSTRUCTIONS_RECORD), JSON.stringify({ version: 1, files }, null, 2) + '\n');
  }
  return ok(reports);
}

/** One sentence per file for a notification: `added the Agent Context section to AGENTS.md; CLAUDE.md left alone, opted out (…)`. */
export function formatInstructionReports(reports: InstructionFileReport[]): string {
  const say: Record<InstructionFileReport['action'], (f: string) => string> = {
    created: (f) => `created ${f} with the Agent Context section`,
    added: (f) => `added the Agent Context section to ${f}`,
    updated: (f) => `updated the Agent Context section in ${f}`,
    unchanged: (f) => `${f} is already up to date`,
    optedOut: (f) => `${f} left alone, opted out`,
    error: (f) => `${f} not changed`,
  };
  return reports.map((r) => `${say[r.action](r.file)}${r.message ? ` (${r.message})` : ''}`).join('; ');
}
