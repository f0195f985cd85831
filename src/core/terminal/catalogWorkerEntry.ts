// Bundled on its own as dist/catalog-worker.js: a terminal catalog's first build on a worker thread
// (catalogWorker.ts). Started with workerData { agentContextCatalog: <agentDir> }, it builds the
// catalog as a briefing's first call would and posts { agentContextCatalog: 'done', snapshot }; in
// workerData.progress (a SharedArrayBuffer) it keeps [terminals read, terminals to read].
import { parentPort, workerData } from 'node:worker_threads';
import type { CatalogWorkerDone } from './catalogWorker';
import { firstBuildSnapshot } from './terminalCatalog';

const data = workerData as { agentContextCatalog?: unknown; progress?: unknown } | undefined;
const agentDir = data?.agentContextCatalog;
if (parentPort && typeof agentDir === 'string') {
  const port = parentPort;
  // How far it got, for the caller deciding whether to wait (catalogWorker.ts WAIT_FROM).
  const progress = data?.progress instanceof SharedArrayBuffer ? new Int32Array(data.progress) : undefined;
  void firstBuildSnapshot(agentDir, progress)
    .catch(() => undefined)
    .then((snapshot) => {
      port.postMessage({ agentContextCatalog: 'done', snapshot } satisfies CatalogWorkerDone);
    });
}
