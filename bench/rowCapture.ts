// Row 2: the whole capture pipeline fed a 200 MB stream in a child process: peak RSS growth over
// the child's baseline after loading the pipeline, and the written file complete (line count).
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { failedRow, RUNS, stats, type Row, type Stats } from './harness';
import { chunked, colouredBuildLog, testRunWithStacks } from './streams';

const GOAL = '< 50 MB, file complete';
const MB = 1024 * 1024;

interface ChildResult {
  search?: { queries: number; queryMedianMs: number | null; queryMaxMs: number | null; pendingAtEnd: number; catchUpMs: number; indexedBytes: number; windows: number };
  baselineRss: number;
  peakRss: number;
  vmHwm?: number;
  afterGcRss: number;
  baselineHeap: number;
  afterGcHeap: number;
  lines: number;
  ms: number;
  mode: string[];
}

/** Blocks of realistic output (with a few secrets for the masker) that the stream cycles through. */
function blocks(): { chunks: string[]; lines: number }[] {
  const out: { chunks: string[]; lines: number }[] = [];
  for (let i = 0; i < 6; i++) {
    let text = i % 2 === 0 ? colouredBuildLog(2 * MB, 100 + i) : testRunWithStacks(2 * MB, 100 + i);
    text += `export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPL${i}\r\ncurl -H "Authorization: token ghp_${'a1B2c3D4e5'.repeat(3)}${i}xYz9" https://api.github.com\r\n`;
    let lines = 0;
    for (let p = text.indexOf('\n'); p !== -1; p = text.indexOf('\n', p + 1)) lines++;
    out.push({ chunks: chunked(text), lines });
  }
  return out;
}

interface ChildRun {
  r: ChildResult;
  sent: number;
  expectedLines: number;
}

