/**
 * Raw terminal stream → the text the terminal shows, as append-only `\n`-terminated lines.
 *
 * Model: the terminal's screen (the last `screenRows` logical lines, never wrapped at the
 * terminal's width) with a cursor and a scroll region (terminalScreen.ts). CR, BS, TAB,
 * erase-in-line/display, cursor up/down/forward/back/column/position, insert/delete chars and
 * lines, scroll up/down, index/reverse index, scroll margins (DECSTBM), origin mode and
 * save/restore cursor are applied as xterm applies them; SGR, OSC, DCS and every other escape are
 * dropped. A line that scrolls off the screen is final and returned by write(); settle() and end()
 * return the rest (see the commit policy in terminalScreen.ts). Alternate-screen programs (less,
 * vim) become one marker line.
 *
 * Speed: rows are plain strings until something edits them in place; only then are they turned
 * into a cell array (one entry per terminal cell, wide characters take a cell plus a tail).
 * A chunk with no escape or control bytes other than CRLF/LF, arriving with the cursor at the end
 * of the last line (the common case for build logs and servers), is appended with one split().
 * A `\r` progress bar's redraws that a later one wipes (an erase of the whole row) or covers (a
 * redraw from column 0 at least as wide as the row) are skipped: only what the row can still show
 * is parsed (overwrittenUpTo, coveredFrom).
 *
 * Known divergences from a real terminal, on purpose: nothing wraps; erase-display 2 (`clear`)
 * scrolls what was shown into the history (xterm's scrollOnEraseInDisplay) and erase-scrollback is
 * ignored, so the log keeps it; a line longer than `maxLineLength` characters is broken (bounded
 * memory); DEC line-drawing characters are not mapped.
 */
import { codePointWidth } from './cellWidth';
import { ALT_SCREEN_MARKER, RendererOptions, TerminalScreen } from './terminalScreen';

export { ALT_SCREEN_MARKER };
export type { RendererOptions };

const enum S { Ground, Esc, EscInter, Csi, Osc, Str, StrEsc }

