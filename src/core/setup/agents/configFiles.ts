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
import { applyEdits, findNodeAtLocation, format, modify, parse, parseTree, printParseErrorCode, type FormattingOptions, type JSONPath, type Node as JsonNode, type ParseError } from 'jsonc-parser';
import { mkdirp, writeFileAtomic } from '../../fs/fsAtomic';
import { fsCause } from '../../fs/fsErrors';
import { decodeUtf8Strict } from '../../fs/strictText';
import { isInside, toPosixRelative } from '../../workspace/relativePaths';
import { err, ok, type FileError, type Result } from '../../result';

/** One file's new text (undefined: delete the file). */
export interface FileEdit {
  file: string;
  before: string | undefined;
  after: string | undefined;
}

/**
 * One entry of an object-valued editor setting (user scope) that a set-up adds, or with `value`
 * undefined takes out: `chat.agentSkillsLocations` → `".agent/skills": true`. The core cannot reach
 * the editor's settings: the editor applies these, and only for agents set up from it.
 */
export interface SettingChange {
  setting: string;
  key: string;
  value?: unknown;
}

/** A setting whose value `off` keeps the agent from using what the set-up wrote (the editor says so). */
export interface SettingRequirement {
  setting: string;
  off: unknown;
  /** Why, as the end of a sentence: "VS Code's agent runs no hooks while chat.useHooks is off". */
  why: string;
}

/** What a set-up or an undo did, for the message shown to the user. */
export interface SetupOutcome {
  /** Every file written or removed (absolute paths). */
  changed: string[];
  /** Of `changed`: the files that did not exist before, and the files removed. */
  created?: string[];
  deleted?: string[];
  unchanged: string[];
  /** Undo: the folders the set-up had created that it left empty and removed. */
  removedFolders?: string[];
  /** Editor settings the set-up adds or its undo takes out (the editor applies them: SettingChange). */
  settings?: SettingChange[];
  /** Settings that, when off, keep the agent from using the set-up (SettingRequirement). */
  requires?: SettingRequirement[];
  /** Things the user should know: what was left out and why, what to do next. */
  notes: string[];
}

/**
 * A file's text; undefined when it does not exist. Bytes that are not UTF-8 are refused: read as
 * U+FFFD, the rewrite would put that over the user's own characters (and an undo could not give them back).
 */
