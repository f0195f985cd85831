/**
 * A worker thread that never keeps its process alive by itself (the tokenizer's, the terminal
 * catalog's first build, the digest and listing checks): a process that has nothing else to do
 * exits even while such a worker runs or idles, unless someone awaits an answer from it
 * (workerThread.ts `owe`, with `refWhileOwed`). Used only through workerThread.ts.
 *
 * Its 'message' listener is attached before `unref()`: in Node 20 (checked on 20.20) attaching a
 * Worker's first 'message' listener references its port again, so an `unref()` made before it is
 * undone and the process never exits on its own (the MCP server outlived its client that way:
 * test/unit/backgroundWorker.test.ts).
 */
import { Worker } from 'node:worker_threads';

/** Starts `script` with `workerData`, `onMessage` listening, unreferenced. Throws as `new Worker` does. */
export function startBackgroundWorker(script: string, workerData: unknown, onMessage: (message: unknown) => void): Worker {
  const w = new Worker(script, { workerData });
  w.on('message', onMessage);
  w.unref();
  return w;
}
