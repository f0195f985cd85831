import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { BlockScanner, scanFile } from './blockScan';
import { searchDeps } from './searchDeps';
import { ALWAYS_IGNORED } from './ignoreRules';
import type { GrepHit, GrepQuery, GrepReport } from './grepTypes';
import { yieldNow } from '../eventLoop';

export type { GrepHit, GrepQuery, GrepReport } from './grepTypes';


/** A fresh report. */
export function newGrepReport(): GrepReport {
  return { engine: 'builtin', unreadable: [], unreadableCount: 0 };
}

const UNREADABLE_KEPT = 20;

function noteUnreadable(r: GrepReport | undefined, p: string, reason: string): void {
  if (!r) return;
  r.unreadableCount++;
  if (r.unreadable.length < UNREADABLE_KEPT) r.unreadable.push({ path: p, reason });
}

/** ripgrep that runs longer than this is stopped (a hung binary must not hold the call past the client's own timeout). */
export const RIPGREP_TIMEOUT_MS = 20_000;

/** Builds the JavaScript regex of a query, or the error text of an invalid one. */
export function compileQuery(pattern: string, literal: boolean, caseSensitive: boolean): RegExp | string {
  const src = literal ? pattern.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&') : pattern;
  try {
    return new RegExp(src, caseSensitive ? 'u' : 'iu');
  } catch (e) {
    try {
      // Without the u flag some patterns JavaScript accepts in loose mode still work (e.g. "\-").
      return new RegExp(src, caseSensitive ? '' : 'i');
    } catch {
      return (e as Error).message;
    }
  }
}

function includeGlob(include: string | undefined): string {
  if (!include) return '**/*';
  return include.includes('/') ? include.replace(/^\/+/, '') : `**/${include}`;
}

/**
 * fast-glob's file system with a readdir that notes folders it cannot list (permission denied, an
 * I/O error) in the report and goes on without them: with suppressErrors alone they vanish silently.
 */
function reportingFs(report: GrepReport | undefined): Partial<typeof fs> {
  type Cb = (err: NodeJS.ErrnoException | null, entries?: unknown[]) => void;
  const readdir = ((dir: fs.PathLike, options: unknown, cb?: Cb) => {
    const callback = (typeof options === 'function' ? options : cb) as Cb;
    const opts = typeof options === 'function' ? undefined : options;
    const done = (err: NodeJS.ErrnoException | null, entries?: unknown[]): void => {
      if (err && err.code !== 'ENOENT' && err.code !== 'ENOTDIR') {
        noteUnreadable(report, String(dir), err.code ?? err.message);
        return callback(null, []);
      }
      callback(err, entries);
    };
    if (opts === undefined) fs.readdir(dir, done as never);
    else fs.readdir(dir, opts as never, done as never);
  }) as unknown as typeof fs.readdir;
  return { lstat: fs.lstat, stat: fs.stat, lstatSync: fs.lstatSync, statSync: fs.statSync, readdir, readdirSync: fs.readdirSync };
}

/** The built-in engine: fast-glob walk, each file read in large blocks (see blockScan.ts), binary files skipped. */
export async function* builtinGrep(q: GrepQuery): AsyncGenerator<GrepHit> {
  if (q.report) q.report.engine = 'builtin';
  const st = await fs.promises.stat(q.root);
  const files = st.isFile()
    ? [q.root]
    : (
        await searchDeps().fastGlob(includeGlob(q.include), {
          cwd: q.root, dot: true, onlyFiles: true, followSymbolicLinks: false, suppressErrors: true,
          ignore: [...ALWAYS_IGNORED, ...q.exclude, ...(q.useIgnoreFiles ? q.ignoreGlobs : [])],
          fs: reportingFs(q.report),
        })
      ).sort().map((f) => path.join(q.root, f));
  const scanner = new BlockScanner(q);
  let slice = Date.now();
  for (const file of files) {
    if (q.signal.aborted) return;
    yield* grepFile(file, scanner, q.report);
    // Files are read synchronously (see grepFile): the event loop gets a turn every few milliseconds.
    if (Date.now() - slice >= YIELD_EVERY_MS) {
      await yieldNow();
      slice = Date.now();
    }
  }
}

/** How long the built-in engine reads files before letting other work run. */
const YIELD_EVERY_MS = 8;

/**
 * One file's hits. Opened, read and closed synchronously: through the thread pool, each of the
 * three is a round trip, and one file after another the engine spent two thirds of its time
 * waiting for them (10,000 files of a 1 GB tree: 2.0-2.4 s, against 0.55 s for GNU grep).
 */
async function* grepFile(file: string, scanner: BlockScanner, report: GrepReport | undefined): AsyncGenerator<GrepHit> {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch (e) {
    // Deleted since the walk listed it: nothing to search. Anything else is a file we could not read.
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') noteUnreadable(report, file, code ?? (e as Error).message);
    return;
  }
  try {
    // A FIFO or device opened non-blocking reads as nothing (or fails), never hangs the loop.
    if (!fs.fstatSync(fd).isFile()) return;
    yield* scanFile((buf, offset, length) => fs.readSync(fd, buf, offset, length, null), file, scanner);
  } catch (e) {
    // A read that fails part-way (EIO, a file on a vanished mount): the hits so far stand, the file is named.
    const code = (e as NodeJS.ErrnoException).code;
    if (!code) throw e;
    noteUnreadable(report, file, (e as { reason?: string }).reason ?? code);
  } finally {
    fs.closeSync(fd);
  }
}

/** Thrown by ripgrep() when ripgrep rejects the pattern (the caller falls back to the built-in engine). */
export class RipgrepPatternError extends Error {}

