// Loads the raw PTY recordings of real programs in test/fixtures/recordings/ (see its README):
// gzipped JSON lines, a header then [ms since start, base64 bytes] per chunk as the PTY delivered it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { ALT_SCREEN_MARKER, TerminalRenderer } from '../../../../src/core/terminal/screen/terminalRenderer';
import { xtermText } from './xtermOracle';
import { rng } from '../../../../bench/harness';
import { chunked } from '../../../../bench/streams';
import { repoRoot } from '../../../repoRoot';

export const RECORDINGS_DIR = path.join(repoRoot, 'test/fixtures/recordings');

export interface Recording {
  name: string;
  cols: number;
  rows: number;
  command: string;
  /** Chunks decoded as VS Code hands them over (UTF-8 decoded in stream, so no character is split), with their time in ms. */
  chunks: { t: number; data: string }[];
  /** The whole stream as one string. */
  text: string;
}

/** Reads one recording; a malformed file throws an error naming the file and line. */
export function loadRecording(file: string): Recording {
  const lines = zlib.gunzipSync(fs.readFileSync(file)).toString('utf8').split('\n').filter((l) => l.length > 0);
  const bad = (i: number, why: string): Error => new Error(`${file}:${i + 1}: ${why}`);
  const head = JSON.parse(lines[0]) as { v: number; cols: number; rows: number; command: string };
  if (head.v !== 1 || !(head.cols > 0) || !(head.rows > 0)) throw bad(0, 'not a v1 recording header with cols and rows');
  const decoder = new TextDecoder('utf-8');
  const chunks: { t: number; data: string }[] = [];
  for (let i = 1; i < lines.length; i++) {
    const c = JSON.parse(lines[i]) as [number, string];
    if (!Array.isArray(c) || typeof c[0] !== 'number' || typeof c[1] !== 'string') throw bad(i, 'expected [ms, base64]');
    const data = decoder.decode(Buffer.from(c[1], 'base64'), { stream: true });
    if (data.length > 0) chunks.push({ t: c[0], data });
  }
  const rest = decoder.decode();
  if (rest.length > 0) chunks.push({ t: chunks.length > 0 ? chunks[chunks.length - 1].t : 0, data: rest });
  return { name: path.basename(file).replace(/\.jsonl\.gz$/, ''), cols: head.cols, rows: head.rows, command: head.command, chunks, text: chunks.map((c) => c.data).join('') };
}

/** Every recording in the corpus, sorted by name. */
export function loadRecordings(): Recording[] {
  return fs.readdirSync(RECORDINGS_DIR).filter((f) => f.endsWith('.jsonl.gz')).sort().map((f) => loadRecording(path.join(RECORDINGS_DIR, f)));
}

/** Cuts text at random points (sizes 1–32 mostly, some up to 4 KB), never inside a surrogate pair. */
export function randomChunks(text: string, seed: number): string[] {
  const r = rng(seed); // the bench's seeded PRNG: same seed, same chunking
  return chunked(text, () => (r() < 0.85 ? 1 + Math.floor(r() * 32) : 1 + Math.floor(r() * 4096)));
}

/** The capture's settle timer period (CommandCapture's default). */
export const SETTLE_MS = 500;

/** Our text as compared with xterm's: alternate-screen marker lines removed (and counted), trailing spaces and blank lines dropped. */
export function normaliseCapture(text: string): { lines: string[]; markers: number } {
  let markers = 0;
  const lines: string[] = [];
  for (const l of text.split('\n')) {
    if (l === ALT_SCREEN_MARKER) markers++;
    else lines.push(l.replace(/ +$/, ''));
  }
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return { lines, markers };
}

/** Number of alternate-screen sessions the stream enters. */
export function altSessions(text: string): number {
  return (text.match(/\x1b\[\?(?:1049|47|1047)h/g) ?? []).length;
}

/** What xterm shows at the end of the recording, as lines. */
export async function oracleLines(rec: Recording): Promise<string[]> {
  return normaliseCapture(await xtermText([rec.text], rec.cols, rec.rows)).lines;
}

/** The recording in one write. */
export function replayWhole(rec: Recording): string {
  const r = new TerminalRenderer({ screenRows: rec.rows });
  return r.write(rec.text) + r.end();
}

/** The recording cut at seeded random points. */
export function replayChunked(rec: Recording, seed: number): string {
  const r = new TerminalRenderer({ screenRows: rec.rows });
  let out = '';
  for (const c of randomChunks(rec.text, seed)) out += r.write(c);
  return out + r.end();
}

/**
 * Live replay: the recorded chunks at their recorded times, settle() every SETTLE_MS from `phase`
 * ms on (as CommandCapture's timer), and 30 s of ticks on the quiet screen before the command ends.
 */
export function replayTimed(rec: Recording, phase: number): string {
  const r = new TerminalRenderer({ screenRows: rec.rows });
  let out = '';
  let tick = phase;
  for (const c of rec.chunks) {
    while (tick <= c.t) {
      out += r.settle(tick);
      tick += SETTLE_MS;
    }
    out += r.write(c.data);
  }
  const last = rec.chunks.length > 0 ? rec.chunks[rec.chunks.length - 1].t : 0;
  for (; tick <= last + 30_000; tick += SETTLE_MS) out += r.settle(tick);
  return out + r.end();
}

/** Every replay of one recording: whole, 3 random chunkings, recorded timing at 10 settle phases. */
export function replays(rec: Recording): { how: string; text: string }[] {
  const out = [{ how: 'whole', text: replayWhole(rec) }];
  for (const seed of [1, 2, 3]) out.push({ how: `random chunks (seed ${seed})`, text: replayChunked(rec, seed) });
  for (let p = 0; p < 10; p++) out.push({ how: `recorded timing, settle phase ${p * (SETTLE_MS / 10)} ms`, text: replayTimed(rec, p * (SETTLE_MS / 10)) });
  return out;
}
