// lineScore: the line ranking's BM25+ computed from term ids gives what MiniSearch gives over the same
// lines (the library the line ranking used: one index per query), to the last bit: the same lines,
// scores and query terms, on random lines made to share prefixes and on real recorded outputs.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import MiniSearch from 'minisearch';
import { scoreLines, type LineScore } from '../../../../src/core/search/ranked/lineScore';
import { queryTerms, searchedByPrefix, termsOf } from '../../../../src/core/search/ranked/terms';
import { repoRoot } from '../../../repoRoot';
import { rng } from '../../../../bench/harness';

/** MiniSearch as the line ranking called it before lineScore.ts. */
function miniSearch(lines: readonly string[], terms: readonly string[], boost: (id: number) => number): LineScore[] {
  const ms = new MiniSearch<{ id: number; t: string }>({ fields: ['t'], tokenize: termsOf, processTerm: (t) => t });
  ms.addAll(lines.map((t, id) => ({ id, t })));
  return ms
    .search(terms.join(' '), {
      tokenize: (s) => s.split(' '),
      processTerm: (t) => t,
      prefix: (t) => searchedByPrefix(t),
      combineWith: 'OR',
      boostDocument: (id: number) => boost(id),
    })
    .map((r) => ({ id: r.id as number, score: r.score, queryTerms: r.queryTerms }));
}

/** Both, compared line by line: the same lines match, with the same score (Object.is) and query terms. */
function same(lines: readonly string[], terms: readonly string[], boost: (id: number) => number, what: string): number {
  const ours = scoreLines(lines, terms, boost);
  const theirs = miniSearch(lines, terms, boost);
  const byId = new Map(theirs.map((r) => [r.id, r]));
  assert.equal(ours.length, theirs.length, `${what}: lines matched`);
  for (const r of ours) {
    const t = byId.get(r.id);
    assert.ok(t, `${what}: line ${r.id} matched by lineScore only`);
    assert.ok(Object.is(r.score, t.score), `${what}: line ${r.id} scores ${r.score}, MiniSearch ${t.score}`);
    assert.deepEqual(r.queryTerms, t.queryTerms, `${what}: line ${r.id}'s query terms`);
  }
  // Best first, ties in line order.
  for (let k = 1; k < ours.length; k++) assert.ok(ours[k - 1].score > ours[k].score || (ours[k - 1].score === ours[k].score && ours[k - 1].id < ours[k].id), `${what}: order at ${k}`);
  return ours.length;
}

test('random lines whose words share prefixes: lineScore gives MiniSearch\'s lines, scores and query terms', () => {
  // Words that start one another (err, error, errors, erroneous…), camelCase, joined names, numbers, CJK.
  const words = [
    'err', 'error', 'errors', 'erroneous', 'errand', 'errata', 'ErrorBoundary', 'errorHandler', 'er', 'e',
    'fail', 'failed', 'failing', 'failure', 'FailFast', 'fa', 'fee_at_threshold', 'fee', 'feeds', 'feed.go',
    'test', 'tests', 'testing', 'tester', 'testSuite', 'te', 'timeout', 'timed', 'time', 'timer', 'timestamps',
    'build', 'builder', 'buildkit', 'bu', '42', '4200', '123456', '7', 'x', 'C', 'main.c', 'orders-api', '编译错误',
    'panic', 'panicked', 'pan', 'pancake', 'connection', 'connect', 'connected', 'reset', 'ECONNRESET', '::', '--', '|',
  ];
  const rnd = rng(47);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  let matched = 0;
  for (let round = 0; round < 40; round++) {
    const lines = Array.from({ length: 20 + Math.floor(rnd() * 400) }, () =>
      Array.from({ length: Math.floor(rnd() * 14) }, () => pick(words)).join(pick([' ', ' ', ': ', '/', ', '])),
    );
    // Query terms as queryTerms gives them (stemmed, lower-cased), prefixes of words, short ones, absent ones, a repeat.
    const pool = [...new Set(words.flatMap((w) => termsOf(w))), 'erro', 'fai', 'tim', 'conn', 'pa', 'zzz', 'builds'];
    const terms = Array.from({ length: 1 + Math.floor(rnd() * 6) }, () => pick(pool));
    if (round % 7 === 0) terms.push(terms[0]);
    const boosts = lines.map(() => (rnd() < 0.05 ? 0 : 1 + rnd() * 3));
    matched += same(lines, terms, (id) => boosts[id], `round ${round} (${terms.join(' ')})`);
  }
  assert.ok(matched > 1000, `only ${matched} lines matched: the rounds test too little`);
});

test('row 23\'s questions over the real outputs they ask about, and over all outputs at once: lineScore gives MiniSearch\'s answer', () => {
  const outputs = path.join(repoRoot, 'bench/retrieval/outputs');
  const { questions } = JSON.parse(fs.readFileSync(path.join(repoRoot, 'bench/retrieval/questions.json'), 'utf8')) as { questions: { q: string; output: string }[] };
  // The line ranking's documents: non-blank lines, cut at 4,096 characters.
  const linesOf = (file: string): string[] =>
    fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter((t) => t.trim())
      .map((t) => (t.length > 4096 ? t.slice(0, 4096) : t));
  const boost = (id: number): number => 1 + (id % 5) * 0.3;
  let asked = 0;
  for (const { q, output } of questions) {
    const file = path.join(outputs, output);
    if (!fs.existsSync(file)) continue; // a bench/corpus recording
    same(linesOf(file), queryTerms(q), boost, `${q} (${output})`);
    asked++;
  }
  assert.ok(asked >= 30, `only ${asked} questions had an output here`);
  const all = fs
    .readdirSync(outputs, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(log|txt)$/.test(f))
    .sort()
    .flatMap((f) => linesOf(path.join(outputs, f)));
  assert.ok(all.length > 10_000, `${all.length} lines`);
  for (const { q } of questions.slice(0, 6)) assert.ok(same(all, queryTerms(q), boost, `${q} (all outputs)`) > 0);
});
