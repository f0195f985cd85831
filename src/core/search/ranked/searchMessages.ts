/* The messages between a process and its search worker (searchService.ts, searchWorkerEntry.ts). */
import type { MaskerRuleSources } from '../../secrets/gitleaks';
import type { SearchAnswer, SearchRequest } from './rankedSearch';

/** What the caller posts. */
export interface SearchWorkerRequest {
  agentContextSearch: 'search';
  seq: number;
  agentDir: string;
  request: SearchRequest;
  rules: MaskerRuleSources;
}

/** The worker's answer to request `seq`. */
export interface SearchWorkerAnswer {
  agentContextSearch: 'answer';
  seq: number;
  answer?: SearchAnswer;
  error?: string;
}
