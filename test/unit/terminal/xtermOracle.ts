// @xterm/headless (the parser VS Code's terminal uses) as the fidelity oracle for the renderer.
import { Terminal } from '@xterm/headless';

/** What xterm shows after the chunks, wrapped rows joined back into logical lines, trailing blank lines dropped. */
export async function xtermText(chunks: string[], cols = 80, rows = 24): Promise<string> {
  const term = new Terminal({ cols, rows, scrollback: 100000, allowProposedApi: true });
  for (const c of chunks) await new Promise<void>((resolve) => term.write(c, resolve));
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
