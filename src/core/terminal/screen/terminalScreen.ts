/**
 * The mutable part behind TerminalRenderer: the terminal's visible screen (the last `screenRows`
 * rows) plus the rows that scrolled off it but were not handed out yet, and a cursor, with the
 * edits a terminal applies to them. Rows are logical lines (never wrapped) and stay plain strings
 * until something edits them in place; only then do they become cell arrays (one entry per cell;
 * a wide character takes its cell plus a '' tail).
 *
 * Commit policy (what may be handed to the file, which is append-only):
 * - a row that scrolled off the top of the screen is final (no terminal can reach it again);
 * - at end() everything is final;
 * - settle() additionally commits rows of the visible screen that are very unlikely to change:
 *   rows above the cursor that lie above everything the program ever reached with cursor
 *   addressing (its redraw area; absolute positioning, scroll regions and `clear` count as the
 *   whole screen), and that have been so for `idleCommitMs`. Such a row keeps its place on the
 *   screen (later absolute positions still land where they would), but edits to it are no longer
 *   recorded. This bounds how long a slow server's log line waits in memory.
 *
 * Kept as one unit of about 600 lines: every edit below reads and writes the same rows, cursor,
 * scroll region and redraw area, and split across files that state would have to be shared.
 */
import { codePointWidth, stringWidth } from './cellWidth';

/** Options of a TerminalRenderer; the defaults suit the capture pipeline. */
export interface RendererOptions {
  /** Height of the terminal's screen: what cursor addressing can reach. Default 50. */
  screenRows?: number;
  /** @deprecated ignored: the editable part is the screen (screenRows). */
  windowRows?: number;
  /** settle() commits rows still on the screen only after they have been out of the program's reach this long. Default 5000 ms. */
  idleCommitMs?: number;
  /** A longer line is broken in two (memory bound). Default 1 MiB characters. */
  maxLineLength?: number;
  /** The line that replaces an alternate-screen session. */
  altScreenMarker?: string;
}

/** The line written in place of a full-screen (alternate screen) program's output. */
export const ALT_SCREEN_MARKER = '[full-screen program output (alternate screen) not recorded]';

type Cell = string | null; // null: blank cell; '': right half of a wide character
class CellRow {
  constructor(public cells: Cell[]) {}
}
type Row = string | CellRow;

/** Rows above the screen are handed out in batches of this many (fewer array copies)... */
const BATCH = 64;
/**
 * ...or once this many characters came in since the last batch, so long lines do not pile up
 * (memory bound in bytes). Small: whatever the renderer holds survives the young-generation
 * collections and makes V8 grow its young generation (row 2 measures the RSS).
 */
const BATCH_CHARS = 64 * 1024;

function rowText(r: Row): string {
  if (typeof r === 'string') return r;
  const c = r.cells;
  let end = c.length;
  while (end > 0 && c[end - 1] === null) end--;
  let s = '';
  for (let i = 0; i < end; i++) {
    const v = c[i];
    s += v === null ? ' ' : v;
  }
  return s;
}

function rowWidth(r: Row): number {
  return typeof r === 'string' ? stringWidth(r) : r.cells.length;
}

function toCells(s: string): Cell[] {
  const cells: Cell[] = [];
  for (let i = 0; i < s.length; i++) {
    const u = s.charCodeAt(i);
    if (u < 0x300) {
      cells.push(s[i]);
      continue;
    }
    const cp = s.codePointAt(i)!;
    const ch = String.fromCodePoint(cp);
    if (cp > 0xffff) i++;
    const w = codePointWidth(cp);
    if (w === 0 && cells.length > 0) attach(cells, cells.length, ch);
    else if (w === 2) cells.push(ch, '');
    else cells.push(ch);
  }
  return cells;
}

/** Appends a zero-width code point to the character left of column x; false if there is none. */
function attach(cells: Cell[], x: number, ch: string): boolean {
  let p = x - 1;
  if (p >= 0 && cells[p] === '') p--;
  if (p < 0 || cells[p] === null || cells[p] === undefined) return false;
  cells[p] += ch;
  return true;
}

