// Row 2's child process: reads a raw terminal stream on stdin and runs it through the capture
// pipeline (renderer → masker → writer, with the writer's index) into a file, sampling its own
// RSS. Prints one JSON line: { baselineRss, peakRss, vmHwm, lines, ms, mode }.
// Usage: node out/bench/captureChild.js <outFile>
import * as fs from 'node:fs';
import * as path from 'node:path';

interface Stage {
  write(chunk: string): string;
  end(): string;
}
interface Sink {
  write(text: string): Promise<void> | void;
  close(): Promise<void> | void;
}

function rss(): number {
  return process.memoryUsage().rss;
}

function vmHwm(): number | undefined {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

const src = (rel: string): string => path.join(__dirname, '..', 'src', rel);

/** The pipeline's stages, from whatever of the project's modules exist (mode says which). */
function buildPipeline(outFile: string): { stages: Stage[]; sink: Sink; mode: string[] } {
  const mode: string[] = [];
  const stages: Stage[] = [];
  const r = require(src('core/terminal/terminalRenderer.js')) as { TerminalRenderer: new () => { write(s: string): string; end(): string } };
  const renderer = new r.TerminalRenderer();
  stages.push({ write: (c) => renderer.write(c), end: () => renderer.end() });
  mode.push('renderer');
  const s = require(src('core/secrets.js')) as { StreamingMasker: new () => { push(s: string): string; flush(): string } };
  const masker = new s.StreamingMasker();
  stages.push({ write: (c) => masker.push(c), end: () => masker.flush() });
  mode.push('masker');
  let sink: Sink;
  const writerFile = src('core/terminal/captureWriter.js');
  if (fs.existsSync(writerFile)) {
    sink = require(path.join(__dirname, 'captureSink.js')).captureSink(writerFile, outFile) as Sink;
    mode.push('captureWriter+index');
  } else {
    const fd = fs.openSync(outFile, 'w');
    sink = { write: (t) => void fs.writeSync(fd, t), close: () => fs.closeSync(fd) };
    mode.push('plain file append (captureWriter missing)');
  }
  return { stages, sink, mode };
}

async function main(): Promise<void> {
  const outFile = process.argv[2];
  if (!outFile) throw new Error('usage: captureChild <outFile>');
  const { stages, sink, mode } = buildPipeline(outFile);
  global.gc?.();
  const baselineRss = rss();
  let peakRss = baselineRss;
  const timer = setInterval(() => {
    peakRss = Math.max(peakRss, rss());
  }, 20);
  const t0 = performance.now();
  process.stdin.setEncoding('utf8');
  for await (const chunk of process.stdin) {
    let text = chunk as string;
    for (const st of stages) text = st.write(text);
    if (text) await sink.write(text);
    peakRss = Math.max(peakRss, rss());
  }
  // Ending: flush each stage in turn, passing what the earlier ones release through the later ones.
  for (let i = 0; i < stages.length; i++) {
    let text = stages[i].end();
    for (let j = i + 1; j < stages.length; j++) text = stages[j].write(text);
    if (text) await sink.write(text);
  }
  await sink.close();
  clearInterval(timer);
  peakRss = Math.max(peakRss, rss());
  const ms = performance.now() - t0;
  let lines = 0;
  const fd = fs.openSync(outFile, 'r');
  const buf = Buffer.alloc(1 << 20);
  for (let n; (n = fs.readSync(fd, buf, 0, buf.length, null)) > 0;) {
    for (let i = buf.indexOf(10); i !== -1 && i < n; i = buf.indexOf(10, i + 1)) lines++;
  }
  fs.closeSync(fd);
  process.stdout.write(JSON.stringify({ baselineRss, peakRss, vmHwm: vmHwm(), lines, ms, mode }) + '\n');
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
