// A worker thread that answers requests (src/core/requestWorker.ts: the tokenizer's and the notes'):
// answers reach the request they answer, a process with nothing else to do waits for what it is owed
// and then exits, and a worker that fails in any way is given up for good with a reason, every owed
// and later request answering undefined.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { RequestWorker, type WorkerReply } from '../../src/core/requestWorker';

/** A worker script from its body (`port` is its parent port). */
function script(body: string): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ac-request-worker-')), 'worker.js');
  fs.writeFileSync(file, `const port = require('node:worker_threads').parentPort;\n${body}\n`);
  return file;
}

/** Doubles `n`, after `delay` ms; n < 0 is answered with an error; n === 13 exits the worker. */
const DOUBLER = script(`port.on('message', ({ id, n, delay }) => {
  if (n === 13) process.exit(5);
  setTimeout(() => port.postMessage(n < 0 ? { id, error: 'negative' } : { id, doubled: n * 2 }), delay ?? 0);
});
port.postMessage({ hello: true });`);

const read = (m: unknown): WorkerReply<number> | undefined => {
  const a = m as { id?: number; doubled?: number; error?: string };
  if (typeof a?.id !== 'number') return undefined;
  return a.error ? { id: a.id, error: a.error } : { id: a.id, answer: a.doubled as number };
};

function doubler(waitMs?: number, file = DOUBLER): RequestWorker<number> {
  return new RequestWorker<number>({ script: () => file, workerData: null, read, waitMs });
}

test('each answer reaches the request it answers, whatever the order they come in', async () => {
  const w = doubler();
  try {
    const answers = await Promise.all([5, 1, 3].map((n, i) => w.request((id) => ({ id, n, delay: [60, 0, 20][i] }))));
    assert.deepEqual(answers, [10, 2, 6]);
    assert.equal(w.failure, undefined);
  } finally {
    await w.dispose();
  }
});

test('a process with nothing else to do gets its answer, then exits although the worker is still there', () => {
  const src = `const { RequestWorker } = require(${JSON.stringify(require.resolve('../../src/core/requestWorker'))});
const w = new RequestWorker({ script: () => ${JSON.stringify(DOUBLER)}, workerData: null, read: (m) => typeof m.id === 'number' ? { id: m.id, answer: m.doubled } : undefined });
w.request((id) => ({ id, n: 21, delay: 300 })).then((a) => console.log('answer', a));`;
  const r = spawnSync(process.execPath, ['-e', src], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(r.error, undefined, 'exited by itself (an idle worker does not keep it alive)');
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), 'answer 42');
});

test('a worker that exits: what it owed answers undefined, later requests too, and it is not started again', async () => {
  const w = doubler();
  try {
    const owed = w.request((id) => ({ id, n: 2, delay: 5_000 }));
    assert.equal(await w.request((id) => ({ id, n: 13 })), undefined);
    assert.equal(await owed, undefined);
    assert.match(w.failure ?? '', /exited \(code 5\)/);
    assert.equal(await w.request((id) => ({ id, n: 1 })), undefined);
    assert.equal(w.start(), false, 'given up for good');
  } finally {
    await w.dispose();
  }
});

test('an answer that is an error gives the worker up, with the error as the reason', async () => {
  const w = doubler();
  try {
    assert.equal(await w.request((id) => ({ id, n: 4 })), 8);
    assert.equal(await w.request((id) => ({ id, n: -1 })), undefined);
    assert.equal(w.failure, 'negative');
    assert.equal(await w.request((id) => ({ id, n: 4 })), undefined);
  } finally {
    await w.dispose();
  }
});

test('a worker silent past waitMs is given up', async () => {
  const w = doubler(200);
  try {
    // Undefined, not 6: the answer would come after 10 s; the deadline gave the worker up first.
    assert.equal(await w.request((id) => ({ id, n: 3, delay: 10_000 })), undefined);
    assert.equal(w.failure, 'no answer within 0.2 s');
  } finally {
    await w.dispose();
  }
});

test('a worker that cannot start, or no script: undefined, and why', async () => {
  const throws = doubler(undefined, script("throw new Error('broken at load');"));
  assert.equal(await throws.request((id) => ({ id, n: 1 })), undefined);
  assert.match(throws.failure ?? '', /broken at load|exited/);
  const none = new RequestWorker<number>({ script: () => undefined, workerData: null, read });
  assert.equal(none.start(), false);
  assert.equal(await none.request((id) => ({ id, n: 1 })), undefined);
  assert.equal(none.failure, 'no worker script');
});

test('a request that cannot be sent answers undefined; the worker goes on answering', async () => {
  const w = doubler();
  try {
    assert.equal(await w.request((id) => ({ id, n: 1, cannotClone: () => 1 })), undefined);
    assert.equal(w.failure, undefined);
    assert.equal(await w.request((id) => ({ id, n: 7 })), 14);
  } finally {
    await w.dispose();
  }
});

test('dispose: what is owed answers undefined at once', async () => {
  const w = doubler();
  const owed = w.request((id) => ({ id, n: 2, delay: 10_000 }));
  await w.dispose();
  assert.equal(await owed, undefined);
  assert.equal(w.failure, 'disposed');
});
