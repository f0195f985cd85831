// Bundled on its own as dist/catalog-worker.js: a terminal catalog's first build on a worker thread
// (catalogWorker.ts). Started with workerData { agentContextCatalog: <agentDir> }, it builds the
// catalog as a briefing's first call would and posts { agentContextCatalog: 'done', snapshot }; in
// workerData.progress (a SharedArrayBuffer) it keeps [terminals read, terminals to read]. Asked
// { agentContextCatalog: 'verify' } by the thread that takes the build, it stats the build's files
// once the build is done and posts { agentContextCatalog: 'verified', changed }.
import { parentPort, workerData } from 'node:worker_threads';
import type { CatalogWorkerDone, CatalogWorkerVerified, CatalogWorkerVerify } from './catalogWorker';
import { changedSince, firstBuildSnapshot } from './terminalCatalog';

const IDLE_MS = 60_000;

const data = workerData as { agentContextCatalog?: unknown; progress?: unknown } | undefined;
const agentDir = data?.agentContextCatalog;
if (parentPort && typeof agentDir === 'string') {
  const port = parentPort;
  // How far it got, for the caller deciding whether to wait (catalogWorker.ts WAIT_FROM).
  const progress = data?.progress instanceof SharedArrayBuffer ? new Int32Array(data.progress) : undefined;
  const build = firstBuildSnapshot(agentDir, progress).catch(() => undefined);
  /** A build nobody takes is not kept: the worker ends IDLE_MS after it (a taker then stats the files itself). */
  let asked = false;
  void build.then((snapshot) => {
    port.postMessage({ agentContextCatalog: 'done', snapshot } satisfies CatalogWorkerDone);
    setTimeout(() => {
      if (!asked) process.exit(0);
    }, IDLE_MS);
  });
  port.on('message', (m: Partial<CatalogWorkerVerify> | undefined) => {
    if (m?.agentContextCatalog !== 'verify') return;
    asked = true;
    // After the build: every stat is then taken after the request, i.e. after the call came.
    void build.then((snapshot) => {
      let changed: number[] | undefined;
      try {
        changed = snapshot ? changedSince(agentDir, snapshot) : undefined;
      } catch {
        changed = undefined; // the caller stats the files itself
      }
      port.postMessage({ agentContextCatalog: 'verified', changed } satisfies CatalogWorkerVerified);
    });
  });
}
