// Measurement and reporting helpers for `npm run bench`: warm-up, repeated runs, median/min/max,
// interleaved ours-vs-reference timing, the results table and the machine description.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** Summary of repeated measurements (milliseconds unless a row says otherwise). */
/** What a built tool returns, and the shapes of the built modules rows load with loadBuilt. */
export interface ToolOutcome {
  text: string;
  isError?: boolean;
}
export interface InvokeModule {
  invokeTool(name: string, input: unknown, ctx: unknown): Promise<ToolOutcome>;
}
export interface ConfigModule {
  DEFAULT_TOOL_CONFIG: unknown;
}

export interface Stats {
  median: number;
  min: number;
  max: number;
  samples: number[];
}

/** Runs per measurement after the warm-up (the issue asks for at least 5). */
export const RUNS = Number(process.env.BENCH_RUNS ?? 5);
export const WARMUP = Number(process.env.BENCH_WARMUP ?? 1);

/** Median, min and max of a list of samples. */
export function stats(samples: number[]): Stats {
  if (samples.length === 0) throw new Error('stats: no samples');
  const s = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  const median = s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
  return { median, min: s[0], max: s[s.length - 1], samples };
}

/** Milliseconds taken by one call of fn. */
export async function timeOnce(fn: () => unknown): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/** Times fn: `warmup` unrecorded calls, then `runs` recorded ones. */
export async function measure(fn: () => unknown, runs = RUNS, warmup = WARMUP): Promise<Stats> {
  for (let i = 0; i < warmup; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) samples.push(await timeOnce(fn));
  return stats(samples);
}

/** Options of measurePair: an untimed step after every call, and whether `a` gets warm-up calls. */
export interface PairOptions {
  runs?: number;
  warmup?: number;
  /** Runs untimed after each call of a or b (e.g. undo what the call wrote). */
  after?: () => unknown;
  /** false: a gets no warm-up call (when one call takes tens of seconds). Default true. */
  warmupA?: boolean;
  /** false: b gets no warm-up call. Default true. */
  warmupB?: boolean;
}

/**
 * Times two functions in the same run, interleaved (a b, b a, a b, ...) so that drift on a shared
 * machine hits both alike. Each gets `warmup` unrecorded calls first.
 */
export async function measurePair(a: () => unknown, b: () => unknown, opts: PairOptions = {}): Promise<{ a: Stats; b: Stats }> {
  const runs = opts.runs ?? RUNS;
  const warmup = opts.warmup ?? WARMUP;
  const call = async (f: () => unknown): Promise<number> => {
    const t = await timeOnce(f);
    await opts.after?.();
    return t;
  };
  for (let i = 0; i < warmup; i++) {
    if (opts.warmupA !== false) await call(a);
    if (opts.warmupB !== false) await call(b);
  }
  const sa: number[] = [];
  const sb: number[] = [];
  for (let i = 0; i < runs; i++) {
    if (i % 2 === 0) {
      sa.push(await call(a));
      sb.push(await call(b));
    } else {
      sb.push(await call(b));
      sa.push(await call(a));
    }
  }
  return { a: stats(sa), b: stats(sb) };
}

/** One line of the results table. `met` is undefined when the row could not be measured. */
export interface Row {
  id: string;
  what: string;
  ours: string;
  reference: string;
  ratio: string;
  goal: string;
  met?: boolean;
  /** Set instead of figures: 'skipped: <reason>'. */
  state?: string;
  note?: string;
  /** The machine's 1-minute load average at the start and end of the row (set by runRow). */
  load?: string;
}

/** Re-runs of a row measured while the load average exceeded the core count (BENCH_LOAD_RETRIES). */
export const LOAD_RETRIES = Number(process.env.BENCH_LOAD_RETRIES ?? 2);
/** How long to wait for the load to fall below the core count before a re-run (BENCH_LOAD_WAIT_S). */
const LOAD_WAIT_MS = Number(process.env.BENCH_LOAD_WAIT_S ?? 120) * 1000;