function put(cells: Cell[], x: number, ch: string, w: 1 | 2): void {
  while (cells.length < x) cells.push(null);
  if (cells[x] === '' && x > 0) cells[x - 1] = null; // overwriting the right half of a wide char
  if (w === 2 && cells[x + 2] === '') cells[x + 2] = null; // cell x+1 was a wide char's left half
  if (w === 1 && cells[x + 1] === '') cells[x + 1] = null; // cell x was a wide char's left half
  cells[x] = ch;
  if (w === 2) cells[x + 1] = '';
}

/** Rows, cursor and screen edits; TerminalRenderer adds the escape-sequence parser. */
export class TerminalScreen {
  /** rows[0] is absolute row `base`; the screen is rows[top .. top+screen-1] (missing ones are blank). */
  protected rows: Row[] = [''];
  protected base = 0;
  protected top = 0;
  /** Absolute index of the first row not handed out yet (rows before it may still be on screen). */
  protected committed = 0;
  protected cy = 0;
  protected cx = 0;
  /** The cursor sits at the end of rows[cy], which is a string (+ `pad` blank cells from tabs). */
  protected atEnd = true;
  protected pad = 0;
  /** Scroll region (DECSTBM), screen rows, inclusive; `region` is false for the whole screen. */
  protected marginTop = 0;
  protected marginBottom: number;
  protected region = false;
  protected origin = false;
  /** How far above the bottom row the program ever addressed (rows); the screen height once it used absolute positions. */
  protected reach = 0;
  protected alt = false;
  /** Saved cursor (DECSC): an absolute row, as xterm keeps it, so it follows the text when the screen scrolls. */
  protected saved: { row: number; col: number } | undefined;
  /** Lines handed out but not taken yet, without their `\n`. */
  protected out: string[] = [];
  /** Characters written since rows above the screen were last handed out. */
  protected sinceTrim = 0;
  private candidates: { t: number; upTo: number }[] = [];
  protected readonly screen: number;
  protected readonly idleMs: number;
  protected readonly maxLine: number;
  protected readonly marker: string;

  constructor(opts: RendererOptions = {}) {
    this.screen = Math.max(2, opts.screenRows ?? 50);
    this.marginBottom = this.screen - 1;
    this.idleMs = Math.max(0, opts.idleCommitMs ?? 5000);
    this.maxLine = Math.max(80, opts.maxLineLength ?? 1 << 20);
    this.marker = opts.altScreenMarker ?? ALT_SCREEN_MARKER;
  }

  /** Number of final lines returned so far. */
  get linesEmitted(): number {
    return this.committed;
  }

  /**
   * Commits what can no longer change (see the file comment): rows that scrolled off the screen,
   * and rows out of the program's reach for `idleCommitMs`. The capture calls this on its timer
   * (`now` in ms; tests pass a clock) so a slow server's log reaches the file within seconds.
   */
  settle(now: number = Date.now()): string {
    if (this.top > 0) this.dropAbove(this.top);
    // Rows out of reach now: above the cursor and above the program's redraw area.
    const bottom = this.base + this.rows.length - 1;
    const upTo = Math.min(this.base + this.cy, bottom - this.reach);
    const c = this.candidates;
    c.push({ t: now, upTo });
    // Keep the samples of the last idleMs, plus the newest older one (it shows what held since then).
    while (c.length > 1 && c[1].t <= now - this.idleMs) c.shift();
    if (c[0].t <= now - this.idleMs) {
      let min = Infinity;
      for (const s of c) min = Math.min(min, s.upTo);
      if (min > this.committed) this.commitTo(min);
    }
    return this.take();
  }

