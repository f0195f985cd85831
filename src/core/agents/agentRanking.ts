/**
 * Sub-agents ranked by last activity, kept per `.agent/` folder per process, so a listing costs
 * about the same with 5 agents as with 5,000 (issue 22 §1, bench row 17c: two stats per agent per
 * call were 10,000 stats, ~80 ms, at 5,000 agents).
 *
 * An agent's last activity is the newer mtime of its status.json and findings.md (the folder's own
 * mtime when it has neither): an append to findings.md leaves every folder's mtime alone, so only a
 * stat of each file sees it. A call therefore does not stat every agent. It checks:
 * - the `agents/` folder's stat: an agent folder created, removed or renamed changes its mtime and
 *   ctime, and the folder is then listed again (new agents are stat'ed at once, gone ones dropped),
 *   so the count and the set of agents are always exact. A listing stands on the stat alone only
 *   once the folder's mtime and ctime were RACY_MS (fs/settledStamp.ts) old when it was listed (a change within the same
 *   clock tick could leave them unchanged);
 * - the topChecks (40) most recently active agents (as many as a listing shows), and checksPerCall (96) others
 *   in turn; every agent in a sweep that starts SWEEP_DELAY_MS after a call when the last sweep is
 *   older than SWEEP_EVERY_MS (in slices between calls);
 * - agents this process wrote (writeFinding, setAgentStatus) and agents the editor's file events
 *   name (agentActivityChanged): at the next call, whatever their turn.
 *
 * The bound: an agent written by another process and reported by no event moves to its place at
 * the next sweep of this process, or after ceil(agents / checksPerCall) calls (53 at 5,000),
 * whichever is first. Until then only its place in the order is stale; what a listing shows of an
 * agent (status, findings) is read from its files.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkAgentId } from './agentId';
import { sameStamp, settledStamp, stampOf, type FolderStamp } from '../fs/stamps';
import { activitiesOffThread } from '../fs/digestCheck';
import { lastActivity } from './agentActivity';
import { agentPath } from '../workspace/layout';
import { relativeInside } from '../workspace/relativePaths';
import { SerialQueue } from '../keyedState';

/** An agent id and its last activity (ms since epoch). */
export interface AgentActivity {
  id: string;
  activeMs: number;
}

/** The most recently active agents, checked on every call (a listing shows about this many). */
let topChecks = 40;
/** Other agents checked per call, in turn. */
let checksPerCall = 96;
/** Agents stat'ed per slice of a sweep. */
const SWEEP_SLICE = 200;
/** A sweep starts this long after the call that asks for it, so it never slows that call. */
const SWEEP_DELAY_MS = 1000;
/** While calls come, a sweep of every agent at most this often. */
const SWEEP_EVERY_MS = 60_000;


interface Ranking {
  /** The stamp of `agents/` the id list stands on; undefined: list again at the next call. */
  dir?: FolderStamp;
  ids: string[];
  active: Map<string, number>;
  /** Newest first; undefined when something changed since it was sorted. */
  sorted?: AgentActivity[];
  cursor: number;
  /** Agents to check at the next call whatever their turn; `all`: every one. */
  dirty: Set<string>;
  all: boolean;
  sweptAt: number;
  sweepTimer?: NodeJS.Timeout;
  sweeping?: Promise<void>;
  /** Someone waits for the sweep (tests): it then keeps the process alive. */
  awaited: boolean;
  /** One call or sweep slice at a time per folder. */
  queue: SerialQueue;
  dead: boolean;
}

const rankings = new Map<string, Ranking>();

function rankingOf(agentDir: string): Ranking {
  const key = path.resolve(agentDir);
  let r = rankings.get(key);
  if (!r) {
    r = { ids: [], active: new Map(), cursor: 0, dirty: new Set(), all: false, sweptAt: 0, awaited: false, queue: new SerialQueue(), dead: false };
    rankings.set(key, r);
  }
  return r;
}

/** Runs `f` after whatever the ranking is doing (one call or sweep slice at a time per folder). */
function run<T>(r: Ranking, f: () => Promise<T> | T): Promise<T> {
  return r.queue.run(f);
}

/** Stats `ids` again; true when any activity changed. */
function check(root: string, r: Ranking, ids: Iterable<string>): boolean {
  let changed = false;
  for (const id of ids) {
    if (!r.active.has(id)) continue; // gone since (listed again at the next call)
    const t = lastActivity(root + id);
    if (r.active.get(id) !== t) {
      r.active.set(id, t);
      changed = true;
    }
  }
  return changed;
}

