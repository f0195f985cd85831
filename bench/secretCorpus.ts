// The labelled secret-masking corpus (test/fixtures/secrets/) and its scoring, shared by the unit
// test (which fails below the goals) and the bench row (which reports the same figures).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadCorpus } from './corpusLoader';

/** One true-positive line: `secret` must not survive masking `before + line + after`. */
export interface SecretCase {
  kind: 'token' | 'context';
  family: string;
  provider: string;
  line: string;
  secret: string;
  before?: string;
  after?: string;
}

export interface OrdinaryText {
  name: string;
  text: string;
}

/** test/fixtures/secrets, from the source tree or out/. */
export function secretFixturesDir(): string {
  for (const dir of [path.resolve(__dirname, '../test/fixtures/secrets'), path.resolve(__dirname, '../../test/fixtures/secrets')]) {
    if (fs.existsSync(path.join(dir, 'true-positives.jsonl'))) return dir;
  }
  throw new Error(`test/fixtures/secrets/true-positives.jsonl not found near ${__dirname}`);
}

export function loadTruePositives(dir = secretFixturesDir()): SecretCase[] {
  return fs
    .readFileSync(path.join(dir, 'true-positives.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as SecretCase);
}

/** Real output recorded on this machine: fixtures/secrets/ordinary/* plus the bench corpus. */
export function loadOrdinary(dir = secretFixturesDir()): OrdinaryText[] {
  const out: OrdinaryText[] = [];
  const od = path.join(dir, 'ordinary');
  for (const f of fs.readdirSync(od).sort()) out.push({ name: `ordinary/${f}`, text: fs.readFileSync(path.join(od, f), 'utf8') });
  for (const e of loadCorpus()) out.push({ name: `bench/corpus/${e.file}`, text: e.text });
  return out;
}

export interface SecretScore {
  /** kind → family → [masked, total] */
  recall: Record<string, Record<string, [number, number]>>;
  tokenRecall: number;
  contextRecall: number;
  missed: string[];
  ordinaryLines: number;
  falsePositives: string[];
  fpRate: number;
}

/** Scores a masker (text in, masked text out) on the corpus. */
export function scoreMasker(mask: (text: string) => string, cases = loadTruePositives(), ordinary = loadOrdinary()): SecretScore {
  const recall: SecretScore['recall'] = {};
  const missed: string[] = [];
  const totals = { token: [0, 0], context: [0, 0] };
  for (const c of cases) {
    const out = mask(`${c.before ?? ''}${c.line}${c.after ?? ''}\n`);
    const ok = !out.includes(c.secret);
    const fam = ((recall[c.kind] ??= {})[c.family] ??= [0, 0]);
    fam[1]++;
    totals[c.kind][1]++;
    if (ok) {
      fam[0]++;
      totals[c.kind][0]++;
    } else missed.push(`${c.kind}/${c.provider}: ${c.line.slice(0, 160)}`);
  }
  let ordinaryLines = 0;
  const falsePositives: string[] = [];
  for (const o of ordinary) {
    const lines = o.text.split('\n');
    const masked = mask(o.text).split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (!lines[i].trim()) continue;
      ordinaryLines++;
      if (masked[i] !== lines[i]) falsePositives.push(`${o.name}:${i + 1}: ${(masked[i] ?? '').slice(0, 160)}`);
    }
  }
  return {
    recall,
    tokenRecall: totals.token[0] / Math.max(1, totals.token[1]),
    contextRecall: totals.context[0] / Math.max(1, totals.context[1]),
    missed,
    ordinaryLines,
    falsePositives,
    fpRate: falsePositives.length / Math.max(1, ordinaryLines),
  };
}

/** Goals of issue 12. */
export const SECRET_GOALS = { tokenRecall: 0.97, contextRecall: 0.8, fpRate: 0.002, worstLineMs: 50, mbPerSec: 20 };