  /** Ends the stream: every line still held is final. Trailing blank lines below the cursor are dropped. */
  end(): string {
    this.curX();
    let last = this.rows.length - 1;
    while (last >= 0 && rowText(this.rows[last]) === '') last--;
    last = Math.max(last, this.cy - 1);
    if (last >= 0) this.dropAbove(last + 1);
    this.rows = [''];
    this.base = this.committed;
    this.top = 0;
    this.cy = 0;
    this.cx = 0;
    this.atEnd = true;
    this.pad = 0;
    this.alt = false;
    this.reach = 0;
    this.resetMargins();
    this.candidates = [];
    return this.take();
  }

  // ---- output -------------------------------------------------------------------------------

  /** The lines handed out since the last call, as one string (each line ends with `\n`). */
  protected take(): string {
    if (this.out.length === 0) return '';
    // One join per write(): a flat string made once, instead of a chain of concatenations per line
    // that the writer would copy again (less garbage per byte: the capture's memory, row 2).
    const s = this.out.join('\n') + '\n';
    this.out.length = 0;
    return s;
  }

  /** Hands out rows up to absolute index `abs` (exclusive) that were not handed out yet; they stay in place. */
  protected commitTo(abs: number): void {
    const from = Math.max(0, this.committed - this.base);
    const to = Math.min(this.rows.length, abs - this.base);
    if (to <= from) return;
    for (let i = from; i < to; i++) this.out.push(rowText(this.rows[i]));
    this.committed = this.base + to;
  }

  /** Removes the first k rows (above the screen, or everything at the end), handing out those not handed out yet. */
  protected dropAbove(k: number): void {
    this.commitTo(this.base + k);
    this.rows = this.rows.slice(k);
    this.base += k;
    this.cy -= k;
    this.top = Math.max(0, this.top - k);
  }

  /** Rows above the screen can never change: hand them out in batches. */
  protected trim(): void {
    if (this.top > BATCH || (this.top > 0 && this.sinceTrim > BATCH_CHARS)) {
      this.dropAbove(this.top);
      this.sinceTrim = 0;
    }
  }

  /** After rows were appended: the screen follows the last row. */
  protected follow(): void {
    const t = this.rows.length - this.screen;
    if (t > this.top) this.top = t;
  }

  /** Appends a chunk of text and CR LF line ends in one go; false (nothing done) if a CR or LF stands alone. */
  protected fastAppend(data: string): boolean {
    const hasCr = data.indexOf('\r') !== -1;
    const text = hasCr ? data.replaceAll('\r\n', '\n') : data;
    if (hasCr && text.indexOf('\r') !== -1) return false;
    const parts = text.split('\n');
    // every LF must have come with its CR: a bare LF moves down but keeps the column
    if (parts.length > 1 && data.length - text.length !== parts.length - 1) return false;
    const rows = this.rows;
    const first = this.cy;
    rows[first] = (rows[first] as string) + parts[0];
    for (let k = 1; k < parts.length; k++) rows.push(parts[k]);
    this.cy = rows.length - 1;
    if (text.length > this.maxLine || (rows[first] as string).length > this.maxLine) this.breakLong(first);
    this.follow();
    this.trim();
    return true;
  }

  /** Breaks string rows longer than maxLine, from row `from` down (they become several lines). */
  protected breakLong(from: number): void {
    for (let i = from; i < this.rows.length; i++) {
      const r = this.rows[i];
      if (typeof r === 'string' && r.length > this.maxLine) {
        this.rows.splice(i, 1, r.slice(0, this.maxLine), r.slice(this.maxLine));
        if (this.cy >= i) this.cy++;
      }
    }
    this.follow();
    if (this.cy < this.top) this.cy = this.top;
  }

  // ---- cursor and rows ------------------------------------------------------------------------

  /** The cells the cursor's row takes (an upper bound: trailing blank cells count). */
  protected rowWidth(): number {
    return rowWidth(this.rows[this.cy]);
  }

