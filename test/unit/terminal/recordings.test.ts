// Replays raw PTY recordings of real programs (test/fixtures/recordings/) through the renderer in
// three ways — whole, cut at random points, and with the recorded timing while the capture's settle
// timer ticks at 10 different phases — and requires the text to equal what @xterm/headless (with
// VS Code's Unicode 11 widths) shows at the recorded size. Documented divergences only: an
// alternate-screen session is one marker line (removed before comparing, and counted), trailing
// spaces are not compared (xterm's translateToString trims them), and `clear` keeps history.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { ALT_SCREEN_MARKER, TerminalRenderer, type RendererOptions } from '../../../src/core/terminal/terminalRenderer';
import { loadRecordings, randomChunks, type Recording } from './recordings';
import { xtermText } from './xtermOracle';

const SETTLE_MS = 500;
const PHASES = 10;

function normalise(text: string): { lines: string[]; markers: number } {
  let markers = 0;
  const lines: string[] = [];
  for (const l of text.split('\n')) {
    if (l === ALT_SCREEN_MARKER) markers++;
    else lines.push(l.replace(/ +$/, ''));
  }
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return { lines, markers };
}

function opts(rec: Recording): RendererOptions {
  return { screenRows: rec.rows };
}

function whole(rec: Recording): string {
  const r = new TerminalRenderer(opts(rec));
  return r.write(rec.text) + r.end();
}

function chunked(rec: Recording, seed: number): string {
  const r = new TerminalRenderer(opts(rec));
  let out = '';
  for (const c of randomChunks(rec.text, seed)) out += r.write(c);
  return out + r.end();
}

/** Recorded chunks at their recorded times, settle() every SETTLE_MS starting at `phase` ms (as CommandCapture's timer). */
function timed(rec: Recording, phase: number): string {
  const r = new TerminalRenderer(opts(rec));
  let out = '';
  let tick = phase;
  for (const c of rec.chunks) {
    while (tick <= c.t) {
      out += r.settle(tick);
      tick += SETTLE_MS;
    }
    out += r.write(c.data);
  }
  // the command has not ended yet: the timer keeps ticking for a while on a quiet screen
  const last = rec.chunks.length > 0 ? rec.chunks[rec.chunks.length - 1].t : 0;
  for (; tick <= last + 30_000; tick += SETTLE_MS) out += r.settle(tick);
  return out + r.end();
}

const altSessions = (text: string): number => (text.match(/\x1b\[\?(?:1049|47|1047)h/g) ?? []).length;

for (const rec of loadRecordings()) {
  test(`recording ${rec.name} (${rec.command}) renders as xterm in one go, in random chunks and with its timing`, async () => {
    const oracle = normalise(await xtermText([rec.text], rec.cols, rec.rows)).lines.join('\n');
    const check = (how: string, text: string): void => {
      const got = normalise(text);
      assert.equal(got.lines.join('\n'), oracle, `${rec.name}, ${how}: differs from @xterm/headless`);
      assert.equal(got.markers, altSessions(rec.text) > 0 ? 1 : 0, `${rec.name}, ${how}: alternate-screen markers`);
    };
    check('whole', whole(rec));
    for (const seed of [1, 2, 3]) check(`random chunks (seed ${seed})`, chunked(rec, seed));
    for (let p = 0; p < PHASES; p++) check(`recorded timing, settle phase ${p * (SETTLE_MS / PHASES)} ms`, timed(rec, p * (SETTLE_MS / PHASES)));
  });
}
