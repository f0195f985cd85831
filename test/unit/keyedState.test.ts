// KeyedState: the per-folder state of the Scratch view. A failed build or update must not stick
// (issue 15's intermittent "Scratch view never shows its rows" in cold CI runs: one rejected update
// kept as the state failed every later render and refresh).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { KeyedState, SerialQueue } from '../../src/core/keyedState';

test('a failed update is forgotten: the next read builds afresh and later updates run', async () => {
  let builds = 0;
  const errors: string[] = [];
  const ks = new KeyedState(async () => ({ n: ++builds * 100 }), (key, e) => errors.push(`${key}: ${(e as Error).message}`));
  assert.deepEqual(await ks.get('a'), { n: 100 });
  assert.equal(await ks.update('a', (s) => void (s.n += 1)), true);
  assert.deepEqual(await ks.get('a'), { n: 101 });
  const failed = ks.update('a', () => {
    throw new Error('disk gone');
  });
  // A read queued behind the failing step gets a fresh build, not the error.
  assert.deepEqual(await ks.get('a'), { n: 200 });
  assert.equal(await failed, false);
  assert.deepEqual(errors, ['a: disk gone']);
  assert.equal(await ks.update('a', (s) => void (s.n += 5)), true);
  assert.deepEqual(await ks.get('a'), { n: 205 });
});

test('steps run one at a time in the order queued; a key with no state is left to its first read', async () => {
  const ks = new KeyedState(async () => ({ log: [] as string[] }));
  assert.equal(await ks.update('x', (s) => void s.log.push('early')), false);
  assert.equal(ks.has('x'), false);
  await ks.get('x');
  const slow = ks.update('x', async (s) => {
    await new Promise((r) => setTimeout(r, 20));
    s.log.push('slow');
  });
  const fast = ks.update('x', (s) => void s.log.push('fast'));
  assert.deepEqual(await Promise.all([slow, fast]), [true, true]);
  assert.deepEqual((await ks.get('x')).log, ['slow', 'fast']);
});

test('a failed build is retried once by the read, then forgotten so a later read tries again', async () => {
  let calls = 0;
  let fail = true;
  const ks = new KeyedState(async () => {
    calls++;
    if (fail) throw new Error('not yet');
    return 'ok';
  });
  await assert.rejects(ks.get('k'), /not yet/);
  assert.equal(calls, 2, 'one build and one retry');
  assert.equal(ks.has('k'), false, 'the failure is not kept');
  fail = false;
  assert.equal(await ks.get('k'), 'ok');
});

test('SerialQueue runs one thing at a time in the order queued; a run that fails is the caller\'s error and the queue goes on', async () => {
  const q = new SerialQueue();
  const log: string[] = [];
  let running = 0;
  const job = (name: string, fail = false) => async () => {
    running++;
    assert.equal(running, 1, `${name} started while another run was under way`);
    log.push(`start ${name}`);
    await new Promise((r) => setTimeout(r, 5));
    log.push(`end ${name}`);
    running--;
    if (fail) throw new Error(`${name} failed`);
    return name;
  };
  const a = q.run(job('a'));
  const b = q.run(job('b', true));
  const c = q.run(() => 'c (sync)');
  const d = q.run(job('d'));
  assert.equal(await a, 'a');
  await assert.rejects(b, /b failed/);
  assert.equal(await c, 'c (sync)');
  assert.equal(await d, 'd');
  assert.deepEqual(log, ['start a', 'end a', 'start b', 'end b', 'start d', 'end d']);
});
