/**
 * Cleanup's retention for terminal captures: the captures of closed integrated terminals and of ended
 * agent sessions (`.agent/terminals/N.txt` with its `N.index.jsonl` and `N.1.txt`) whose last write
 * is older than `agentContext.terminals.maxAgeDays` go to the trash, the same trash scratch cleanup
 * uses. Never touched: a capture of a terminal open in the editor now (the caller names its files),
 * an agent session still open (no `# terminal closed` note: its hook may still append, see
 * sessionFold.ts), a capture written to within the limit, and the highest-numbered capture (the
 * numbering continues after the highest number on disk: removing it would hand its number, which
 * notes and the agent's memory may name, to the next terminal).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { moveToTrash, type TrashOptions } from '../fs/trash';
import { formatBytes, plural } from '../output/humanize';
import { err, ok, type Result } from '../result';
import { foldCase, isInside } from '../workspace/relativePaths';
import { TERMINALS_DIR, withClosing } from './terminalFormat';
import { closingAtEnd, readIndexEnd } from './indexTally';
import { parseTerminalNames, readTerminalHeaderInfo } from './terminalIndex';

const DAY_MS = 24 * 3_600_000;

export interface TerminalRetentionOptions {
  agentDir: string;
  /** Captures whose last write is older than this many days go; 0 or less keeps them all. */
  maxAgeDays: number;
  /** Absolute paths of the files of terminals open in the editor now; undefined when the caller cannot know (then only captures with the closing note go). */
  openFiles?: readonly string[];
  /** Defaults to Date.now(). */
  now?: number;
  dryRun?: boolean;
  /** Remove only these captures (absolute paths of their N.txt, e.g. the ones a confirmed dry run listed). */
  only?: ReadonlySet<string>;
  trash?: TrashOptions;
}

/** One capture cleanup removed (or would remove): its files (N.txt first) and their bytes. */
export interface TerminalCleanupItem {
  n: number;
  name: string;
  /** The agent's id for an agent session's capture. */
  agent?: string;
  /** Absolute paths: N.txt, then N.index.jsonl and N.1.txt when they exist. */
  files: string[];
  bytes: number;
  /** The newest modification time of its files (ms since epoch). */
  lastWriteMs: number;
}

export interface TerminalCleanupReport {
  dryRun: boolean;
  maxAgeDays: number;
  /** Moved to the trash (a dry run: would be), oldest first. */
  removed: TerminalCleanupItem[];
  /** Old enough, but open in the editor or an agent session still open: kept. */
  keptOpen: number;
  /** Would have gone but have no usable trash: left as they are. */
  noTrash: TerminalCleanupItem[];
  failed: { path: string; message: string }[];
}

/** A report of nothing done (a retention that removed nothing, or could not run). */
export function noTerminalCleanup(dryRun: boolean, maxAgeDays: number): TerminalCleanupReport {
  return { dryRun, maxAgeDays, removed: [], keptOpen: 0, noTrash: [], failed: [] };
}

/**
 * Applies the retention to `<agentDir>/terminals/`. Costs one listing and a stat per capture, plus a
 * read of the head and tail of the old ones only. A folder that does not exist is nothing to do.
 */