/** The machine's 1-minute load average and core count. */
export function machineLoad(): { load: number; cores: number } {
  return { load: os.loadavg()[0], cores: os.cpus().length };
}

/**
 * Runnable (R) or uninterruptible (D) threads right now, the count the kernel's load average is
 * made of, split into the threads of `root`'s process tree (the bench and everything it started:
 * editors, browsers, shells) and all others. Undefined where there is no /proc (not Linux).
 */
export function runnableThreads(root = process.pid, procDir = '/proc'): { own: number; others: number } | undefined {
  let pids: string[];
  try {
    pids = fs.readdirSync(procDir).filter((d) => /^\d+$/.test(d));
  } catch {
    return undefined;
  }
  const parent = new Map<number, number>();
  const runnable = new Map<number, number>();
  for (const pid of pids) {
    let tids: string[];
    try {
      tids = fs.readdirSync(path.join(procDir, pid, 'task'));
    } catch {
      continue; // exited meanwhile
    }
    let n = 0;
    for (const tid of tids) {
      let stat: string;
      try {
        stat = fs.readFileSync(path.join(procDir, pid, 'task', tid, 'stat'), 'utf8');
      } catch {
        continue;
      }
      // "pid (comm) S ppid …": comm may hold spaces and parentheses, so split after the last ')'.
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (tid === pid) parent.set(Number(pid), Number(f[1]));
      if (f[0] === 'R' || f[0] === 'D') n++;
    }
    runnable.set(Number(pid), n);
  }
  const mine = (pid: number): boolean => {
    for (let p = pid, hops = 0; p > 1 && hops < 64; p = parent.get(p) ?? 0, hops++) if (p === root) return true;
    return false;
  };
  let own = 0;
  let others = 0;
  for (const [pid, n] of runnable) {
    if (mine(pid)) own += n;
    else others += n;
  }
  return { own, others };
}

/** What a ForeignLoad sampler saw: mean runnable threads outside / inside the bench's process tree. */
export interface ForeignLoad {
  others: number;
  own: number;
  samples: number;
}

/**
 * Samples runnableThreads() every `intervalMs` until stopped and averages them: the load that
 * other processes (not the bench's own tree) put on the machine during a row. Undefined from
 * stop() when nothing could be sampled.
 */
export function sampleForeignLoad(intervalMs = 2000, sample: () => { own: number; others: number } | undefined = () => runnableThreads()): { stop(): ForeignLoad | undefined } {
  let own = 0;
  let others = 0;
  let samples = 0;
  const take = (): void => {
    const s = sample();
    if (!s) return;
    own += s.own;
    others += s.others;
    samples++;
  };
  take();
  const timer = setInterval(take, intervalMs);
  return {
    stop: () => {
      clearInterval(timer);
      take();
      return samples ? { others: others / samples, own: own / samples, samples } : undefined;
    },
  };
}

/**
 * Runs one row's measurement with the hygiene every timing row gets: the load average is printed
 * at its start and end and kept with its rows; a row measured while the load exceeded the core
 * count is re-run (after waiting up to LOAD_WAIT_MS for the load to drop), at most `retries`
 * times; if the last attempt was loaded too, its rows say so. Fewer than 5 runs per figure is noted.
 *
 * `foreign` is for rows that start processes of their own (real editors: code-server, Chromium,
 * the extension host, shells), which keep the load average above the core count on a quiet
 * machine by themselves, so that test would re-run them for nothing. For those the load of
 * processes outside the bench's tree is sampled during the row, and the row counts as loaded when
 * it exceeds the core count less one: the same allowance a single-threaded row gets (its own
 * process is one of the runnable threads the load average counts).
 */
