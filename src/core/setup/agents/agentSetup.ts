/*
 * One-step set-up for each agent CLI (claude-code, codex, gemini, copilot-cli, opencode, kilo): our MCP
 * server, the shell hook, and the agent's plan folder where it can be configured. Each agent's
 * module (one file: what differs between agents) plans the edits of its own config files; this
 * module runs a plan (nothing is written when any file cannot be parsed) and does what every agent
 * shares: the git-exclude lines of the files it names `local` (added, recorded, and taken out by the
 * undo only when the set-up added them), the record of the files it created (an undo removes such a
 * file once nothing but an empty object is left in it), the record an undo needs, and which agents
 * a user has.
 *
 * The rules every set-up follows: the local, uncommitted scope first (files git-excluded when the
 * set-up creates them); never a machine-specific path in a file git tracks (such a file is refused,
 * with the lines to add by hand); idempotent; every other key, comment and formatting kept; an
 * undo removes exactly what the set-up added (the record in .agent/.cache/setup/<agent>.json says
 * which values and lines were not there before).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ensureAgentTempDir, mkdirp, writeFileAtomic } from '../../fs/fsAtomic';
import { fsCause } from '../../fs/fsErrors';
import { err, formatFileError, ok, type FileError, type Result } from '../../result';
import { agentDirOf } from '../../workspace/agentLayout';
import { applyFileEdits, gitExcludeEdits, readText, trackedByGit, type FileEdit, type SettingChange, type SettingRequirement, type SetupOutcome, type SetupPaths } from './configFiles';

export type { SettingChange, SettingRequirement } from './configFiles';
import { isInside, toPosixRelative } from '../../workspace/relativePaths';
import { cacheFile } from '../../workspace/cacheFiles';

/** An agent's id, as `mcp.js --setup <id>` takes it and its record file is named. */
export type AgentId = string;

/** What a set-up added that is not recognisable as ours afterwards (a plain value, an exclude line). */
export interface SetupRecord {
  /** `.git/info/exclude` lines the set-up added. */
  excluded: string[];
  /** Keys the set-up gave a value that had none: `<file>#<json path joined by />`. */
  keys: string[];
  /** Files the set-up created. */
  created: string[];
  /** Folders the set-up created to hold them (`.claude/`, `~/.codex/`…): an undo removes each one it leaves empty. */
  folders?: string[];
}

/** A planned set-up or undo: the file edits, what to remember, and what to tell the user. */
export interface SetupPlan {
  edits: (FileEdit | undefined)[];
  /** Record keys (`<file>#<what>`) the agent's undo needs: values that had none, a line end it added. */
  keys: string[];
  /**
   * Set-up only: the files, relative to the workspace folder with `/`, that hold this machine's
   * paths and so are git-excluded (the runner adds the lines and records the ones it added).
   */
  local?: string[];
  /**
   * Workspace files written to be committed (they hold no machine path, such as VS Code's hook file):
   * a tracked one is updated like any other file, not refused.
   */
  shared?: string[];
  /** Editor settings the set-up adds (or its undo takes out): see SettingChange. */
  settings?: SettingChange[];
  /** Settings that keep the agent from using the set-up when off. */
  requires?: SettingRequirement[];
  notes: string[];
}

/** One agent's set-up: the data that names it, and its one planning function. */
export interface AgentSetup {
  id: AgentId;
  label: string;
  /** The binary on PATH that says the agent is installed. */
  binary: string;
  /** Its config folder under HOME that says the same. */
  homeFolder: string;
  /** Set when the agent's own shell tool's output is not offloaded (its hooks cannot replace it): the set-up gives it our MCP tools only. */
  shellNotOffloaded?: true;
  /** Set when the set-up writes only the user's own files (nothing in the workspace, nothing to git-exclude). */
  userScopeOnly?: true;
  /**
   * The editor's own agent (VS Code's): always there where the editor runs, so never "not found",
   * and set up from the editor only (its settings are the editor's), not by `mcp.js --setup`.
   */
  inEditor?: boolean;
  /** What the set-up writes, in a few words, for the editor's list of agents. */
  detail?: string;
  /**
   * Set up and undone together with this entry, in the same folder (VS Code's agent: its Local
   * harness's hook file, and with it the Copilot harness's user files).
   */
  with?: readonly AgentSetup[];
  /** Plans the set-up (`paths`), or its undo (`paths` undefined, with the record of the set-up when there is one). */
  plan(root: string, home: string, paths: SetupPaths | undefined, record: SetupRecord | undefined): Promise<Result<SetupPlan>>;
}

