/*
 * What ranked search covers: the files of `.agent/` an agent saved or was given, each in one scope.
 * Not covered: the caches, the tool ledger (it repeats every earlier answer), grep's and search's own
 * overflow lists (they repeat earlier matches), terminal indexes (JSON of the same commands),
 * README.md, .gitignore, config and pins.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CACHE_DIR } from '../../workspace/cacheFiles';
import { settledStamp, stampOf, type FolderStamp } from '../../fs/stamps';
import { LAYOUT } from '../../workspace/agentLayout';
import { TERMINALS_DIR } from '../../terminal/terminalFormat';

/** The scopes a search can be narrowed to; `agentCommands` are the terminals agents' own shell commands were captured in. */
export const SEARCH_SCOPES = ['terminals', 'agentCommands', 'toolOutputs', 'scratch', 'memory', 'notes', 'plans', 'progress', 'findings', 'skills', 'history'] as const;
export type SearchScope = (typeof SEARCH_SCOPES)[number];

/** Endings of the tools' own overflow lists in scratch/tool_outputs/ (grep's, and search's). */
export const OWN_LIST_ENDINGS = ['.grep.txt', '.search.txt'];

const TOOL_OUTPUTS = `${LAYOUT.toolOutputs}/`;

/**
 * The scope of a path relative to `.agent/` (POSIX separators), or undefined when it is not
 * searched. A terminal's scope here is `terminals`; whether it also counts as `agentCommands` is
 * read from its header (isAgentCapture).
 */
export function scopeOf(rel: string): Exclude<SearchScope, 'agentCommands'> | undefined {
  const parts = rel.split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..') || parts[0] === CACHE_DIR) return undefined;
  const base = parts[parts.length - 1];
  if (parts[0] === TERMINALS_DIR) return parts.length === 2 && /^\d+(\.1)?\.txt$/.test(base) ? 'terminals' : undefined;
  if (rel.startsWith(TOOL_OUTPUTS)) return OWN_LIST_ENDINGS.some((e) => base.endsWith(e)) ? undefined : 'toolOutputs';
  if (parts[0] === LAYOUT.scratch) return parts.length > 1 ? 'scratch' : undefined;
  if (parts[0] === LAYOUT.memory) return 'memory';
  if (parts[0] === 'human') return 'notes';
  if (rel === LAYOUT.plan || rel === 'plan.md' || parts[0] === LAYOUT.plans) return 'plans';
  if (rel === 'progress.md' || rel === 'features.json') return 'progress';
  if (parts[0] === LAYOUT.agents) return parts.length > 2 && base !== 'status.json' ? 'findings' : undefined;
  if (parts[0] === LAYOUT.skills) return 'skills';
  if (parts[0] === LAYOUT.history) return /^tools(-\d{4}-\d{2})?\.jsonl$/.test(base) ? undefined : 'history';
  return undefined;
}

/** Folders listed (recursively) for searchable files, and the files at `.agent/`'s top. */
export const SEARCH_FOLDERS = [TERMINALS_DIR, LAYOUT.scratch, LAYOUT.memory, 'human', LAYOUT.plans, LAYOUT.agents, LAYOUT.skills, LAYOUT.history];
export const SEARCH_TOP_FILES = [LAYOUT.plan, 'plan.md', 'progress.md', 'features.json'];

/** Whether a terminal capture's header names an agent (`# agent: …`): agents' own shell commands. */
export function isAgentCapture(head: string): boolean {
  for (let at = 0; at < head.length && head.startsWith('# ', at);) {
    let nl = head.indexOf('\n', at);
    if (nl < 0) nl = head.length;
    if (/^# agent: \S/.test(head.slice(at, nl))) return true;
    at = nl + 1;
  }
  return false;
}

/** A searchable file found by a listing. */
export interface Listed {
  /** Relative to `.agent/`, POSIX separators. */
  rel: string;
  abs: string;
}

/**
 * Folders found by a listing, with their stamps (stamps.ts: a folder whose stamp is unchanged need
 * not be listed again); undefined for a folder not settled when listed (listed again next time).
 */
export type FolderStamps = Map<string, FolderStamp | undefined>;

/**
 * Lists the searchable files under `agentDir` (never following symbolic links: a link out of the
 * workspace is not searched). `stamps` receives every folder listed and its stamp, read at `now`.
 */
export function listSearchable(agentDir: string, stamps: FolderStamps, now: number, maxFiles = 1_000_000): Listed[] {
  const out: Listed[] = [];
  for (const f of SEARCH_TOP_FILES) {
    const abs = path.join(agentDir, f);
    const st = fs.lstatSync(abs, { throwIfNoEntry: false });
    if (st?.isFile()) out.push({ rel: f, abs });
  }
  for (const top of SEARCH_FOLDERS) listFolder(agentDir, top, stamps, out, now, maxFiles);
  return out;
}

/** Lists one folder (relative to agentDir) and those under it into `out`. */
export function listFolder(agentDir: string, rel: string, stamps: FolderStamps, out: Listed[], now: number, maxFiles = 1_000_000): void {
  const stack = [rel];
  while (stack.length > 0 && out.length < maxFiles) {
    const dirRel = stack.pop()!;
    const abs = path.join(agentDir, dirRel);
    let entries: fs.Dirent[];
    try {
      const st = fs.lstatSync(abs);
      if (!st.isDirectory()) continue;
      // Stat before the listing; its stamp stands for the listing only if settled (a file added in the same clock tick would not change it).
      stamps.set(dirRel, settledStamp(st, now) ? stampOf(st) : undefined);
      entries = fs.readdirSync(abs, { withFileTypes: true });
    } catch {
      continue; // gone or unreadable: nothing of it is searched
    }
    for (const e of entries) {
      const childRel = `${dirRel}/${e.name}`;
      if (e.isDirectory()) {
        if (childRel !== `${LAYOUT.scratch}/.cache`) stack.push(childRel);
      } else if (e.isFile() && scopeOf(childRel)) out.push({ rel: childRel, abs: path.join(agentDir, childRel) });
    }
  }
}