export async function readText(file: string): Promise<Result<string | undefined>> {
  try {
    const text = decodeUtf8Strict(await fs.promises.readFile(file));
    if (text === undefined) return err({ file, message: 'is not valid UTF-8 text; save it as UTF-8, then run the set-up again. Nothing was changed.' });
    return ok(text);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return ok(undefined);
    return err({ file, message: `cannot read: ${fsCause(e)}. Nothing was changed.` });
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
  // A key twice in one object: the parse keeps the last, an edit would land on the first.
  const dup = duplicateKey(parseTree(text.replace(/^\uFEFF/, ''), [], { allowTrailingComma: comments, disallowComments: !comments }));
  if (dup) return err({ file, line: lineOf(text, dup.offset), message: `has the key "${dup.key}" twice in one object; keep one, then run the set-up again. Nothing was changed.` });
  return ok(value as Record<string, unknown>);
}

/** The first key that an object of the tree holds twice, with the offset of its second use. */
function duplicateKey(node: JsonNode | undefined): { key: string; offset: number } | undefined {
  if (!node) return undefined;
  if (node.type === 'object') {
    const seen = new Set<string>();
    for (const prop of node.children ?? []) {
      const k = prop.children?.[0];
      if (k && typeof k.value === 'string') {
        if (seen.has(k.value)) return { key: k.value, offset: k.offset };
        seen.add(k.value);
      }
    }
  }
  for (const c of node.children ?? []) {
    const d = duplicateKey(c);
    if (d) return d;
  }
  return undefined;
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
  // A new (or blank) file is written whole, indented as people write JSON: an edit spliced into
  // `{}` left `{"hooks": {` on the first line and the closing braces together on the last.
  if ((text === undefined || !text.trim()) && value !== undefined) return `${JSON.stringify(nested(at, value), null, 2)}\n`;
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

/** `value` at `at` in an otherwise empty object (a number in the path makes an array). */
function nested(at: JSONPath, value: unknown): unknown {
  let out = value;
  for (let i = at.length - 1; i >= 0; i--) {
    const k = at[i];
    if (typeof k === 'number') {
      const arr: unknown[] = [];
      arr[k] = out;
      out = arr;
    } else out = { [k]: out };
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

/**
 * The git folder of the work tree holding `root` (the folder itself or one above it: a package of a
 * monorepo), and that work tree's top, which exclude lines are relative to.
 */
function gitDirOf(root: string): { gitDir: string; top: string } | undefined {
  for (let top = path.resolve(root); ; top = path.dirname(top)) {
    const dot = path.join(top, '.git');
    const st = fs.statSync(dot, { throwIfNoEntry: false });
    if (st?.isDirectory()) return { gitDir: dot, top };
    if (st?.isFile()) {
      // A worktree or submodule: `.git` names the real folder (info/ is shared with the main tree).
      const m = /^gitdir:\s*(.+)$/m.exec(fs.readFileSync(dot, 'utf8'));
      if (!m) return undefined;
      const gd = path.resolve(top, m[1].trim());
      const common = path.join(gd, 'commondir');
      return { gitDir: fs.existsSync(common) ? path.resolve(gd, fs.readFileSync(common, 'utf8').trim()) : gd, top };
    }
    if (path.dirname(top) === top) return undefined;
  }
}

/**
 * One edit of .git/info/exclude for several lines `/<rel>` (added, or with `remove` taken out), and
 * the lines it changes; the edit is undefined when there is nothing to do or no git.
 */
export async function gitExcludeEdits(root: string, rels: readonly string[], remove = false): Promise<{ edit: FileEdit | undefined; lines: string[]; rels: string[] }> {
  const git = gitDirOf(root);
  if (!git) return { edit: undefined, lines: [], rels: [] };
  const file = path.join(git.gitDir, 'info', 'exclude');
  const r = await readText(file);
  const before = r.ok ? r.value : undefined;
  let text = before ?? '';
  const changed: string[] = [];
  const changedRels: string[] = [];
  // Lines are relative to the work tree's top: `/pkg/.claude/settings.local.json` for a package of a monorepo.
  const under = toPosixRelative(git.top, path.resolve(root));
  for (const rel of rels) {
    const line = `/${under ? `${under}/` : ''}${rel}`;
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
    changedRels.push(rel);
  }
  // An undo that takes out every line the set-up added to a file it created leaves no file behind.
  const after = remove && before !== undefined && text === '' ? undefined : text;
  return { edit: changed.length ? { file, before, after } : undefined, lines: changed, rels: changedRels };
}

/** A file's real place: through every link of it and of the folders above it (it, or they, may not exist yet). */
async function realTarget(file: string): Promise<string> {
  const rest: string[] = [];
  for (let p = path.resolve(file); ; p = path.dirname(p)) {
    try {
      return path.join(await fs.promises.realpath(p), ...rest.reverse());
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || path.dirname(p) === p) throw e;
      rest.push(path.basename(p));
    }
  }
}

/** Where an edit is written: the file, or the file a link of it leads to (kept a link); refused when that cannot be done safely. */
async function writeTarget(e: FileEdit, root: string | undefined): Promise<Result<string>> {
  const real = await realTarget(e.file);
  // A file of the workspace that a link (it or a folder above it) leads out of the workspace: the
  // set-up would change a file elsewhere, perhaps another project's.
  if (root && isInside(path.resolve(root), path.resolve(e.file))) {
    const rootReal = await fs.promises.realpath(root);
    if (!isInside(rootReal, real)) return err({ file: e.file, message: `is a symbolic link (or inside one) leading outside the workspace, to ${real}; replace it with the file itself, then run the set-up again. Nothing was changed.` });
  }
  const st = await fs.promises.stat(real).catch(() => undefined);
  if (st && !st.isFile()) return err({ file: e.file, message: `is not a regular file${real !== e.file ? ` (it leads to ${real})` : ''}. Nothing was changed.` });
  // Read-only on purpose (root would write it anyway): asked, not overridden.
  if (st && e.after !== undefined && (st.mode & 0o222) === 0) return err({ file: e.file, message: `is read-only (mode ${(st.mode & 0o777).toString(8).padStart(4, '0')}); make it writable, or add the entries by hand. Nothing was changed.` });
  return ok(e.after === undefined ? path.resolve(e.file) : real);
}

/**
 * Writes the planned edits (each file whole, atomically; a file's mode is kept, e.g. ~/.claude.json's
 * 0600; a linked file is written where the link leads, so a dotfiles link stays a link); files whose
 * text does not change are reported unchanged. Every file is checked before any is written (a link
 * out of the workspace `root`, read-only, not a file), and a write that fails half-way puts back
 * the files already written: the set-up happens whole or not at all.
 */
export async function applyFileEdits(edits: readonly (FileEdit | undefined)[], root?: string): Promise<Result<SetupOutcome, FileError>> {
  const changed: string[] = [];
  const unchanged: string[] = [];
  const todo: { e: FileEdit; target: string }[] = [];
  for (const e of edits) {
    if (!e) continue;
    if (e.after === e.before) {
      if (!unchanged.includes(e.file)) unchanged.push(e.file);
      continue;
    }
    try {
      const t = await writeTarget(e, root);
      if (!t.ok) return t;
      todo.push({ e, target: t.value });
    } catch (x) {
      return err({ file: e.file, message: `cannot be written: ${fsCause(x)}. Nothing was changed.` });
    }
  }
  const done: { e: FileEdit; target: string; created: string | undefined }[] = [];
  for (const { e, target } of todo) {
    try {
      if (e.after === undefined) {
        await fs.promises.rm(target, { force: true });
        done.push({ e, target, created: undefined });
      } else {
        const mode = (await fs.promises.stat(target).catch(() => undefined))?.mode;
        const created = await firstMissing(path.dirname(target));
        await mkdirp(path.dirname(target));
        await writeFileAtomic(target, e.after);
        done.push({ e, target, created });
        if (mode !== undefined) await fs.promises.chmod(target, mode & 0o7777);
      }
      changed.push(e.file);
    } catch (x) {
      const back = await putBack(done);
      return err({ file: e.file, message: `could not be written: ${fsCause(x)}. ${done.length === 0 ? 'Nothing was changed.' : back.length === 0 ? `The files already written were put back (${done.map((d) => d.e.file).join(', ')}).` : `Could not put back ${back.join(', ')}: check ${back.length === 1 ? 'it' : 'them'} by hand.`}` });
    }
  }
  const created = done.filter((d) => d.e.before === undefined && d.e.after !== undefined).map((d) => d.e.file);
  const deleted = done.filter((d) => d.e.after === undefined).map((d) => d.e.file);
  return ok({ changed, created, deleted, unchanged: unchanged.filter((f) => !changed.includes(f)), notes: [] });
}

/** The first folder of `dir`'s path that does not exist (undefined: it exists). */
async function firstMissing(dir: string): Promise<string | undefined> {
  let missing: string | undefined;
  for (let p = path.resolve(dir); !(await fs.promises.stat(p).catch(() => undefined)); p = path.dirname(p)) {
    missing = p;
    if (path.dirname(p) === p) break;
  }
  return missing;
}

/** Undoes the writes `done` (newest first); returns the files that could not be put back. */
async function putBack(done: readonly { e: FileEdit; target: string; created: string | undefined }[]): Promise<string[]> {
  const failed: string[] = [];
  for (const d of [...done].reverse()) {
    try {
      if (d.e.before === undefined) {
        await fs.promises.rm(d.target, { force: true });
        if (d.created) await fs.promises.rm(d.created, { recursive: true, force: true });
      } else await writeFileAtomic(d.target, d.e.before);
    } catch {
      failed.push(d.e.file);
    }
  }
  return failed;
}

/** Quotes one word for `sh -c`, as agents run hook commands. */
export function shWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Absolute paths a set-up points at: the Node that runs our scripts, and the folder holding them (dist/). */
export interface SetupPaths {
  /** The Node that runs our scripts; with `electron`, an editor's own executable (VS Code's), run as Node. */
  node: string;
  electron?: boolean;
  /** The folder with mcp.js, agent-hook.js, agent-hook.sh, agent-context-shell.sh, opencode-plugin.mjs. */
  dist: string;
}

/**
 * What an MCP server entry in an agent's config is to the set-up: `ours` when a set-up wrote it
 * (only the keys `keys`, each as the set-up writes it: our mcp.js with `--root <folder>`, and
 * `--allow-run` or not; an `env` that is empty), `foreign` when it is the user's own under our name
 * (another program, or our entry with keys or arguments the user added: the set-up neither
 * replaces nor removes it), `none` when there is none. `allowRun`: an entry of ours lets commands
 * run; a user who took `--allow-run` out keeps it out.
 */
export function serverEntryKind(v: unknown, keys: readonly string[]): { kind: 'ours' | 'foreign' | 'none'; allowRun: boolean } {
  if (v === undefined) return { kind: 'none', allowRun: true };
  const o = v as Record<string, unknown>;
  const args = o && typeof o === 'object' && !Array.isArray(o) ? o.args : undefined;
  const shape = Array.isArray(args) && (args.length === 3 || (args.length === 4 && args[3] === '--allow-run'))
    && typeof args[0] === 'string' && /(?:^|[\\/])mcp\.js$/.test(args[0]) && args[1] === '--root' && typeof args[2] === 'string'
    && typeof o.command === 'string' && Object.keys(o).every((k) => keys.includes(k))
    && (o.env === undefined || (typeof o.env === 'object' && o.env !== null && Object.keys(o.env).length === 0))
    && (o.type === undefined || o.type === 'stdio');
  return shape ? { kind: 'ours', allowRun: args.length === 4 } : { kind: 'foreign', allowRun: false };
}

/** Why the set-up stops at a foreign entry under our server's name (the caller names the file). */
export function foreignServerMessage(name: string): string {
  return `already configures an MCP server named "${name}" that the set-up did not write (another program, or keys or arguments added by hand); remove it (or rename it) to let the set-up write its own. Nothing was changed.`;
}

/** The MCP server's command line for a workspace folder. */
export function mcpCommand(root: string, p: SetupPaths, allowRun: boolean): { command: string; args: string[] } {
  return { command: p.node, args: [path.join(p.dist, 'mcp.js'), '--root', root, ...(allowRun ? ['--allow-run'] : [])] };
}

/**
 * The hook entry point's command line for an agent and event (Node named for the Node path). `source`:
 * read into the bash that already runs a hook file of ours (`.`, one shell start fewer; its `exit`
 * ends that file, so never for a line in someone else's script).
 */
export function hookCommand(p: SetupPaths, agent: string, event: string, source = false): string {
  return `${p.electron ? `${ELECTRON_AS_NODE} ` : ''}AGENT_CONTEXT_NODE=${shWord(p.node)} ${source ? '.' : 'bash'} ${shWord(path.join(p.dist, 'agent-hook.sh'))} ${agent} ${event}`;
}

/**
 * What names our hook in a command hookCommand wrote, with any paths, quoted or not (shWord quotes a
 * path with a space): `agent-hook.sh` then `agent` and, when given, `event` (agent ids and events are
 * [A-Za-z-]: nothing to escape). Every set-up's "is this entry ours" uses it.
 */
export function hookCallPattern(agent: string, event?: string): RegExp {
  return new RegExp(`agent-hook\\.sh'? ${agent}${event ? ` ${event}` : ''}\\b`);
}

/** What makes an editor's Electron executable run as plain Node (plain Node ignores it). */
export const ELECTRON_AS_NODE = 'ELECTRON_RUN_AS_NODE=1';

/**
 * The undo of hook groups in a settings file of Claude Code's shape (`hooks.<event>: [group…]`,
 * Gemini CLI and Qwen Code): removes every group `ours` accepts, then each event list and the
 * `hooks` object the set-up created (`created` holds "hooks/<event>" and "hooks") once left empty.
 */
export function removeHookGroups(text: string | undefined, file: string, hooks: unknown, events: readonly string[], ours: (group: unknown) => boolean, created: readonly string[]): string | undefined {
  const asObject = (v: unknown): Record<string, unknown> | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
  let out = text;
  for (const ev of events) {
    const groups = (asObject(hooks)?.[ev] ?? []) as unknown[];
    for (let i = groups.length - 1; i >= 0; i--) if (ours(groups[i])) out = jsonSet(out, ['hooks', ev, i], undefined);
    const after = parseJsonObject(out, file, true);
    const list = after.ok ? asObject(after.value.hooks)?.[ev] : undefined;
    if (Array.isArray(list) && list.length === 0 && created.includes(`hooks/${ev}`)) out = jsonSet(out, ['hooks', ev], undefined);
  }
  const after = parseJsonObject(out, file, true);
  const left = after.ok ? asObject(after.value.hooks) : undefined;
  if (left && Object.keys(left).length === 0 && created.includes('hooks')) out = jsonSet(out, ['hooks'], undefined);
  return out;
}

/** The check of a hook group of Claude Code's shape all of whose commands are `agent`'s hook (agent-hook.sh <agent> …). */
export function hookGroupOf(agent: string): (group: unknown) => boolean {
  const mark = hookCallPattern(agent);
  const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
  return (g) => isObject(g) && Array.isArray(g.hooks) && g.hooks.length > 0 && g.hooks.every((h) => isObject(h) && typeof h.command === 'string' && mark.test(h.command));
}

/**
 * A settings file of Claude Code's shape (`mcpServers`, `hooks.<event>: [group…]`: Gemini CLI, Qwen
 * Code) that the set-up can edit: refuses a `hooks` that is not an object, a list of `events` that is
 * not a list, an `mcpServers` that is not an object.
 */
export function checkHookSettings(s: Record<string, unknown>, file: string, events: readonly string[]): Result<void> {
  const isObject = (v: unknown): boolean => !!v && typeof v === 'object' && !Array.isArray(v);
  if (s.hooks !== undefined && !isObject(s.hooks)) return err({ file, message: '"hooks" is not an object; fix it, then run the set-up again. Nothing was changed.' });
  for (const ev of events) {
    const l = (s.hooks as Record<string, unknown> | undefined)?.[ev];
    if (l !== undefined && !Array.isArray(l)) return err({ file, message: `"hooks.${ev}" is not a list; fix it, then run the set-up again. Nothing was changed.` });
  }
  if (s.mcpServers !== undefined && !isObject(s.mcpServers)) return err({ file, message: '"mcpServers" is not an object; fix it, then run the set-up again. Nothing was changed.' });
  return ok(undefined);
}

/**
 * Our MCP server entry (`server`, under mcpServers[`name`]) and one hook group per event (`hooks`)
 * in place in a settings text of Claude Code's shape (`s` its parse), each added or replaced, the
 * rest left byte for byte. A group is ours in an event when `agent`'s hook names that event (an entry
 * under the wrong event is not ours to keep). Returns the text and the key paths it created
 * ("hooks/AfterTool"), for the undo (`removeServerAndHooks`).
 */
export function putServerAndHooks(text: string | undefined, s: Record<string, unknown>, name: string, server: unknown, agent: string, hooks: readonly (readonly [string, unknown])[]): { text: string | undefined; created: string[] } {
  const serverAt = ['mcpServers', name];
  const ours = hookGroupOf(agent);
  const created: string[] = [];
  let out = text;
  if (JSON.stringify(valueAt(s, serverAt)) !== JSON.stringify(server)) {
    const miss = missingPrefix(s, serverAt);
    if (miss && miss.length < serverAt.length) created.push(miss.join('/'));
    out = jsonSet(out, serverAt, server);
  }
  if (s.hooks === undefined) {
    out = jsonSet(out, ['hooks'], Object.fromEntries(hooks.map(([ev, entry]) => [ev, [entry]])));
    created.push('hooks', ...hooks.map(([ev]) => `hooks/${ev}`));
    return { text: out, created };
  }
  for (const [ev, entry] of hooks) {
    const list = (s.hooks as Record<string, unknown>)[ev];
    const groups = (list ?? []) as unknown[];
    // The command ends with the event: `"` after it, so PostToolUse is not PostToolUseFailure.
    const at = groups.findIndex((g) => ours(g) && JSON.stringify(g).includes(`${agent} ${ev}"`));
    if (at < 0) {
      if (list === undefined) {
        out = jsonSet(out, ['hooks', ev], [entry]);
        created.push(`hooks/${ev}`);
      } else out = jsonSet(out, ['hooks', ev, groups.length], entry);
    } else if (JSON.stringify(groups[at]) !== JSON.stringify(entry)) {
      out = jsonSet(out, ['hooks', ev, at], entry);
    }
  }
  return { text: out, created };
}

/**
 * The undo of `putServerAndHooks`: `agent`'s hook groups in `events` and our server entry under
 * mcpServers[`name`] when it is ours (`serverKeys`: serverEntryKind; the user's own entry under our
 * name stays) taken out, with what the set-up created (`created`) once left empty.
 */
export function removeServerAndHooks(text: string | undefined, file: string, s: Record<string, unknown>, name: string, serverKeys: readonly string[], agent: string, events: readonly string[], created: readonly string[]): string | undefined {
  const serverAt = ['mcpServers', name];
  const out = removeHookGroups(text, file, s.hooks, events, hookGroupOf(agent), created);
  if (serverEntryKind(valueAt(s, serverAt), serverKeys).kind !== 'ours') return out;
  return jsonUnset(out, file, serverAt, createdPrefix(created, serverAt), true);
}

/** The shortest key path the set-up created ("a/b" entries of `created`) that `at` lies under, if any. */
export function createdPrefix(created: readonly string[], at: readonly string[]): string[] | undefined {
  return created.map((k) => k.split('/')).find((p) => p.length <= at.length && at.slice(0, p.length).join('/') === p.join('/'));
}

/** The record keys of what the set-up added to a user-scope MCP config. */
const USER_SERVER_ADDED = 'server-added';
const USER_SERVER_CREATED = 'mcp-created';

/**
 * A user-scope MCP config (`{"mcpServers":{…}}`: the Copilot runtime's mcp-config.json, Cline's
 * cline_mcp_settings.json) with our server `entry` under `name` in place, or (entry undefined: the undo) taken
 * out when it is ours and the set-up added it. Ours: `command` of the entry (through `commandOf`)
 * has args naming mcp.js and no --root (a user-scope server serves the folder the agent works in).
 * An entry of the user's own under our name is refused, never replaced.
 */
export async function planUserMcpServer(file: string, name: string, entry: unknown, commandOf: (v: unknown) => { args?: unknown } | undefined, record: { keys: readonly string[] } | undefined): Promise<Result<{ edit?: FileEdit; keys: string[] }>> {
  const ours = (v: unknown): boolean => {
    const o = v && typeof v === 'object' ? commandOf(v) : undefined;
    return !!o && Array.isArray(o.args) && typeof o.args[0] === 'string' && /(?:^|[\\/])mcp\.js$/.test(o.args[0]) && !o.args.includes('--root');
  };
  const t = await readText(file);
  if (!t.ok) return t;
  const parsed = parseJsonObject(t.value, file, false);
  if (!parsed.ok) return parsed;
  const s = parsed.value;
  if (s.mcpServers !== undefined && (typeof s.mcpServers !== 'object' || s.mcpServers === null || Array.isArray(s.mcpServers))) {
    return err({ file, message: '"mcpServers" is not an object; fix it, then run the set-up again. Nothing was changed.' });
  }
  const at = ['mcpServers', name];
  const have = valueAt(s, at);
  if (entry === undefined) {
    if (have === undefined || !ours(have) || !record?.keys.includes(`${file}#${USER_SERVER_ADDED}`)) return ok({ keys: [] });
    const created = record.keys.filter((k) => k.startsWith(`${file}#${USER_SERVER_CREATED}:`)).map((k) => k.slice(file.length + USER_SERVER_CREATED.length + 2).split('\0'))[0];
    return ok({ edit: { file, before: t.value, after: jsonUnset(t.value, file, at, created, false) }, keys: [] });
  }
  if (have !== undefined && !ours(have)) {
    return err({ file, message: `already configures an MCP server named "${name}" of its own; remove it (or rename it), then run the set-up again. Nothing was changed.` });
  }
  if (JSON.stringify(have) === JSON.stringify(entry)) return ok({ edit: { file, before: t.value, after: t.value }, keys: [] });
  const created = missingPrefix(s, at);
  const keys = [...(have === undefined ? [`${file}#${USER_SERVER_ADDED}`] : []), ...(created ? [`${file}#${USER_SERVER_CREATED}:${created.map(String).join('\0')}`] : [])];
  return ok({ edit: { file, before: t.value, after: jsonSet(t.value, at, entry) }, keys });
}