/** Where the record of an agent's set-up is kept. */
export function recordFile(root: string, agent: AgentId): string {
  return cacheFile(agentDirOf(root), 'setup', agent);
}

/**
 * The record of an earlier set-up: undefined when there is none; a note when the file is not one
 * (it is then ignored); `text`, the file as it is (put back when a set-up fails).
 */
async function readRecord(root: string, agent: AgentId): Promise<{ record?: SetupRecord; note?: string; text?: string }> {
  const file = recordFile(root, agent);
  const r = await readText(file);
  if (!r.ok) return { note: `${formatFileError(r.error)}; it was ignored.` };
  if (r.value === undefined) return {};
  const text = r.value;
  let v: unknown;
  try {
    v = JSON.parse(r.value);
  } catch {
    v = undefined;
  }
  const list = (x: unknown): string[] | undefined => (x === undefined ? [] : Array.isArray(x) && x.every((y) => typeof y === 'string') ? x : undefined);
  const o = (v && typeof v === 'object' && !Array.isArray(v) ? v : {}) as Record<string, unknown>;
  const [excluded, keys, created, folders] = [list(o.excluded), list(o.keys), list(o.created), list(o.folders)];
  if (!v || typeof v !== 'object' || Array.isArray(v) || !excluded || !keys || !created || !folders) return { note: `${file} is not a set-up record (damaged or edited); it was ignored.`, text };
  return { record: { excluded, keys, created, folders }, text };
}

function merge(a: SetupRecord | undefined, b: SetupRecord): SetupRecord {
  const u = (x: string[] = [], y: string[] = []): string[] => [...new Set([...x, ...y])];
  return { excluded: u(a?.excluded, b.excluded), keys: u(a?.keys, b.keys), created: u(a?.created, b.created), folders: u(a?.folders, b.folders) };
}

/** A file system fault met outside the planned edits (the record), as the set-up reports it. */
function fault(e: unknown, file: string): Result<never, FileError> {
  return err({ file: (e as NodeJS.ErrnoException).path ?? file, message: `${fsCause(e)}. Nothing was changed.` });
}

/**
 * Sets the agent up for the workspace folder `root`; idempotent. The record goes first (an undo
 * after a kill half-way finds what was added); when the edits fail, they are put back and so is it.
 */
export async function setUpAgent(setup: AgentSetup, root: string, home: string, paths: SetupPaths): Promise<Result<SetupOutcome, FileError>> {
  if (!fs.existsSync(root)) return err({ file: root, message: 'no such folder' });
  const rf = recordFile(root, setup.id);
  try {
    const p = await setup.plan(root, home, paths, undefined);
    if (!p.ok) return p;
    // A committed file is never rewritten with this machine's paths, even one that already holds an
    // entry of ours (a teammate's, with theirs): each agent refuses a committed file without one.
    for (const e of p.value.edits) {
      if (!e || e.after === e.before || !isInside(root, e.file)) continue;
      const rel = toPosixRelative(root, e.file);
      if (p.value.shared?.includes(rel)) continue;
      if (trackedByGit(root, rel)) return err({ file: e.file, message: `is committed to git, and the set-up would write this machine's paths into it (its Agent Context entries are another machine's or another version's): untrack it (git rm --cached ${rel}), or edit the entries by hand. Nothing was changed.` });
    }
    const prior = await readRecord(root, setup.id);
    const exclude = await gitExcludeEdits(root, p.value.local ?? []);
    const edits = [...p.value.edits, exclude.edit];
    const made: SetupRecord = {
      // Kept as `/<path from the workspace folder>`, as the undo looks them up (the line itself may start higher: a monorepo's top).
      excluded: exclude.rels.map((r) => `/${r}`),
      keys: p.value.keys,
      created: p.value.edits.filter((e): e is FileEdit => !!e && e.before === undefined && e.after !== undefined).map((e) => e.file),
      folders: await foldersToCreate(edits),
    };
    // What an earlier run recorded stays: a second run finds the values in place and records nothing new.
    const record = merge(prior.record, made);
    // .agent/.cache/ is git-ignored by its own .gitignore (the record holds this machine's paths).
    ensureAgentTempDir(agentDirOf(root));
    await mkdirp(path.dirname(rf));
    await writeFileAtomic(rf, `${JSON.stringify(record, null, 2)}\n`);
    const done = await applyFileEdits(edits, root);
    if (!done.ok) {
      if (prior.text === undefined) await fs.promises.rm(rf, { force: true });
      else await writeFileAtomic(rf, prior.text);
      return done;
    }
    return ok({ ...done.value, notes: [...(prior.note ? [prior.note] : []), ...p.value.notes], settings: p.value.settings ?? [], requires: p.value.requires ?? [] });
  } catch (e) {
    return fault(e, rf);
  }
}

