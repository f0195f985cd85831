import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { queryTerms, stem, termsOf } from '../../../../src/core/search/ranked/terms';

test('the stemmer joins the forms a question and an output use for one word', () => {
  for (const w of ['failed', 'failing', 'fails', 'fail']) assert.equal(stem(w), 'fail', w);
  for (const w of ['timed', 'times', 'time']) assert.equal(stem(w), 'time', w);
  assert.equal(stem('passed'), 'pass');
  assert.equal(stem('passes'), 'pass');
  assert.equal(stem('skipped'), 'skip');
  assert.equal(stem('running'), 'run');
  assert.equal(stem('dependencies'), 'dependency');
  assert.equal(stem('errors'), 'error');
  // Left alone: short words, words that only look like a form, non-ASCII.
  assert.equal(stem('bus'), 'bus');
  assert.equal(stem('status'), 'status');
  assert.equal(stem('analysis'), 'analysis');
  assert.equal(stem('größe'), 'größe');
});

test('words split at punctuation; camelCase words also give their humps; case is folded', () => {
  assert.deepEqual(termsOf('AssertionError: expected 3'), ['assertionerror', 'assertion', 'error', 'expect', '3']);
  assert.deepEqual(termsOf('src/userService.ts(12,5)'), ['src', 'userservice', 'user', 'service', 'ts', '12', '5']);
  assert.deepEqual(termsOf('ERR_INVALID_ARG_TYPE'), ['err', 'invalid', 'arg', 'type']);
  assert.deepEqual(termsOf('ECONNRESET TS2345 E0308'), ['econnreset', 'ts2345', 'e0308']);
});

test('ids, hashes and blobs are not terms: they would be most of a log and answer nothing', () => {
  assert.deepEqual(termsOf('commit 3f9c2a7b1e4d5c6f7a8b9c0d1e2f3a4b5c6d7e8f at 1733467200000 line 123456'), ['commit', 'at', 'line', '123456']);
  assert.deepEqual(termsOf('x'.repeat(41) + ' ok'), ['ok']);
  // A hex-looking word without a digit is a word (deadbeefcafe is not a hash here: no digit).
  assert.deepEqual(termsOf('deadbeefcafebabe'), ['deadbeefcafebabe']);
});

test('Chinese, Japanese and Korean runs give overlapping pairs, so a word inside a sentence is found', () => {
  assert.deepEqual(termsOf('编译错误'), ['编译', '译错', '错误']);
  assert.ok(termsOf('ビルドエラーです').includes('エラ'));
  assert.deepEqual(termsOf('错'), ['错']);
  // Single letters are not terms (a digit is).
  assert.deepEqual(termsOf('main.c:3:错误 x'), ['main', '3', '错误']);
});

test('a question loses the words every question has, keeps what it is about', () => {
  assert.deepEqual(queryTerms('Why did the linker fail?'), ['linker', 'fail']);
  assert.deepEqual(queryTerms('which test timed out'), ['test', 'time']);
  assert.deepEqual(queryTerms('what did the migration change'), ['migration', 'change']);
  // Nothing but question words: all of them (the user asked for exactly that).
  assert.deepEqual(queryTerms('what is this'), ['what', 'is', 'this']);
  assert.deepEqual(queryTerms('error error ERROR'), ['error']);
  assert.deepEqual(queryTerms('  '), []);
});
