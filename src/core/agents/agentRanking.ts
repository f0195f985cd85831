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
 * - the agentTopChecks (40) most recently active agents (as many as a listing shows), and
 *   agentChecksPerCall (96) others in turn (processState.ts); every agent in a sweep that starts
 *   SWEEP_DELAY_MS after a call when the last sweep is older than SWEEP_EVERY_MS (in slices between
 *   calls: rollingCheck.ts);
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
import { processCache, tuning } from '../processState';
import { RollingCheck, round } from '../rollingCheck';

/** An agent id and its last activity (ms since epoch). */
export interface AgentActivity {
  id: string;
  activeMs: number;
}

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
  /** One call or sweep slice at a time per folder, and the sweeps. */
  rolling: RollingCheck<string>;
}

const rankings = processCache<string, Ranking>((r) => r.rolling.stop());

function rankingOf(agentDir: string): Ranking {
  const key = path.resolve(agentDir);
  let r = rankings.get(key);
  if (!r) {
    const made: Ranking = { ids: [], active: new Map(), cursor: 0, dirty: new Set(), all: false, rolling: undefined as unknown as RollingCheck<string> };
    const root = agentPath(key, 'agents') + path.sep;
    made.rolling = new RollingCheck(
      () => made.ids,
      (slice) => {
        if (check(root, made, slice)) made.sorted = undefined;
      },
    );
    rankings.set(key, (r = made));
  }
  return r;
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
  const { agentTopChecks: topChecks, agentChecksPerCall: checksPerCall } = tuning;
  if (r.all || n <= topChecks + checksPerCall) {
    changed = check(root, r, r.ids);
    r.all = false;
    r.dirty.clear();
    r.cursor = 0;
    r.rolling.swept();
  } else {
    const due = new Set<string>(r.dirty);
    r.dirty.clear();
    for (const a of (r.sorted ?? []).slice(0, topChecks)) due.add(a.id);
    const turn = round(r.ids, r.cursor, checksPerCall);
    for (const id of turn.items) due.add(id);
    r.cursor = turn.next;
    for (const id of checked) due.delete(id);
    changed = check(root, r, due);
    r.rolling.sweepIfDue();
  }
  if (changed) r.sorted = undefined;
  r.sorted ??= [...r.active].map(([id, activeMs]) => ({ id, activeMs })).sort((a, b) => b.activeMs - a.activeMs || a.id.localeCompare(b.id));
  return r.sorted;
}

/**
 * Every agent, most recently active first (ties by id), from the ranking this process keeps (see
 * the file's header for what a call checks). The array is shared: do not change it.
 */
export function rankAgents(agentDir: string): Promise<readonly AgentActivity[]> {
  const r = rankingOf(agentDir);
  return r.rolling.run(() => refresh(agentDir, r));
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
  await r.rolling.settleSweep();
  await r.rolling.run(() => undefined);
}
