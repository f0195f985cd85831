// Row 1: terminal rendering (raw stream → file text) against @xterm/headless, on four seeded streams.
import { failedRow, fmtMBs, loadOptional, measurePair, notBuilt, type Row } from './harness';
import { chunked, colouredBuildLog, progressBars, seqOutput, testRunWithStacks } from './streams';
import { identicalPercent, normaliseLines, xtermRender } from './xtermOracle';

interface RendererModule {
  renderStream(chunks: Iterable<string>): string;
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
  const mod = loadOptional<RendererModule>('core/terminal/terminalRenderer', ['renderStream']);
  const rows: Row[] = [];
  for (const s of streams(scale)) {
    const what = `${s.what} (${(Buffer.byteLength(s.text) / MB).toFixed(1)} MB)`;
    if (!mod) {
      rows.push(notBuilt(s.id, what, GOAL, 'src/core/terminal/terminalRenderer.ts renderStream()'));
      continue;
    }
    try {
      rows.push(await measureStream(mod, s.id, what, s.text));
    } catch (e) {
      rows.push(failedRow(s.id, what, GOAL, e));
    }
    s.text = '';
  }
  return rows;
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