export async function cleanupTerminals(opts: TerminalRetentionOptions): Promise<Result<TerminalCleanupReport>> {
  const report = noTerminalCleanup(opts.dryRun ?? false, opts.maxAgeDays);
  if (!(opts.maxAgeDays > 0)) return ok(report);
  const dir = path.join(opts.agentDir, TERMINALS_DIR);
  let names: string[];
  try {
    names = await fs.promises.readdir(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return ok(report);
    return err({ file: dir, message: `cannot list the terminal captures: ${(e as Error).message}` });
  }
  // The folder must resolve inside .agent/ (a symlinked terminals/ must not lead cleanup elsewhere).
  const [realAgent, realDir] = await Promise.all([fs.promises.realpath(opts.agentDir).catch(() => opts.agentDir), fs.promises.realpath(dir).catch(() => dir)]);
  if (!isInside(realAgent, realDir)) return err({ file: dir, message: 'terminal cleanup skipped: the folder resolves outside .agent/' });
  const { numbers, previous, indexed } = parseTerminalNames(names);
  let highest = -1;
  for (const n of [...numbers, ...previous, ...indexed]) highest = Math.max(highest, n);
  const open = new Set((opts.openFiles ?? []).map((f) => foldCase(path.resolve(f))));
  const cutoff = (opts.now ?? Date.now()) - opts.maxAgeDays * DAY_MS;
  const chosen: TerminalCleanupItem[] = [];
  for (const n of numbers) {
    if (n === highest) continue;
    const txt = path.join(dir, `${n}.txt`);
    if (opts.only && !opts.only.has(txt)) continue;
    const files = [txt, ...(indexed.has(n) ? [path.join(dir, `${n}.index.jsonl`)] : []), ...(previous.has(n) ? [path.join(dir, `${n}.1.txt`)] : [])];
    const stats = await Promise.all(files.map((f) => fs.promises.lstat(f).catch(() => undefined)));
    const st = stats[0];
    if (!st || !st.isFile()) continue; // gone meanwhile, or not a capture (a folder or a link in its place): left alone
    let lastWriteMs = 0;
    let bytes = 0;
    for (const s of stats) {
      if (!s) continue;
      lastWriteMs = Math.max(lastWriteMs, s.mtimeMs);
      bytes += s.size;
    }
    if (lastWriteMs >= cutoff) continue;
    if (files.some((f) => open.has(foldCase(f)))) {
      report.keptOpen++;
      continue;
    }
    let info;
    try {
      info = await readTerminalHeaderInfo(txt, n, st);
    } catch (e) {
      report.failed.push({ path: txt, message: `cannot read its header: ${(e as Error).message}; left alone` });
      continue;
    }
    // Closed or not by the one rule (terminalFormat.ts closingState): the index's closing record
    // counts when N.txt has no closing note (a writer killed between the two).
    if (!info.closed && indexed.has(n)) info = withClosing(info, closingAtEnd(await readIndexEnd(files[1])));
    // An agent session without either may still be written by its hook; a terminal without them is
    // open in some editor unless the caller knows which terminals are open.
    if (!info.closed && (info.agent || !opts.openFiles)) {
      report.keptOpen++;
      continue;
    }
    chosen.push({ n, name: info.name, ...(info.agent ? { agent: info.agent } : {}), files: files.filter((_, i) => stats[i]), bytes, lastWriteMs });
  }
  chosen.sort((a, b) => a.lastWriteMs - b.lastWriteMs || a.n - b.n);
  if (report.dryRun) {
    report.removed = chosen;
    return ok(report);
  }
  for (const item of chosen) {
    // N.txt first: without it the rest is no terminal to any list (an index left alone only keeps its number taken).
    const moved = await moveToTrash(item.files, opts.trash);
    if (moved.trashed.some((t) => t.path === path.resolve(item.files[0]))) report.removed.push(item);
    else if (moved.noTrash.includes(path.resolve(item.files[0]))) report.noTrash.push(item);
    report.failed.push(...moved.failed.filter((f) => f.message !== 'already gone'));
  }
  return ok(report);
}

/** The report in a clause ("moved 3 closed terminal captures (1.2 MB) older than 30 days to the trash"); '' when there was nothing to do. */
export function describeTerminalCleanup(r: TerminalCleanupReport): string {
  const parts: string[] = [];
  const n = r.removed.length;
  if (n > 0) {
    const what = `${plural(n, 'closed terminal capture')} (${formatBytes(r.removed.reduce((s, i) => s + i.bytes, 0))}) older than ${plural(r.maxAgeDays, 'day')}`;
    parts.push(r.dryRun ? `would move ${what} to the trash` : `moved ${what} to the trash`);
  }
  if (r.noTrash.length > 0) parts.push(`${plural(r.noTrash.length, 'terminal capture')} not removed because no trash is available`);
  if (r.failed.length > 0) parts.push(`${plural(r.failed.length, 'terminal file')} could not be removed`);
  return parts.join('; ');
}

/**
 * What happened to the terminal captures of several folders, one clause per retention in force
 * (folders can set their own `agentContext.terminals.maxAgeDays`); none when nothing happened.
 */
export function describeTerminalCleanups(reports: readonly TerminalCleanupReport[]): string[] {
  const byAge = new Map<number, TerminalCleanupReport[]>();
  for (const r of reports) byAge.set(r.maxAgeDays, [...(byAge.get(r.maxAgeDays) ?? []), r]);
  return [...byAge.values()]
    .map((rs) => describeTerminalCleanup({ ...rs[0], removed: rs.flatMap((r) => r.removed), noTrash: rs.flatMap((r) => r.noTrash), failed: rs.flatMap((r) => r.failed) }))
    .filter((x) => x !== '');
}
