// Row 2: the whole capture pipeline fed a 200 MB stream in a child process: peak RSS growth over
// the child's baseline after loading the pipeline, and the written file complete (line count).
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { failedRow, type Row } from './harness';
import { chunked, colouredBuildLog, testRunWithStacks } from './streams';

const GOAL = '< 50 MB, file complete';
const MB = 1024 * 1024;

interface ChildResult {
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

/** Measures row 2 in a child process fed `totalMB` of raw stream on stdin. */
export async function rowCapture(workDir: string, totalMB = 200): Promise<Row> {
  const what = `capture pipeline (renderer, masker, index, writer) fed ${totalMB} MB: peak RSS growth`;
  try {
    const outDir = path.join(workDir, 'capture-out');
    const bl = blocks();
    const child = spawn(process.execPath, ['--expose-gc', path.join(__dirname, 'captureChild.js'), outDir], { stdio: ['pipe', 'pipe', 'pipe'] });
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
    const r = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as ChildResult;
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
