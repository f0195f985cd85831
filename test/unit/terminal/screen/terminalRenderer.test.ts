import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ALT_SCREEN_MARKER, TerminalRenderer, coveredFrom, overwrittenUpTo, renderStream } from '../../../../src/core/terminal/screen/terminalRenderer';
import { xtermText } from './xtermOracle';
import { STREAM_MAX_COLS, progressBars } from '../../../../bench/streams';
import { repoRoot } from '../../../repoRoot';

const FIXTURES = path.join(repoRoot, 'test/fixtures/streams');
const fixture = (name: string): string => fs.readFileSync(path.join(FIXTURES, name + '.raw'), 'utf8');

/** Feeds the stream whole, then in every chunking of a few sizes: the result must not depend on chunk boundaries. */
function render(stream: string): string {
  const whole = renderStream([stream]);
  for (const size of [1, 2, 3, 7, 64]) {
    const chunks: string[] = [];
    for (let i = 0; i < stream.length; i += size) chunks.push(stream.slice(i, i + size));
    assert.equal(renderStream(chunks), whole, `chunk size ${size} changed the result`);
  }
  return whole;
}

async function sameAsXterm(stream: string, cols = 200): Promise<string> {
  const ours = render(stream);
  assert.equal(ours, await xtermText([stream], cols), 'differs from @xterm/headless');
  return ours;
}

test('printf "a\\rb\\n" shows b, and abc\\rx shows xbc (as xterm)', async () => {
  assert.equal(await sameAsXterm(fixture('printf-cr')), 'b\n');
  assert.equal(await sameAsXterm('abc\rx'), 'xbc\n');
});

