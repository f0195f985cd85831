// Scroll regions (DECSTBM) and the rest of the screen model, compared with @xterm/headless on a
// small screen (8 rows) so that scrolling, margins and pinned rows are all exercised.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { renderStream } from '../../../../src/core/terminal/screen/terminalRenderer';
import { randomChunks } from './recordings';
import { xtermText } from './xtermOracle';

const ROWS = 8;
const lines = (from: number, to: number): string => Array.from({ length: to - from + 1 }, (_, i) => `line ${from + i}\r\n`).join('');

/** Trailing blank lines are not compared: the capture keeps blank lines above the cursor, xterm's text has none at the end. */
const trimEnd = (s: string): string => s.replace(/\n+$/, '\n').replace(/^\n$/, '');

async function sameAsXterm(stream: string): Promise<string> {
  const ours = renderStream([stream], { screenRows: ROWS });
  assert.equal(trimEnd(ours), await xtermText([stream], 80, ROWS), 'differs from @xterm/headless');
  for (const seed of [1, 2]) assert.equal(renderStream(randomChunks(stream, seed), { screenRows: ROWS }), ours, `chunking (seed ${seed}) changed the result`);
  return ours;
}

test('apt/dpkg fancy progress: region above a pinned bar on the last row, reset at the end (as xterm)', async () => {
  // What apt-get does: save, region 0..rows-1, restore, up one; per step the bar is drawn on the last row between ESC 7 / ESC 8.
  let s = 'Reading package lists... Done\r\n\n\x1b7\x1b[0;7r\x1b8\x1b[1A';
  for (let i = 1; i <= 20; i++) {
    s += `Setting up package-${i} ...\r\n`;
    s += `\x1b7\x1b[8;0f\x1b[42m\x1b[30mProgress: [${String(i * 5).padStart(3)}%]\x1b[49m\x1b[39m [${'#'.repeat(i)}${'.'.repeat(20 - i)}] \x1b8`;
  }
  s += '\x1b7\x1b[0;8r\x1b8\x1b[J';
  const out = await sameAsXterm(s);
  assert.ok(!out.includes('Progress'), out);
  assert.match(out, /^Reading package lists\.\.\. Done\nSetting up package-1 \.\.\.\n/);
  assert.match(out, /Setting up package-20 \.\.\.\n$/);
});

test('LF at the bottom margin scrolls only the region; rows above and below stay pinned (as xterm)', async () => {
  await sameAsXterm(`${lines(1, 8)}\x1b[3;6r\x1b[6;1H${lines(100, 104)}\x1b[r\x1b[8;1Hend`);
});

test('RI at the top margin scrolls the region down; CSI S / CSI T scroll it (as xterm)', async () => {
  await sameAsXterm(`${lines(1, 8)}\x1b[2;5r\x1b[2;1H\x1bM\x1bMnew top\x1b[r\x1b[8;1H`);
  await sameAsXterm(`${lines(1, 8)}\x1b[2;5r\x1b[2S\x1b[1T\x1b[r\x1b[8;1H`);
  await sameAsXterm(`${lines(1, 8)}\x1b[3S\x1b[8;1H`); // no region: the whole screen, nothing to history
});

test('IL / DL act inside the region only, the cursor goes to column 1 (as xterm)', async () => {
  await sameAsXterm(`${lines(1, 8)}\x1b[2;6r\x1b[3;4H\x1b[2Lx\x1b[5;1H\x1b[1My\x1b[7;1H\x1b[2Lz\x1b[r\x1b[8;1H`);
});

test('DECSTBM homes the cursor, invalid margins are ignored, DECOM makes positions relative (as xterm)', async () => {
  await sameAsXterm(`${lines(1, 8)}\x1b[3;6rH\x1b[6;3rI\x1b[?6h\x1b[1;1HO\x1b[9;1HB\x1b[?6l\x1b[r\x1b[8;1H`);
});

test('cursor movement stops at the margins and the screen edges, and cannot reach scrolled-off rows (as xterm)', async () => {
  await sameAsXterm(`${lines(1, 12)}\x1b[20Aup\x1b[3;6r\x1b[5;1H\x1b[9Ax\x1b[9By\x1b[r\x1b[8;1H`);
  await sameAsXterm(`${lines(1, 20)}\x1b[1;1Htop row\x1b[30;1Hbottom row\r\n`);
});

test('ED 2 scrolls the screen into history and keeps the cursor row; ED 1 blanks the screen above (as xterm)', async () => {
  await sameAsXterm(`${lines(1, 5)}\x1b[3;5H\x1b[2Jafter\r\n`);
  await sameAsXterm(`${lines(1, 12)}\x1b[4;3H\x1b[1Jx\x1b[8;1H`);
});

test('save/restore cursor follows the text when the screen scrolls (as xterm)', async () => {
  await sameAsXterm(`${lines(1, 6)}ab\x1b7${lines(7, 9)}\x1b8X\x1b[8;1H`);
});
