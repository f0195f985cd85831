// Which share of an event-loop block was Agent Context's code, from a CPU profile of the same
// session (bench/editorScenario.ts: rows 10x, 18x, 19x). Apart from the scenario, which runs only
// inside an editor, so a unit test can check it.

/**
 * A block as the scenario's BlockMonitor records it: it ended at endUs (the profile's clock), after
 * gapMs of wall time, of which the main thread spent busyMs on its CPU (its thread clock).
 */
export interface ProfiledBlock {
  endUs: number;
  gapMs: number;
  busyMs?: number;
  oursMs?: number;
}

/** The parts of a .cpuprofile that ownTimeInBlocks reads. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { url: string; functionName: string }; children?: number[] }[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/**
 * Sets each block's oursMs: the profile's samples within it (its gap, ending at endUs) whose stack
 * holds a frame of a script under one of `roots` (Agent Context's folder), plus the garbage
 * collector's samples there in the same proportion to the other JavaScript (whoever allocated is
 * not recorded). A sample weighs the time to the next one.
 *
 * Weighed so, the samples add up to the block's wall time: on a loaded machine the gap holds time
 * the thread waited for a core, and the sample after such a wait weighs the wait too (one start-up
 * block of row 21 at load 4: a 106 ms gap, 23 ms of the thread's CPU, 90 ms "ours"). A block that
 * knows its CPU (busyMs) therefore gets that share of its CPU instead: busyMs × ours / all of its
 * JavaScript and GC samples; without busyMs, the wall-time weights (an over-count).
 */
export function ownTimeInBlocks(profile: CpuProfile, blocks: ProfiledBlock[], roots: readonly string[]): void {
  const ours = new Set<number>();
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const isOurs = (url: string): boolean => roots.some((r) => url.startsWith(r));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const n of profile.nodes) {
    for (let id: number | undefined = n.id; id !== undefined; id = parent.get(id)) {
      if (isOurs(byId.get(id)!.callFrame.url)) {
        ours.add(n.id);
        break;
      }
    }
  }
  const spans = blocks.map((b) => ({ b, from: b.endUs - b.gapMs * 1000, own: 0, gc: 0, js: 0 }));
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i];
    const weight = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const name = byId.get(profile.samples[i])?.callFrame.functionName;
    if (name === '(idle)' || name === '(program)') continue;
    for (const s of spans) {
      if (t < s.from || t > s.b.endUs) continue;
      if (name === '(garbage collector)') s.gc += weight;
      else {
        s.js += weight;
        if (ours.has(profile.samples[i])) s.own += weight;
      }
    }
  }
  for (const s of spans) {
    const own = s.own + (s.js > 0 ? (s.gc * s.own) / s.js : 0);
    const all = s.js + s.gc;
    const ms = s.b.busyMs === undefined ? own : all > 0 ? (s.b.busyMs * own) / all : 0;
    s.b.oursMs = Math.round(ms * 10) / 10;
  }
}
