/*
 * Ranked search on the thread that runs it: the search worker's (searchWorkerEntry.ts), or the
 * caller's when the worker cannot run. Loaded only there (the worker bundle, dist/search-worker.js),
 * so MiniSearch and the index code stay out of the extension's main bundle.
 */
import { maskSecrets } from '../../secrets';
import { userRulesFor, type MaskerRuleSources } from '../../secrets/gitleaks';
import { searchIndex, type SearchAnswer, type SearchRequest } from './rankedSearch';
import { SearchIndex } from './searchIndex';

/** The masking function of a set of rule sources (built-in shapes plus the user's patterns). */
export function maskerFor(rules: MaskerRuleSources): (text: string) => string {
  const { rules: user } = userRulesFor(rules);
  return (text) => maskSecrets(text, user).text;
}

const here = new Map<string, SearchIndex>();

/** This thread's index of a folder. */
export function threadIndex(agentDir: string, watch: boolean): SearchIndex {
  let idx = here.get(agentDir);
  if (!idx) {
    idx = new SearchIndex(agentDir, { mask: (t) => t, watch });
    here.set(agentDir, idx);
  }
  return idx;
}

/** This thread's indexes (the worker's upkeep goes through them). */
export function threadIndexes(): SearchIndex[] {
  return [...here.values()];
}

/** Stops this thread's indexes (tests). */
export function disposeThreadIndexes(): void {
  for (const i of here.values()) i.dispose();
  here.clear();
}

/** Searches `agentDir` on this thread, with the user's masking rules. */
export function searchHere(agentDir: string, request: SearchRequest, rules: MaskerRuleSources, watch: boolean): Promise<SearchAnswer> {
  const index = threadIndex(agentDir, watch);
  const mask = maskerFor(rules);
  index.setMask(mask);
  return searchIndex(index, request, mask);
}