export async function runRow(
  label: string,
  measureRow: () => Promise<Row[]> | Row[],
  log: (s: string) => void,
  opts: {
    retries?: number;
    load?: () => { load: number; cores: number };
    sleep?: (ms: number) => Promise<void>;
    foreign?: () => { stop(): ForeignLoad | undefined };
  } = {},
): Promise<Row[]> {
  const retries = opts.retries ?? LOAD_RETRIES;
  const load = opts.load ?? machineLoad;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  for (let attempt = 0; ; attempt++) {
    const a = load();
    log(`row ${label}: load average ${a.load.toFixed(1)} at start (${a.cores} cores)${attempt ? `, re-run ${attempt} of ${retries}` : ''}`);
    const sampler = opts.foreign?.();
    const rows = await measureRow();
    const foreign = sampler?.stop();
    const b = load();
    const limit = foreign ? a.cores - 1 : a.cores;
    const level = foreign ? foreign.others : Math.max(a.load, b.load);
    const loaded = level > limit;
    const others = foreign ? ` (others ${foreign.others.toFixed(1)}, the row's own ${foreign.own.toFixed(1)} runnable threads on average)` : '';
    log(`row ${label}: load average ${b.load.toFixed(1)} at end${others}${loaded ? ` — ${foreign ? `others above ${limit}` : `above ${a.cores} cores`}` : ''}`);
    if (loaded && attempt < retries) {
      // Counted in sleeps, not by the clock: a test's instant sleep must not spin for LOAD_WAIT_MS.
      for (let waited = 0; (foreign ? (opts.foreign!().stop()?.others ?? 0) > limit : load().load > a.cores) && waited < LOAD_WAIT_MS; waited += 5000) await sleep(5000);
      continue;
    }
    const notes: string[] = [];
    if (loaded) {
      const what = foreign
        ? `measured while other processes kept ${foreign.others.toFixed(1)} threads runnable on average (more than ${limit} of the ${a.cores} cores; load average ${a.load.toFixed(1)} → ${b.load.toFixed(1)})`
        : `measured while the load average exceeded the ${a.cores} cores (${a.load.toFixed(1)} → ${b.load.toFixed(1)})`;
      notes.push(`${what}${attempt ? ` after ${attempt} re-run${attempt > 1 ? 's' : ''}` : retries === 0 ? ' (re-runs off: BENCH_LOAD_RETRIES=0)' : ''}: absolute times are inflated, ratios less so`);
    }
    if (RUNS < 5) notes.push(`only ${RUNS} run${RUNS === 1 ? '' : 's'} per figure (BENCH_RUNS)`);
    for (const r of rows) {
      r.load = `${a.load.toFixed(1)} → ${b.load.toFixed(1)}${foreign ? ` (others ${foreign.others.toFixed(1)})` : ''}${loaded ? ' ⚠' : ''}`;
      if (notes.length && !r.state) r.note = [r.note, ...notes].filter(Boolean).join('; ');
    }
    return rows;
  }
}

/** A row that failed while measuring: kept in the table with the error. */
export function failedRow(id: string, what: string, goal: string, e: unknown): Row {
  const msg = e instanceof Error ? e.message : String(e);
  return { id, what, ours: '—', reference: '—', ratio: '—', goal, state: 'error', note: msg.split('\n')[0].slice(0, 300) };
}

/** Formats milliseconds as `median (min–max) ms`. */
export function fmtMs(s: Stats, digits = 1): string {
  return `${s.median.toFixed(digits)} ms (${s.min.toFixed(digits)}–${s.max.toFixed(digits)})`;
}

/** Throughput in MB/s for `bytes` processed in the median/min/max times (fastest run = max MB/s). */
export function fmtMBs(bytes: number, s: Stats): string {
  const mbs = (ms: number): string => (bytes / 1048576 / (ms / 1000)).toFixed(1);
  return `${mbs(s.median)} MB/s (${mbs(s.max)}–${mbs(s.min)})`;
}

const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function verdict(r: Row): string {
  if (r.state) return r.state;
  if (r.met === undefined) return '—';
  return r.met ? 'met' : '**missed**';
}