/** The folders that writing these edits will create, each with every missing folder above it (deepest first). */
async function foldersToCreate(edits: readonly (FileEdit | undefined)[]): Promise<string[]> {
  const out = new Set<string>();
  for (const e of edits) {
    if (!e || e.after === undefined || e.before !== undefined) continue;
    for (let d = path.dirname(path.resolve(e.file)); !(await fs.promises.stat(d).catch(() => undefined)); d = path.dirname(d)) {
      out.add(d);
      if (path.dirname(d) === d) break;
    }
  }
  return [...out];
}

/** Removes the recorded folders the undo left empty, deepest first; returns those removed. */
async function removeEmptyFolders(folders: readonly string[]): Promise<string[]> {
  const removed: string[] = [];
  for (const d of [...folders].sort((a, b) => b.split(path.sep).length - a.split(path.sep).length)) {
    try {
      await fs.promises.rmdir(d); // only an empty folder: anything the user put in it keeps it
      removed.push(d);
    } catch {
      // not empty, or already gone: left as it is
    }
  }
  return removed;
}

/** True for a config file's text that holds nothing: blank, or an empty JSON object. */
const leftEmpty = (text: string | undefined): boolean => text !== undefined && /^\s*(\{\s*\}\s*)?$/.test(text);

/** Removes what the set-up added. */
export async function undoAgent(setup: AgentSetup, root: string, home: string): Promise<Result<SetupOutcome, FileError>> {
  const rf = recordFile(root, setup.id);
  try {
    const { record, note } = await readRecord(root, setup.id);
    const p = await setup.plan(root, home, undefined, record);
    if (!p.ok) return p;
    // A file the set-up created and that the undo leaves holding nothing goes; the exclude lines go
    // when the set-up added them (a line the user had stays).
    const edits = p.value.edits.map((e) => (e && record?.created.includes(e.file) && leftEmpty(e.after) ? { ...e, after: undefined } : e));
    edits.push((await gitExcludeEdits(root, (record?.excluded ?? []).map((l) => l.replace(/^\//, '')), true)).edit);
    const done = await applyFileEdits(edits, root);
    if (!done.ok) return done;
    await fs.promises.rm(rf, { force: true });
    const removedFolders = await removeEmptyFolders(record?.folders ?? []);
    const notes = [...p.value.notes];
    if (note) notes.push(note);
    if (!record) notes.push(`No record of the set-up was found (${rf}): only entries recognisable as Agent Context's were removed.`);
    return ok({ ...done.value, notes, removedFolders, settings: p.value.settings ?? [], requires: [] });
  } catch (e) {
    return fault(e, rf);
  }
}

/**
 * True when the agent is set up in `root`: a record of its set-up is there, or an undo would
 * change something (entries of ours written before records were kept, or by hand). Reads the
 * agent's config files: for a command the user runs, not for start-up.
 */
export async function isSetUp(setup: AgentSetup, root: string, home: string): Promise<boolean> {
  if (fs.existsSync(recordFile(root, setup.id))) return true;
  const p = await setup.plan(root, home, undefined, undefined).catch(() => undefined);
  return !!p?.ok && p.value.edits.some((e) => !!e && e.after !== e.before);
}

/** The agents with a record of a set-up in `root` (a folder listing: cheap enough for start-up). */
export function agentsWithRecord(root: string): string[] {
  try {
    return fs.readdirSync(path.dirname(recordFile(root, 'x'))).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -'.json'.length));
  } catch {
    return [];
  }
}

/** True when `bin` is an executable file in one of PATH's folders. */
export function onPath(bin: string, envPath = process.env.PATH ?? ''): boolean {
  return envPath.split(path.delimiter).some((d) => {
    if (!d) return false;
    try {
      fs.accessSync(path.join(d, bin), fs.constants.X_OK);
      return fs.statSync(path.join(d, bin)).isFile();
    } catch {
      return false;
    }
  });
}

/** The agents found on this machine: binary on PATH or config folder in HOME. */
export function agentsFound(all: readonly AgentSetup[], home: string, envPath?: string): AgentSetup[] {
  return all.filter((a) => a.inEditor || onPath(a.binary, envPath) || fs.existsSync(path.join(home, a.homeFolder)));
}

/** `<file>#<path>` as kept in a record. */
export const keyId = (file: string, at: readonly (string | number)[]): string => `${file}#${at.join('/')}`;
