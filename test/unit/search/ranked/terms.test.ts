import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { forEachTermId, queryTerms, stem, termName, termsOf, termWords } from '../../../../src/core/search/ranked/terms';

test('the stemmer joins the forms a question and an output use for one word (Porter)', () => {
  for (const w of ['failed', 'failing', 'fails', 'fail']) assert.equal(stem(w), 'fail', w);
  for (const w of ['timed', 'times', 'time']) assert.equal(stem(w), 'time', w);
  for (const w of ['compile', 'compiled', 'compilation']) assert.equal(stem(w), 'compil', w);
  for (const w of ['connection', 'connected', 'connect']) assert.equal(stem(w), 'connect', w);
  assert.equal(stem('dependencies'), stem('dependency'));
  assert.equal(stem('skipped'), 'skip');
  assert.equal(stem('errors'), 'error');
  // Left alone: short words, non-ASCII words, words with digits.
  assert.equal(stem('bus'), 'bus');
  assert.equal(stem('größe'), 'größe');
  assert.equal(stem('e0308'), 'e0308');
});

test('words split at punctuation; words joined by _ . - are also a term whole; camelCase words also give their humps; case is folded', () => {
  assert.deepEqual(termsOf('AssertionError: expected 3'), ['assertionerror', 'assert', 'error', 'expect', '3']);
  assert.deepEqual(termsOf('src/userService.ts(12,5)'), ['src', 'userservice.ts', 'userservic', 'user', 'servic', 'ts', '12', '5']);
  assert.deepEqual(termsOf('ERR_INVALID_ARG_TYPE'), ['err_invalid_arg_type', 'err', 'invalid', 'arg', 'type']);
  // A question naming a test or a file finds it exactly.
  assert.ok(queryTerms('Why did fee_at_threshold fail in carrier.go?').includes('fee_at_threshold'));
  assert.ok(queryTerms('Why did fee_at_threshold fail in carrier.go?').includes('carrier.go'));
  assert.deepEqual(termsOf('ECONNRESET TS2345 E0308'), ['econnreset', 'ts2345', 'e0308']);
});

test('ids, hashes and blobs are not terms: they would be most of a log and answer nothing', () => {
  assert.deepEqual(termsOf('commit 3f9c2a7b1e4d5c6f7a8b9c0d1e2f3a4b5c6d7e8f at 1733467200000 line 123456'), ['commit', 'at', 'line', '123456']);
  assert.deepEqual(termsOf('x'.repeat(41) + ' ok'), ['ok']);
  // A hex-looking word without a digit is a word (not a hash: no digit).
  assert.deepEqual(termsOf('deadbeefcafebabe'), ['deadbeefcafebab']);
});

test('versions, dates and measurements are searched by their parts: each build and log line would add new ones whole', () => {
  // A joined token starting with a number (a version, a date, a migration's name) gives only its parts.
  assert.deepEqual(termsOf('typescript@5.9.0-dev.20250305'), ['typescript', '5', '9', '0', 'dev']);
  assert.deepEqual(termsOf('0009_orders_owner'), ['0009', 'order', 'owner']);
  assert.deepEqual(termsOf('2026-04-12T10:30'), ['2026', '04', '30']);
  // A name that starts with a letter stays whole, with a version in it or not.
  assert.deepEqual(termsOf('graceful-fs-4.2.15.tgz'), ['graceful-fs-4.2.15.tgz', 'grace', 'fs', '4', '2', '15', 'tgz']);
  assert.deepEqual(termsOf('test_over_23'), ['test_over_23', 'test', 'over', '23']);
  // A number run into letters: a measurement of 3 digits or more, a timestamp's piece; short ones and hex literals stay.
  assert.deepEqual(termsOf('took 13890ms, 10ms, reject 2d at 12t10 mask 0x1f'), ['took', '10ms', 'reject', '2d', 'at', 'mask', '0x1f']);
  // The query goes by the same rule: a version asked for is found by its parts.
  assert.deepEqual(queryTerms('what changed in 4.2.15'), ['chang', '4', '2', '15']);
});

test('Chinese, Japanese and Korean runs give overlapping pairs, so a word inside a sentence is found', () => {
  assert.deepEqual(termsOf('编译错误'), ['编译', '译错', '错误']);
  assert.ok(termsOf('ビルドエラーです').includes('エラ'));
  assert.deepEqual(termsOf('错'), ['错']);
  // Single letters are terms: C is a language, .c a file's kind.
  assert.deepEqual(termsOf('main.c:3:错误 x'), ['main.c', 'main', 'c', '3', '错误', 'x']);
});

