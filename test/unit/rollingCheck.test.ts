// The one mechanism of the caches checked a batch per call with background sweeps (terminal
// catalog, agent ranking; the notes and FileDigests rounds): the turn and the sweep.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { RollingCheck, round, SWEEP_SLICE } from '../../src/core/rollingCheck';

test('round: count items in turn from where the last one stopped, wrapping around; all of them when there are no more', () => {
  const all = [1, 2, 3, 4, 5, 6, 7];
  let from = 0;
  const seen: number[][] = [];
  for (let i = 0; i < 4; i++) {
    const r = round(all, from, 3);
    seen.push(r.items);
    from = r.next;
  }
  assert.deepEqual(seen, [[1, 2, 3], [4, 5, 6], [7, 1, 2], [3, 4, 5]]);
  assert.deepEqual(round(all, 5, 7), { items: all, next: 0 });
  assert.deepEqual(round([], 3, 2), { items: [], next: 0 });
  assert.deepEqual(round(all, 12, 2).items, [6, 7], 'a cursor past a list that shrank starts within it');
});

test('a sweep checks every item of its start, in slices, each queued after the calls that came meanwhile', async () => {
  const items = Array.from({ length: 2 * SWEEP_SLICE + 7 }, (_, i) => i);
  const order: string[] = [];
  const checked: number[] = [];
  const rc = new RollingCheck<number>(
    () => items,
    (slice) => {
      order.push(`slice ${slice.length}`);
      checked.push(...slice);
    },
  );
  rc.sweepIfDue(); // never swept: one is due (in a second)
  const call = rc.run(() => order.push('call'));
  await rc.settleSweep(); // started now, waited for
  await call;
  assert.deepEqual(checked, items);
  assert.deepEqual(order, ['call', `slice ${SWEEP_SLICE}`, `slice ${SWEEP_SLICE}`, 'slice 7']);
  assert.ok(rc.sweptAt > 0);
  // Swept a moment ago: no other sweep is due.
  rc.sweepIfDue();
  checked.length = 0;
  await rc.settleSweep();
  assert.equal(checked.length, 0);
});

test('a stopped check ends its sweep at the next slice, and no sweep is due after a call that checked everything', async () => {
  const items = Array.from({ length: 3 * SWEEP_SLICE }, (_, i) => i);
  let slices = 0;
  const rc = new RollingCheck<number>(
    () => items,
    () => {
      if (++slices === 1) rc.stop();
    },
  );
  rc.sweepIfDue();
  await rc.settleSweep();
  assert.equal(slices, 1);
  assert.equal(rc.dead, true);
  const other = new RollingCheck<number>(() => items, () => assert.fail('no sweep'));
  other.swept();
  other.sweepIfDue();
  await other.settleSweep();
});