/** Feeds `totalMB` of the blocks' stream to a capture child writing into `outDir` (with `args`), and returns what it printed. */
async function runCaptureChild(outDir: string, bl: { chunks: string[]; lines: number }[], totalMB: number, args: string[] = []): Promise<ChildRun> {
  const child = spawn(process.execPath, ['--expose-gc', path.join(__dirname, 'captureChild.js'), outDir, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
  // If the child dies early its stdin breaks: the exit code and stderr below say why.
  child.stdin.on('error', () => undefined);
  let sent = 0;
  let expectedLines = 0;
  const target = totalMB * MB;
  for (let b = 0; sent < target; b++) {
    const block = bl[b % bl.length];
    for (const c of block.chunks) {
      if (child.stdin.destroyed) break;
      if (!child.stdin.write(c)) {
        await new Promise<void>((resolve) => {
          const done = (): void => {
            child.stdin.off('drain', done);
            child.stdin.off('close', done);
            resolve();
          };
          child.stdin.on('drain', done);
          child.stdin.on('close', done);
        });
      }
      sent += Buffer.byteLength(c);
    }
    expectedLines += block.lines;
  }
  child.stdin.end();
  const code = await closed;
  if (code !== 0) throw new Error(`capture child exited ${code}: ${stderr.trim().split('\n').slice(0, 3).join(' ')}`);
  return { r: JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as ChildResult, sent, expectedLines };
}

/** Measures row 2 in a child process fed `totalMB` of raw stream on stdin. */
export async function rowCapture(workDir: string, totalMB = 200): Promise<Row> {
  const what = `capture pipeline (renderer, masker, index, writer) fed ${totalMB} MB: peak RSS growth`;
  try {
    const outDir = path.join(workDir, 'capture-out');
    const { r, sent, expectedLines } = await runCaptureChild(outDir, blocks(), totalMB);
    const growth = r.peakRss - r.baselineRss;
    const complete = r.lines === expectedLines;
    fs.rmSync(outDir, { recursive: true, force: true });
    return {
      id: '2', what,
      ours: `${(growth / MB).toFixed(1)} MB growth (baseline ${(r.baselineRss / MB).toFixed(0)} MB, peak ${(r.peakRss / MB).toFixed(0)} MB${r.vmHwm ? `, VmHWM ${(r.vmHwm / MB).toFixed(0)} MB` : ''}); ${r.lines.toLocaleString('en-US')}/${expectedLines.toLocaleString('en-US')} lines; ${((sent / MB) / (r.ms / 1000)).toFixed(1)} MB/s`,
      reference: '—', ratio: '—', goal: GOAL,
      met: growth < 50 * MB && complete,
      note: `after the run and a full GC: JS heap ${(r.afterGcHeap / MB).toFixed(1)} MB (baseline ${(r.baselineHeap / MB).toFixed(1)} MB), RSS ${(r.afterGcRss / MB).toFixed(0)} MB; stages: ${r.mode.join(' → ')}; the child awaits drain() whenever CommandCapture.write() returns false, as the capture glue does with the terminal's data stream, so stdin backpressure reaches the parent${complete ? '' : `; file INCOMPLETE: ${r.lines} output lines in the file, ${expectedLines} sent`}`,
    };
  } catch (e) {
    return failedRow('2', what, GOAL, e);
  }
}

const GOAL_2S = 'capture with the index ≥ 0.9× its speed alone; indexing ≥ 10 MB/s';

/**
 * Row 2s (issue 47 §3, "indexing keeps up with a terminal printing 10 MB/s without slowing the
 * capture"): the row-2 capture child fed `totalMB` into `.agent/terminals/`, alone and with the
 * ranked search's worker keeping that `.agent/` indexed beside it (its watch and upkeep, and a query
 * every second as an agent asking), RUNS times each, interleaved. The capture's speed with the index
 * against its speed alone (medians), and the indexing rate: the bytes the index holds at the end
 * over the time from the stream's start until the index held everything.
 */
export async function rowCaptureSearch(workDir: string, totalMB = 100): Promise<Row> {
  const what = `capture pipeline fed ${totalMB} MB into .agent/terminals/ with the search index kept up to date beside it (the search worker thread, as in the editor)`;
  try {
    const bl = blocks();
    const outDir = path.join(workDir, 'capture-search-ws', '.agent', 'terminals');
    const alone: number[] = [];
    const withIndex: number[] = [];
    const indexing: number[] = [];
    const catchUp: number[] = [];
    const queries: number[] = [];
    let indexedBytes = 0;
    for (let run = 0; run < RUNS; run++) {
      const a = await runCaptureChild(outDir, bl, totalMB);
      if (a.r.lines !== a.expectedLines) throw new Error(`capture alone: ${a.r.lines} of ${a.expectedLines} lines in the file`);
      alone.push(a.sent / MB / (a.r.ms / 1000));
      const b = await runCaptureChild(outDir, bl, totalMB, ['--search']);
      if (b.r.lines !== b.expectedLines) throw new Error(`capture with the index: ${b.r.lines} of ${b.expectedLines} lines in the file`);
      const s = b.r.search!;
      withIndex.push(b.sent / MB / (b.r.ms / 1000));
      indexing.push(s.indexedBytes / MB / ((b.r.ms + s.catchUpMs) / 1000));
      catchUp.push(s.catchUpMs);
      if (s.queryMaxMs !== null) queries.push(s.queryMaxMs);
      indexedBytes = s.indexedBytes;
    }
    fs.rmSync(path.join(workDir, 'capture-search-ws'), { recursive: true, force: true });
    const [sa, sb, si, sc] = [stats(alone), stats(withIndex), stats(indexing), stats(catchUp)];
    const ratio = sb.median / sa.median;
    const fmt = (x: Stats, d = 1): string => `${x.median.toFixed(d)} (${x.min.toFixed(d)}–${x.max.toFixed(d)})`;
    return {
      id: '2s', what,
      ours: `capture ${fmt(sb)} MB/s with the index; indexing ${fmt(si)} MB/s (${(indexedBytes / MB).toFixed(0)} MB indexed, held whole ${fmt(sc, 0)} ms after the stream ended)`,
      reference: `the same capture alone: ${fmt(sa)} MB/s`,
      ratio: `${ratio.toFixed(2)}×`,
      goal: GOAL_2S,
      met: ratio >= 0.9 && si.median >= 10,
      note: `median of ${RUNS} runs each, interleaved; a query in words every second during the stream (slowest per run: ${queries.length ? `${Math.max(...queries).toFixed(0)} ms at most` : 'none answered'}); indexing rate = bytes indexed ÷ (stream time + catch-up), a lower bound when the capture is the slower side`,
    };
  } catch (e) {
    return failedRow('2s', what, GOAL_2S, e);
  }
}
