/**
 * Secret masking for everything Agent Context writes: terminal captures, run and offload outputs,
 * command lines, the tool ledger (the same masker in the extension and the MCP server).
 *
 * Three layers, applied to whole lines:
 * - built-in token shapes of ~140 providers (providerRules.ts) and context rules for secrets that
 *   are recognisable only by the name next to them (contextRules.ts), selected per line by one
 *   keyword scan (builtin.ts) so the cost stays flat as rules are added;
 * - the user's rules: regexes from settings and a gitleaks config (custom.ts, gitleaks.ts), run on
 *   the linear-time RE2 engine.
 *
 * Masking is line-oriented: a secret never spans a line break, except PEM private-key blocks and a
 * Kubernetes Secret's `data:` block, which small state machines follow line by line. The
 * streaming masker therefore holds back only the unfinished last line (bounded by MAX_HELD_LINE),
 * never whole outputs.
 */
import { maskBuiltin, maskMarker, type BuiltinState } from './builtin';
import { maskCustom, type UserPatterns } from './custom';

export { maskMarker } from './builtin';
export { compileUserPatterns, mergeRules, type UserPatterns, type CustomRule, type Allowlist } from './custom';
export { SHAPE_RULES, type ShapeRule, type SecretFamily } from './providerRules';

export interface MaskResult {
  text: string;
  count: number;
}

/** An unfinished line longer than this is masked and emitted in pieces rather than held. */
export const MAX_HELD_LINE = 1 << 20;

/** Masks known secret shapes (and the given user rules) in a complete text. */
export function maskSecrets(text: string, user?: UserPatterns): MaskResult {
  const m = new StreamingMasker(user);
  const out = m.push(text) + m.flush();
  return { text: out, count: m.count };
}

/**
 * Streaming masker: a secret split across two chunks is still masked. push() returns the text
 * that is safe to emit now, flush() the rest.
 *
 * What is held back: the unfinished last line (a secret never spans a line break), and while a
 * PEM private-key block is open, nothing of it is emitted; the whole block becomes one marker
 * line. An unfinished line longer than MAX_HELD_LINE is cut at a space and emitted.
 */
export class StreamingMasker {
  private held = '';
  private readonly state: BuiltinState = { pem: false };
  private readonly counter = { n: 0 };

  constructor(private readonly user?: UserPatterns) {}

  /** How many secrets have been masked so far. */
  get count(): number {
    return this.counter.n;
  }

  push(chunk: string): string {
    if (chunk.length === 0) return '';
    const buf = this.held.length > 0 ? this.held + chunk : chunk;
    // `held` never contains a newline, so only the new chunk needs searching.
    const nl = chunk.lastIndexOf('\n');
    let cut = nl === -1 ? 0 : buf.length - chunk.length + nl + 1;
    if (cut === 0 && buf.length > MAX_HELD_LINE) {
      // A giant line with no newline: emit up to a space, keeping a tail that may hold a secret's start.
      const sp = buf.lastIndexOf(' ', buf.length - 4096);
      cut = sp > 0 ? sp + 1 : buf.length - 4096;
    }
    if (cut === 0) {
      this.held = buf;
      return '';
    }
    this.held = buf.slice(cut);
    return this.processComplete(buf.slice(0, cut));
  }

  flush(): string {
    const rest = this.held;
    this.held = '';
    const out = rest.length > 0 ? this.processComplete(rest) : '';
    this.state.kube = undefined;
    if (this.state.pem) {
      // An unterminated key at the very end: its body was swallowed; say so.
      this.state.pem = false;
      this.counter.n++;
      return out + maskMarker('private-key') + '\n';
    }
    return out;
  }

  /** Masks text made of whole lines (the last may lack its newline only at flush). */
  private processComplete(text: string): string {
    return maskCustom(maskBuiltin(text, this.state, this.counter), this.user, this.counter);
  }
}
