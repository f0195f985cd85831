// Row 12: secret masking (issue 12). 12a: streaming throughput on ordinary build output against
// the masker it replaced (bench/referenceMasker.ts, same run, interleaved); 12b: recall and false
// positives on the labelled corpus (test/fixtures/secrets, the same figures the unit test asserts);
// 12c: the worst 1 MB adversarial line.
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { failedRow, fmtMBs, loadBuilt, measurePair, type Row } from './harness';
import { loadCorpus } from './corpusLoader';
import { StreamingMasker as ReferenceMasker, maskSecrets as referenceMask } from './referenceMasker';
import { loadOrdinary, loadTruePositives, scoreMasker, SECRET_GOALS } from './secretCorpus';

interface MaskerModule {
  StreamingMasker: new () => { push(s: string): string; flush(): string; readonly count: number };
  maskSecrets(text: string): { text: string; count: number };
}

const MB = 1024 * 1024;
const CHUNK = 64 * 1024;

/** Recorded build and tool output (bench/corpus), repeated to `bytes`. */
function buildOutput(bytes: number): string {
  const files = loadCorpus().filter((e) => /make|tsc|npm-install|mocha|node-test|python|apt|git-log/.test(e.file));
  let text = files.map((e) => e.text).join('\n');
  const unit = text;
  while (text.length < bytes) text += unit;
  return text.slice(0, bytes);
}

function stream(masker: { push(s: string): string; flush(): string }, text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i += CHUNK) n += masker.push(text.slice(i, i + CHUNK)).length;
  return n + masker.flush().length;
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

export async function rowSecrets(scale = 1): Promise<Row[]> {
  const mod = loadBuilt<MaskerModule>('core/secrets/index', ['StreamingMasker', 'maskSecrets']);
  const rows: Row[] = [];
  const goalA = `≥ ${SECRET_GOALS.mbPerSec} MB/s`;
  const goalB = `token ≥ ${SECRET_GOALS.tokenRecall * 100}%, context ≥ ${SECRET_GOALS.contextRecall * 100}%, FP ≤ ${SECRET_GOALS.fpRate * 100}%`;
  const goalC = `≤ ${SECRET_GOALS.worstLineMs} ms`;
  // 12a
  const text = buildOutput(Math.round(16 * MB * scale));
  const what = `secret masking: streaming, recorded build/test output (${(text.length / MB).toFixed(1)} MB, 64 KB chunks)`;
  try {
    let oursOut = 0;
    let refOut = 0;
    const t = await measurePair(
      () => {
        oursOut = stream(new mod.StreamingMasker(), text);
      },
      () => {
        refOut = stream(new ReferenceMasker(), text);
      },
    );
    const mbs = text.length / MB / (t.a.median / 1000);
    rows.push({
      id: '12a',
      what,
      ours: fmtMBs(text.length, t.a),
      reference: `${fmtMBs(text.length, t.b)} (the masker before issue 12: 10 shapes)`,
      ratio: `${(t.b.median / t.a.median).toFixed(2)}×`,
      goal: goalA,
      met: mbs >= SECRET_GOALS.mbPerSec,
      note: oursOut !== text.length || refOut !== text.length ? `output length changed: ours ${oursOut}, reference ${refOut} of ${text.length}` : undefined,
    });
  } catch (e) {
    rows.push(failedRow('12a', what, goalA, e));
  }
  // 12b
  const whatB = 'secret masking: labelled corpus (test/fixtures/secrets) and real output of this machine';
  try {
    const cases = loadTruePositives();
    const ordinary = loadOrdinary();
    const s = scoreMasker((x) => mod.maskSecrets(x).text, cases, ordinary);
    const r = scoreMasker((x) => referenceMask(x).text, cases, ordinary);
    const nTok = cases.filter((c) => c.kind === 'token').length;
    const nCtx = cases.length - nTok;
    const fig = (x: typeof s): string => `token ${pct(x.tokenRecall)} of ${nTok}, context ${pct(x.contextRecall)} of ${nCtx}, FP ${x.falsePositives.length}/${x.ordinaryLines} lines (${(x.fpRate * 100).toFixed(3)}%)`;
    rows.push({
      id: '12b',
      what: whatB,
      ours: fig(s),
      reference: fig(r),
      ratio: '—',
      goal: goalB,
      met: s.tokenRecall >= SECRET_GOALS.tokenRecall && s.contextRecall >= SECRET_GOALS.contextRecall && s.fpRate <= SECRET_GOALS.fpRate,
      note: s.missed.length ? `missed: ${s.missed.slice(0, 5).join('; ')}` : undefined,
    });
  } catch (e) {
    rows.push(failedRow('12b', whatB, goalB, e));
  }
  // 12c: the unit test's adversarial lines, CPU time of the worst, each masker in a fresh process
  // (bench/secretWorstChild.ts says why).
  const whatC = 'secret masking: worst 1 MB adversarial line (every keyword glued, unterminated runs)';
  try {
    const child = (which: string): { worst: number; worstUnit: string; lines: number; bestOf: number } => {
      const r = spawnSync(process.execPath, [path.join(__dirname, 'secretWorstChild.js'), which], { encoding: 'utf8', maxBuffer: 1 << 20 });
      if (r.status !== 0) throw new Error(`secretWorstChild ${which} failed: ${(r.stderr || r.error?.message || '').trim().slice(0, 300)}`);
      return JSON.parse(r.stdout);
    };
    const ours = child('ours');
    const ref = child('reference');
    const worst = ours.worst;
    const worstUnit = ours.worstUnit;
    const refWorst = ref.worst;
    rows.push({
      id: '12c',
      what: whatC,
      ours: `${worst.toFixed(1)} ms CPU (worst of ${ours.lines} lines: the 8 slowest of a first pass, best of ${ours.bestOf} each, in a fresh process)`,
      reference: `${refWorst.toFixed(1)} ms CPU (before issue 12)`,
      ratio: '—',
      goal: goalC,
      met: worst <= SECRET_GOALS.worstLineMs,
      note: `worst line: ${JSON.stringify(worstUnit.slice(0, 40))} repeated to 1 MB`,
    });
  } catch (e) {
    rows.push(failedRow('12c', whatC, goalC, e));
  }
  return rows;
}