test('a recorded 100-step \\r progress bar leaves only its final state (as xterm)', async () => {
  const out = await sameAsXterm(fixture('progress'));
  const lines = out.split('\n');
  assert.match(lines[0], /^progress 100% \[#{50}\]$/);
  assert.equal(lines[1], 'done');
  assert.equal(out.match(/progress/g)!.length, 1);
});

test('a recorded cursor-up multi-line progress display leaves its final frame (as xterm)', async () => {
  assert.equal(await sameAsXterm(fixture('cursor-up')), 'task A: step 3/3\ntask B: step 3/3\ntask C: step 3/3\nfinished\n');
});

test('colours and other escapes are stripped (recorded ls/grep --color, as xterm)', async () => {
  const out = await sameAsXterm(fixture('colors'));
  assert.ok(!out.includes('\x1b'));
  assert.match(out, /^error: ok\n\/etc +\/tmp +\/usr\nsome match here\n$/);
});

test('CJK, emoji and combining marks stay intact (recorded, as xterm)', async () => {
  const out = await sameAsXterm(fixture('unicode'));
  assert.equal(out, '日本語テキスト\nemoji 👍🏽 👨‍👩‍👧 ok\ncombining e\u0301 a\u030a\n汉文\n');
});

test('a line three times the terminal width stays one line', async () => {
  const out = await sameAsXterm(fixture('long-line'), 100);
  assert.equal(out, 'x'.repeat(300) + 'END\n');
});

test('tabs expand to 8-column stops (as xterm)', async () => {
  assert.equal(await sameAsXterm(fixture('tabs')), 'a       b       c\n1234567890      x\n');
});

test('a recorded less session becomes one marker line', () => {
  const out = render(fixture('less'));
  assert.equal(out, `${ALT_SCREEN_MARKER}\nafter-less\n`);
});

test('text around an alternate-screen session is kept, the session is not', () => {
  // The marker goes above the line the cursor was on; the terminal puts the cursor back there on leaving.
  assert.equal(render('before\r\n\x1b[?1049hvim stuff\x1b[10;1Hmore\x1b[?1049lafter\r\n'), `before\n${ALT_SCREEN_MARKER}\nafter\n`);
  assert.equal(render('x\r\n\x1b[?47hA\r\nB\x1b[?47ly\r\n'), `x\n${ALT_SCREEN_MARKER}\ny\n`);
});

test('erase in line, backspace, cursor column and insert/delete characters behave like xterm', async () => {
  await sameAsXterm('hello world\x1b[6D\x1b[Kthere\r\n');
  await sameAsXterm('abcdef\b\b\bX\r\n');
  await sameAsXterm('abcdef\x1b[3G\x1b[2P\r\n');
  await sameAsXterm('abcdef\x1b[3G\x1b[2@\r\n');
  await sameAsXterm('abcdef\x1b[3G\x1b[2X\r\n');
  await sameAsXterm('abcdef\x1b[3G\x1b[1K\r\n');
  await sameAsXterm('abc\x1b[2K\rxy\r\n');
  await sameAsXterm('one\r\ntwo\r\nthree\x1b[2A\x1b[2Cz\x1b[2B\r\n');
  await sameAsXterm('one\ntwo\nthree\r\n'); // bare LF keeps the column
  await sameAsXterm('ab\x1b7cd\x1b8X\r\n');
  await sameAsXterm('日本\x1b[1GX\r\n'); // overwriting the left half of a wide char
  await sameAsXterm('日本\x1b[2GX\r\n'); // overwriting the right half of a wide char
  await sameAsXterm('a\r\nb\r\nc\x1b[1A\x1b[1LX\r\n'); // insert line
  await sameAsXterm('a\r\nb\r\nc\r\nd\x1b[2A\x1b[1M\r\n'); // delete line
  await sameAsXterm('a\r\nb\r\nc\x1b[2;2HX\x1b[3;1H\r\n', 200); // absolute position (screen = 50 rows here, 24 in xterm: both start at row 1)
});

test('OSC (shell integration, titles, hyperlinks) and DCS strings are dropped, even split', async () => {
  const s = '\x1b]633;C\x07\x1b]0;title\x1b\\\x1b]8;;http://x\x07link\x1b]8;;\x07 \x1bP1$r0m\x1b\\done\r\n\x1b]633;D;0\x07';
  assert.equal(await sameAsXterm(s), 'link done\n');
});

test('lines that leave the window are emitted while streaming; the file is append-only', () => {
  const r = new TerminalRenderer({ screenRows: 10 });
  let out = '';
  for (let i = 1; i <= 2000; i++) out += r.write(`line ${i}\r\n`);
  assert.ok(out.length > 0, 'nothing emitted before end()');
  assert.ok(r.linesEmitted >= 2000 - 10 - 256);
  out += r.end();
  assert.equal(out, Array.from({ length: 2000 }, (_, i) => `line ${i + 1}\n`).join(''));
});

test('settle() commits lines above a plain-output cursor once they sat for idleCommitMs, never a redrawn display', () => {
  const r = new TerminalRenderer();
  assert.equal(r.write('server listening\r\nGET /\r\n'), '');
  assert.equal(r.settle(0), '', 'still on screen and fresh: kept');
  assert.equal(r.settle(4500), '');
  assert.equal(r.settle(5000), 'server listening\nGET /\n', 'on disk 5 s after it was printed');
  assert.equal(r.write('GET /favicon\r\n'), '');
  assert.equal(r.settle(5500), '');
  assert.equal(r.settle(10500), 'GET /favicon\n');
  assert.equal(r.end(), '');
  const p = new TerminalRenderer();
  p.write('log\r\na: 1\r\nb: 1\r\n\x1b[2Aa: 2\r\nb: 2\r\n');
  assert.equal(p.settle(0), '');
  assert.equal(p.settle(60_000), 'log\n', 'the two redrawn lines stay editable however long it waits');
  p.write('\x1b[2Aa: 3\r\nb: 3\r\n');
  assert.equal(p.end(), 'a: 3\nb: 3\n');
});

test('a status area drawn once is not frozen by a settle tick before its first redraw', () => {
  // The first frame has no cursor-up yet; a tick between it and the redraw must not commit it.
  const r = new TerminalRenderer();
  let out = r.write('RUN v1\r\n\r\n ❯ a.test.ts 0/2\r\n Tests 0 passed\r\n');
  for (let t = 0; t <= 3000; t += 500) out += r.settle(t);
  out += r.write('\x1b[2A\x1b[K ✓ a.test.ts 2/2\r\n\x1b[K Tests 2 passed\r\n');
  for (let t = 3500; t <= 60_000; t += 500) out += r.settle(t);
  out += r.end();
  assert.equal(out, 'RUN v1\n\n ✓ a.test.ts 2/2\n Tests 2 passed\n');
});

test('absolute positioning (top without the alternate screen) is never committed from the screen', () => {
  const r = new TerminalRenderer({ screenRows: 5 });
  let out = '';
  for (let f = 1; f <= 3; f++) {
    out += r.write(`\x1b[Hframe ${f} load\x1b[K\r\nTasks: ${f}\x1b[K\r\n\x1b[J`);
    for (let t = f * 10_000; t < f * 10_000 + 9000; t += 500) out += r.settle(t);
  }
  out += r.end();
  assert.equal(out, "frame 3 load\nTasks: 3\n");
});

test('clear (ED 2) keeps what was shown before it', () => {
  assert.equal(render('first\r\n\x1b[H\x1b[2J\x1b[3Jsecond\r\n'), 'first\nsecond\n');
});

test('seq 1 100000 in odd chunks renders every line in order', () => {
  const text = Array.from({ length: 100000 }, (_, i) => `${i + 1}\r\n`).join('');
  const chunks: string[] = [];
  for (let i = 0; i < text.length; i += 4093) chunks.push(text.slice(i, i + 4093));
  const out = renderStream(chunks);
  assert.equal(out, Array.from({ length: 100000 }, (_, i) => `${i + 1}\n`).join(''));
});

test('a line longer than maxLineLength is broken instead of growing without bound', () => {
  const out = renderStream(['y'.repeat(250) + '\r\n'], { maxLineLength: 100 });
  assert.equal(out, 'y'.repeat(100) + '\n' + 'y'.repeat(100) + '\n' + 'y'.repeat(50) + '\n');
});

test('long lines are handed out by size, not only by count: the renderer never holds much more than the screen', () => {
  const r = new TerminalRenderer({ screenRows: 10 });
  const line = 'z'.repeat(100_000) + '\r\n';
  let out = 0;
  for (let i = 0; i < 40; i++) out += r.write(line).length;
  // 40 lines of 100 KB: all but the screen's 10 (and at most ~256 KB more) were handed out already
  assert.ok(out >= 27 * 100_001, `only ${out} characters handed out`);
  assert.equal(out + r.end().length, 40 * 100_001);
});

test('redraws wiped by a later erase of the row are skipped without changing what the row shows (as xterm)', async () => {
  // erase after CR (npm/pip style), erase then CR (ora style), hidden cursor, colours
  assert.equal(await sameAsXterm('\x1b[?25l\r\x1b[Kfetch 10% ███\r\x1b[Kfetch 50% 日本\x1b[1m██\x1b[0m\r\x1b[0Kfetch 100%\x1b[?25h\r\n'), 'fetch 100%\n');
  assert.equal(await sameAsXterm('\x1b[2K\r⠋ one\x1b[2K\r⠙ two\x1b[2K\r✔ done\r\n'), '✔ done\n');
  // the look-ahead finds the last wipe, and stops at what does more than redraw the row
  assert.deepEqual(overwrittenUpTo('\rab\x1b[1mc\x1b[?25l\r\x1b[Kd\r\x1b[2Ke\x1b[2K\rf\r\n', 0), { reset: 25, scanned: 32 });
  assert.deepEqual(overwrittenUpTo('\rab\bc\r\x1b[Kd', 0), { reset: 0, scanned: 3 });
  assert.deepEqual(overwrittenUpTo('\rab\x1b[1Ac\r\x1b[Kd', 0), { reset: 0, scanned: 3 });
  // a shorter redraw without an erase keeps the old tail; one with an erase does not
  assert.equal(await sameAsXterm('abcdefgh\rxy\r\n'), 'xycdefgh\n');
  assert.equal(await sameAsXterm('abcdefgh\rxy\r\x1b[Kz\r\n'), 'z\n');
  // erase-in-line that is not a whole-row wipe (cursor not in column 0) is kept as is
  assert.equal(await sameAsXterm('abcdef\rxy\x1b[Kq\r\x1b[1Kr\r\n'), 'ryq\n');
  // what moves to another row or column cannot be skipped: cursor up, backspace, tab, line feed
  assert.equal(await sameAsXterm('a\r\nbbbb\x1b[1AX\r\x1b[Kc\r\n'), 'c\nbbbb\n');
  assert.equal(await sameAsXterm('abc\bX\r\x1b[Kd\teol\r\x1b[Ke\r\n'), 'e\n');
  assert.equal(await sameAsXterm('one\ntwo\r\x1b[Kthree\r\n'), 'one\nthree\n');
});

test('skipped redraws respect maxLineLength: a redraw that would have broken the line is not skipped', () => {
  const long = 'x'.repeat(150);
  // the first redraw breaks the line at 100 characters; the erase then only wipes the second part
  assert.equal(renderStream([`\r\x1b[K${long}\r\x1b[Kdone\r\n`], { maxLineLength: 100 }), 'x'.repeat(100) + '\ndone\n');
  assert.equal(renderStream([`\r\x1b[K${long}`, `\r\x1b[Kdone\r\n`], { maxLineLength: 100 }), 'x'.repeat(100) + '\ndone\n');
});

test('redraws that a later, at least as wide redraw from column 0 covers are skipped without changing the row (as xterm)', async () => {
  // cargo/docker style: CR, colours, the same width every time
  assert.equal(await sameAsXterm('\r\x1b[1;32m  Compiling\x1b[0m core ██░░ 50%\r\x1b[1;32m  Compiling\x1b[0m core ████ 99%\r\x1b[1;32m  Compiling\x1b[0m core ████ done\r\n'), '  Compiling core ████ done\n');
  assert.equal(coveredFrom('\rabc\rxyz\r', 0, 9, 3), 4);
  // narrower than what the row held: the old tail stays
  assert.equal(await sameAsXterm('abcdefgh\rxyz\rXY\r\n'), 'XYzdefgh\n');
  assert.equal(coveredFrom('\rxyz\rXY', 0, 7, 8), 0);
  // a wider redraw earlier in the stretch counts too
  assert.equal(await sameAsXterm('ab\rxyzw\rXYZ\r\n'), 'XYZw\n');
  assert.equal(coveredFrom('\rxyzw\rXYZ', 0, 9, 2), 0);
  // wide characters count two cells; half-covered wide characters as xterm shows them
  assert.equal(await sameAsXterm('日本\rabcd\r\n'), 'abcd\n');
  assert.equal(await sameAsXterm('x\r日本\rabc\r\n'), 'abc\n');
  assert.equal(await sameAsXterm('x\rabcd\r日本\r\n'), '日本\n');
  // an erase inside the redraw, or a combining mark first, is not taken as covering
  assert.equal(coveredFrom('\rab\rxy\x1b[1Kz', 0, 11, 2), 0);
  assert.equal(await sameAsXterm('abcd\rab\rxy\x1b[1Kz\r\n'), '  zd\n');
  assert.equal(coveredFrom('\rab\r\u0301xy', 0, 7, 2), 0);
  assert.equal(await sameAsXterm('ab\r\u0301xy\r\n'), renderStream(['ab\r\u0301xy\r\n']));
});

test("the bench's progress-bar stream (erase, spinner and erase-less redraws) renders as xterm, whole and in small chunks", async () => {
  const stream = progressBars(40_000, 12);
  const out = await sameAsXterm(stream, STREAM_MAX_COLS + 16);
  assert.ok(out.split('\n').length > 10, out);
});
