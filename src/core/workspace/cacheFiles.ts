import * as path from 'node:path';
import { LAYOUT } from './layout';

/*
 * Every file under `.agent/.cache/`, in one registry: its name, the module that owns it, and whether
 * it can be deleted at any time (the next reader rebuilds it from the files it stands for, at some
 * cost) or holds something nothing else has. `.agent/.cache/` is ignored by git (its own .gitignore),
 * by grep and by the scratch index. Every path into it is built here (cacheFile), so a name is spelt
 * once and a new kind of cache file is added here first.
 */

/** One kind of cache file. */
interface CacheFileSpec {
  /** Its path under `.cache/` (with `/`); `key` names the one of many (a terminal, a month, an agent). */
  file: (key: string) => string;
  /** The module that writes it. */
  owner: string;
  /** True: deleting it at any time loses nothing (it is rebuilt); false: see `holds`. */
  disposable: boolean;
  holds: string;
}

/** A key as it may appear in a file name (anything else becomes `_`). */
const safe = (key: string): string => key.replace(/[^A-Za-z0-9._-]+/g, '_');

export const CACHE_FILES = {
  gitignore: { file: () => '.gitignore', owner: 'core/fs/fsAtomic.ts', disposable: true, holds: 'keeps .cache/ out of git (written again with the next temp file)' },
  tmp: { file: () => 'tmp', owner: 'core/fs/fsAtomic.ts', disposable: false, holds: 'streamed outputs until they are complete; a killed writer\'s leftovers are swept at the next start' },
  setup: { file: (agent) => `setup/${safe(agent)}.json`, owner: 'core/setup/agents/agentSetup.ts', disposable: false, holds: 'what an agent set-up added (exclude lines, keys, created files): its undo needs it to remove exactly that' },
  shellHook: { file: () => 'shell-hook.conf', owner: 'core/hooks/shellOutput.ts (read by dist/agent-hook.sh and hooks/opencodePlugin.ts)', disposable: true, holds: 'what config.yaml means for the shell hook\'s fast path' },
  terminalCatalog: { file: () => 'terminal-catalog.json', owner: 'core/terminal/catalog/catalogFile.ts', disposable: true, holds: 'the catalog of every terminal' },
  terminalNames: { file: () => 'terminal-names.json', owner: 'core/terminal/terminalIndex.ts', disposable: true, holds: 'the terminals folder\'s listing under its stamp' },
  terminalIndexFold: { file: (n) => `terminal-${safe(n)}.index.json`, owner: 'core/terminal/terminalSummary.ts', disposable: true, holds: 'a terminal index\'s fold checkpoint' },
  terminalLinesFold: { file: (name) => `terminal-${safe(name)}.lines.json`, owner: 'core/terminal/terminalSummary.ts', disposable: true, holds: 'a terminal file\'s line-count checkpoint' },
  ledgerFold: { file: (month) => `ledger-${safe(month)}.json`, owner: 'core/history/ledger.ts', disposable: true, holds: 'a month of the tool ledger, folded' },
  ledgerToday: { file: () => 'ledger-today.json', owner: 'core/history/ledgerToday.ts', disposable: true, holds: 'today\'s totals of the ledger (the status bar)' },
  findingsFold: { file: (id) => `findings-${safe(id)}.json`, owner: 'core/agents/subAgentWorkspaces.ts', disposable: true, holds: 'a sub-agent\'s findings, folded' },
  featuresSummary: { file: () => 'features-summary.json', owner: 'core/plan/featureList.ts', disposable: true, holds: 'the feature list\'s last untampered counts' },
  progressTally: { file: () => 'progress-tally.json', owner: 'core/plan/progress.ts', disposable: true, holds: 'progress.md\'s tally checkpoint' },
  skillsDigests: { file: () => 'skills.json', owner: 'core/skills/skillsIndex.ts (fs/fileDigests.ts)', disposable: true, holds: 'each SKILL.md\'s parsed frontmatter' },
  notesDigests: { file: () => 'notes.json', owner: 'core/notes/notes.ts (fs/fileDigests.ts)', disposable: true, holds: 'each note file\'s parse' },
  planDigests: { file: () => 'briefing-plans.json', owner: 'core/plan/planDigests.ts (fs/fileDigests.ts)', disposable: true, holds: 'each plan\'s rows' },
  memoryDigests: { file: () => 'memory.json', owner: 'core/memory/preferences.ts (fs/fileDigests.ts)', disposable: true, holds: 'the memory files\' listing' },
  evidenceDigests: { file: () => 'plan-evidence.json', owner: 'core/scratch/scratchCleanup.ts (fs/fileDigests.ts)', disposable: true, holds: 'each YAML plan\'s evidence paths' },
  scratchCleanup: { file: () => 'scratch-cleanup.json', owner: 'core/scratch/cleanupCache.ts', disposable: true, holds: 'the last dry run\'s answer under a digest of what decides it' },
  scratchIndex: { file: () => 'scratch-index.tsv', owner: 'core/scratch/index/scratchSnapshot.ts', disposable: true, holds: 'the scratch index\'s snapshot' },
  searchIndex: { file: () => 'search', owner: 'core/search/ranked/manifest.ts', disposable: true, holds: 'the ranked search\'s term index of .agent/ (a folder of runs and a manifest)' },
  scratchSummary: { file: () => 'scratch-summary.json', owner: 'core/scratch/index/scratchSummary.ts', disposable: true, holds: 'the scratch index\'s summary' },
} as const satisfies Record<string, CacheFileSpec>;

export type CacheName = keyof typeof CACHE_FILES;

/** The cache folder's name inside `.agent/`. */
export const CACHE_DIR = LAYOUT.cache;

/** The absolute path of a cache file of `agentDir` (`key`: which one, for the kinds with many). */
export function cacheFile(agentDir: string, name: CacheName, key = ''): string {
  return path.join(agentDir, CACHE_DIR, ...CACHE_FILES[name].file(key).split('/'));
}
