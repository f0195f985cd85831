import { cutToBytes } from './reference';

/**
 * `head` and as many whole `lines` as fit in `budget` bytes (joined with newlines), never a line
 * cut in the middle. When some do not fit, room (`reserve` bytes) is kept for a last line that
 * `more(left, from, room)` makes: how many are left, from which index, within `room` bytes. A
 * listing an agent reads must say what it did not show, not stop mid-word.
 */
export function linesWithin(head: readonly string[], lines: readonly string[], budget: number, more: (left: number, from: number, room: number) => string, reserve = 600): string {
  const out = [...head];
  let used = out.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0);
  let shown = 0;
  for (const line of lines) {
    const b = Buffer.byteLength(line) + 1;
    if (used + b > budget - (shown + 1 < lines.length ? reserve : 0)) break;
    out.push(line);
    used += b;
    shown++;
  }
  if (shown < lines.length) out.push(cutToBytes(more(lines.length - shown, shown, Math.max(0, budget - used - 1)), Math.max(0, budget - used - 1)));
  return out.join('\n');
}
