import * as fs from 'node:fs';
import { fenceData } from '../output/fence';
import { cutToBytes } from '../output/reference';
import { estimateTokensFromBytes } from '../output/tokens';
import { resolveWorkspacePath } from '../workspace/workspacePaths';
import { TOOL_ANSWER_MAX_BYTES, toolError, type ToolContext, type ToolOutcome } from './toolContext';
import { groupDigits, plural } from '../output/humanize';

/** Longest line shown in full; longer ones are cut with their length noted. */
const LINE_MAX_BYTES = 500;
/** What read puts around the lines: the header (path, range, total), the data fence and the "read on" line. */
const READ_FRAME_BYTES = 500;
/** Up to this size the total line count is worth a full pass; beyond it the header gives bytes only. */
const COUNT_ALL_MAX_BYTES = 64 * 1024 * 1024;
const MAX_LIMIT = 5000;

/** True when the first bytes look binary: a NUL, or many bytes that are not valid UTF-8 text. */
export function looksBinary(head: Buffer): boolean {
  if (head.includes(0)) return true;
  if (head.length === 0) return false;
  const text = head.toString('utf8');
  let bad = 0;
  for (const ch of text) if (ch === '\uFFFD') bad++;
  // A multi-byte character cut at the end of the sample yields one replacement: allow a few.
  return bad > 4 && bad / text.length > 0.05;
}

/** Reads the first `n` bytes of a file. */
export async function readHead(file: string, n = 8192): Promise<Buffer> {
  const fh = await fs.promises.open(file, 'r');
  try {
    const buf = Buffer.alloc(n);
    const { bytesRead } = await fh.read(buf, 0, n, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

interface LineSlice {
  lines: { n: number; text: string; fullBytes: number }[];
  total?: number;
}

/** Streams a file to lines [from, to] (1-based), never holding more than those lines; counts all lines when asked. */
async function sliceLines(file: string, from: number, to: number, countAll: boolean, signal: AbortSignal): Promise<LineSlice> {
  const out: LineSlice['lines'] = [];
  let lineNo = 1;
  let cur: Buffer[] = [];
  let curBytes = 0;
  let sinceNl = 0;
  const stream = fs.createReadStream(file, { highWaterMark: 1 << 20, signal });
  let endedEarly = false;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let pos = 0;
      while (pos <= chunk.length) {
        const nl = chunk.indexOf(10, pos);
        const end = nl < 0 ? chunk.length : nl;
        if (lineNo >= from && lineNo <= to && curBytes < LINE_MAX_BYTES + 8) {
          cur.push(chunk.subarray(pos, Math.min(end, pos + LINE_MAX_BYTES + 8 - curBytes)));
        }
        if (lineNo >= from && lineNo <= to) curBytes += end - pos;
        if (nl < 0) {
          sinceNl += end - pos;
          break;
        }
        sinceNl = 0;
        if (lineNo >= from && lineNo <= to) {
          out.push({ n: lineNo, text: Buffer.concat(cur).toString('utf8').replace(/\r$/, ''), fullBytes: curBytes });
        }
        cur = [];
        curBytes = 0;
        lineNo++;
        pos = nl + 1;
        if (lineNo > to && !countAll) {
          endedEarly = true;
          break;
        }
      }
      if (endedEarly) break;
    }
  } finally {
    stream.destroy();
  }
  // A last line without a trailing newline.
  if (!endedEarly && sinceNl > 0) {
    if (lineNo >= from && lineNo <= to) out.push({ n: lineNo, text: Buffer.concat(cur).toString('utf8'), fullBytes: curBytes });
    return { lines: out, total: lineNo };
  }
  return { lines: out, total: endedEarly ? undefined : lineNo - 1 };
}

/** agentContext_read: numbered lines of a workspace file, streamed to the wanted range, within the byte budget. */
export async function readTool(input: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutcome> {
  const r = await resolveWorkspacePath(ctx.folders, String(input.path ?? ''));
  if (!r.ok) return toolError(`${r.error.file}: ${r.error.message}`);
  const p = r.value;
  const st = await fs.promises.stat(p.abs).catch(() => undefined);
  if (!st) return toolError(`${p.display}: no such file; find it with agentContext_glob`);
  if (st.isDirectory()) return toolError(`${p.display} is a folder; list it with agentContext_glob (pattern "*", path "${p.display}")`);
  if (!st.isFile()) return toolError(`${p.display} is not a regular file`);
  const size = groupDigits(st.size);
  if (looksBinary(await readHead(p.abs))) {
    return { text: `${p.display}: binary file (${size} bytes); not shown. Inspect it with a suitable command via agentContext_run if needed.` };
  }
  const from = (input.offset as number | undefined) ?? 1;
  const limit = Math.min(MAX_LIMIT, (input.limit as number | undefined) ?? ctx.config.readDefaultLines);
  const to = from + limit - 1;
  let slice: LineSlice;
  try {
    slice = await sliceLines(p.abs, from, to, st.size <= COUNT_ALL_MAX_BYTES, ctx.signal);
  } catch (e) {
    if (ctx.signal.aborted) return toolError('cancelled');
    return toolError(`${p.display}: cannot read: ${(e as Error).message}`);
  }
  const total = slice.total;
  if (slice.lines.length === 0) {
    if (st.size === 0) return { text: `${p.display}: empty file` };
    return toolError(`${p.display} has ${total !== undefined ? `${plural(total, 'line')}` : `fewer than ${from} lines`}; offset ${from} is past the end`);
  }
  // Budget: the inline byte cap and the token threshold (≈4 bytes a token), whichever is smaller.
  const budget = Math.min(TOOL_ANSWER_MAX_BYTES - READ_FRAME_BYTES, ctx.config.offloadThresholdTokens * 4);
  const body: string[] = [];
  let used = 0;
  let lastShown = from - 1;
  for (const l of slice.lines) {
    let line = `${l.n}: ${l.text}`;
    if (l.fullBytes > LINE_MAX_BYTES) line = `${cutToBytes(`${l.n}: ${l.text}`, LINE_MAX_BYTES)} [line is ${groupDigits(l.fullBytes)} bytes; cut]`;
    const b = Buffer.byteLength(line, 'utf8') + 1;
    if (used + b > budget && body.length > 0) break;
    body.push(line);
    used += b;
    lastShown = l.n;
  }
  const of = total !== undefined ? ` of ${groupDigits(total)}` : '';
  const header = `${p.display}: lines ${from}–${lastShown}${of} (${size} bytes)`;
  let tail = '';
  const wanted = Math.min(to, total ?? to);
  if (lastShown < wanted) {
    const per = Math.max(1, lastShown - from + 1);
    tail = `\nStopped at line ${lastShown}: lines ${from}–${wanted} are over the ${Math.round(budget / 1024)} KB budget. Continue with offset ${lastShown + 1} and limit ${per}, or agentContext_grep for what you need.`;
  } else if (total === undefined || lastShown < total) {
    tail = `\nMore: offset ${lastShown + 1}.`;
  }
  const text = `${fenceData(header, body.join('\n'))}${tail}`;
  // The file is what a plain read would have handed the model: its size is the raw cost.
  return { text, rawTokens: estimateTokensFromBytes(st.size).tokens };
}
