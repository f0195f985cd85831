// Notes as an agent and a tooltip show them, and which notes cover what a caller looks at.
import { normalizeTargetPath, NOTES_DIR, type ListedNote, type Note } from './noteFile';

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

/** What a note is on, in words ("terminal 2 command 4", `step "5" of .agent/plan.yaml`, "src/a.ts:3-7"). */
export function noteTargetText(n: Note): string {
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
  return `- ${n.author}, ${n.created.slice(0, 16).replace('T', ' ')} UTC, on ${noteTargetText(n)}: "${text}" (${n.file})${orphan}`;
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
