// Bench rows 10x/18x/19x: Agent Context's own time in each event-loop block, read from a CPU
// profile of the session. Checked on a profile made here: which samples count as ours (a frame of
// our bundles anywhere on the stack, under a path or a file: URL), only those inside the block,
// and the garbage collector's share in proportion.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { ownTimeInBlocks, type CpuProfile, type ProfiledBlock } from '../../../bench/blockShare';

const T0 = 5_000_000;

/** A profile sampled every ms from T0 + 1 ms: sample i (0-based) is at T0 + (i + 1) ms, of node kinds[i]. */
function profile(kinds: ('ours' | 'oursNative' | 'other' | 'gc' | 'idle')[], ourUrl: string): CpuProfile {
  const ids = { ours: 2, other: 3, gc: 4, idle: 5, oursNative: 6 } as const;
  return {
    nodes: [
      { id: 1, callFrame: { url: '', functionName: '(root)' }, children: [2, 3, 4, 5] },
      { id: 2, callFrame: { url: ourUrl, functionName: 'render' }, children: [6] },
      { id: 3, callFrame: { url: '/editor/out/extensionHostProcess.js', functionName: 'registerCommand' } },
      { id: 4, callFrame: { url: '', functionName: '(garbage collector)' } },
      { id: 5, callFrame: { url: '', functionName: '(idle)' } },
      // A native function called by ours (a read): no script of its own, ours by its caller.
      { id: 6, callFrame: { url: '', functionName: 'readSync' } },
    ],
    startTime: T0,
    samples: kinds.map((k) => ids[k]),
    timeDeltas: kinds.map(() => 1000),
  };
}

test('a block counts the samples with our bundle on the stack inside it, and the GC in proportion', () => {
  const kinds = [
    ...Array<'ours'>(9).fill('ours'), // 1–9 ms: before the block, not counted
    ...Array<'oursNative'>(4).fill('oursNative'), // 10–13 ms: ours (its caller is)
    ...Array<'other'>(4).fill('other'), // 14–17 ms: another extension
    'gc', 'gc', // 18–19 ms: half of the JavaScript before them was ours
    'idle', // 20 ms
    ...Array<'other'>(20).fill('other'), // 21–40 ms: only another extension
  ] as const;
  const blocks: ProfiledBlock[] = [
    { endUs: T0 + 20_000, gapMs: 10.5 }, // 9.5–20 ms
    { endUs: T0 + 40_000, gapMs: 10 }, // 30–40 ms
  ];
  ownTimeInBlocks(profile([...kinds], '/ext/dist/extension.js'), blocks, ['/ext/dist/']);
  assert.equal(blocks[0].oursMs, 4 + (2 * 4) / 8);
  assert.equal(blocks[1].oursMs, 0);
});

test('our scripts named by file: URL, and a repository path that is not the bundles folder is not ours', () => {
  const kinds = Array<'ours'>(10).fill('ours');
  const url: Record<'ours' | 'notOurs', ProfiledBlock[]> = { ours: [{ endUs: T0 + 10_000, gapMs: 20 }], notOurs: [{ endUs: T0 + 10_000, gapMs: 20 }] };
  ownTimeInBlocks(profile(kinds, 'file:///ext/dist/extension.js'), url.ours, ['/ext/dist/', 'file:///ext/dist/']);
  // The scenario itself is loaded from the repository (out/bench/): its samples are not ours.
  ownTimeInBlocks(profile(kinds, 'file:///ext/out/bench/editorScenario.js'), url.notOurs, ['/ext/dist/', 'file:///ext/dist/']);
  // Ten samples of a ms each; the last one weighs nothing (no sample after it).
  assert.equal(url.ours[0].oursMs, 9);
  assert.equal(url.notOurs[0].oursMs, 0);
});

test('a block that knows its CPU gets our share of that CPU, not of its wall time (time waiting for a core is no one\'s)', () => {
  // 20 ms of wall time: 10 samples ours, 5 another extension's, 5 GC; the thread ran 8 ms of it.
  const kinds = [...Array<'ours'>(10).fill('ours'), ...Array<'other'>(5).fill('other'), ...Array<'gc'>(5).fill('gc'), 'idle'] as const;
  const blocks: ProfiledBlock[] = [
    { endUs: T0 + 21_000, gapMs: 20.5, busyMs: 8 },
    { endUs: T0 + 21_000, gapMs: 20.5 },
  ];
  ownTimeInBlocks(profile([...kinds], '/ext/dist/extension.js'), blocks, ['/ext/dist/']);
  // Ours: 10 of 15 JavaScript samples, so 2/3 of the GC too: 10 + 10/3 of 20 samples, times 8 ms.
  assert.equal(blocks[0].oursMs, Math.round(((8 * (10 + 10 / 3)) / 20) * 10) / 10);
  assert.ok(blocks[0].oursMs! <= 8, 'never more than the thread\'s CPU in the block');
  // Without its CPU, the wall-time weights: 10 + 10/3 ms.
  assert.equal(blocks[1].oursMs, Math.round((10 + 10 / 3) * 10) / 10);
});
