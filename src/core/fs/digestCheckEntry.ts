// Bundled on its own as dist/digest-check.js: a large digest cache's first check on a worker thread
// (digestCheck.ts). Started with workerData { agentContextDigestCheck: <cache file>, agentDir }, it
// posts { agentContextDigestCheck: 'done', stamp, stale, entries }, or a 'done' without them when it failed.
import { parentPort, workerData } from 'node:worker_threads';
import { checkCacheFile, type DigestCheckDone } from './digestCheck';

const data = workerData as { agentContextDigestCheck?: unknown; agentDir?: unknown } | undefined;
if (parentPort && typeof data?.agentContextDigestCheck === 'string' && typeof data.agentDir === 'string') {
  let done: DigestCheckDone;
  try {
    done = checkCacheFile(data.agentContextDigestCheck, data.agentDir);
  } catch {
    done = { agentContextDigestCheck: 'done' };
  }
  parentPort.postMessage(done);
}
