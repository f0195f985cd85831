import type { TokenCount } from './tokens';

/*
 * When an output is handed to the model as it is, and when as a reference to a file: one rule for
 * agentContext_run, the offload tools and the agents' shell hooks.
 */

/** Hard ceiling of any returned text (UTF-8 bytes): well under the 8 KB at which Copilot Chat moves a result to a file of its own. */
export const INLINE_MAX_BYTES = 6 * 1024;
/** Room kept under INLINE_MAX_BYTES for what goes around an output returned whole (the command, its exit status, the data fence). */
export const INLINE_WRAP_BYTES = 1024;
/**
 * Room invokeTool keeps after a tool's answer for the notes it adds (secrets masked in the input or
 * the answer, a call the ledger could not record): a tool's own answer fits in TOOL_ANSWER_MAX_BYTES.
 */
export const ANSWER_NOTES_BYTES = 200;
/** The most a tool's own answer takes (a tool that fills a body to a budget subtracts what it puts around the body). */
export const TOOL_ANSWER_MAX_BYTES = INLINE_MAX_BYTES - ANSWER_NOTES_BYTES;
/**
 * Raw output a hook holds in memory before it streams the rest to a file: past the inline ceiling an
 * output usually goes to a file anyway (the file is read back and removed when its rendered,
 * masked text still fits inline: a progress bar's redraws shrink to one line).
 */
export const HOOK_MEMORY_BYTES = INLINE_MAX_BYTES;

/**
 * True when an output is small enough to return as it is: at most `thresholdTokens` tokens
 * (counted exactly, not extrapolated from a sample) and at most INLINE_MAX_BYTES - INLINE_WRAP_BYTES.
 */
export function fitsInline(out: { tokens: TokenCount; bytes: number }, thresholdTokens: number): boolean {
  return out.tokens.tokens <= thresholdTokens && !out.tokens.approximate && out.bytes <= INLINE_MAX_BYTES - INLINE_WRAP_BYTES;
}

/**
 * Outputs up to this many bytes fit inline whatever their tokens (a token is at least one byte), so
 * they need no count: the fast path of a hook that must not load the tokenizer for an `ls`.
 */
export function surelyFitsBytes(thresholdTokens: number): number {
  return Math.min(thresholdTokens, INLINE_MAX_BYTES - INLINE_WRAP_BYTES);
}
