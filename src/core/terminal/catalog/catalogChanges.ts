/**
 * Which terminals' files changed in the terminals folder from a moment on, told by one inotify
 * watch of the folder (fs/folderWatch.ts) instead of a stat of every file: the catalog's worker
 * (catalogWorkerEntry.ts) sets it up before its first build reads anything, and names what changed
 * when the thread that takes the build asks (catalogWorker.ts). At 10,000 terminals that answer
 * took 10,000 stats (60–90 ms of a core shared with the server's first call); the watch answers at
 * once.
 *
 * Only where a watch sees every change: Linux, and a local file system (inotify does not see what
 * another machine writes to NFS, SMB or a FUSE mount). The folder's events are read whenever the
 * worker's event loop turns (a build yields every 20 ms), so its queue cannot overflow from a
 * terminal's writes. The folder deleted, moved or replaced, or its watch dropped by the kernel,
 * makes the answer "unknown" ('all'): the taker then stats every file, as without the watch.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FolderWatch, queuedEventsHeard } from '../../fs/folderWatch';

/** Local file systems (statfs f_type), whose every change inotify reports: ext2/3/4, xfs, btrfs, tmpfs, overlayfs, zfs, f2fs. */
const LOCAL = new Set([0xef53, 0x58465342, 0x9123683e, 0x01021994, 0x794c7630, 0x2fc12fc1, 0xf2f52010]);
/** A terminal's file: N.txt, N.1.txt, N.index.jsonl (and their temporary names while rewritten). */
const TERMINAL_FILE = /^\.?(\d+)\./;

export interface TerminalChanges {
  /** The terminals whose files changed since the watch began, or 'all' when that is unknown; ends the watch. */
  seen(): Promise<ReadonlySet<number> | 'all'>;
  close(): void;
}

/** A watch of the terminals folder `dir` from now on; undefined where a watch does not see every change (then stat the files). */
export function watchTerminalChanges(dir: string): TerminalChanges | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    if (!LOCAL.has(Number(fs.statfsSync(dir).type))) return undefined;
  } catch {
    return undefined;
  }
  const changed = new Set<number>();
  let unknown = false;
  const watch = new FolderWatch([dir], (file, kind) => {
    // Watched anew (the folder went away or was replaced): what happened meanwhile is unknown.
    if (kind === 'rewatched' || file === dir) unknown = true;
    const m = TERMINAL_FILE.exec(path.basename(file));
    if (m) changed.add(Number(m[1]));
    // Any other name is a file of no terminal.
  });
  if (!watch.live) {
    watch.dispose();
    return undefined;
  }
  return {
    async seen() {
      // What the kernel queued before this call is read first.
      await queuedEventsHeard();
      // No live watch now (the kernel dropped it, the folder is gone): events may have been missed.
      const lost = !watch.live;
      watch.dispose();
      return unknown || lost ? 'all' : changed;
    },
    close: () => watch.dispose(),
  };
}