  /** An upper bound of the cursor's column and its row's width, in cells. */
  protected rowBound(): number {
    const r = this.rows[this.cy];
    return (typeof r === 'string' ? 2 * r.length : r.cells.length) + this.cx + this.pad;
  }

  /** The cursor column as a number, leaving the "at end of string row" state. */
  protected curX(): number {
    if (this.atEnd) {
      this.cx = stringWidth(this.rows[this.cy] as string) + this.pad;
      this.atEnd = false;
      this.pad = 0;
    }
    return this.cx;
  }

  protected cellsAt(y: number): Cell[] {
    const r = this.rows[y];
    if (typeof r !== 'string') return r.cells;
    const row = new CellRow(toCells(r));
    this.rows[y] = row;
    return row.cells;
  }

  /** Makes rows exist down to index y (the screen below the last row is blank). */
  protected ensure(y: number): void {
    while (this.rows.length <= y) this.rows.push('');
  }

  /** The cursor's row on the screen, 0-based. */
  protected screenY(): number {
    return this.cy - this.top;
  }

  /** Absolute positioning can reach the whole screen: nothing on it is out of reach any more. */
  protected addressed(): void {
    this.reach = this.screen;
  }

  /** Notes that the program reached row y with cursor addressing (its redraw area grows to there). */
  protected reached(y: number): void {
    const d = this.rows.length - 1 - y;
    if (d > this.reach) this.reach = d;
  }

  /** Moves to screen row sy (clamped to the screen) and column x. */
  protected moveTo(sy: number, x: number): void {
    const y = this.top + Math.max(0, Math.min(this.screen - 1, sy));
    this.ensure(y);
    this.cy = y;
    this.cx = Math.max(0, Math.min(this.maxLine, x));
    this.atEnd = false;
    this.pad = 0;
    this.reached(y);
  }

  /** Cursor up/down by n (negative: up), stopping at the scroll margins when it starts inside them (as xterm). */
  protected moveBy(n: number, x: number): void {
    const sy = this.screenY();
    let to = sy + n;
    if (n < 0 && sy >= this.marginTop) to = Math.max(this.marginTop, to);
    if (n > 0 && sy <= this.marginBottom) to = Math.min(this.marginBottom, to);
    this.moveTo(to, x);
  }

  /** Absolute screen row for CUP/VPA (1-based `r`), relative to the margins in origin mode. */
  protected absRow(r: number): number {
    if (!this.origin) return r - 1;
    return Math.min(this.marginBottom, this.marginTop + r - 1);
  }

  protected print(s: string): void {
    if (this.alt) return;
    if (this.atEnd) {
      const r = (this.rows[this.cy] as string) + (this.pad > 0 ? ' '.repeat(this.pad) : '') + s;
      this.pad = 0;
      this.rows[this.cy] = r;
      if (r.length > this.maxLine) this.breakLong(this.cy);
      return;
    }
    let x = this.cx;
    // A redraw from the first column that covers the whole row (a `\r` progress bar): replace it.
    if (x === 0 && s.length <= this.maxLine && codePointWidth(s.codePointAt(0)!) !== 0) {
      const old = this.rows[this.cy];
      if (old === '' || ((typeof old === 'string' ? old.length <= s.length : old.cells.length <= s.length) && rowWidth(old) <= stringWidth(s))) {
        this.rows[this.cy] = s;
        this.atEnd = true;
        this.pad = 0;
        return;
      }
    }
    const cells = this.cellsAt(this.cy);
    for (let i = 0; i < s.length; i++) {
      const u = s.charCodeAt(i);
      if (u < 0x300) {
        put(cells, x++, s[i], 1);
        continue;
      }
      const cp = s.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      if (cp > 0xffff) i++;
      const w = codePointWidth(cp);
      if (w === 0 && attach(cells, x, ch)) continue;
      put(cells, x, ch, w === 2 ? 2 : 1);
      x += w === 2 ? 2 : 1;
    }
    this.cx = x;
    if (x > this.maxLine) this.newLine(true);
  }

