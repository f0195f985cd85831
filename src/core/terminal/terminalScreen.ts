/**
 * The mutable window behind TerminalRenderer: the most recent logical lines (never wrapped) and
 * a cursor, with the edits a terminal applies to them. Rows stay plain strings until something
 * edits them in place; only then do they become cell arrays (one entry per terminal cell; a wide
 * character takes its cell plus a '' tail). Lines that leave the window are final: emit() moves
 * them to the output, which the renderer hands to its caller.
 */
import { codePointWidth, stringWidth } from './cellWidth';

/** Options of a TerminalRenderer; the defaults suit the capture pipeline. */
export interface RendererOptions {
  /** Lines kept editable (cursor-up can reach them). Default 200. */
  windowRows?: number;
  /** Height assumed for absolute cursor positioning (CUP/VPA). Default 50. */
  screenRows?: number;
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

const BATCH = 256;

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
  protected rows: Row[] = [''];
  protected cy = 0;
  protected cx = 0;
  /** The cursor sits at the end of rows[cy], which is a string (+ `pad` blank cells from tabs). */
  protected atEnd = true;
  protected pad = 0;
  protected emitted = 0;
  protected maxUp = 0;
  protected alt = false;
  protected saved: { row: number; col: number } | undefined;
  protected out: string[] = [];
  protected readonly window: number;
  protected readonly screen: number;
  protected readonly maxLine: number;
  protected readonly marker: string;

  constructor(opts: RendererOptions = {}) {
    this.window = Math.max(2, opts.windowRows ?? 200);
    this.screen = Math.max(1, opts.screenRows ?? 50);
    this.maxLine = Math.max(80, opts.maxLineLength ?? 1 << 20);
    this.marker = opts.altScreenMarker ?? ALT_SCREEN_MARKER;
  }

  /** Number of final lines returned so far. */
  get linesEmitted(): number {
    return this.emitted;
  }

  /**
   * Commits lines that are very unlikely to change any more: those above the cursor, minus twice
   * the furthest any cursor-up has reached (a redrawn multi-line progress display stays editable).
   * The capture calls this on its flush timer so a server's log reaches the file promptly.
   */
  settle(): string {
    const k = Math.min(this.cy, this.rows.length - 1 - 2 * this.maxUp);
    if (k > 0) this.emit(k);
    return this.take();
  }

  /** Ends the stream: every line still in the window is final. Trailing blank lines below the cursor are dropped. */
  end(): string {
    this.curX();
    let last = this.rows.length - 1;
    while (last >= 0 && rowText(this.rows[last]) === '') last--;
    last = Math.max(last, this.cy - 1);
    if (last >= 0) this.emit(last + 1);
    this.rows = [''];
    this.cy = 0;
    this.cx = 0;
    this.atEnd = true;
    this.pad = 0;
    this.alt = false;
    this.maxUp = 0;
    return this.take();
  }

  // ---- output -------------------------------------------------------------------------------

  protected take(): string {
    if (this.out.length === 0) return '';
    const s = this.out.length === 1 ? this.out[0] : this.out.join('');
    this.out = [];
    return s;
  }

  protected emit(k: number): void {
    const rows = this.rows;
    let s = '';
    for (let i = 0; i < k; i++) s += rowText(rows[i]) + '\n';
    this.out.push(s);
    this.rows = rows.slice(k);
    this.cy -= k;
    this.emitted += k;
  }

  protected trim(): void {
    if (this.rows.length > this.window + BATCH) {
      const k = Math.min(this.rows.length - this.window, this.cy);
      if (k > 0) this.emit(k);
    }
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
  }

  // ---- cursor and rows ------------------------------------------------------------------------

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

  protected moveTo(y: number, x: number): void {
    const bottom = this.rows.length - 1;
    this.cy = Math.max(0, Math.min(bottom, y));
    this.cx = Math.max(0, Math.min(this.maxLine, x));
    this.atEnd = false;
    this.pad = 0;
    if (bottom - this.cy > this.maxUp) this.maxUp = bottom - this.cy;
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
    const cells = this.cellsAt(this.cy);
    let x = this.cx;
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

  protected newLine(cr: boolean): void {
    if (this.alt) return;
    const x = cr ? 0 : this.curX();
    if (this.cy < this.rows.length - 1) {
      this.cy++;
    } else {
      this.rows.push('');
      this.cy++;
    }
    const fresh = this.rows[this.cy] === '';
    this.atEnd = fresh && x === 0;
    this.pad = 0;
    this.cx = x;
    if (this.rows.length > this.window + BATCH) this.trim();
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
    if (mode === 2) {
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
      this.rows.length = this.cy + 1;
    } else if (mode === 1) {
      for (let i = 0; i < this.cy; i++) this.rows[i] = '';
      this.eraseInLine(1);
    } else if (mode === 2) {
      // `clear`: keep what was shown (the log is append-only) and continue on a fresh screen.
      const x = this.curX();
      let last = this.rows.length - 1;
      while (last >= 0 && rowText(this.rows[last]) === '') last--;
      if (last >= 0) this.emit(last + 1);
      this.rows = [''];
      this.cy = 0;
      this.cx = x;
      this.atEnd = x === 0;
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
      if (this.saved) this.saved.row++;
    }
    this.alt = on;
  }

  protected saveCursor(): void {
    this.saved = { row: this.emitted + this.cy, col: this.curX() };
  }

  protected restoreCursor(): void {
    if (!this.saved || this.alt) return;
    this.moveTo(this.saved.row - this.emitted, this.saved.col);
  }

  protected reset(): void {
    this.alt = false;
    this.eraseInDisplay(2);
    this.cx = 0;
    this.atEnd = true;
    this.saved = undefined;
  }

  // ---- parser -------------------------------------------------------------------------------

  /** Row index for a 1-based screen row, the screen being the last `screenRows` lines. */
  protected screenRow(r: number): number {
    const top = Math.max(0, this.rows.length - this.screen);
    const y = top + r - 1;
    while (this.rows.length <= y && this.rows.length < top + this.screen) this.rows.push('');
    return y;
  }

  protected editCells(n: number, op: 'insert' | 'delete' | 'erase'): void {
    const x = this.curX();
    const cells = this.cellsAt(this.cy);
    if (x >= cells.length) return;
    if (op === 'insert') cells.splice(x, 0, ...new Array<Cell>(Math.min(n, this.maxLine)).fill(null));
    else if (op === 'delete') cells.splice(x, n);
    else for (let i = x; i < x + n && i < cells.length; i++) cells[i] = null;
  }

  protected insertLines(n: number): void {
    this.curX();
    for (let k = 0; k < Math.min(n, this.screen); k++) this.rows.splice(this.cy, 0, '');
    this.cx = 0; // IL and DL put the cursor in the first column
  }

  protected deleteLines(n: number): void {
    this.curX();
    this.rows.splice(this.cy, Math.min(n, this.rows.length - this.cy));
    while (this.rows.length <= this.cy) this.rows.push('');
    this.cx = 0;
  }
}
