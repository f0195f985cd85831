/**
 * The newest entries of `.agent/progress.md` without parsing the whole log: the Plan view shows the
 * last few entries and the total, and must cost the same with 20,000 entries as with 20.
 *
 * The total and the line count come from a per-file tally (records/appendFold.ts) that is extended
 * with only the bytes appended since the last call (progress.md is append-only) and kept in
 * `.agent/.cache/` between processes, so a new window does not read the whole log again; a file
 * that shrank, was replaced (another inode) or rewritten is tallied again from the start. The
 * entries themselves come from the end of the file, read backwards until one more heading than
 * asked for has been seen.
 */
import * as fs from 'node:fs';
import { parseProgress, progressPath, type ProgressEntry } from './progress';
import { checkpointPath, foldFile, type FoldSpec } from '../fs/appendFold';

const HEADING_RE = /^##\s+\d{4}-\d\d-\d\d/;

/** Entry headings among the tallied lines (the line count is the fold's own). */
interface Tally {
  headings: number;
}

const TALLY_SPEC: FoldSpec<Tally> & { id: string } = {
  id: 'progress-tally',
  version: 1,
  init: () => ({ headings: 0 }),
  line(s, text) {
    if (text.startsWith('##') && HEADING_RE.test(text)) s.headings++;
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
    if (buf[start] === 0x23 && buf[start + 1] === 0x23 && HEADING_RE.test(buf.toString('utf8', start, Math.min(nl, start + 40)))) headings++;
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
  let t: { size: number; lines: number; headings: number };
  try {
    const fold = await foldFile(file, TALLY_SPEC, checkpointPath(agentDir, 'progress-tally')).read();
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