/** Thrown by ripgrep() when ripgrep did not complete a search: what went wrong, in words. */
export class RipgrepFailure extends Error {}

/**
 * ripgrep's per-file complaints on stderr (`./x.log: Permission denied (os error 13)`), which come
 * with exit code 2 after an otherwise complete search. Anything else on stderr is not one.
 */
const RG_FILE_ERROR = /^(.+?): (.+ \(os error \d+\))$/;

/** Runs ripgrep with --json and yields its matches and context lines; throws RipgrepFailure when the search did not complete. */
export async function* ripgrep(rgPath: string, q: GrepQuery): AsyncGenerator<GrepHit> {
  // No --sort: it makes ripgrep single-threaded; the tool sorts the (bounded) hits it returns.
  const args = ['--json', '--no-config', '--hidden', '-g', '!.git'];
  if (q.literal) args.push('-F');
  args.push(q.caseSensitive ? '-s' : '-i');
  if (q.context > 0) args.push('-C', String(q.context));
  if (!q.useIgnoreFiles) args.push('--no-ignore');
  else args.push('--no-require-git');
  if (q.include) args.push('-g', q.include);
  for (const e of q.exclude) args.push('-g', `!${e}`);
  // ripgrep matches globs with a slash relative to its working directory: run it in the root.
  const isDir = (await fs.promises.stat(q.root)).isDirectory();
  const cwd = isDir ? q.root : path.dirname(q.root);
  args.push('-e', q.pattern, '--', isDir ? '.' : path.basename(q.root));
  if (q.report) q.report.engine = 'ripgrep';
  const child = spawn(rgPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const onAbort = (): void => void child.kill();
  q.signal.addEventListener('abort', onAbort, { once: true });
  let timedOut = false;
  const timeoutMs = q.timeoutMs ?? RIPGREP_TIMEOUT_MS;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, timeoutMs);
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr.length < 64_000 ? (stderr += d.toString()) : undefined));
  let spawnError: Error | undefined;
  child.once('error', (e) => (spawnError = e));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  const rl = readline.createInterface({ input: child.stdout, crlfDelay: Infinity });
  try {
    for await (const line of rl) {
      if (!line.startsWith('{"type":"match"') && !line.startsWith('{"type":"context"')) continue;
      const ev = JSON.parse(line) as { type: string; data: { path: { text?: string }; lines: { text?: string }; line_number: number } };
      if (ev.data.path.text === undefined || ev.data.lines.text === undefined) continue;
      yield { file: path.resolve(cwd, ev.data.path.text), line: ev.data.line_number, text: ev.data.lines.text.replace(/\r?\n$/, ''), context: ev.type === 'context' };
    }
  } finally {
    rl.close();
    q.signal.removeEventListener('abort', onAbort);
    if (child.exitCode === null && child.signalCode === null) child.kill();
    clearTimeout(timer);
  }
  const { code, signal } = await exited;
  if (q.signal.aborted) return;
  const who = `ripgrep (${rgPath})`;
  if (spawnError) throw new RipgrepFailure(`${who} could not start: ${(spawnError as NodeJS.ErrnoException).code ?? ''} ${spawnError.message}`.replace(/\s+/g, ' '));
  if (timedOut) throw new RipgrepFailure(`${who} did not finish within ${Math.round(timeoutMs / 1000)} s and was stopped`);
  if (signal) throw new RipgrepFailure(`${who} was killed by ${signal}`);
  if (code === 0 || code === 1) return;
  const lines = stderr.split('\n').map((l) => l.trim()).filter(Boolean);
  if (code === 2 && /regex|parse error|look-around|backreference/i.test(stderr)) throw new RipgrepPatternError(stderr.trim());
  // Exit 2 after complaints about single files only: the search completed everywhere else.
  if (code === 2 && lines.length > 0 && lines.every((l) => RG_FILE_ERROR.test(l))) {
    for (const l of lines) {
      const m = RG_FILE_ERROR.exec(l)!;
      noteUnreadable(q.report, path.resolve(cwd, m[1]), m[2]);
    }
    return;
  }
  // 126/127 are a shell's "cannot execute" / "not found" (a wrapper script), anything else is unknown.
  throw new RipgrepFailure(`${who} exited with code ${code}${lines.length ? `: ${lines.slice(0, 3).join('; ').slice(0, 300)}` : ' and said nothing'}`);
}

/** Hits the tool collects at most (a search matching more is cut and says so). */
export const MAX_GREP_HITS = 200_000;

/**
 * ripgrep when available, else the built-in engine. ripgrep's hits are held back until it has
 * finished: a ripgrep that fails (cannot start, is killed, exits with an error, hangs) has its
 * partial answer set aside and the built-in engine searches instead, with the reason in the
 * report. A pattern only JavaScript understands goes to the built-in engine too.
 */
export async function* grep(q: GrepQuery, rgPath: string | undefined): AsyncGenerator<GrepHit> {
  if (rgPath) {
    const held: GrepHit[] = [];
    try {
      for await (const h of ripgrep(rgPath, q)) {
        held.push(h);
        if (held.length >= MAX_GREP_HITS) break;
      }
      yield* held;
      return;
    } catch (e) {
      if (e instanceof RipgrepFailure) {
        if (q.report) {
          q.report.fallback = `${e.message}; searched with the built-in engine instead`;
          // What ripgrep had noted before failing is not the final word: the built-in engine reads everything again.
          q.report.unreadable = [];
          q.report.unreadableCount = 0;
        }
      } else if (!(e instanceof RipgrepPatternError)) throw e;
    }
  }
  yield* builtinGrep(q);
}