// A chunk that the fast path cannot take: any control but CR and LF (fastAppend checks they pair up).
const NOT_FAST = /[\x00-\x09\x0b\x0c\x0e-\x1f\x7f-\x9f]/;
const ESCAPES = /[\x1b\x9b]/;
const STRING_END = /[\x07\x1b\x9c]/g;
// The first thing that does more than redraw the cursor's row (overwrittenUpTo): a control other than CR, or an
// escape other than CSI ... m (SGR), CSI ... K (erase in line) and CSI ? 25 h/l (cursor shown/hidden).
const NOT_SAME_ROW = /[\x00-\x0c\x0e-\x1a\x1c-\x1f\x7f-\x9f]|\x1b(?!\[[^\x00-\x1f\x40-\x7e]*[mK]|\[\?25[hl])/g;

/**
 * Looks ahead from `from` (a CR or ESC in ground state) over what only redraws the cursor's row:
 * printable text, CR, SGR, erase-in-line (any CSI ... K) and cursor show/hide (CSI ? 25 h/l).
 * Returns `reset`, the start of the last "CR, CSI K / CSI 0 K / CSI 2 K" or "CSI 2 K, CR" in that
 * stretch (after it the row is empty and the cursor in column 0 whatever came before, so
 * everything from `from` up to it can be skipped; `from` if there is none), and `scanned`, where
 * the look-ahead stopped (a control or sequence that does more, or the end of the data).
 */
export function overwrittenUpTo(data: string, from: number): { reset: number; scanned: number } {
  NOT_SAME_ROW.lastIndex = from;
  const end = NOT_SAME_ROW.test(data) ? NOT_SAME_ROW.lastIndex - 1 : data.length;
  // The last reset at or before `end` (only what precedes it is skipped, so it may run past `end`).
  for (let p = data.lastIndexOf('\r', end); p >= from; p = p > 0 ? data.lastIndexOf('\r', p - 1) : -1) {
    if (data.charCodeAt(p + 1) === 0x1b && data.charCodeAt(p + 2) === 0x5b) {
      const d = data.charCodeAt(p + 3);
      if (d === 0x4b || ((d === 0x30 || d === 0x32) && data.charCodeAt(p + 4) === 0x4b)) return { reset: p, scanned: end };
    }
    if (p - 4 >= from && data.charCodeAt(p - 1) === 0x4b && data.charCodeAt(p - 2) === 0x32 && data.charCodeAt(p - 3) === 0x5b && data.charCodeAt(p - 4) === 0x1b) {
      return { reset: p - 4, scanned: end };
    }
  }
  return { reset: from, scanned: end };
}

/**
 * For a stretch data[from, end) that overwrittenUpTo found to redraw only the cursor's row and
 * that starts with a CR: the start of the last CR whose following redraw (text and SGR only, up to
 * the next CR or `end`) is at least as wide as the row can be at that point (its width before
 * `from`, `rowWidth`, or the widest redraw since). That redraw overwrites every cell of the row,
 * so everything from `from` up to its CR can be skipped. Returns `from` if there is none.
 */
export function coveredFrom(data: string, from: number, end: number, rowWidth: number): number {
  let found = from;
  let widest = rowWidth;
  let start = from; // the CR that began the current redraw
  let w = 0;
  let plain = true; // no erase in it, and it does not begin with a zero-width character
  let i = from + 1;
  for (;;) {
    const c = i < end ? data.charCodeAt(i) : 0x0d;
    if (c === 0x0d) {
      if (plain && w >= widest && w > 0) found = start;
      if (w > widest) widest = w;
      if (i >= end) return found;
      start = i++;
      w = 0;
      plain = true;
      continue;
    }
    if (c === 0x1b) {
      // a CSI sequence (overwrittenUpTo let only SGR, erase in line and cursor show/hide through)
      let k = i + 2;
      let d = 0;
      for (; k < end; k++) {
        d = data.charCodeAt(k);
        if (d >= 0x40 && d <= 0x7e) break;
      }
      if (d === 0x4b) plain = false;
      i = k + 1;
      continue;
    }
    if (c < 0x300) {
      w++;
      i++;
      continue;
    }
    const cp = data.codePointAt(i)!;
    const cw = codePointWidth(cp);
    if (cw === 0 && w === 0) plain = false;
    w += cw;
    i += cp > 0xffff ? 2 : 1;
  }
}

/** Streaming renderer; see the file comment. write(), settle() and end() return newly final lines. */
export class TerminalRenderer extends TerminalScreen {
  private state = S.Ground;
  private csi = '';

  /** Feeds raw terminal data; returns the lines that became final (each ends with `\n`), often ''. */
  write(data: string): string {
    if (data.length === 0) return '';
    this.sinceTrim += data.length;
    if (this.state === S.Ground) {
      if (this.alt) {
        if (!ESCAPES.test(data)) return '';
      } else if (this.atEnd && this.pad === 0 && !this.region && this.cy === this.rows.length - 1 && !NOT_FAST.test(data) && this.fastAppend(data)) {
        return this.take();
      }
    }
    this.parse(data);
    this.trim();
    return this.take();
  }

  /** Ends the stream: every line still held is final. Trailing blank lines below the cursor are dropped. */
  override end(): string {
    this.state = S.Ground;
    this.csi = '';
    return super.end();
  }

  private parse(data: string): void {
    const n = data.length;
    let i = 0;
    // Positions before this were already looked ahead from (overwrittenUpTo) without a skip: do not scan them twice.
    let scanned = 0;
    while (i < n) {
      switch (this.state) {
        case S.Ground: {
          let j = i;
          while (j < n) {
            const c = data.charCodeAt(j);
            if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) break;
            j++;
          }
          if (j > i) this.print(data.slice(i, j));
          if (j >= n) return;
          const c = data.charCodeAt(j);
          if (j >= scanned && (c === 0x0d ? data.charCodeAt(j + 1) !== 0x0a : c === 0x1b && data.charCodeAt(j + 1) === 0x5b && data.charCodeAt(j + 2) === 0x32 && data.charCodeAt(j + 3) === 0x4b) && !this.alt) {
            // A `\r` progress bar: redraws of the cursor's row that a later full erase of that row wipes change nothing.
            const to = overwrittenUpTo(data, j);
            scanned = to.scanned;
            let skipTo = to.reset;
            // No erase: a CR redraw that covers every cell the row can hold by then (cargo, docker style bars).
            if (skipTo === j && c === 0x0d) skipTo = coveredFrom(data, j, to.scanned, this.rowWidth());
            if (skipTo > j && this.rowBound() + 2 * (skipTo - j) <= this.maxLine) {
              i = skipTo;
              break;
            }
          }
          i = j + 1;
          if (c === 0x1b && i < n && data.charCodeAt(i) === 0x5b) {
            // The commonest sequence by far is SGR (colours): skip it without building strings.
            let k = i + 1;
            for (; k < n; k++) {
              const d = data.charCodeAt(k);
              if ((d >= 0x40 && d <= 0x7e) || d < 0x20) break;
            }
            if (k < n && data.charCodeAt(k) === 0x6d) {
              i = k + 1;
              break;
            }
            this.state = S.Csi;
            this.csi = '';
            i++;
            break;
          }
          this.control(c);
          break;
        }
        case S.Esc:
          i = this.escape(data, i);
          break;
        case S.EscInter: {
          const c = data.charCodeAt(i++);
          if (c >= 0x30 && c <= 0x7e) this.state = S.Ground;
          else if (c === 0x1b) this.state = S.Esc;
          break;
        }
        case S.Csi: {
          let k = i;
          let c = 0;
          for (; k < n; k++) {
            c = data.charCodeAt(k);
            if ((c >= 0x40 && c <= 0x7e) || c < 0x20) break;
          }
          if (k === n) {
            if (this.csi.length < 256) this.csi += data.slice(i, n);
            return;
          }
          const params = this.csi.length > 0 ? this.csi + data.slice(i, k) : data.slice(i, k);
          this.csi = '';
          i = k + 1;
          if (c < 0x20) {
            // A control inside a sequence: ESC restarts it, CAN/SUB abort it, others execute (as xterm does).
            if (c === 0x1b) this.state = S.Esc;
            else if (c === 0x18 || c === 0x1a) this.state = S.Ground;
            else {
              this.control(c);
              this.csi = params;
            }
            break;
          }
          this.state = S.Ground;
          this.dispatchCsi(params, c);
          break;
        }
        case S.Osc:
        case S.Str: {
          STRING_END.lastIndex = i;
          const m = STRING_END.exec(data);
          if (!m) return;
          i = m.index + 1;
          const c = data.charCodeAt(m.index);
          this.state = c === 0x1b ? S.StrEsc : c === 0x07 && this.state === S.Str ? S.Str : S.Ground;
          break;
        }
        case S.StrEsc:
          // ESC \ ends the string; any other ESC x starts a new sequence with x.
          if (data.charCodeAt(i) === 0x5c) {
            i++;
            this.state = S.Ground;
          } else {
            this.state = S.Esc;
          }
          break;
      }
    }
  }

  private control(c: number): void {
    switch (c) {
      case 0x0a: case 0x0b: case 0x0c: this.newLine(false); break;
      case 0x0d: this.carriageReturn(); break;
      case 0x08: if (!this.alt) this.moveTo(this.screenY(), this.curX() - 1); break;
      case 0x09: this.tab(); break;
      case 0x1b: this.state = S.Esc; break;
      case 0x9b: this.state = S.Csi; this.csi = ''; break;
      case 0x9d: this.state = S.Osc; break;
      case 0x90: case 0x98: case 0x9e: case 0x9f: this.state = S.Str; break;
      default: break; // BEL, NUL, SO/SI and the rest change nothing visible
    }
  }

  private escape(data: string, i: number): number {
    const c = data.charCodeAt(i);
    this.state = S.Ground;
    switch (c) {
      case 0x5b: this.state = S.Csi; this.csi = ''; break; // [
      case 0x5d: this.state = S.Osc; break; // ]
      case 0x50: case 0x58: case 0x5e: case 0x5f: this.state = S.Str; break; // P X ^ _
      case 0x37: this.saveCursor(); break; // 7
      case 0x38: this.restoreCursor(); break; // 8
      case 0x44: this.newLine(false); break; // D (IND)
      case 0x45: this.newLine(true); break; // E (NEL)
      case 0x4d: this.reverseIndex(); break; // M (RI)
      case 0x63: this.reset(); break; // c (RIS)
      case 0x1b: this.state = S.Esc; break;
      case 0x18: case 0x1a: break;
      default:
        if (c >= 0x20 && c <= 0x2f) this.state = S.EscInter; // ESC ( B and friends
        break;
    }
    return i + 1;
  }

  private dispatchCsi(params: string, final: number): void {
    if (final === 0x6d) return; // m: colours and attributes
    const priv = params.length > 0 && params.charCodeAt(0) >= 0x3c && params.charCodeAt(0) <= 0x3f ? params[0] : '';
    const body = priv ? params.slice(1) : params;
    if (final === 0x68 || final === 0x6c) {
      // h / l: the alternate screen and origin mode (DECOM) matter
      if (priv === '?') {
        for (const p of body.split(';')) {
          if (p === '1049' || p === '47' || p === '1047') this.setAlt(final === 0x68);
          else if (p === '6' && !this.alt) this.setOrigin(final === 0x68);
        }
      }
      return;
    }
    if (this.alt || priv || /[\x20-\x2f]/.test(body)) return;
    const ps = body.length === 0 ? [] : body.split(';').map((p) => parseInt(p, 10));
    const a = ps[0] || 0;
    const n = Math.max(1, a);
    switch (final) {
      case 0x4b: this.eraseInLine(a); break; // K
      case 0x4a: this.eraseInDisplay(a); break; // J
      case 0x41: this.moveBy(-n, this.curX()); break; // A
      case 0x42: case 0x65: this.moveBy(n, this.curX()); break; // B e
      case 0x43: case 0x61: this.moveTo(this.screenY(), this.curX() + n); break; // C a
      case 0x44: this.moveTo(this.screenY(), this.curX() - n); break; // D
      case 0x45: this.curX(); this.moveBy(n, 0); break; // E
      case 0x46: this.curX(); this.moveBy(-n, 0); break; // F
      case 0x47: case 0x60: this.curX(); this.moveTo(this.screenY(), n - 1); break; // G `
      case 0x48: case 0x66: this.curX(); this.addressed(); this.moveTo(this.absRow(n), Math.max(1, ps[1] || 0) - 1); break; // H f
      case 0x64: { const x = this.curX(); this.addressed(); this.moveTo(this.absRow(n), x); break; } // d
      case 0x40: this.editCells(n, 'insert'); break; // @
      case 0x50: this.editCells(n, 'delete'); break; // P
      case 0x58: this.editCells(n, 'erase'); break; // X
      case 0x4c: this.insertLines(n, false); break; // L
      case 0x4d: this.insertLines(n, true); break; // M
      case 0x53: this.curX(); this.addressed(); for (let k = 0; k < Math.min(n, this.screen); k++) this.scrollUp(false); this.atEnd = false; break; // S
      case 0x54: this.curX(); this.addressed(); for (let k = 0; k < Math.min(n, this.screen); k++) this.scrollDown(); this.atEnd = false; break; // T
      case 0x72: this.setMargins(ps[0] || 0, ps[1] || 0); break; // r
      case 0x73: if (body.length === 0) this.saveCursor(); break; // s
      case 0x75: this.restoreCursor(); break; // u
      default: break;
    }
  }
}

/**
 * What a terminal's line discipline does to a program's output (the tty's `onlcr`): a newline also
 * returns the cursor to the line's start. Output read from a pipe has bare `\n`, which the renderer,
 * like xterm, takes as a line feed alone.
 */
export function onlcr(text: string): string {
  return text.replace(/\n/g, '\r\n');
}

/** A program's whole output as read from a pipe (not a pty), as a terminal would have shown it. */
export function renderPipeOutput(text: string): string {
  return renderStream([onlcr(text)]);
}

/** Renders a whole stream at once (tests and benchmarks): the text the terminal showed. */
export function renderStream(chunks: Iterable<string>, opts?: RendererOptions): string {
  const r = new TerminalRenderer(opts);
  let out = '';
  for (const c of chunks) out += r.write(c);
  return out + r.end();
}
