/*
 * One-step set-up for each agent CLI (claude-code, codex, gemini, copilot-cli, opencode): our MCP
 * server, the shell hook, and the agent's plan folder where it can be configured. Each agent's
 * module plans the edits of its own config files; this module runs a plan (nothing is written when
 * any file cannot be parsed), keeps the record an undo needs, and finds which agents a user has.
 *
 * The rules every set-up follows: the local, uncommitted scope first (files git-excluded when the
 * set-up creates them); never a machine-specific path in a file git tracks (such a file is refused,
 * with the lines to add by hand); idempotent; every other key, comment and formatting kept; an
 * undo removes exactly what the set-up added (the record in .agent/.cache/setup/<agent>.json says
 * which values and lines were not there before).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CACHE_DIR } from '../../fs/appendFold';
import { err, ok, type FileError, type Result } from '../../result';
import { agentDirOf } from '../../workspace/agentLayout';
import { applyFileEdits, readText, type FileEdit, type SetupOutcome, type SetupPaths } from './configFiles';

export type AgentId = 'claude-code' | 'codex' | 'gemini' | 'copilot-cli' | 'opencode';

/** What a set-up added that is not recognisable as ours afterwards (a plain value, an exclude line). */
export interface SetupRecord {
  /** `.git/info/exclude` lines the set-up added. */
  excluded: string[];
  /** Keys the set-up gave a value that had none: `<file>#<json path joined by />`. */
  keys: string[];
  /** Files the set-up created. */
  created: string[];
}

/** A planned set-up or undo: the file edits, what to remember, and what to tell the user. */
export interface SetupPlan {
  edits: (FileEdit | undefined)[];
  record: SetupRecord;
  notes: string[];
}

/** One agent's set-up. */
export interface AgentSetup {
  id: AgentId;
  label: string;
  /** The binary on PATH that says the agent is installed. */
  binary: string;
  /** Its config folder under HOME that says the same. */
  homeFolder: string;
  plan(root: string, home: string, paths: SetupPaths): Promise<Result<SetupPlan>>;
  planUndo(root: string, home: string, record: SetupRecord | undefined): Promise<Result<SetupPlan>>;
}

export const emptyRecord = (): SetupRecord => ({ excluded: [], keys: [], created: [] });

/** Where the record of an agent's set-up is kept. */
export function recordFile(root: string, agent: AgentId): string {
  return path.join(agentDirOf(root), CACHE_DIR, 'setup', `${agent}.json`);
}

async function readRecord(root: string, agent: AgentId): Promise<SetupRecord | undefined> {
  const r = await readText(recordFile(root, agent));
  if (!r.ok || r.value === undefined) return undefined;
  try {
    const v = JSON.parse(r.value) as Partial<SetupRecord>;
    return { excluded: v.excluded ?? [], keys: v.keys ?? [], created: v.created ?? [] };
  } catch {
    return undefined;
  }
}

function merge(a: SetupRecord | undefined, b: SetupRecord): SetupRecord {
  const u = (x: string[] = [], y: string[] = []): string[] => [...new Set([...x, ...y])];
  return { excluded: u(a?.excluded, b.excluded), keys: u(a?.keys, b.keys), created: u(a?.created, b.created) };
}

/** Sets the agent up for the workspace folder `root`; idempotent. */
export async function setUpAgent(setup: AgentSetup, root: string, home: string, paths: SetupPaths): Promise<Result<SetupOutcome, FileError>> {
  if (!fs.existsSync(root)) return err({ file: root, message: 'no such folder' });
  const p = await setup.plan(root, home, paths);
  if (!p.ok) return p;
  const done = await applyFileEdits(p.value.edits);
  if (!done.ok) return done;
  // What an earlier run recorded stays: a second run finds the values in place and records nothing new.
  const record = merge(await readRecord(root, setup.id), p.value.record);
  const rf = recordFile(root, setup.id);
  await fs.promises.mkdir(path.dirname(rf), { recursive: true });
  await fs.promises.writeFile(rf, `${JSON.stringify(record, null, 2)}\n`);
  return ok({ ...done.value, notes: p.value.notes });
}

/** Removes what the set-up added. */
export async function undoAgent(setup: AgentSetup, root: string, home: string): Promise<Result<SetupOutcome, FileError>> {
  const record = await readRecord(root, setup.id);
  const p = await setup.planUndo(root, home, record);
  if (!p.ok) return p;
  const done = await applyFileEdits(p.value.edits);
  if (!done.ok) return done;
  await fs.promises.rm(recordFile(root, setup.id), { force: true });
  const notes = [...p.value.notes];
  if (!record) notes.push(`No record of the set-up was found (${recordFile(root, setup.id)}): only entries recognisable as Agent Context's were removed.`);
  return ok({ ...done.value, notes });
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
  return all.filter((a) => onPath(a.binary, envPath) || fs.existsSync(path.join(home, a.homeFolder)));
}

/** `<file>#<path>` as kept in a record. */
export const keyId = (file: string, at: readonly (string | number)[]): string => `${file}#${at.join('/')}`;