/** The results table as Markdown; notes follow as a numbered list under it. */
export function renderTable(rows: Row[]): string {
  const out = ['| # | what | ours | reference | ratio | goal | load (start → end) | goal met |', '|---|---|---|---|---|---|---|---|'];
  for (const r of rows) out.push(`| ${r.id} | ${cell(r.what)} | ${cell(r.ours)} | ${cell(r.reference)} | ${cell(r.ratio)} | ${cell(r.goal)} | ${cell(r.load ?? '—')} | ${verdict(r)} |`);
  const notes = rows.filter((r) => r.note);
  if (notes.length) {
    out.push('', 'Notes:', '');
    for (const r of notes) out.push(`- **${r.id}**: ${r.note}`);
  }
  return out.join('\n');
}

/** The results table for a terminal: aligned plain-text columns. */
export function renderPlain(rows: Row[]): string {
  const head = ['#', 'what', 'ours', 'reference', 'ratio', 'goal', 'load', 'goal met'];
  const body = rows.map((r) => [r.id, r.what, r.ours, r.reference, r.ratio, r.goal, r.load ?? '—', verdict(r).replace(/\*/g, '')]);
  const widths = head.map((h, i) => Math.min(48, Math.max(h.length, ...body.map((b) => b[i].length))));
  const fit = (s: string, w: number): string => (s.length > w ? s.slice(0, w - 1) + '…' : s.padEnd(w));
  return [head, ...body].map((line) => line.map((c, i) => fit(c, widths[i])).join('  ')).join('\n');
}

function sh(cmd: string, args: string[], cwd?: string): string {
  try {
    return execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'unknown';
  }
}

/** The machine, date and commit the figures come from. */
export function machineDescription(repoRoot: string): string[] {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  const dirty = sh('git', ['status', '--porcelain', '--untracked-files=no'], repoRoot);
  const commit = sh('git', ['rev-parse', '--short', 'HEAD'], repoRoot);
  let os_ = `${os.type()} ${os.release()}`;
  try {
    const pretty = /PRETTY_NAME="([^"]+)"/.exec(fs.readFileSync('/etc/os-release', 'utf8'));
    if (pretty) os_ = `${pretty[1]} (${os_})`;
  } catch {
    // not Linux: keep the kernel name
  }
  return [
    `- Date: ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')}`,
    `- Commit: ${commit}${dirty && dirty !== 'unknown' ? ' (working tree had uncommitted changes by colleagues)' : ''}`,
    `- Machine: ${sh('nproc', [])} cores (nproc), ${cpu}, ${(os.totalmem() / 1024 ** 3).toFixed(1)} GB memory, ${os_}`,
    `- Node ${process.version}; runs per figure: ${RUNS} after ${WARMUP} warm-up`,
  ];
}

/** Repository root (bench/ is run from out/bench/ after tsc). */
export function repoRoot(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${__dirname}`);
    dir = up;
  }
  return dir;
}

/**
 * Loads a compiled module of the project (path relative to the repo's src/, e.g.
 * 'core/terminal/screen/terminalRenderer') that must export all `names`. Throws, naming the file,
 * when it is missing or lacks one: a module moved without this path must stop the run, not leave
 * a row reporting "not built" (rows 4, 5 and 6 did so after the modules moved to core/output/).
 */
export function loadBuilt<T>(rel: string, names: string[]): T {
  const file = path.join(repoRoot(), 'out', 'src', `${rel}.js`);
  if (!fs.existsSync(file)) throw new Error(`bench: ${path.relative(repoRoot(), file)} is missing (run tsc -p .; a module that moved needs its new path here)`);
  const mod = require(file) as Record<string, unknown>;
  const lacking = names.filter((n) => mod[n] === undefined);
  if (lacking.length) throw new Error(`bench: ${path.relative(repoRoot(), file)} does not export ${lacking.join(', ')}`);
  return mod as T;
}

/** Seeded PRNG (mulberry32): the same seed always generates the same benchmark inputs. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
