/**
 * A few folders watched non-recursively with Node's own fs.watch (one inotify watch each on Linux),
 * as a second source of file events beside the editor's watcher. VS Code's recursive watcher of the
 * workspace was seen to stop reporting a folder deleted and re-created under it (delete `.agent/`,
 * run Initialize: the Scratch view then never saw a new file for the rest of the session), and it
 * skips whatever the user's `files.watcherExclude` names; its non-recursive watchers inside the
 * workspace report only excluded paths. These watches do not depend on either.
 *
 * A watched folder that goes away (deleted, or moved: `.agent/` replaced by a rename) reports it on
 * its own watch; it and the watched folders under it are then watched anew as soon as they exist
 * (at once, or looked for every `rearmMs` while one is missing), and reported as `rewatched` so
 * listeners re-read what they may have missed.
 *
 * Under the `deep` folders, folders created while watched are watched too (with what they already
 * hold, up to `maxDeep` of them): the case that left the editor's watcher blind is exactly a tree
 * created anew, so everything made after it is seen. Folders that were there at the start are not
 * walked (100,000 scratch files must not cost a start-up walk); the editor's watcher covers those.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isInside } from '../workspace/relativePaths';
import { yieldNow } from '../eventLoop';

/**
 * How a path changed, as far as fs.watch tells (`rename` is a create, delete or move: the path's
 * existence says which); `rewatched`: a folder is watched again or newly, and what happened in it
 * meanwhile is unknown.
 */
export type FolderEvent = 'created' | 'changed' | 'deleted' | 'rewatched';

interface Watched {
  watcher?: fs.FSWatcher;
  /** A folder found under a `deep` folder: dropped (not looked for again) when it goes. */
  found?: boolean;
}

const MAX_DEEP = 512;

/**
 * Lets the watch events the kernel already queued arrive before a caller trusts what it heard (a
 * file written a moment ago, by this very process too): fs.watch's events are read in the event
 * loop's poll phase, which the second of two turns passes through whatever phase this came from.
 */
export async function queuedEventsHeard(): Promise<void> {
  await yieldNow();
  await yieldNow();
}

export class FolderWatch {
  private readonly state = new Map<string, Watched>();
  private readonly deep: string[];
  private found = 0;
  private timer: NodeJS.Timeout | undefined;
  private disposed = false;

  /**
   * `folders`: absolute paths, watched whether or not they exist yet. `onChange(file, kind)` gets
   * each changed entry (absolute) of a watched folder, and `(folder, 'rewatched')` for a folder
   * watched again after it went away or newly found. `onError` hears watches that could not be set
   * up (other than a missing folder); the folder is then tried again later.
   */
  constructor(
    folders: readonly string[],
    private readonly onChange: (file: string, kind: FolderEvent) => void,
    private readonly opts: { deep?: readonly string[]; maxDeep?: number; rearmMs?: number; onError?: (folder: string, e: Error) => void } = {},
  ) {
    this.deep = (opts.deep ?? []).map((d) => path.resolve(d));
    for (const f of folders) this.state.set(path.resolve(f), {});
    for (const f of this.state.keys()) this.arm(f, false);
    this.scheduleRearm();
  }

  /** The folders currently watched (tests, diagnostics). */
  get watching(): string[] {
    return [...this.state].filter(([, s]) => s.watcher).map(([f]) => f);
  }

  /** Whether `folder` (absolute) is watched now: a change of its entries from now on is reported. */
  isWatching(folder: string): boolean {
    return this.state.get(path.resolve(folder))?.watcher !== undefined;
  }

  /** Whether every folder given is watched now (none missing, no watch lost). */
  get live(): boolean {
    for (const s of this.state.values()) if (!s.found && !s.watcher) return false;
    return true;
  }

