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
import { fsCause } from '../fs/fsErrors';
import { Result, ok, err } from '../result';
import { foldFile, type FoldSpec } from '../fs/appendFold';
import { cacheFile } from '../workspace/cacheFiles';
import { toPosixRelative } from '../workspace/relativePaths';
import { leadsOutside, outsideLinkMessage } from '../workspace/linkGuard';
import { agentPath } from '../workspace/layout';

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
  return agentPath(agentDir, 'progress');
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
  if (await leadsOutside(path.dirname(agentDir), progressPath(agentDir))) return [];
  try {
    return parseProgress(await fs.promises.readFile(progressPath(agentDir), 'utf8'));
  } catch {
    return [];
  }
}

/*
 * The newest entries of `.agent/progress.md` without parsing the whole log: the Plan view shows the
 * last few entries and the total, and must cost the same with 20,000 entries as with 20.
 *
 * The total and the line count come from a per-file tally (fs/appendFold.ts) that is extended
 * with only the bytes appended since the last call (progress.md is append-only) and kept in
 * `.agent/.cache/` between processes, so a new window does not read the whole log again; a file
 * that shrank, was replaced (another inode) or rewritten is tallied again from the start. The
 * entries themselves come from the end of the file, read backwards until one more heading than
 * asked for has been seen.
 */

/** A line that starts an entry (the tally's quick test; parseProgress reads the heading itself). */
const TALLY_HEADING_RE = /^##\s+\d{4}-\d\d-\d\d/;

/** Entry headings among the tallied lines (the line count is the fold's own). */
interface Tally {
  headings: number;
}

const TALLY_SPEC: FoldSpec<Tally> & { id: string } = {
  id: 'progress-tally',
  version: 1,
  init: () => ({ headings: 0 }),
  line(s, text) {
    if (text.startsWith('##') && TALLY_HEADING_RE.test(text)) s.headings++;
  },
};

/** Counts newlines and heading lines in `buf` (which starts at a line start and ends after a newline). */
function tallyBytes(buf: Buffer): { lines: number; headings: number } {
  let lines = 0;
  let headings = 0;
  let start = 0;
  for (;;) {
    const nl = buf.indexOf(10, start);
    if (nl === -1) break;
    // Only lines that start with "## " can be headings: test those few with the exact pattern.
    if (buf[start] === 0x23 && buf[start + 1] === 0x23 && TALLY_HEADING_RE.test(buf.toString('utf8', start, Math.min(nl, start + 40)))) headings++;
    lines++;
    start = nl + 1;
  }
  return { lines, headings };
}

async function readRange(fh: fs.promises.FileHandle, from: number, to: number): Promise<Buffer> {
  const buf = Buffer.alloc(to - from);
  let got = 0;
  while (got < buf.length) {
    const { bytesRead } = await fh.read(buf, got, buf.length - got, from + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return buf.subarray(0, got);
}

/** The newest `count` progress entries (newest last, with their real line numbers) and how many there are in all. */
export async function readProgressTail(agentDir: string, count: number): Promise<{ entries: ProgressEntry[]; total: number }> {
  const file = progressPath(agentDir);
  // A link out of the workspace is not read: as if there were no log (appendProgress says why).
  if (await leadsOutside(path.dirname(agentDir), file)) return { entries: [], total: 0 };
  let t: { size: number; lines: number; headings: number };
  try {
    const fold = await foldFile(file, TALLY_SPEC, cacheFile(agentDir, 'progressTally')).read();
    t = { size: fold.offset, lines: fold.lines, headings: fold.state.headings };
  } catch {
    return { entries: [], total: 0 }; // unreadable (not a file, no permission): as if there were no log
  }
  let fh: fs.promises.FileHandle;
  try {
    fh = await fs.promises.open(file, 'r');
  } catch {
    return { entries: [], total: 0 };
  }
  try {
    // Read backwards from the tallied end until count + 1 headings are in view (or the file start).
    let from = t.size;
    let chunk = 16 * 1024;
    let tail = Buffer.alloc(0);
    for (;;) {
      const next = Math.max(0, from - chunk);
      tail = Buffer.concat([await readRange(fh, next, from), tail]);
      from = next;
      chunk *= 2;
      if (from === 0) break;
      // Start at a line boundary so line numbers stay exact.
      const nl = tail.indexOf(10);
      if (nl === -1) continue;
      const aligned = tail.subarray(nl + 1);
      if (tallyBytes(aligned).headings > count) {
        from += nl + 1;
        tail = aligned;
        break;
      }
    }
    const tailLines = tallyBytes(tail).lines;
    const offset = t.lines - tailLines;
    const entries = parseProgress(tail.toString('utf8'))
      .map((e) => ({ ...e, line: e.line + offset }))
      .slice(-count);
    // A tail that starts inside an entry yields a fragment without a heading: parseProgress drops it.
    return { entries, total: t.headings };
  } finally {
    await fh.close();
  }
}

/** Appends a dated entry (`## <ISO time> — title`, what was done, `Next:`) with one O_APPEND write. */
export async function appendProgress(
  agentDir: string,
  input: { title: string; done?: string; next?: string },
  opts: { now?: Date } = {},
): Promise<Result<{ path: string; entry: ProgressEntry }>> {
  const file = progressPath(agentDir);
  const relPath = toPosixRelative(path.dirname(agentDir), file);
  const title = (input.title ?? '').replace(/\s+/g, ' ').trim();
  if (!title) return err({ file: relPath, message: 'a progress entry needs a title (one line saying what was achieved)' });
  const out = await leadsOutside(path.dirname(agentDir), file);
  if (out) return err({ file: relPath, message: outsideLinkMessage(out) });
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
  try {
    await appendLineAtomic(file, prefix + body.join('\n'));
  } catch (e) {
    return err({ file: relPath, message: `${fsCause(e)}; nothing was logged` });
  }
  const { entries } = await readProgressTail(agentDir, 1);
  const entry = entries[entries.length - 1] ?? { date, title, done, next: next || undefined, line: 0 };
  return ok({ path: relPath, entry });
}
