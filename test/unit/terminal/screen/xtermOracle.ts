// @xterm/headless (the parser VS Code's terminal uses) as the fidelity oracle for the renderer,
// set up as VS Code's terminal is: Unicode 11 character widths, and `clear` scrolling the screen
// into the scrollback (scrollOnEraseInDisplay), which is what the capture's "clear keeps history" means.
import { Terminal } from '@xterm/headless';
import { Unicode11Addon } from '@xterm/addon-unicode11';

/** A headless xterm of the given size with VS Code's Unicode 11 widths. */
export function vscodeLikeXterm(cols: number, rows: number): Terminal {
  const term = new Terminal({ cols, rows, scrollback: 1_000_000, allowProposedApi: true, scrollOnEraseInDisplay: true });
  term.loadAddon(new Unicode11Addon());
  term.unicode.activeVersion = '11';
  return term;
}

/**
 * ED 3 (erase scrollback, sent by `clear` after ED 2) deletes history in xterm; the capture is an
 * append-only log and keeps it on purpose. The oracle gets the stream without it.
 */
export function withoutEraseScrollback(s: string): string {
  return s.replaceAll('\x1b[3J', '');
}

/** What xterm shows after the chunks, wrapped rows joined back into logical lines, trailing blank lines dropped. */
export async function xtermText(chunks: string[], cols = 80, rows = 24): Promise<string> {
  const term = vscodeLikeXterm(cols, rows);
  for (const c of chunks) await new Promise<void>((resolve) => term.write(withoutEraseScrollback(c), resolve));
  const buf = term.buffer.active;
  const lines: string[] = [];
  for (let i = 0; i < buf.length; i++) {
    const line = buf.getLine(i)!;
    const next = buf.getLine(i + 1);
    // a row continued on the next row keeps its full width; the last row of a logical line is trimmed
    const text = line.translateToString(!(next && next.isWrapped));
    if (line.isWrapped && lines.length > 0) lines[lines.length - 1] += text;
    else lines.push(text);
  }
  term.dispose();
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.length === 0 ? '' : lines.join('\n') + '\n';
}
