// Rows 4 and 5: offload savings and error-line recall of the reference (buildReference) over the
// recorded corpus in bench/corpus/.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadCorpus } from './corpusLoader';
import { loadBuilt, type Row } from './harness';

interface ReferenceModule {
  buildReference(file: string, meta: { path: string }): Promise<string>;
}
interface TokensModule {
  countTokens(text: string): { tokens: number; approximate: boolean };
}

/** Per-output figures, also written under the table in results.md. */
export interface OffloadDetail {
  name: string;
  rawTokens: number;
  returnedTokens: number;
  savings: number;
  errorLines: number;
  covered: number;
  missed: number[];
}

const GOAL4 = '≥ 95% aggregate over outputs > 8k tokens, none < 90%';
const GOAL5 = '100%';
const BIG = 8000;

/**
 * Which marked lines a reference covers: listed as `L<n>: ...`, or printed by the grep command the
 * reference gives — which is run here on the saved file, and must print exactly the count stated.
 */
function coveredLines(reference: string, cwd: string): { lines: Set<number>; grepProblem?: string } {
  const lines = new Set<number>();
  for (const m of reference.matchAll(/^L(\d+): /gm)) lines.add(Number(m[1]));
  const g = /^All ([\d,]+): (grep -n -E .*)$/m.exec(reference);
  if (!g) return { lines };
  const stated = Number(g[1].replace(/,/g, ''));
  let out = '';
  try {
    out = execFileSync('sh', ['-c', g[2]], { cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  } catch (e) {
    const ex = e as { status?: number; stdout?: string };
    if (ex.status !== 1) return { lines, grepProblem: `the stated grep failed: ${g[2].slice(0, 80)}` };
    out = ex.stdout ?? '';
  }
  const printed = out.split('\n').filter((l) => /^\d+:/.test(l));
  if (printed.length !== stated) return { lines, grepProblem: `the stated grep prints ${printed.length} lines, the reference says ${stated}` };
  for (const l of printed) lines.add(Number(l.slice(0, l.indexOf(':'))));
  return { lines };
}

/** Measures rows 4 and 5; returns both rows and the per-output details. */
export async function rowOffload(workDir: string): Promise<{ rows: Row[]; details: OffloadDetail[] }> {
  const ref = loadBuilt<ReferenceModule>('core/output/reference', ['buildReference']);
  const tok = loadBuilt<TokensModule>('core/output/tokens', ['countTokens']);
  const corpus = loadCorpus();
  const cwd = path.join(workDir, 'reference-corpus');
  const outDir = path.join(cwd, '.agent', 'scratch', 'tool_outputs');
  fs.mkdirSync(outDir, { recursive: true });
  const details: OffloadDetail[] = [];
  const problems: string[] = [];
  for (const e of corpus) {
    const rel = `.agent/scratch/tool_outputs/${e.name}`;
    fs.writeFileSync(path.join(cwd, rel), e.text);
    const reference = await ref.buildReference(path.join(cwd, rel), { path: rel });
    const rawTokens = tok.countTokens(e.text).tokens;
    const returnedTokens = tok.countTokens(reference).tokens;
    const cov = coveredLines(reference, cwd);
    if (cov.grepProblem) problems.push(`${e.name}: ${cov.grepProblem}`);
    const missed = e.errorLines.filter((l) => !cov.lines.has(l));
    details.push({ name: e.name, rawTokens, returnedTokens, savings: 1 - returnedTokens / rawTokens, errorLines: e.errorLines.length, covered: e.errorLines.length - missed.length, missed });
  }
  const big = details.filter((d) => d.rawTokens > BIG);
  const raw = big.reduce((s, d) => s + d.rawTokens, 0);
  const returned = big.reduce((s, d) => s + d.returnedTokens, 0);
  const aggregate = 1 - returned / raw;
  const worst = big.reduce((w, d) => (d.savings < w.savings ? d : w), big[0]);
  const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
  const totalErr = details.reduce((s, d) => s + d.errorLines, 0);
  const covered = details.reduce((s, d) => s + d.covered, 0);
  const recall = covered / totalErr;
  const missedList = details.filter((d) => d.missed.length).map((d) => `${d.name} lines ${d.missed.slice(0, 8).join(', ')}${d.missed.length > 8 ? ` (+${d.missed.length - 8})` : ''}`);
  return {
    rows: [
      {
        id: '4', what: `offload savings, ${big.length} recorded outputs > 8k tokens (${corpus.length} in corpus)`,
        ours: `${pct(aggregate)} aggregate (${returned.toLocaleString('en-US')} of ${raw.toLocaleString('en-US')} tokens returned); worst ${pct(worst.savings)} (${worst.name})`,
        reference: 'raw output: 0%', ratio: `${(raw / returned).toFixed(0)}× fewer tokens`, goal: GOAL4,
        met: aggregate >= 0.95 && worst.savings >= 0.9,
      },
      {
        id: '5', what: `error-line recall, ${totalErr} hand-marked lines in ${details.filter((d) => d.errorLines).length} outputs`,
        ours: `${pct(recall)} (${covered}/${totalErr})`, reference: '—', ratio: '—', goal: GOAL5, met: covered === totalErr,
        note: [missedList.length ? `missed: ${missedList.join('; ')}` : '', ...problems].filter(Boolean).join('; ') || undefined,
      },
    ],
    details,
  };
}

/** The per-output table of rows 4 and 5 for results.md. */
export function renderOffloadDetails(details: OffloadDetail[]): string {
  const out = ['| output | raw tokens | returned tokens | savings | error lines covered |', '|---|---:|---:|---:|---|'];
  for (const d of details) {
    out.push(`| ${d.name} | ${d.rawTokens.toLocaleString('en-US')} | ${d.returnedTokens.toLocaleString('en-US')} | ${(d.savings * 100).toFixed(1)}% | ${d.errorLines ? `${d.covered}/${d.errorLines}${d.missed.length ? ` (missed ${d.missed.slice(0, 6).join(', ')}${d.missed.length > 6 ? '…' : ''})` : ''}` : '—'} |`);
  }
  return out.join('\n');
}
