// Bundled on its own as dist/catalog-worker.js: a terminal catalog's first build on a worker thread
// (catalogWorker.ts). Started with workerData { agentContextCatalog: <agentDir> }, it builds the
// catalog as a briefing's first call would and posts { agentContextCatalog: 'done', handover } (the
// snapshot as catalogFile.ts encodeHandover writes it); in workerData.progress (a
// SharedArrayBuffer) it keeps [terminals read, terminals to read]. Asked { agentContextCatalog:
// 'verify' } by the thread that takes the build, it names the terminals whose files changed since
// it read them (its watch of the folder, catalogChanges.ts, or else a stat of every file, once the
// build is done) and posts { agentContextCatalog: 'verified', changed }.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { encodeHandover, type Handover } from './catalogFile';
import type { CatalogWorkerDone, CatalogWorkerVerified, CatalogWorkerVerify } from './catalogWorker';
import { watchTerminalChanges } from './catalogChanges';
import { changedSince, firstBuildSnapshot } from './terminalCatalog';
import { TERMINALS_DIR } from '../terminalFormat';

const IDLE_MS = 60_000;

const data = workerData as { agentContextCatalog?: unknown; progress?: unknown } | undefined;
const agentDir = data?.agentContextCatalog;
if (parentPort && typeof agentDir === 'string') {
  const port = parentPort;
  // How far it got, for the caller deciding whether to wait (catalogWorker.ts WAIT_FROM).
  const progress = data?.progress instanceof SharedArrayBuffer ? new Int32Array(data.progress) : undefined;
  // Set up before the build reads anything: every change after a read is then among its events.
  const watch = watchTerminalChanges(path.join(agentDir, TERMINALS_DIR));
  const build = firstBuildSnapshot(agentDir, progress).catch(() => undefined);
  /** A build nobody takes is not kept: the worker ends IDLE_MS after it (a taker then stats the files itself). */
  let asked = false;
  void build.then((snapshot) => {
    let handover: Handover | undefined;
    try {
      handover = snapshot ? encodeHandover(snapshot, fs.statSync(path.join(agentDir, TERMINALS_DIR)).dev) : undefined;
    } catch {
      handover = undefined; // the folder went away: the taker builds
    }
    port.postMessage({ agentContextCatalog: 'done', handover } satisfies CatalogWorkerDone, handover ? [handover.unread.buffer as ArrayBuffer] : []);
    setTimeout(() => {
      if (asked) return;
      watch?.close();
      process.exit(0);
    }, IDLE_MS);
  });
  port.on('message', (m: Partial<CatalogWorkerVerify> | undefined) => {
    if (m?.agentContextCatalog !== 'verify') return;
    asked = true;
    // After the build and the request (the call): the watch's events up to now, or stats taken now.
    void build.then(async (snapshot) => {
      let changed: number[] | undefined;
      try {
        const seen = watch ? await watch.seen() : 'all';
        changed = !snapshot ? undefined : seen === 'all' ? changedSince(agentDir, snapshot) : [...seen];
      } catch {
        changed = undefined; // the caller stats the files itself
      }
      port.postMessage({ agentContextCatalog: 'verified', changed } satisfies CatalogWorkerVerified);
    });
  });
}
