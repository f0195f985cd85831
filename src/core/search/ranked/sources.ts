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
  // Called for every file of every listing (30,000 at 1 GB): no split, no array.
  if (rel === '' || rel.startsWith('/') || rel.endsWith('/') || rel.includes('//') || DOT_PART.test(rel)) return undefined;
  const first = rel.indexOf('/');
  const last = rel.lastIndexOf('/');
  const top = first < 0 ? rel : rel.slice(0, first);
  if (top === CACHE_DIR) return undefined;
  const base = rel.slice(last + 1);
  if (top === TERMINALS_DIR) return first >= 0 && first === last && TERMINAL_FILE.test(base) ? 'terminals' : undefined;
  if (rel.startsWith(TOOL_OUTPUTS)) return OWN_LIST_ENDINGS.some((e) => base.endsWith(e)) ? undefined : 'toolOutputs';
  if (top === LAYOUT.scratch) return first >= 0 ? 'scratch' : undefined;
  if (top === LAYOUT.memory) return 'memory';
  if (top === 'human') return 'notes';
  if (rel === LAYOUT.plan || rel === 'plan.md' || top === LAYOUT.plans) return 'plans';
  if (rel === 'progress.md' || rel === 'features.json') return 'progress';
  if (top === LAYOUT.agents) return first >= 0 && last > first && base !== 'status.json' ? 'findings' : undefined;
  if (top === LAYOUT.skills) return 'skills';
  if (top === LAYOUT.history) return LEDGER_FILE.test(base) ? undefined : 'history';
  return undefined;
}

/** A path part that is `.` or `..`. */
const DOT_PART = /(?:^|\/)\.{1,2}(?:\/|$)/;
const TERMINAL_FILE = /^\d+(\.1)?\.txt$/;
const LEDGER_FILE = /^tools(-\d{4}-\d{2})?\.jsonl$/;

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
    // Joined by hand: path.join per file was a fifth of a 30,000-file listing (a name has no separator).
    const absDir = abs + path.sep;
    for (const e of entries) {
      const childRel = `${dirRel}/${e.name}`;
      if (e.isDirectory()) {
        if (childRel !== `${LAYOUT.scratch}/.cache`) stack.push(childRel);
      } else if (e.isFile() && scopeOf(childRel)) out.push({ rel: childRel, abs: absDir + e.name });
    }
  }
}
