// Bundled on its own as dist/digest-check.js: a large digest cache's first check on a worker thread
// (digestCheck.ts). Started with workerData { agentContextDigestCheck: <cache file>, agentDir }, it
// posts { agentContextDigestCheck: 'done', stamp, stale, entries }, or a 'done' without them when it failed.
// Started with workerData { agentContextActivity: <agents folder + separator>, ids }, it posts
// { agentContextActivity: 'done', activity } (each sub-agent's last activity, agents/agentRanking.ts).
// Started with workerData { agentContextScratchListing: <folder>, ... }, it lists a scratch folder and
// posts { agentContextScratchListing: 'done', check } (scratch/index/listingCheck.ts).
// Started with workerData { agentContextScratchScan: <agentDir> }, it scans that scratch folder, writes
// its snapshot and summary, and posts { agentContextScratchScan: 'done', saved } (scratch/index/firstScan.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { checkCacheFile, type ActivityCheckDone, type DigestCheckDone } from './digestCheck';
import { lastActivity } from '../agents/agentActivity';
import { listingCheckOnWorker, type ListingCheckData } from '../scratch/index/listingCheck';
import { firstScanHere, type FirstScanData } from '../scratch/index/firstScan';
import { catalogStampsOnWorker, type CatalogStampsData } from '../terminal/catalog/catalogStamps';

const data = workerData as { agentContextDigestCheck?: unknown; agentDir?: unknown; agentContextActivity?: unknown; ids?: unknown } | undefined;
if (parentPort && typeof data?.agentContextDigestCheck === 'string' && typeof data.agentDir === 'string') {
  let done: DigestCheckDone;
  try {
    done = checkCacheFile(data.agentContextDigestCheck, data.agentDir);
  } catch {
    done = { agentContextDigestCheck: 'done' };
  }
  parentPort.postMessage(done);
}
if (parentPort && typeof data?.agentContextActivity === 'string' && Array.isArray(data.ids)) {
  const root = data.agentContextActivity;
  const ids = data.ids as unknown[];
  const activity = new Float64Array(ids.length);
  ids.forEach((id, i) => {
    try {
      activity[i] = typeof id === 'string' ? lastActivity(root + id) : NaN;
    } catch {
      activity[i] = NaN;
    }
  });
  parentPort.postMessage({ agentContextActivity: 'done', activity } satisfies ActivityCheckDone, [activity.buffer]);
}
if (parentPort && typeof (data as Partial<ListingCheckData> | undefined)?.agentContextScratchListing === 'string') {
  const port = parentPort;
  void listingCheckOnWorker(data as ListingCheckData).then((done) => port.postMessage(done));
}
if (parentPort && typeof (data as Partial<FirstScanData> | undefined)?.agentContextScratchScan === 'string') {
  const port = parentPort;
  void firstScanHere(data as FirstScanData).then((done) => port.postMessage(done));
}
if (parentPort && typeof (data as Partial<CatalogStampsData> | undefined)?.agentContextCatalogStamps === 'string' && (data as Partial<CatalogStampsData>).stamps instanceof Float64Array) {
  // One that throws ends the worker: the caller then checks every terminal itself.
  parentPort.postMessage(catalogStampsOnWorker(data as CatalogStampsData));
}
