/**
 * Terminal column widths of code points, close to what VS Code's terminal does with its
 * Unicode 11 widths: East Asian wide/fullwidth and emoji-presentation characters take two
 * cells, combining marks, zero-width joiners and variation selectors none, everything else one.
 */

const ZERO_WIDTH = /^[\p{Mn}\p{Me}\u200B-\u200F\u2028-\u202E\u2060-\u2064\uFE00-\uFE0F\u{E0100}-\u{E01EF}\u1160-\u11FF]$/u;
const EMOJI_WIDE = /^\p{Emoji_Presentation}$/u;

// East Asian Wide (W) and Fullwidth (F) ranges, start and end inclusive, sorted.
const WIDE: readonly number[] = [
  0x1100, 0x115f, 0x231a, 0x231b, 0x2329, 0x232a, 0x2e80, 0x303e, 0x3041, 0x33ff, 0x3400, 0x4dbf,
  0x4e00, 0x9fff, 0xa000, 0xa4cf, 0xa960, 0xa97f, 0xac00, 0xd7a3, 0xf900, 0xfaff, 0xfe10, 0xfe19,
  0xfe30, 0xfe6f, 0xff00, 0xff60, 0xffe0, 0xffe6, 0x16fe0, 0x16fe4, 0x17000, 0x18cff, 0x1b000, 0x1b2ff,
  0x1f200, 0x1f2ff, 0x20000, 0x2fffd, 0x30000, 0x3fffd,
];

function inWide(cp: number): boolean {
  let lo = 0;
  let hi = WIDE.length / 2 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cp < WIDE[mid * 2]) hi = mid - 1;
    else if (cp > WIDE[mid * 2 + 1]) lo = mid + 1;
    else return true;
  }
  return false;
}

// Widths already computed, + 1 (0: not yet): a flat table for the BMP (64 KB, an index is far
// cheaper than a Map lookup on box-drawing and block characters of progress bars), a Map beyond.
const bmp = new Uint8Array(0x10000);
const astral = new Map<number, 0 | 1 | 2>();

function computeWidth(cp: number): 0 | 1 | 2 {
  const ch = String.fromCodePoint(cp);
  return ZERO_WIDTH.test(ch) ? 0 : inWide(cp) || EMOJI_WIDE.test(ch) ? 2 : 1;
}

/** Number of terminal cells the code point occupies: 0 (combining), 1 or 2 (wide). */
export function codePointWidth(cp: number): 0 | 1 | 2 {
  if (cp < 0x300) return 1;
  if (cp < 0x10000) {
    const hit = bmp[cp];
    if (hit !== 0) return (hit - 1) as 0 | 1 | 2;
    const w = computeWidth(cp);
    bmp[cp] = w + 1;
    return w;
  }
  const hit = astral.get(cp);
  if (hit !== undefined) return hit;
  const w = computeWidth(cp);
  if (astral.size < 4096) astral.set(cp, w);
  return w;
}

/** Number of terminal cells a string occupies on one line. */
export function stringWidth(s: string): number {
  let w = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x300) {
      w++;
      continue;
    }
    const cp = s.codePointAt(i)!;
    if (cp > 0xffff) i++;
    w += codePointWidth(cp);
  }
  return w;
}
