import * as path from 'node:path';

/** A token count; `approximate` is true when it was extrapolated from a sample. */
export interface TokenCount {
  tokens: number;
  approximate: boolean;
}

type CountFn = (text: string) => number;
let counter: CountFn | undefined;

/** Above this many characters, count a sample and extrapolate (marked ≈). */
const EXACT_LIMIT = 1_000_000;
const SAMPLE_CHARS = 64 * 1024;

function loadCounter(): CountFn {
  if (counter) return counter;
  // In the bundles, dist/tokenizer.js sits beside extension.js / mcp.js; in tests and benchmarks
  // (tsc output) the package is required directly.
  try {
    counter = (require(path.join(__dirname, 'tokenizer.js')) as { countTokens: CountFn }).countTokens;
  } catch {
    counter = (require('gpt-tokenizer/encoding/o200k_base') as { countTokens: CountFn }).countTokens;
  }
  return counter;
}

/** Counts tokens with the o200k_base encoding (loaded lazily); large texts are estimated from samples. */
export function countTokens(text: string): TokenCount {
  const count = loadCounter();
  if (text.length <= EXACT_LIMIT) return { tokens: count(text), approximate: false };
  // Three samples (start, middle, end) so a log whose language or density changes is still fair.
  const starts = [0, Math.floor(text.length / 2 - SAMPLE_CHARS / 2), text.length - SAMPLE_CHARS];
  let sampled = 0;
  for (const s of starts) sampled += count(text.slice(s, s + SAMPLE_CHARS));
  return { tokens: Math.round((sampled / (3 * SAMPLE_CHARS)) * text.length), approximate: true };
}

/** A cheap estimate from a byte size alone (for listings of many files): about 4 bytes per token. */
export function estimateTokensFromBytes(bytes: number): TokenCount {
  return { tokens: Math.ceil(bytes / 4), approximate: true };
}

/** Formats a count for people and models: `1,234 tokens` or `≈1,234 tokens`. */
export function formatTokens(t: TokenCount): string {
  return `${t.approximate ? '≈' : ''}${t.tokens.toLocaleString('en-US')} tokens`;
}