async function refresh(agentDir: string, r: Ranking): Promise<AgentActivity[]> {
  const dir = agentPath(agentDir, 'agents');
  const root = dir + path.sep;
  const st = fs.lstatSync(dir, { throwIfNoEntry: false });
  if (!st?.isDirectory()) {
    r.dir = undefined;
    r.ids = [];
    r.active.clear();
    r.sorted = [];
    return [];
  }
  const checked = new Set<string>();
  if (!sameStamp(r.dir, st)) {
    const now = Date.now();
    let names: fs.Dirent[];
    try {
      names = await fs.promises.readdir(dir, { withFileTypes: true });
    } catch {
      names = [];
    }
    const ids = names.filter((d) => d.isDirectory() && !checkAgentId(d.name)).map((d) => d.name);
    const known = r.active;
    r.active = new Map();
    // A first listing of thousands of agents: their stats on the check worker (fs/digestCheck.ts), off the editor's thread.
    const fresh = ids.filter((id) => !known.has(id));
    const off = await activitiesOffThread(root, fresh);
    const offAt = new Map<string, number>();
    if (off) fresh.forEach((id, i) => Number.isFinite(off[i]) && offAt.set(id, off[i]));
    for (const id of ids) {
      const was = known.get(id);
      if (was !== undefined) r.active.set(id, was);
      else {
        r.active.set(id, offAt.get(id) ?? lastActivity(root + id));
        checked.add(id);
      }
    }
    r.ids = ids;
    r.sorted = undefined;
    r.dir = settledStamp(st, now) ? stampOf(st) : undefined;
  }
  const n = r.ids.length;
  let changed = false;
  if (r.all || n <= topChecks + checksPerCall) {
    changed = check(root, r, r.ids);
    r.all = false;
    r.dirty.clear();
    r.cursor = 0;
    r.sweptAt = Date.now();
  } else {
    const due = new Set<string>(r.dirty);
    r.dirty.clear();
    for (const a of (r.sorted ?? []).slice(0, topChecks)) due.add(a.id);
    for (let k = 0; k < checksPerCall; k++) due.add(r.ids[(r.cursor + k) % n]);
    r.cursor = (r.cursor + checksPerCall) % n;
    for (const id of checked) due.delete(id);
    changed = check(root, r, due);
    if (!r.sweptAt || Date.now() - r.sweptAt > SWEEP_EVERY_MS) scheduleSweep(agentDir, r);
  }
  if (changed) r.sorted = undefined;
  r.sorted ??= [...r.active].map(([id, activeMs]) => ({ id, activeMs })).sort((a, b) => b.activeMs - a.activeMs || a.id.localeCompare(b.id));
  return r.sorted;
}

function scheduleSweep(agentDir: string, r: Ranking): void {
  if (r.sweeping || r.sweepTimer) return;
  r.sweepTimer = setTimeout(() => void startSweep(agentDir, r), SWEEP_DELAY_MS);
  r.sweepTimer.unref?.();
}

function startSweep(agentDir: string, r: Ranking): Promise<void> {
  if (r.sweepTimer) clearTimeout(r.sweepTimer);
  r.sweepTimer = undefined;
  r.sweeping ??= sweep(agentDir, r).finally(() => (r.sweeping = undefined));
  return r.sweeping;
}

/** Checks every agent, SWEEP_SLICE at a time, each slice queued after the calls that came meanwhile. */
async function sweep(agentDir: string, r: Ranking): Promise<void> {
  const root = agentPath(agentDir, 'agents') + path.sep;
  const all = [...r.ids];
  for (let i = 0; i < all.length; i += SWEEP_SLICE) {
    if (r.dead) return;
    await run(r, () => {
      if (check(root, r, all.slice(i, i + SWEEP_SLICE))) r.sorted = undefined;
    });
    await new Promise((done) => {
      const t = setTimeout(done, 0);
      if (!r.awaited) t.unref?.();
    });
  }
  r.sweptAt = Date.now();
}

/**
 * Every agent, most recently active first (ties by id), from the ranking this process keeps (see
 * the file's header for what a call checks). The array is shared: do not change it.
 */
export function rankAgents(agentDir: string): Promise<readonly AgentActivity[]> {
  const r = rankingOf(agentDir);
  return run(r, () => refresh(agentDir, r));
}

/**
 * Tells the ranking that agents' files changed: `paths` (absolute, anywhere under `agents/`) or,
 * when unknown, everything. They are checked at the next call, whatever their turn.
 */
export function agentActivityChanged(agentDir: string, paths?: Iterable<string>): void {
  const r = rankings.get(path.resolve(agentDir));
  if (!r) return;
  if (!paths) {
    r.all = true;
    return;
  }
  const dir = agentPath(path.resolve(agentDir), 'agents');
  for (const p of paths) {
    const id = relativeInside(dir, p)?.split(path.sep)[0];
    if (id) r.dirty.add(id);
  }
}

/** Resolves when the ranking of agentDir has checked every agent (tests: what a process does a while after a call). */
export async function settleAgentRanking(agentDir: string): Promise<void> {
  const r = rankingOf(agentDir);
  if (r.sweepTimer || r.sweeping) {
    r.awaited = true;
    await startSweep(agentDir, r);
  }
  await run(r, () => undefined);
}

/** How many agents a call checks (tests: small numbers show the turn at work); returns the previous values. */
export function setAgentChecks(c: { top: number; perCall: number }): { top: number; perCall: number } {
  const was = { top: topChecks, perCall: checksPerCall };
  topChecks = Math.max(0, Math.floor(c.top));
  checksPerCall = Math.max(0, Math.floor(c.perCall));
  return was;
}

/** Forgets the rankings kept in memory (tests: a new process). */
export function resetAgentRankings(): void {
  for (const r of rankings.values()) {
    r.dead = true;
    if (r.sweepTimer) clearTimeout(r.sweepTimer);
  }
  rankings.clear();
}