  /**
   * The region scrolls up by one row, the cursor keeping its screen row (LF at the bottom margin,
   * CSI S). `history`: the top row goes to the scrollback, which xterm does only when the region
   * starts at the top of the screen; otherwise it is lost.
   */
  protected scrollUp(history: boolean): void {
    const b = this.top + this.marginBottom;
    this.ensure(this.top + this.screen - 1);
    if (history && this.marginTop === 0) {
      if (b + 1 === this.rows.length) this.rows.push('');
      else this.rows.splice(b + 1, 0, '');
      this.top++;
      this.cy++;
    } else {
      this.rows.splice(this.top + this.marginTop, 1);
      this.rows.splice(b, 0, '');
    }
  }

  /** The region scrolls down by one (RI at the top margin, CSI T): a blank row at the top margin, the bottom one is lost. */
  protected scrollDown(): void {
    const t = this.top + this.marginTop;
    const b = this.top + this.marginBottom;
    this.ensure(this.top + this.screen - 1);
    this.rows.splice(b, 1);
    this.rows.splice(t, 0, '');
  }

  protected newLine(cr: boolean): void {
    if (this.alt) return;
    const x = cr ? 0 : this.curX();
    const sy = this.screenY();
    if (sy === this.marginBottom) {
      this.scrollUp(true);
    } else if (sy < this.screen - 1) {
      this.cy++;
      this.ensure(this.cy);
    }
    const fresh = this.rows[this.cy] === '';
    this.atEnd = fresh && x === 0;
    this.pad = 0;
    this.cx = x;
    this.trim();
  }

  /** RI (ESC M): up one row, scrolling the region down at its top margin. */
  protected reverseIndex(): void {
    if (this.alt) return;
    const x = this.curX();
    this.reach = this.screen;
    if (this.screenY() === this.marginTop) {
      this.scrollDown();
      this.cx = x;
      this.atEnd = false;
    } else {
      this.moveTo(this.screenY() - 1, x);
    }
  }

  protected carriageReturn(): void {
    if (this.alt) return;
    if (this.atEnd && this.rows[this.cy] === '') {
      this.pad = 0;
      return;
    }
    this.atEnd = false;
    this.pad = 0;
    this.cx = 0;
  }

  protected tab(): void {
    if (this.alt) return;
    if (this.atEnd) {
      const w = stringWidth(this.rows[this.cy] as string) + this.pad;
      this.pad += (Math.floor(w / 8) + 1) * 8 - w;
      return;
    }
    this.cx = Math.min(this.maxLine, (Math.floor(this.cx / 8) + 1) * 8);
  }

  protected eraseInLine(mode: number): void {
    if (mode === 0 && this.atEnd) return; // nothing right of the end; grep --color sends this per match
    const x = this.curX();
    if (mode === 2 || (mode === 0 && x === 0)) {
      this.rows[this.cy] = '';
      this.atEnd = x === 0;
      return;
    }
    const cells = this.cellsAt(this.cy);
    if (mode === 0) {
      if (cells[x] === '' && x > 0) cells[x - 1] = null;
      if (cells.length > x) cells.length = x;
    } else if (mode === 1) {
      if (cells[x + 1] === '') cells[x + 1] = null;
      for (let i = 0; i <= x && i < cells.length; i++) cells[i] = null;
    }
  }

  protected eraseInDisplay(mode: number): void {
    if (mode === 0) {
      this.eraseInLine(0);
      if (this.rows.length > this.cy + 1) this.rows.length = this.cy + 1;
    } else if (mode === 1) {
      for (let i = this.top; i < this.cy; i++) this.rows[i] = '';
      this.eraseInLine(1);
    } else if (mode === 2) {
      // `clear`: what was shown scrolls into the history (xterm with scrollOnEraseInDisplay), so
      // the append-only log keeps it; the cursor keeps its place on the now blank screen.
      this.reach = this.screen;
      const x = this.curX();
      const sy = this.screenY();
      let last = Math.min(this.rows.length, this.top + this.screen) - 1;
      while (last >= this.top && rowText(this.rows[last]) === '') last--;
      const n = last - this.top + 1;
      if (n > 0 && !this.region) {
        this.rows.length = last + 1;
        this.top += n;
        this.ensure(this.top + sy);
      } else {
        // as xterm: one region scroll per row (rows below the region stay)
        for (let k = 0; k < n; k++) this.scrollUp(true);
      }
      this.cy = this.top + sy;
      this.cx = x;
      this.atEnd = false;
      this.trim();
    }
  }

