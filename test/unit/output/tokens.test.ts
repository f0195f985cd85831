import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { OutputScanner } from '../../../src/core/output/reference';
import { countTokens, cutLongRuns, formatTokens, type TokenCount } from '../../../src/core/output/tokens';

test('counts with a real tokenizer, not characters / 4', () => {
  const en = countTokens('The quick brown fox jumps over the lazy dog.');
  assert.equal(en.approximate, false);
  assert.ok(en.tokens >= 9 && en.tokens <= 12, `english: ${en.tokens}`);
  // CJK text has far more tokens per character than chars/4 would say.
  const ja = 'ビルドに失敗しました。依存関係を確認してください。'.repeat(10);
  const jt = countTokens(ja);
  assert.ok(jt.tokens > ja.length / 4, `japanese: ${jt.tokens} for ${ja.length} chars`);
});

test('large texts are estimated and marked', () => {
  const big = 'error: something failed at line 42\n'.repeat(40_000);
  const c = countTokens(big);
  assert.equal(c.approximate, true);
  assert.match(formatTokens(c), /^≈/);
  const exact = countTokens(big.slice(0, 36 * 1000)).tokens * 40;
  assert.ok(Math.abs(c.tokens - exact) / exact < 0.1, `${c.tokens} vs ${exact}`);
});

test('a run the tokenizer takes as one word (a minified line, a row of one letter, a wall of blanks) is counted in pieces, marked ≈, close to the exact count', { timeout: 60_000 }, () => {
  // Counted whole, a 1 MB run takes the tokenizer time in the square of its length (hours); the
  // test's time limit is what fails then.
  const run = countTokens('a'.repeat(1_000_000));
  assert.equal(run.approximate, true);
  assert.ok(run.tokens > 50_000 && run.tokens < 500_000, String(run.tokens));
  // Runs short enough for the tokenizer to count whole here: the pieces' sum is within 10 % (a token or two).
  const exactCount = (require('gpt-tokenizer/encoding/o200k_base') as { countTokens(t: string): number }).countTokens;
  for (const text of ['b'.repeat(3000) + ' end', `x = 1;${' '.repeat(2000)}y = 2;`, `${'='.repeat(900)}\nok`, `Lorem${'ipsumdolor'.repeat(300)}`]) {
    const c = countTokens(text);
    const exact = exactCount(text);
    assert.equal(c.approximate, true);
    assert.ok(Math.abs(c.tokens - exact) <= Math.max(2, exact * 0.1), `${c.tokens} vs ${exact}`);
  }
  // Ordinary text is exact as before.
  assert.equal(countTokens('const minified=function(a,b){return a+b};'.repeat(200)).approximate, false);
});

test('long runs are cut exactly where the Unicode regex of the tokenizer\'s pre-split finds them (letters and marks, blanks, other; astral characters count once)', () => {
  // The definition the one-pass scan replaces, as a regex (slow: tried at every position).
  const LONG = /[\p{L}\p{M}]{257,}|\s{257,}|[^\s\p{L}\p{M}\p{N}]{257,}/gu;
  const byRegex = (text: string): string[] | undefined => {
    const out: string[] = [];
    let last = 0;
    for (const m of text.matchAll(LONG)) {
      if (m.index > last) out.push(text.slice(last, m.index));
      for (let i = 0; i < m[0].length; i += 256) out.push(m[0].slice(i, i + 256));
      last = m.index + m[0].length;
    }
    if (out.length === 0) return undefined;
    if (last < text.length) out.push(text.slice(last));
    return out;
  };
  // Letters (ASCII, accented, Greek, CJK, an astral one), a combining mark, blanks (ASCII, no-break,
  // ideographic), digits (ASCII, Arabic-Indic), punctuation and symbols (an emoji), a lone surrogate.
  const palette = ['a', 'é', 'λ', '漢', '\u{1D49C}', '\u0301', ' ', '\t', '\n', '\u00A0', '\u3000', '7', '\u0663', '=', '.', '\u{1F600}', '\uD800'];
  let seed = 22;
  const rand = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
  let cut = 0;
  for (let t = 0; t < 300; t++) {
    let text = '';
    for (let runs = rand(6) + 1; runs > 0; runs--) {
      // A run of one class (sometimes mixed within it), its length near the limit or short.
      const kinds = [palette[rand(palette.length)], palette[rand(palette.length)]];
      const len = [255, 256, 257, 258, 513, 3, 40][rand(7)];
      for (let i = 0; i < len; i++) text += kinds[rand(5) === 0 ? 1 : 0];
    }
    const want = byRegex(text);
    assert.deepEqual(cutLongRuns(text), want, `text ${t}`);
    if (want) cut++;
    // Cut or not, the pieces are the text.
    assert.equal((cutLongRuns(text) ?? [text]).join(''), text);
  }
  assert.ok(cut > 50 && cut < 290, `both kinds of text were tried (${cut} of 300 cut)`);
});

