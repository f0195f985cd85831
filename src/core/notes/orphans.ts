/**
 * Orphan checks of notes: whether a note's target (a file, lines of it, a plan step) is still there.
 * What a check needs of a target is read once per target and kept under the target's stamp, so the
 * notes listing reads a target again only when it changed.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { plural } from '../output/humanize';

/** What of a note the check needs (a Note from noteFile.ts has it). */
interface NoteTarget {
  path: string;
  startLine?: number;
  endLine?: number;
  step?: string;
}

/** A file's stamp: changes when it is written, truncated or replaced. */
export const stampOf = (st: fs.Stats | undefined): string | undefined => st && `${st.mtimeMs}:${st.size}:${st.ino}`;

/** Per target (workspace-relative path), its facts under the stamp they were read at. */
export type TargetCache = Map<string, { stamp: string | undefined; facts: TargetFacts }>;

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
export interface TargetFacts {
  exists: boolean;
  isFile: boolean;
  /** Lines counted, up to `countedTo` (a count ≥ countedTo means "at least"). */
  lines: number;
  countedTo: number;
  /** The text, for plan step notes (plan files are small). */
  text?: string;
}

/** The target's stat (following symlinks), or undefined when it cannot be had. */
export function statOf(file: string): fs.Stats | undefined {
  try {
    return fs.statSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

async function targetFacts(file: string, stat: fs.Stats | undefined, lineNeed: number, needText: boolean): Promise<TargetFacts> {
  if (!stat) return { exists: false, isFile: false, lines: 0, countedTo: 0 };
  if (!stat.isFile()) return { exists: true, isFile: false, lines: 0, countedTo: 0 };
  const facts: TargetFacts = { exists: true, isFile: true, lines: 0, countedTo: lineNeed };
  if (lineNeed > 0) facts.lines = (await hasLines(file, lineNeed)).lines;
  if (needText) facts.text = await fs.promises.readFile(file, 'utf8').catch(() => '');
  return facts;
}

/** Why a note's target is gone (file deleted, lines or plan step no longer there), or undefined when it is still there. */
export function reasonFrom(note: NoteTarget, f: TargetFacts): string | undefined {
  if (!f.exists) return `${note.path} no longer exists`;
  if (!f.isFile) return undefined; // a note on a folder
  // A plan step is anchored by its id (edits move its lines); other targets by their line range.
  if (note.endLine !== undefined && note.step === undefined && f.lines < note.endLine) {
    return `${note.path} has ${plural(f.lines, 'line')} now; lines ${note.startLine}-${note.endLine} are gone`;
  }
  if (note.step !== undefined) {
    const re = new RegExp(`\\bid:\\s*["']?${escapeRegExp(note.step)}["']?\\s*(?:[,}#]|$)`, 'm');
    if (!re.test(f.text ?? '')) return `step "${note.step}" is no longer in ${note.path}`;
  }
  return undefined;
}

/** How many lines of its target a note needs (its range's end; none for a plan step, anchored by its id). */
export const lineNeedOf = (n: NoteTarget): number => (n.endLine !== undefined && n.step === undefined ? n.endLine : 0);

/**
 * The facts of one target for notes needing `lineNeed` lines counted (and its text): from `cache`
 * when the target's stamp did not change, else read again (and kept there when `keep`).
 */
export async function factsOf(root: string, rel: string, lineNeed: number, needText: boolean, cache: TargetCache | undefined, keep = true): Promise<TargetFacts> {
  const file = path.join(root, rel);
  const st = statOf(file);
  const stamp = stampOf(st);
  const had = cache?.get(rel);
  if (had && had.stamp === stamp && had.facts.countedTo >= lineNeed && (!needText || had.facts.text !== undefined)) return had.facts;
  const facts = await targetFacts(file, st, Math.max(lineNeed, had && had.stamp === stamp ? had.facts.countedTo : 0), needText);
  if (keep) cache?.set(rel, { stamp, facts });
  return facts;
}
