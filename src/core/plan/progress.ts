/**
 * `.agent/progress.md`: the session log. Each entry is
 * ```
 * ## 2026-11-29T19:30:00Z — Parser handles CRLF
 *
 * What was done, in a few lines.
 *
 * Next: what the next session should do first.
 * ```
 * Entries are appended with one O_APPEND write; earlier entries are never rewritten.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { appendLineAtomic } from '../fs/fsAtomic';
import { Result, ok, err } from '../result';
import { foldFile, type FoldSpec } from '../fs/appendFold';

/** One entry of progress.md. */
export interface ProgressEntry {
  /** The date as written in the heading (ISO date or date-time). */
  date: string;
  title: string;
  /** What was done (the text between the heading and `Next:`). */
  done: string;
  next?: string;
  /** 1-based line of the heading. */
  line: number;
}

const HEADING_RE = /^##\s+(\d{4}-\d\d-\d\d(?:[T ][0-9:.]+Z?)?)\s*(?:—|–|--|-|:)?\s*(.*)$/;
const NEXT_RE = /^\s*(?:\*\*)?Next(?:\*\*)?\s*:\s*(?:\*\*)?\s*(.*)$/i;

/** Absolute path of progress.md. */
export function progressPath(agentDir: string): string {
  return path.join(agentDir, 'progress.md');
}

/** Parses progress.md into entries (text outside entries, such as a title, is ignored). */
export function parseProgress(text: string): ProgressEntry[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const out: ProgressEntry[] = [];
  let cur: { date: string; title: string; line: number; body: string[] } | undefined;
  const flush = () => {
    if (!cur) return;
    const done: string[] = [];
    const next: string[] = [];
    let inNext = false;
    for (const l of cur.body) {
      const m = NEXT_RE.exec(l);
      if (m && !inNext) {
        inNext = true;
        if (m[1]) next.push(m[1]);
      } else (inNext ? next : done).push(l);
    }
    const n = next.join('\n').trim();
    out.push({ date: cur.date, title: cur.title.trim(), line: cur.line, done: done.join('\n').trim(), next: n || undefined });
  };
  lines.forEach((l, i) => {
    const m = HEADING_RE.exec(l);
    if (m) {
      flush();
      cur = { date: m[1], title: m[2], line: i + 1, body: [] };
    } else if (cur) cur.body.push(l);
  });
  flush();
  return out;
}

/** Reads progress.md; a missing file is an empty log. */
export async function readProgress(agentDir: string): Promise<ProgressEntry[]> {
  try {
    return parseProgress(await fs.promises.readFile(progressPath(agentDir), 'utf8'));
  } catch {
    return [];
  }
}

interface TailState {
  total: number;
  /** The last few entries as raw lines (the last one may still grow), oldest first. */
  entries: { line: number; lines: string[] }[];
}

/** Entries kept by the tail summary (the briefing shows at most 5; the view a few more). */
export const PROGRESS_TAIL = 10;
const MAX_ENTRY_LINES = 400;

const TAIL_SPEC: FoldSpec<TailState> & { id: string } = {
  id: 'progress-tail',
  version: 1,
  init: () => ({ total: 0, entries: [] }),
  line(s, text, lineNo) {
    if (HEADING_RE.test(text)) {
      s.total++;
      s.entries.push({ line: lineNo, lines: [text] });
      if (s.entries.length > PROGRESS_TAIL) s.entries.shift();
    } else {
      const cur = s.entries[s.entries.length - 1];
      if (cur && cur.lines.length < MAX_ENTRY_LINES) cur.lines.push(text);
    }
  },
};

/**
 * The number of entries and the last `n` (at most PROGRESS_TAIL) of progress.md, folded
 * incrementally: a call reads only what was appended since the previous one in this process.
 */
export async function readProgressTail(agentDir: string, n = 5): Promise<{ total: number; entries: ProgressEntry[] }> {
  const { state } = await foldFile(progressPath(agentDir), TAIL_SPEC).read();
  const entries = state.entries.slice(-n).map((e) => ({ ...parseProgress(e.lines.join('\n'))[0], line: e.line }));
  return { total: state.total, entries };
}

/** Appends a dated entry (`## <ISO time> — title`, what was done, `Next:`) with one O_APPEND write. */
export async function appendProgress(
  agentDir: string,
  input: { title: string; done?: string; next?: string },
  opts: { now?: Date } = {},
): Promise<Result<{ path: string; entry: ProgressEntry }>> {
  const file = progressPath(agentDir);
  const relPath = path.relative(path.dirname(agentDir), file).split(path.sep).join('/');
  const title = (input.title ?? '').replace(/\s+/g, ' ').trim();
  if (!title) return err({ file: relPath, message: 'a progress entry needs a title (one line saying what was achieved)' });
  if (title.length > 200) return err({ file: relPath, message: `the title is ${title.length} characters; keep it under 200 and put details in "done"` });
  const clean = (s: string | undefined) => (s ?? '').replace(/\r\n?/g, '\n').replace(/^##(?=\s)/gm, '###').trim();
  const done = clean(input.done);
  const next = clean(input.next);
  if (done.length + next.length > 8000) return err({ file: relPath, message: 'the entry is over 8,000 characters; summarise it and point to a file' });
  const date = (opts.now ?? new Date()).toISOString().replace(/\.\d{3}Z$/, 'Z');
  let prefix = '';
  try {
    const st = await fs.promises.stat(file);
    if (st.size > 0) {
      const fh = await fs.promises.open(file, 'r');
      const b = Buffer.alloc(1);
      await fh.read(b, 0, 1, st.size - 1);
      await fh.close();
      prefix = b[0] === 10 ? '\n' : '\n\n';
    }
  } catch {
    prefix = '# Progress\n\n';
  }
  const body = [`## ${date} — ${title}`, ''];
  if (done) body.push(done, '');
  if (next) body.push(`Next: ${next}`, '');
  await appendLineAtomic(file, prefix + body.join('\n'));
  const { entries } = await readProgressTail(agentDir, 1);
  const entry = entries[entries.length - 1] ?? { date, title, done, next: next || undefined, line: 0 };
  return ok({ path: relPath, entry });
}