test('a question loses the words every question has, keeps what it is about', () => {
  assert.deepEqual(queryTerms('Why did the linker fail?'), ['linker', 'fail']);
  assert.deepEqual(queryTerms('which test timed out'), ['test', 'time']);
  assert.deepEqual(queryTerms('what did the migration change'), ['migrat', 'chang']);
  assert.deepEqual(queryTerms('Which C files failed in the Go build?'), ['c', 'file', 'fail', 'go', 'build']);
  // A question's negation is not searched for: the output says `cannot` (or nothing), and `not` is in any prose.
  assert.deepEqual(queryTerms('Which symbols can javac not find?'), ['symbol', 'javac']);
  assert.deepEqual(queryTerms('Which ESLint errors are reported (not warnings)?'), ['eslint', 'error', 'report', 'warn']);
  // A query's camelCase word is searched whole (the index has it whole): its humps would find `es-errors`.
  assert.deepEqual(queryTerms('Why does shipping raise a KeyError?'), ['ship', 'rais', 'keyerror']);
  assert.deepEqual(termsOf('KeyError'), ['keyerror', 'key', 'error']);
  // Nothing but question words: all of them (the user asked for exactly that).
  assert.deepEqual(queryTerms('what is this'), ['what', 'is', 'thi']);
  assert.deepEqual(queryTerms('error error ERROR'), ['error']);
  assert.deepEqual(queryTerms('  '), []);
});

test('an answer names a term by the word the query wrote, not by its stem', () => {
  const words = termWords('implicit declaration of fee_at_threshold in userService');
  assert.equal(words.get(stem('declaration')), 'declaration');
  assert.equal(words.get('fee_at_threshold'), 'fee_at_threshold');
  assert.equal(words.get(stem('threshold')), 'threshold');
  assert.equal(words.get(stem('userservice')), 'userservice');
  for (const t of queryTerms('implicit declaration of fee_at_threshold in userService')) assert.ok(words.has(t), t);
});

test('ASCII text gives the terms the Unicode path gives the same words (the indexing path reads ASCII char by char)', () => {
  // A non-ASCII word at the end sends a text down the regex path; without it the text is all ASCII.
  const viaRegex = (text: string): string[] => {
    const all = termsOf(`${text} é`);
    assert.equal(all.pop(), 'é');
    return all;
  };
  const samples = [
    'src/userService.ts(12,5): error TS2345: ERR_INVALID_ARG_TYPE at graceful-fs-4.2.15.tgz',
    'a. .a x--y a.b.c.d.e.f __init__.py HTTPServer2Go 0x1f 12t10 13890ms test_over_23 -x- _a_',
    `${'x'.repeat(38)}.yz ${'a'.repeat(41)} ${'b'.repeat(40)}.c ab.${'c'.repeat(45)}`,
    '',
    '.',
    'z',
    // Numbers: up to 3 digits remembered, 4 to 6 terms but not remembered, 7 and more not terms.
    '1 22 333 4444 55555 666666 7777777 0009 000123 a1234 1234b 12.3456.7777777 x-123456-y 99999999999',
  ];
  // Random texts over the characters that decide a token's bounds.
  let seed = 7;
  const rnd = (n: number): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % n;
  };
  const alphabet = 'aAbBzZ09fF._-  /:@xYkK';
  for (let k = 0; k < 3000; k++) {
    // Every third text with long runs of digits.
    const chars = k % 3 === 0 ? '0123456789.a -' : alphabet;
    let s = '';
    const len = rnd(40);
    for (let i = 0; i < len; i++) s += chars[rnd(chars.length)];
    samples.push(s);
  }
  for (const s of samples) assert.deepEqual(termsOf(s), viaRegex(s), JSON.stringify(s));
  // The indexing path's ids name the same terms, for ASCII text and other text alike.
  for (const s of [...samples.slice(0, 500), '编译错误 main.c Größe_x', 'KeyError: größe']) {
    const named: string[] = [];
    forEachTermId(s, (id) => named.push(termName(id)));
    assert.deepEqual(named, termsOf(s), JSON.stringify(s));
  }
});

test('the terms of a word stay right after more distinct words than are remembered', () => {
  const before = termsOf('AssertionError fee_at_threshold failing');
  // 300,000 distinct words: more than the words remembered (100,000) and than the table holds, so the memory is cleared on the way.
  for (let k = 0; k < 300_000; k++) termsOf(`w${k.toString(36)}q Failing${k % 97}`);
  assert.deepEqual(termsOf('AssertionError fee_at_threshold failing'), before);
  assert.deepEqual(before, ['assertionerror', 'assert', 'error', 'fee_at_threshold', 'fee', 'at', 'threshold', 'fail']);
});
