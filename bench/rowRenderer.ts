// Row 1: terminal rendering (raw stream → file text) against @xterm/headless, on four seeded
// streams (1a–1d) and on the raw PTY recordings of real programs in test/fixtures/recordings/ (1e).
import { failedRow, fmtMBs, loadBuilt, measurePair, type Row } from './harness';
import { chunked, colouredBuildLog, progressBars, seqOutput, testRunWithStacks } from './streams';
import { identicalPercent, normaliseLines, vscodeXterm, xtermRender } from './xtermOracle';
import { altSessions, loadRecordings, normaliseCapture, oracleLines, replays, type Recording } from '../test/unit/terminal/screen/recordings';

interface RendererModule {
  renderStream(chunks: Iterable<string>, opts?: { screenRows?: number }): string;
}

const GOAL = '≥ 3× xterm, 100% lines identical';
const MB = 1024 * 1024;

/** The four streams of row 1, generated from fixed seeds (sizes in bytes of UTF-16 text ≈ bytes). */
function streams(scale: number): { id: string; what: string; text: string }[] {
  return [
    { id: '1a', what: 'render: coloured build log', text: colouredBuildLog(8 * MB * scale, 11) },
    { id: '1b', what: 'render: \\r progress bars', text: progressBars(8 * MB * scale, 12) },
    { id: '1c', what: 'render: 50 MB of seq 1 N (\\r\\n)', text: seqOutput(50 * MB * scale) },
    { id: '1d', what: 'render: test run with stack traces', text: testRunWithStacks(8 * MB * scale, 14) },
  ];
}

/** Measures row 1; `scale` shrinks the streams for a quick run (BENCH_SCALE). */
export async function rowRenderer(scale = 1): Promise<Row[]> {
  const mod = loadBuilt<RendererModule>('core/terminal/screen/terminalRenderer', ['renderStream']);
  const rows: Row[] = [];
  for (const s of streams(scale)) {
    const what = `${s.what} (${(Buffer.byteLength(s.text) / MB).toFixed(1)} MB)`;
    try {
      rows.push(await measureStream(mod, s.id, what, s.text));
    } catch (e) {
      rows.push(failedRow(s.id, what, GOAL, e));
    }
    s.text = '';
  }
  const what = 'render: real-program recordings (apt, vitest, jest, pnpm, ora, ink, top, git, gcc, less, vim…)';
  try {
    rows.push(await measureRecordings(mod, what, Math.max(1, Math.round(20 * scale))));
  } catch (e) {
    rows.push(failedRow('1e', what, GOAL_REAL, e));
  }
  return rows;
}

const GOAL_REAL = '≥ 3× xterm, every replay identical';

/**
 * Row 1e: each recording rendered as the capture does it (a fresh renderer per command, the
 * recorded chunks), `reps` times over the corpus, against a fresh VS Code-like xterm per recording
 * that gets the same chunks and whose text is then read. Fidelity is the unit test's: every
 * recording whole, in 3 random chunkings and live (recorded timing, settle timer at 10 phases).
 */
async function measureRecordings(mod: RendererModule, what: string, reps: number): Promise<Row> {
  const corpus = loadRecordings();
  const bytes = corpus.reduce((n, r) => n + Buffer.byteLength(r.text), 0) * reps;
  const chunksOf = (r: Recording): string[] => r.chunks.map((c) => c.data);
  const t = await measurePair(
    () => {
      for (let k = 0; k < reps; k++) for (const r of corpus) mod.renderStream(chunksOf(r), { screenRows: r.rows });
    },
    async () => {
      for (let k = 0; k < reps; k++) {
        for (const r of corpus) {
          const term = vscodeXterm(r.cols, r.rows, 100_000);
          const chunks = chunksOf(r);
          for (let i = 0; i < chunks.length - 1; i++) term.write(chunks[i]);
          await new Promise<void>((resolve) => term.write(chunks[chunks.length - 1] ?? '', resolve));
          const buf = term.buffer.active;
          for (let i = 0; i < buf.length; i++) buf.getLine(i)?.translateToString(true);
          term.dispose();
        }
      }
    },
  );
  let same = 0;
  let total = 0;
  let live = 0;
  let liveTotal = 0;
  const bad: string[] = [];
  for (const r of corpus) {
    const oracle = (await oracleLines(r)).join('\n');
    for (const { how, text } of replays(r)) {
      const got = normaliseCapture(text);
      const ok = got.lines.join('\n') === oracle && got.markers === (altSessions(r.text) > 0 ? 1 : 0);
      total++;
      if (ok) same++;
      else if (bad.length < 3) bad.push(`${r.name} (${how})`);
      if (how.startsWith('recorded timing')) {
        liveTotal++;
        if (ok) live++;
      }
    }
  }
  const ratio = t.b.median / t.a.median;
  return {
    id: '1e', what: `${what} (${corpus.length} recordings × ${reps}, ${(bytes / MB).toFixed(1)} MB)`,
    ours: `${fmtMBs(bytes, t.a)}; live replay ${live}/${liveTotal} identical, all modes ${same}/${total}`,
    reference: fmtMBs(bytes, t.b),
    ratio: `${ratio.toFixed(2)}×`,
    goal: GOAL_REAL,
    met: ratio >= 3 && same === total,
    note: `replays per recording: whole, 3 random chunkings (1–32 bytes mostly), recorded timing with the 500 ms settle timer at 10 phases; xterm: @xterm/headless + Unicode 11 at the recorded 200×50, a fresh terminal per recording${bad.length ? `; differing: ${bad.join(', ')}` : ''}`,
  };
}

async function measureStream(mod: RendererModule, id: string, what: string, text: string): Promise<Row> {
  const bytes = Buffer.byteLength(text);
  const chunks = chunked(text);
  let ours = '';
  let oracle: string[] = [];
  const t = await measurePair(
    () => {
      ours = mod.renderStream(chunks);
    },
    async () => {
      oracle = await xtermRender(chunks);
    },
    // A 50 MB xterm run takes tens of seconds here: it gets no separate warm-up call.
    { warmupB: bytes < 20 * MB },
  );
  const same = identicalPercent(normaliseLines(ours), oracle);
  const ratio = t.b.median / t.a.median;
  const met = ratio >= 3 && same.percent === 100;
  const pct = same.percent === 100 ? '100' : same.percent.toFixed(3);
  let note: string | undefined = bytes < 20 * MB ? undefined : 'no warm-up call for xterm on this stream (one run takes tens of seconds)';
  if (same.firstDiff) {
    const q = (s: string): string => JSON.stringify(s.length > 80 ? s.slice(0, 80) + '…' : s);
    note = `${note ? `${note}; ` : ''}first differing line ${same.firstDiff.line}: ours ${q(same.firstDiff.ours)}, xterm ${q(same.firstDiff.xterm)}`;
  }
  return {
    id, what,
    ours: `${fmtMBs(bytes, t.a)}; ${pct}% lines identical`,
    reference: fmtMBs(bytes, t.b),
    ratio: `${ratio.toFixed(2)}×`,
    goal: GOAL,
    met,
    note,
  };
}
