// The reference renderer for row 1: @xterm/headless (the parser of VS Code's own terminal) turning
// a raw stream into file text, line by line with translateToString(true).
import { Terminal } from '@xterm/headless';
import { Unicode11Addon } from '@xterm/addon-unicode11';
import { STREAM_MAX_COLS } from './streams';

/** A headless xterm set up as VS Code's terminal: Unicode 11 widths, `clear` scrolls into the history. */
export function vscodeXterm(cols: number, rows: number, scrollback: number): Terminal {
  const term = new Terminal({ cols, rows, scrollback, allowProposedApi: true, scrollOnEraseInDisplay: true });
  term.loadAddon(new Unicode11Addon());
  term.unicode.activeVersion = '11';
  return term;
}

/**
 * Renders chunks the way a mirror built on xterm would: write each chunk, then copy every line
 * above the cursor into the output (final: the generated streams never move the cursor up). A
 * marker on the first line not yet copied follows it as scrollback is trimmed, so with 10,000
 * lines of scrollback nothing is lost between chunks of 16 KB. Columns are wider than any
 * generated line, so nothing wraps. Trailing empty lines are dropped.
 */
export async function xtermRender(chunks: readonly string[], cols = STREAM_MAX_COLS + 16): Promise<string[]> {
  const term = vscodeXterm(cols, 24, 10_000);
  const out: string[] = [];
  let marker = term.registerMarker(0);
  let failure: Error | undefined;
  // Copy lines in each write's callback (run right after that chunk is parsed) rather than awaiting
  // every write: xterm batches queued writes, and a timer tick per chunk would be unfair to it.
  const copy = (): void => {
    const buf = term.buffer.active;
    const cursorAbs = buf.baseY + buf.cursorY;
    if (!marker || marker.isDisposed || marker.line < 0) {
      failure ??= new Error('xterm oracle: scrollback trimmed lines not yet copied (chunk too large)');
      return;
    }
    for (let i = marker.line; i < cursorAbs; i++) out.push(buf.getLine(i)?.translateToString(true) ?? '');
    marker.dispose();
    marker = term.registerMarker(0);
  };
  // xterm discards writes once more than 50 MB are queued: wait for the parser every 64 chunks (1 MB).
  for (let i = 0; i < chunks.length; i++) {
    if (i % 64 === 63 || i === chunks.length - 1) await new Promise<void>((resolve) => term.write(chunks[i], () => (copy(), resolve())));
    else term.write(chunks[i], copy);
  }
  if (failure) throw failure;
  const buf = term.buffer.active;
  for (let i = marker?.line ?? 0; i < buf.length; i++) out.push(buf.getLine(i)?.translateToString(true) ?? '');
  term.dispose();
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return out;
}

/** Splits rendered text into lines the way the oracle's are: right-trimmed, trailing empties dropped. */
export function normaliseLines(text: string): string[] {
  const lines = text.split('\n').map((l) => l.replace(/[ \r]+$/, ''));
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Percentage of line positions where both renderings agree (over the longer of the two). */
export function identicalPercent(ours: readonly string[], oracle: readonly string[]): { percent: number; firstDiff?: { line: number; ours: string; xterm: string } } {
  const n = Math.max(ours.length, oracle.length);
  if (n === 0) return { percent: 100 };
  let same = 0;
  let firstDiff: { line: number; ours: string; xterm: string } | undefined;
  for (let i = 0; i < n; i++) {
    if (ours[i] === oracle[i]) same++;
    else if (!firstDiff) firstDiff = { line: i + 1, ours: ours[i] ?? '(missing)', xterm: oracle[i] ?? '(missing)' };
  }
  return { percent: (same / n) * 100, firstDiff };
}
