// Row 2's child process: reads a raw terminal stream on stdin and runs it through the capture
// pipeline (renderer → masker → writer, with the writer's index) into a file, sampling its own
// RSS. Prints one JSON line: { baselineRss, baselineHeap, peakRss, vmHwm, afterGcRss, afterGcHeap, lines, ms, mode, search? }.
// Usage: node out/bench/captureChild.js <outDir> [--search]
// --search (row 2s): <outDir> is a `.agent/terminals` folder, and the ranked search's worker keeps
// that `.agent/` indexed while the stream is captured, as in the editor (its watch and upkeep; a
// query in words every QUERY_EVERY_MS, as an agent asking); after the stream, queries go on until the
// index holds everything (the catch-up).
import * as fs from 'node:fs';
import * as path from 'node:path';

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

interface Pipeline {
  /** Resolves when the pipeline can take more (the capture glue awaits drain() the same way). */
  write(chunk: string): void | Promise<void>;
  /** Ends the stream; returns the number of output lines the file holds for it. */
  end(): Promise<number>;
  mode: string[];
}

interface CaptureModule {
  openTerminalCapture(dir: string, header: unknown, opts: unknown): Promise<{
    writer: { file: string; indexFile: string };
    beginCommand(start: unknown): { write(data: string): boolean; drain(): Promise<void>; end(exitCode: number | undefined): void };
    close(): Promise<void>;
  }>;
}

/** The real pipeline (TerminalCapture: renderer → masker → CaptureWriter with its index). */
async function capturePipeline(dir: string): Promise<Pipeline> {
  const m = require(src('core/terminal/terminalCapture.js')) as CaptureModule;
  // Rotation (default 10 MB) is raised so the whole stream stays in one file for the line check.
  const cap = await m.openTerminalCapture(dir, { name: 'bench', started: new Date(), shellIntegration: true }, { maxFileBytes: 2 ** 31 });
  const cmd = cap.beginCommand({ commandLine: 'bench: 200 MB stream', started: new Date() });
  return {
    mode: ['TerminalCapture (renderer → masker → CaptureWriter + index)'],
    // As src/features/terminals/captureManager.ts does: past the writer's queue limit, wait for the disk.
    write: async (c) => {
      if (!cmd.write(c)) await cmd.drain();
    },
    end: async () => {
      cmd.end(0);
      await cap.close();
      // The index says which lines of the file hold the command's output.
      const recs = fs.readFileSync(cap.writer.indexFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { status: string; firstLine: number; lastLine: number | null });
      const done = recs.filter((r) => r.status === 'done').pop();
      if (!done || done.lastLine === null) throw new Error(`no finished command in ${cap.writer.indexFile}`);
      const fileLines = countFileLines(cap.writer.file);
      if (fileLines < done.lastLine) throw new Error(`${cap.writer.file} has ${fileLines} lines, the index says output ends at line ${done.lastLine}`);
      return done.lastLine - done.firstLine + 1;
    },
  };
}

function countFileLines(file: string): number {
  let lines = 0;
  const fd = fs.openSync(file, 'r');
  const buf = Buffer.alloc(1 << 20);
  for (let n; (n = fs.readSync(fd, buf, 0, buf.length, null)) > 0;) {
    for (let i = buf.indexOf(10); i !== -1 && i < n; i = buf.indexOf(10, i + 1)) lines++;
  }
  fs.closeSync(fd);
  return lines;
}

interface SearchModule {
  searchFolder(agentDir: string, request: { query: string; refreshMs?: number }, rules: { roots: string[] }): Promise<{ indexed: { bytes: number }; pending: { files: number; bytes: number }; windows: unknown[]; error?: string }>;
  searchWorkerFailure(): string | undefined;
  stopSearchWorker(): Promise<void>;
}

/** How often the agent asks while the stream runs (row 2s). */
const QUERY_EVERY_MS = 1000;

/** The ranked search kept busy on `agentDir` while the stream runs; `finish` waits until it has indexed everything. */
async function searchBeside(agentDir: string): Promise<{ finish: () => Promise<Record<string, unknown>> }> {
  const svc = require(src('core/search/ranked/searchService.js')) as SearchModule;
  const ask = (refreshMs: number): ReturnType<SearchModule['searchFolder']> => svc.searchFolder(agentDir, { query: 'why did the build fail with an error', refreshMs }, { roots: [] });
  const first = await ask(0);
  if (first.error) throw new Error(`search: ${first.error}`);
  const during: number[] = [];
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    const t0 = performance.now();
    void ask(0).then(() => during.push(performance.now() - t0), () => undefined).finally(() => (busy = false));
  }, QUERY_EVERY_MS);
  return {
    finish: async () => {
      clearInterval(timer);
      while (busy) await new Promise((r) => setTimeout(r, 20));
      const t0 = performance.now();
      let a = await ask(1500);
      const pendingAtEnd = a.pending.bytes;
      while (a.pending.files > 0) a = await ask(1500);
      const catchUpMs = performance.now() - t0;
      const failure = svc.searchWorkerFailure();
      await svc.stopSearchWorker();
      if (failure) throw new Error(`the search worker was given up: ${failure}`);
      during.sort((x, y) => x - y);
      return { queries: during.length, queryMedianMs: during[Math.floor(during.length / 2)] ?? null, queryMaxMs: during[during.length - 1] ?? null, pendingAtEnd, catchUpMs, indexedBytes: a.indexed.bytes, windows: a.windows.length };
    },
  };
}

async function main(): Promise<void> {
  const dir = process.argv[2];
  if (!dir) throw new Error('usage: captureChild <outDir> [--search]');
  const withSearch = process.argv.includes('--search');
  if (withSearch && path.basename(path.dirname(dir)) !== '.agent') throw new Error(`--search needs <outDir> to be a .agent/terminals folder: ${dir}`);
  fs.rmSync(withSearch ? path.dirname(dir) : dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const p = await capturePipeline(dir);
  const search = withSearch ? await searchBeside(path.dirname(dir)) : undefined;
  global.gc?.();
  const baselineRss = rss();
  const baselineHeap = process.memoryUsage().heapUsed;
  let peakRss = baselineRss;
  const timer = setInterval(() => {
    peakRss = Math.max(peakRss, rss());
  }, 20);
  const t0 = performance.now();
  process.stdin.setEncoding('utf8');
  for await (const chunk of process.stdin) {
    await p.write(chunk as string);
    peakRss = Math.max(peakRss, rss());
  }
  const lines = await p.end();
  clearInterval(timer);
  peakRss = Math.max(peakRss, rss());
  const ms = performance.now() - t0;
  const searched = search ? await search.finish() : undefined;
  // What is still held once garbage is collected: tells retained memory from uncollected garbage.
  global.gc?.();
  const afterGcRss = rss();
  const afterGcHeap = process.memoryUsage().heapUsed;
  process.stdout.write(JSON.stringify({ baselineRss, baselineHeap, peakRss, vmHwm: vmHwm(), afterGcRss, afterGcHeap, lines, ms, mode: p.mode, ...(searched ? { search: searched } : {}) }) + '\n');
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
