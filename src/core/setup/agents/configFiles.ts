/*
 * What every agent's set-up shares: edits of the agents' own config files that leave the rest of
 * each file byte for byte as it was (JSON and JSONC through jsonc-parser's edit operations, which
 * splice text and keep comments, key order and indentation; TOML and .env as text), all planned in
 * memory first so a file that cannot be parsed stops the set-up before anything is written, and
 * the git bookkeeping that keeps machine-specific files out of commits.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { applyEdits, findNodeAtLocation, format, modify, parse, parseTree, printParseErrorCode, type FormattingOptions, type JSONPath, type ParseError } from 'jsonc-parser';
import { mkdirp, writeFileAtomic } from '../../fs/fsAtomic';
import { err, ok, type FileError, type Result } from '../../result';

/** One file's new text (undefined: delete the file). */
export interface FileEdit {
  file: string;
  before: string | undefined;
  after: string | undefined;
}

/** What a set-up or an undo did, for the message shown to the user. */
export interface SetupOutcome {
  changed: string[];
  unchanged: string[];
  /** Things the user should know: what was left out and why, what to do next. */
  notes: string[];
}

/** A file's text; undefined when it does not exist. */
export async function readText(file: string): Promise<Result<string | undefined>> {
  try {
    return ok(await fs.promises.readFile(file, 'utf8'));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return ok(undefined);
    return err({ file, message: `cannot read: ${(e as Error).message}` });
  }
}