  /**
   * Entering the alternate screen inserts the marker line above the cursor's line; the cursor
   * keeps its place, which is where a real terminal puts it back on leaving (1049 restores it,
   * 47/1047 keep a separate cursor per screen). Everything in between is ignored.
   */
  protected setAlt(on: boolean): void {
    if (on === this.alt) return;
    if (on) {
      this.curX();
      this.rows.splice(this.cy, 0, this.marker);
      this.cy++;
      this.follow();
    }
    this.alt = on;
  }

  protected saveCursor(): void {
    this.saved = { row: this.base + this.cy, col: this.curX() };
  }

  protected restoreCursor(): void {
    if (this.alt) return;
    const s = this.saved ?? { row: 0, col: 0 };
    this.curX();
    this.addressed();
    this.moveTo(s.row - this.base - this.top, s.col);
  }

  protected resetMargins(): void {
    this.marginTop = 0;
    this.marginBottom = this.screen - 1;
    this.region = false;
    this.origin = false;
  }

  /** DECSTBM (CSI t;b r): sets the scroll region and homes the cursor; invalid values are ignored (as xterm). */
  protected setMargins(t: number, b: number): void {
    const top = Math.max(1, t || 1);
    const bottom = !b || b > this.screen ? this.screen : b;
    if (bottom <= top) return;
    this.curX();
    this.marginTop = top - 1;
    this.marginBottom = bottom - 1;
    this.region = this.marginTop !== 0 || this.marginBottom !== this.screen - 1;
    this.reach = this.screen;
    this.moveTo(this.origin ? this.marginTop : 0, 0);
  }

  protected setOrigin(on: boolean): void {
    this.origin = on;
    this.curX();
    this.moveTo(on ? this.marginTop : 0, 0);
  }

  protected reset(): void {
    this.alt = false;
    this.resetMargins();
    this.eraseInDisplay(2);
    this.moveTo(0, 0);
    this.saved = undefined;
  }

  // ---- parser -------------------------------------------------------------------------------

  protected editCells(n: number, op: 'insert' | 'delete' | 'erase'): void {
    const x = this.curX();
    const cells = this.cellsAt(this.cy);
    if (x >= cells.length) return;
    if (op === 'insert') cells.splice(x, 0, ...new Array<Cell>(Math.min(n, this.maxLine)).fill(null));
    else if (op === 'delete') cells.splice(x, n);
    else for (let i = x; i < x + n && i < cells.length; i++) cells[i] = null;
  }

  /** IL/DL (CSI L / CSI M): rows inside the scroll region shift; nothing happens outside it (as xterm). */
  protected insertLines(n: number, del: boolean): void {
    this.curX();
    const sy = this.screenY();
    this.cx = 0; // IL and DL put the cursor in the first column
    this.atEnd = false;
    if (sy < this.marginTop || sy > this.marginBottom) return;
    this.reach = Math.max(this.reach, this.rows.length - 1 - this.cy);
    const b = this.top + this.marginBottom;
    const k = Math.min(n, this.marginBottom - sy + 1);
    this.ensure(b);
    for (let i = 0; i < k; i++) {
      if (del) {
        this.rows.splice(this.cy, 1);
        this.rows.splice(b, 0, '');
      } else {
        this.rows.splice(b, 1);
        this.rows.splice(this.cy, 0, '');
      }
    }
  }
}
