'use strict';
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const { slugify, parseDuration, chunk, fetchConfig, mergeDeep } = require('../lib');

describe('slugify', () => {
  it('lowercases words', () => assert.equal(slugify('Hello World'), 'hello-world'));
  it('strips punctuation', () => assert.equal(slugify('a, b & c!'), 'a-b-c'));
  it('trims dashes', () => assert.equal(slugify('--x--'), 'x'));
  it('keeps accented letters', () => assert.equal(slugify('Crème brûlée'), 'creme-brulee'));
  it('handles empty input', () => assert.equal(slugify(''), ''));
});
describe('parseDuration', () => {
  for (const [t, v] of [['10ms', 10], ['2s', 2000], ['3m', 180000], ['1h', 3600000]]) {
    it(`parses ${t}`, () => assert.equal(parseDuration(t), v));
  }
  it('rejects garbage', () => assert.throws(() => parseDuration('soon'), RangeError));
  it('accepts days', () => assert.equal(parseDuration('2d'), 172800000));
});
describe('chunk', () => {
  it('splits evenly', () => assert.deepEqual(chunk([1, 2, 3, 4], 2), [[1, 2], [3, 4]]));
  it('keeps the remainder', () => assert.deepEqual(chunk([1, 2, 3], 2), [[1, 2], [3]]));
  it('returns nothing for empty input', () => assert.deepEqual(chunk([], 3), []));
});
describe('fetchConfig', () => {
  it('parses JSON', async () => assert.deepEqual(await fetchConfig(async () => '{"a":1}'), { a: 1 }));
  it('reports the file on bad JSON', async () => {
    await assert.rejects(fetchConfig(async () => '{a:1}'), /config\.json/);
  });
});
describe('mergeDeep', () => {
  it('merges nested objects', () => assert.deepEqual(mergeDeep({ a: { b: 1 } }, { a: { c: 2 } }), { a: { b: 1, c: 2 } }));
  it('adds new nested keys', () => assert.deepEqual(mergeDeep({}, { x: { y: 1 } }), { x: { y: 1 } }));
  it('does not mutate the input', () => { const a = { k: 1 }; mergeDeep(a, { k: 2 }); assert.equal(a.k, 1); });
});