/** 1-based line of an offset. */
function lineOf(text: string, offset: number): number {
  let n = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

/**
 * Parses a JSON (or, with `comments`, JSONC) object file; missing or blank text is an empty object.
 * A file that is not one is refused with the reason and its line: nothing is written.
 */
export function parseJsonObject(text: string | undefined, file: string, comments: boolean): Result<Record<string, unknown>> {
  if (text === undefined || !text.trim()) return ok({});
  const errors: ParseError[] = [];
  const value = parse(text.replace(/^\uFEFF/, ''), errors, { allowTrailingComma: comments, disallowComments: !comments });
  if (errors.length > 0) {
    const e = errors[0];
    return err({ file, line: lineOf(text, e.offset), message: `is not valid ${comments ? 'JSON with comments' : 'JSON'} (${printParseErrorCode(e.error)}); fix it or move it away, then run the set-up again. Nothing was changed.` });
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    return err({ file, message: 'does not hold a JSON object; fix it or move it away, then run the set-up again. Nothing was changed.' });
  }
  return ok(value as Record<string, unknown>);
}

/** The file's own indentation and line ends, so an edit looks like the rest of the file. */
function formatting(text: string): FormattingOptions {
  const indent = /\n([ \t]+)["}\]]/.exec(text)?.[1] ?? '  ';
  return { insertSpaces: !indent.startsWith('\t'), tabSize: indent.startsWith('\t') ? 1 : indent.length, eol: text.includes('\r\n') ? '\r\n' : '\n' };
}

/**
 * Sets (value) or removes (undefined) one value of a JSON(C) text, splicing only that part: the
 * edit is made unformatted, then only the inserted text is formatted like the file (jsonc-parser's
 * own formatting of an edit reformats the whole line it lands on, e.g. a sibling written on one
 * line). A removal takes out exactly what an insertion put in, so an undo gives the bytes back.
 */
export function jsonSet(text: string | undefined, at: JSONPath, value: unknown): string {
  const base = text === undefined || !text.trim() ? '{}\n' : text;
  // jsonc-parser 3.3.1 removes the last element of an array after another one a character short:
  // [1,2,3] without index 2 became [1,23], and [{..},{..}] lost the first object's closing brace.
  // That removal is done here: from the end of the element before it to the end of its own.
  const last = at[at.length - 1];
  if (value === undefined && typeof last === 'number' && last > 0) {
    const arr = findNodeAtLocation(parseTree(base, [], { allowTrailingComma: true, disallowComments: false }) ?? { type: 'null', offset: 0, length: 0 }, at.slice(0, -1));
    const items = arr?.type === 'array' ? arr.children ?? [] : [];
    if (last === items.length - 1) return base.slice(0, items[last - 1].offset + items[last - 1].length) + base.slice(items[last].offset + items[last].length);
  }
  const edits = modify(base, at, value, {});
  let out = applyEdits(base, edits);
  if (value !== undefined) {
    const options = formatting(base);
    for (const e of edits) out = applyEdits(out, format(out, { offset: e.offset, length: e.content.length }, options));
  }
  return out;
}

/** The shortest prefix of `at` that has no value in `obj` (undefined: the whole path exists). */
export function missingPrefix(obj: unknown, at: readonly (string | number)[]): (string | number)[] | undefined {
  let cur: unknown = obj;
  for (let i = 0; i < at.length; i++) {
    if (!cur || typeof cur !== 'object' || !(String(at[i]) in (cur as object))) return at.slice(0, i + 1);
    cur = (cur as Record<string, unknown>)[String(at[i])];
  }
  return undefined;
}

/** The value at `at` (undefined when any step is missing). */
export function valueAt(obj: unknown, at: readonly (string | number)[]): unknown {
  let cur: unknown = obj;
  for (const k of at) {
    if (!cur || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[String(k)];
  }
  return cur;
}

/**
 * Undo of a set-up's `jsonSet(at, value)`: removes the value, and the object the set-up created to
 * hold it (recorded as `created`, a prefix of `at`) when nothing else was put in it since.
 */
export function jsonUnset(text: string | undefined, file: string, at: readonly (string | number)[], created: readonly (string | number)[] | undefined, comments: boolean): string | undefined {
  const before = parseJsonObject(text, file, comments);
  if (!before.ok || valueAt(before.value, at) === undefined) return text;
  let out = jsonSet(text, [...at], undefined);
  // From the deepest object the set-up created up: each goes when it is left empty.
  for (let n = at.length - 1; created && n >= created.length; n--) {
    const p = parseJsonObject(out, file, comments);
    const v = p.ok ? valueAt(p.value, at.slice(0, n)) : undefined;
    if (!v || typeof v !== 'object' || Object.keys(v).length > 0) break;
    out = jsonSet(out, [...at.slice(0, n)], undefined);
  }
  return out;
}

/** True when `root` is a git work tree and `rel` is tracked (committed or staged). */
export function trackedByGit(root: string, rel: string): boolean {
  const r = spawnSync('git', ['ls-files', '--error-unmatch', '--', rel], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return r.status === 0;
}

function gitDirOf(root: string): string | undefined {
  const dot = path.join(root, '.git');
  const st = fs.statSync(dot, { throwIfNoEntry: false });
  if (st?.isDirectory()) return dot;
  if (st?.isFile()) {
    // A worktree or submodule: `.git` names the real folder (info/ is shared with the main tree).
    const m = /^gitdir:\s*(.+)$/m.exec(fs.readFileSync(dot, 'utf8'));
    if (m) {
      const gd = path.resolve(root, m[1].trim());
      const common = path.join(gd, 'commondir');
      return fs.existsSync(common) ? path.resolve(gd, fs.readFileSync(common, 'utf8').trim()) : gd;
    }
  }
  return undefined;
}

/** The edit adding (or, with `remove`, taking out) `/<rel>` in .git/info/exclude; undefined: nothing to do or no git. */
export async function gitExcludeEdit(root: string, rel: string, remove = false): Promise<FileEdit | undefined> {
  return (await gitExcludeEdits(root, [rel], remove)).edit;
}

/**
 * One edit of .git/info/exclude for several lines `/<rel>` (added, or with `remove` taken out), and
 * the lines it changes; the edit is undefined when there is nothing to do or no git.
 */
export async function gitExcludeEdits(root: string, rels: readonly string[], remove = false): Promise<{ edit: FileEdit | undefined; lines: string[] }> {
  const gd = gitDirOf(root);
  if (!gd) return { edit: undefined, lines: [] };
  const file = path.join(gd, 'info', 'exclude');
  const r = await readText(file);
  const before = r.ok ? r.value : undefined;
  let text = before ?? '';
  const changed: string[] = [];
  for (const rel of rels) {
    const line = `/${rel}`;
    const lines = text.split(/\r?\n/);
    const has = lines.some((l) => l.trim() === line);
    if (!remove) {
      if (has || lines.some((l) => l.trim() === rel)) continue;
      text = `${text}${text && !text.endsWith('\n') ? '\n' : ''}${line}\n`;
    } else {
      if (!has) continue;
      text = text.split('\n').filter((l) => l.trim() !== line).join('\n');
    }
    changed.push(line);
  }
  return { edit: changed.length ? { file, before, after: text } : undefined, lines: changed };
}

/**
 * Writes the planned edits (each file whole, atomically; a file's mode is kept, e.g. ~/.claude.json's
 * 0600); files whose text does not change are reported unchanged.
 */
export async function applyFileEdits(edits: readonly (FileEdit | undefined)[]): Promise<Result<SetupOutcome, FileError>> {
  const changed: string[] = [];
  const unchanged: string[] = [];
  for (const e of edits) {
    if (!e) continue;
    if (e.after === e.before) {
      if (!unchanged.includes(e.file)) unchanged.push(e.file);
      continue;
    }
    try {
      if (e.after === undefined) {
        await fs.promises.rm(e.file, { force: true });
      } else {
        const mode = (await fs.promises.stat(e.file).catch(() => undefined))?.mode;
        await mkdirp(path.dirname(e.file));
        await writeFileAtomic(e.file, e.after);
        if (mode !== undefined) await fs.promises.chmod(e.file, mode & 0o7777);
      }
      changed.push(e.file);
    } catch (x) {
      return err({ file: e.file, message: `could not write: ${(x as Error).message}${changed.length ? ` (already changed: ${changed.join(', ')})` : ''}` });
    }
  }
  return ok({ changed, unchanged: unchanged.filter((f) => !changed.includes(f)), notes: [] });
}

/** Quotes one word for `sh -c`, as agents run hook commands. */
export function shWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Absolute paths a set-up points at: the Node that runs our scripts, and the folder holding them (dist/). */
export interface SetupPaths {
  node: string;
  /** The folder with mcp.js, agent-hook.js, agent-hook.sh, agent-context-shell.sh, opencode-plugin.mjs. */
  dist: string;
}

/** The MCP server's command line for a workspace folder. */
export function mcpCommand(root: string, p: SetupPaths, allowRun: boolean): { command: string; args: string[] } {
  return { command: p.node, args: [path.join(p.dist, 'mcp.js'), '--root', root, ...(allowRun ? ['--allow-run'] : [])] };
}

/** The hook entry point's command line for an agent and event (Node named for the Node path). */
export function hookCommand(p: SetupPaths, agent: string, event: string): string {
  return `AGENT_CONTEXT_NODE=${shWord(p.node)} bash ${shWord(path.join(p.dist, 'agent-hook.sh'))} ${agent} ${event}`;
}