  /** Watches `folder` if it is a folder and not watched yet; `announce`: report it once watched. */
  private arm(folder: string, announce: boolean): void {
    const s = this.state.get(folder);
    if (this.disposed || !s || s.watcher) return;
    let st: fs.Stats | undefined;
    try {
      st = fs.statSync(folder, { throwIfNoEntry: false });
    } catch (e) {
      this.opts.onError?.(folder, e as Error);
      return;
    }
    if (!st?.isDirectory()) return;
    try {
      const w = fs.watch(folder, { persistent: false }, (event, name) => this.event(folder, event, name));
      w.on('error', () => {
        // The kernel dropped the watch: watched anew when the folder is looked at next.
        if (s.watcher === w) this.disarm(folder);
        this.scheduleRearm();
      });
      s.watcher = w;
    } catch (e) {
      this.opts.onError?.(folder, e as Error);
      return;
    }
    if (announce) this.onChange(folder, 'rewatched');
  }

  private disarm(folder: string): void {
    const s = this.state.get(folder);
    if (!s?.watcher) return;
    s.watcher.close();
    s.watcher = undefined;
  }

  private event(folder: string, event: string, name: string | Buffer | null): void {
    if (this.disposed) return;
    // No name, or the folder's own name: the folder itself was deleted or moved away (inotify names
    // it so), and its watch is dead even if a new folder already took its place (often with the same
    // inode number, so no stat can tell). It and the folders under it are watched anew.
    if (name === null || name === undefined || (event === 'rename' && String(name) === path.basename(folder))) {
      this.rewatch(folder);
      return;
    }
    const file = path.join(folder, String(name));
    let kind: FolderEvent = 'changed';
    if (event === 'rename') kind = fs.existsSync(file) ? 'created' : 'deleted';
    this.onChange(file, kind);
    if (event !== 'rename') return;
    // A watched folder among the entries appeared, went or was replaced.
    if (this.state.has(file)) this.rewatch(file);
    else if (kind === 'created' && this.isDeep(file)) this.watchFound(file);
  }

  private isDeep(file: string): boolean {
    return this.deep.some((d) => file !== d && isInside(d, file));
  }

  /** A folder created under a deep folder: watched with the folders it already holds (it is new: they are few). */
  private watchFound(dir: string): void {
    if (this.found >= (this.opts.maxDeep ?? MAX_DEEP)) return;
    let entries: fs.Dirent[];
    try {
      if (!fs.lstatSync(dir).isDirectory()) return;
      this.state.set(dir, { found: true });
      this.found++;
      this.arm(dir, true);
      // Listed after the watch is set: anything made later is reported, anything before is listed.
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return; // gone again, or unreadable: the editor's watcher and the next listing say so
    }
    this.watchFoundIn(dir, entries);
  }

  private watchFoundIn(dir: string, entries?: fs.Dirent[]): void {
    try {
      entries ??= fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) if (e.isDirectory() && !this.state.has(path.join(dir, e.name))) this.watchFound(path.join(dir, e.name));
  }

  /** Drops the watches of `folder` and the watched folders under it, and watches what is there now. */
  private rewatch(folder: string): void {
    for (const [f, s] of [...this.state]) {
      if (!isInside(folder, f)) continue;
      this.disarm(f);
      this.arm(f, true);
      // A folder made anew under (or as) a deep folder: what it holds is new too, watched from now.
      if (s.watcher && !s.found && this.deep.some((d) => isInside(d, f))) this.watchFoundIn(f);
      if (s.watcher) continue;
      if (f === folder) this.onChange(f, 'deleted');
      if (s.found) {
        this.state.delete(f);
        this.found--;
      }
    }
    this.scheduleRearm();
  }

  /** While some folder is not watched (missing, or gone): look for it every rearmMs (a stat each). */
  private scheduleRearm(): void {
    if (this.disposed || this.timer || ![...this.state.values()].some((s) => !s.watcher)) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      for (const [f, s] of this.state) if (!s.watcher) this.arm(f, true);
      this.scheduleRearm();
    }, this.opts.rearmMs ?? 2000);
    this.timer.unref?.();
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    for (const f of this.state.keys()) this.disarm(f);
  }
}
