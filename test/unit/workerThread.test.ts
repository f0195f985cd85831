// The one lifecycle of our worker threads (src/core/workerThread.ts), through workerOnce (the digest,
// scratch-listing and activity checks): one answer or undefined, never an exception; a worker that
// fails, exits, says something else or misses its deadline is stopped; and a one-answer worker keeps
// a process that awaits it alive until the answer or its deadline, no longer. RequestWorker, built on the same
// lifecycle, has its own tests (requestWorker.test.ts).
import { after, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { WorkerThread, workerOnce } from '../../src/core/workerThread';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-worker-thread-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
let n = 0;
/** A worker script from its body (`port` is its parent port, `data` its workerData). */
function script(body: string): string {
  const file = path.join(dir, `w${n++}.js`);
  fs.writeFileSync(file, `const { parentPort: port, workerData: data } = require('node:worker_threads');\n${body}\n`);
  return file;
}
const isDone = (m: unknown): boolean => (m as { done?: boolean })?.done === true;
/** Awaits `p` with the event loop held open (as a caller's other work would). */
async function held<T>(p: Promise<T> | undefined): Promise<T | undefined> {
  const keep = setInterval(() => undefined, 1000);
  try {
    return await p;
  } finally {
    clearInterval(keep);
  }
}

test('workerOnce: the first answer that is done; anything else, a failure or an exit is undefined', async () => {
  assert.deepEqual(await held(workerOnce(script('port.postMessage({ done: true, twice: data * 2 });'), 21, isDone, 30_000)), { done: true, twice: 42 });
  assert.equal(await held(workerOnce(script('port.postMessage({ progress: 1 });'), null, isDone, 30_000)), undefined, 'another message');
  assert.equal(await held(workerOnce(script("throw new Error('broken');"), null, isDone, 30_000)), undefined, 'it threw');
  assert.equal(await held(workerOnce(script('process.exit(3);'), null, isDone, 30_000)), undefined, 'it exited');
  assert.equal(await held(workerOnce(script('setInterval(() => {}, 1000);'), null, isDone, 200)), undefined, 'no answer before its deadline');
  assert.equal(await held(workerOnce(path.join(dir, 'missing.js'), null, isDone, 30_000)), undefined, 'a missing script');
});

test('WorkerThread: a script that cannot start is a failure to report, not an exception; a stopped worker hears why once', async () => {
  const bad = WorkerThread.start({ script: 'data:text/javascript,1', workerData: null, onMessage: () => undefined, onGone: () => undefined });
  assert.ok(!(bad instanceof WorkerThread) && /could not start/.test(bad.failure));
  const heard: string[] = [];
  const t = WorkerThread.start({ script: script('setInterval(() => {}, 1000);'), workerData: null, onMessage: () => undefined, onGone: (why) => heard.push(why) });
  assert.ok(t instanceof WorkerThread);
  const owed = t.owe(100);
  await held(new Promise((r) => setTimeout(r, 400)));
  owed.settle();
  await t.stop('later');
  assert.deepEqual(heard, ['no answer within 0.1 s']);
  assert.equal(t.failure, 'no answer within 0.1 s');
  assert.equal(t.post({ x: 1 }), false, 'nothing is posted to a worker given up');
});

test('a process awaiting workerOnce with nothing else to do gets the answer, and exits at the deadline when none comes', () => {
  const run = (body: string, waitMs: number) => {
    const src = `const { workerOnce } = require(${JSON.stringify(require.resolve('../../src/core/workerThread'))});
workerOnce(${JSON.stringify(script(body))}, null, (m) => m === 'done', ${waitMs}).then((a) => console.log('answer', a));`;
    return spawnSync(process.execPath, ['-e', src], { encoding: 'utf8', timeout: 60_000 });
  };
  const answered = run("setTimeout(() => port.postMessage('done'), 300);", 600_000);
  assert.equal(answered.error, undefined, answered.stderr);
  assert.equal(answered.stdout.trim(), 'answer done', 'it waited for the answer');
  const silent = run('setInterval(() => {}, 1000);', 500);
  assert.equal(silent.error, undefined, 'exited by itself at the deadline');
  assert.equal(silent.status, 0, silent.stderr);
  assert.equal(silent.stdout.trim(), 'answer undefined');
});
