import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { linesWithin } from '../../../src/core/output/linesWithin';

const lines = Array.from({ length: 50 }, (_, i) => `line ${i}: ${'x'.repeat(40)}`);
const more = (left: number, from: number) => `… ${left} more, from ${from}: ${lines.slice(from).map((_, k) => from + k).join(', ')}`;

test('linesWithin: everything when it fits, no "more" line', () => {
  const text = linesWithin(['head'], lines.slice(0, 3), 1000, more);
  assert.equal(text, ['head', ...lines.slice(0, 3)].join('\n'));
});

test('linesWithin: whole lines only, then a last line naming how many are left and from where, all within the budget', () => {
  const text = linesWithin(['head'], lines, 1000, more, 200);
  const out = text.split('\n');
  const shown = out.slice(1, -1);
  assert.ok(shown.length > 5 && shown.length < 50);
  assert.deepEqual(shown, lines.slice(0, shown.length), 'every shown line is whole');
  assert.match(out[out.length - 1], new RegExp(`^… ${50 - shown.length} more, from ${shown.length}: ${shown.length}, `));
  assert.ok(Buffer.byteLength(text) <= 1000, `${Buffer.byteLength(text)} bytes`);
});

test('linesWithin: the last line is cut to the room left, never past the budget', () => {
  const text = linesWithin([], lines, 300, () => 'y'.repeat(5000), 100);
  assert.ok(Buffer.byteLength(text) <= 300, `${Buffer.byteLength(text)} bytes`);
  assert.ok(text.split('\n').at(-1)!.startsWith('yyy'));
});