// The tokenizer's worker (extension host, MCP server): the same counts, and this thread never loads
// the tables. Each case runs in a fresh Node process: whether the tables were loaded is per process.
function inChild(body: string): { status: number | null; out: string; err: string } {
  const tokens = require.resolve('../../../src/core/output/tokens');
  const reference = require.resolve('../../../src/core/output/reference');
  const script = `const t = require(${JSON.stringify(tokens)}); const r = require(${JSON.stringify(reference)});
const loadedHere = () => Object.keys(require.cache).some((k) => k.includes('gpt-tokenizer'));
(async () => { ${body} })().catch((e) => { console.error(e.stack); process.exit(1); });`;
  const res = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 60_000 });
  return { status: res.status, out: res.stdout, err: res.stderr };
}

// The large one (sampled) is built in the child: arguments cannot carry a megabyte.
const TEXTS = ['', 'The quick brown fox jumps over the lazy dog.', 'ビルドに失敗しました。'.repeat(50)];
const BIG = 'error: something failed at line 42\n';

test('countTokensAsync on the worker gives countTokens\'s counts, and this thread never loads the tokenizer (the process then exits by itself)', () => {
  const want = [...TEXTS, BIG.repeat(40_000)].map((x) => countTokens(x));
  assert.equal(want[3].approximate, true);
  const r = inChild(`t.useTokenizerWorker(true);
const got = await Promise.all([...${JSON.stringify(TEXTS)}, ${JSON.stringify(BIG)}.repeat(40000)].map((x) => t.countTokensAsync(x)));
const s = new r.OutputScanner(1, true); s.push('npm ERR! failed\\n'.repeat(20000)); const scan = await s.endAsync();
console.log(JSON.stringify({ got, scanTokens: scan.tokens, loadedHere: loadedHere(), active: t.tokenizerWorkerActive() }));`);
  assert.equal(r.status, 0, r.err);
  const o = JSON.parse(r.out) as { got: TokenCount[]; scanTokens: TokenCount; loadedHere: boolean; active: boolean };
  assert.deepEqual(o.got, want);
  const sync = new OutputScanner(1);
  sync.push('npm ERR! failed\n'.repeat(20000));
  assert.deepEqual(o.scanTokens, sync.end().tokens);
  assert.equal(o.loadedHere, false, 'the tokenizer was loaded on the calling thread');
  assert.equal(o.active, true);
});

test('without useTokenizerWorker (the hooks\' short processes) countTokensAsync counts in this thread, no worker', () => {
  const r = inChild(`const n = await t.countTokensAsync('hello world');
console.log(JSON.stringify({ n, loadedHere: loadedHere(), active: t.tokenizerWorkerActive() }));`);
  assert.equal(r.status, 0, r.err);
  const o = JSON.parse(r.out) as { n: TokenCount; loadedHere: boolean; active: boolean };
  assert.deepEqual(o.n, countTokens('hello world'));
  assert.equal(o.loadedHere, true);
  assert.equal(o.active, false);
});

test('counts owed by a worker that is stopped are made in this thread; later counts too', () => {
  const r = inChild(`t.useTokenizerWorker(false);
const owed = t.countTokensAsync('a fairly ordinary sentence about a build that failed');
await t.stopTokenizerWorker();
const after = await t.countTokensAsync('hello world');
console.log(JSON.stringify({ owed: await owed, after }));`);
  assert.equal(r.status, 0, r.err);
  const o = JSON.parse(r.out) as { owed: TokenCount; after: TokenCount };
  assert.deepEqual(o.owed, countTokens('a fairly ordinary sentence about a build that failed'));
  assert.deepEqual(o.after, countTokens('hello world'));
});
