import * as fs from 'node:fs';
import * as path from 'node:path';
import { ALL_PLAN_FOLDERS, fixedPlanFiles, folderPlanFiles, isFolderPlanPath, planFolderPaths } from './planFiles';
import { sameStamp, settledStamp, stampOf, type FolderStamp } from '../fs/stamps';
import { yieldNow } from '../eventLoop';

/** A page of one `.agent/` folder's plans, as the Plan view shows them. */
export interface PlanPage {
  /** The single plan files that exist (plan.yaml, plan.md, scratch/current_plan.yaml): always shown. */
  fixed: string[];
  /** Plans from the plan folders (PLAN_FOLDERS, AGENT_PLAN_FOLDERS), newest first, this page of them. */
  files: string[];
  /** How many plans the plan folders hold in all. */
  total: number;
}

/** Sync lstats between yields to the event loop. */
const STATS_PER_SLICE = 500;

/**
 * The plans of one `.agent/` folder's plan folders, newest first, for a view that shows them a page
 * at a time (issue 22 §1: a year of Claude Code and opencode sessions leaves a thousand plans in
 * plans/, and the Plan view read, parsed and drew every one on each refresh, for each progress entry
 * and note).
 *
 * Every page stats the plan folders (three stats): a folder whose stamp changed (a plan added,
 * removed or renamed, the folder created or deleted) is listed again and only its new files are
 * stat'ed. An edit in place does not change the folder, so the caller reports the paths a file
 * watcher named with `changed(paths)`: each is stat'ed again on the next page and moves to its place.
 * `invalidate()` forgets everything (the Refresh command). Without a report an edited plan keeps its
 * place until one comes; its content is never stale, since the caller reads each plan it shows.
 */
export class PlanOrder {
  private readonly mtimes = new Map<string, number>();
  /** Per plan folder (absolute): the stamp it was listed at (null: missing when looked at; none: list it again). */
  private readonly stamps = new Map<string, FolderStamp | null>();
  private sorted?: string[];
  private readonly queued = new Set<string>();
  private generation = 0;
  private syncing?: Promise<void>;
  /** The plan folders (absolute), in ALL_PLAN_FOLDERS order. */
  private readonly folders: string[];

  constructor(readonly agentDir: string) {
    this.folders = planFolderPaths(agentDir);
  }

  /** Forget the order: the next page lists the folders and stats every plan again. */
  invalidate(): void {
    this.generation++;
    this.mtimes.clear();
    this.stamps.clear();
    this.sorted = undefined;
    this.queued.clear();
  }

  /** Paths that changed (absolute; any path, those outside the plan folders are ignored): re-stat'ed on the next page. */
  changed(paths: Iterable<string>): void {
    for (const p of paths) if (isFolderPlanPath(this.agentDir, p)) this.queued.add(p);
  }

  /** Plans `skip` to `skip + count` of the plan folders, newest first, and the single plan files. */
  async page(skip: number, count: number): Promise<PlanPage> {
    const [fixed, order] = await Promise.all([fixedPlanFiles(this.agentDir) as Promise<string[]>, this.order()]);
    return { fixed, files: order.slice(skip, skip + count), total: order.length };
  }

  /** True when `file` is among the listed plans (for dropping what a caller keeps about removed ones). */
  has(file: string): boolean {
    return this.mtimes.has(file);
  }

  private async order(): Promise<string[]> {
    // One sync at a time; a caller that arrives during one waits for it, then syncs what came after.
    for (;;) {
      while (this.syncing) await this.syncing;
      const gen = this.generation;
      this.syncing = this.sync().finally(() => (this.syncing = undefined));
      await this.syncing;
      if (gen === this.generation) break; // else invalidated meanwhile: list again
    }
    this.sorted ??= [...this.mtimes].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([f]) => f);
    return this.sorted;
  }

  private async sync(): Promise<void> {
    const gen = this.generation;
    const restat = new Set(this.queued);
    this.queued.clear();
    await Promise.all(
      ALL_PLAN_FOLDERS.map(async (spec, i) => {
        const dir = this.folders[i];
        const found = await fs.promises.stat(dir).catch(() => undefined);
        const now = Date.now();
        const st = found?.isDirectory() ? found : undefined;
        const kept = this.stamps.get(dir);
        if (st ? sameStamp(kept ?? undefined, st) : kept === null) return;
        // The stamp is taken before the listing: a file added after it changes the folder again.
        const listed = st ? await folderPlanFiles(this.agentDir, [spec]) : [];
        if (gen !== this.generation) return;
        // A folder changed within the clock's granularity of now could change again with the same
        // stamp (git's "racily clean" entries): then it is listed again next time (settledStamp).
        if (!st) this.stamps.set(dir, null);
        else if (settledStamp(st, now)) this.stamps.set(dir, stampOf(st));
        else this.stamps.delete(dir);
        const names = new Set(listed);
        for (const f of this.mtimes.keys()) if (path.dirname(f) === dir && !names.has(f)) this.mtimes.delete(f);
        for (const f of listed) if (!this.mtimes.has(f)) restat.add(f);
        this.sorted = undefined;
      }),
    );
    if (restat.size === 0) return;
    // Sync lstats in slices (a few µs each): a thousand promise-based ones cost ~40 ms of the
    // extension host's CPU at start-up (bench row 19a), most of it in the promise machinery.
    let i = 0;
    for (const f of restat) {
      if (++i % STATS_PER_SLICE === 0) {
        await yieldNow();
        if (gen !== this.generation) return;
      }
      let st: fs.Stats | undefined;
      try {
        st = fs.lstatSync(f, { throwIfNoEntry: false });
      } catch {
        st = undefined; // unreadable folder: left out, as a missing file
      }
      if (st?.isFile()) this.mtimes.set(f, st.mtimeMs);
      else this.mtimes.delete(f);
    }
    this.sorted = undefined;
  }
}
