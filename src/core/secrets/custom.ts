/**
 * Rules the user brings: regexes from settings (`agentContext.terminals.secretPatterns`) and the
 * rules of a gitleaks config (see gitleaks.ts). `(a+)+$` on a line of `a`s would freeze the
 * extension host under the JS engine, and no length limit or "nested quantifier" heuristic
 * catches every bad shape (`(a|aa)*b`, `(\w|\d)+x`...). So these run on re2js, a pure-JS port of
 * RE2 whose matching time is linear in the input; it has no lookaround or backreferences, and such
 * patterns are rejected with an error naming them. re2js is only loaded when a rule is configured.
 */
import type { RE2JS } from 're2js';
import { maskMarker } from './builtin';

/** An allowlist (gitleaks semantics): a finding it matches is not masked. */
export interface Allowlist {
  readonly regexes: readonly RE2JS[];
  /** What the regexes test: the secret (default), the whole match, or the line. */
  readonly target: 'secret' | 'match' | 'line';
  /** Lowercase; a secret containing one is allowed. */
  readonly stopwords: readonly string[];
  /** AND: every check present must match; OR (default): any one. */
  readonly and: boolean;
}

export interface CustomRule {
  /** Names the rule in errors and in the marker (`custom` for settings patterns). */
  readonly id: string;
  readonly marker: string;
  readonly re: RE2JS;
  /** Lowercase literals; when present, a text must contain one for the rule to run. */
  readonly keywords: readonly string[];
  /** Capture group holding the secret; 0 = the first group that matched, or the whole match. */
  readonly secretGroup: number;
  /** Minimum Shannon entropy (bits per character) of the secret. */
  readonly entropy: number;
  readonly allow: readonly Allowlist[];
}

/** Compiled user rules; build with compileUserPatterns / loadGitleaksConfig, combine with mergeRules. */
export interface UserPatterns {
  /** The settings patterns that compiled (kept for messages). */
  readonly sources: readonly string[];
  readonly rules: readonly CustomRule[];
  /** Global allowlists (a gitleaks config's top-level `[allowlist]` / `[[allowlists]]`). */
  readonly allow: readonly Allowlist[];
}

const MAX_USER_PATTERN_LENGTH = 1000;

let re2Module: typeof import('re2js') | undefined;
/** re2js, loaded on first use. */
export function loadRe2(): typeof import('re2js') {
  if (!re2Module) {
    // In the bundles, dist/re2.js sits beside extension.js / mcp.js; tests load the package itself.
    try {
      re2Module = require(require('node:path').join(__dirname, 're2.js')) as typeof import('re2js');
    } catch {
      re2Module = require('re2js') as typeof import('re2js');
    }
  }
  return re2Module;
}

/** Whether a compiled pattern can match empty text (it would mask nothing useful, forever). */
export function matchesEmpty(re: RE2JS): boolean {
  for (const probe of ['', 'x', ' ', 'a1']) {
    const m = re.matcher(probe);
    while (m.find()) if (m.start() === m.end()) return true;
  }
  return false;
}

/** Validates user regexes from settings; bad ones come back as errors naming the pattern. */
export function compileUserPatterns(sources: string[]): { patterns: UserPatterns; errors: string[] } {
  const ok: string[] = [];
  const rules: CustomRule[] = [];
  const errors: string[] = [];
  if (!Array.isArray(sources) || sources.length === 0) return { patterns: { sources: ok, rules, allow: [] }, errors };
  const { RE2JS: Re } = loadRe2();
  sources.forEach((src, i) => {
    const name = `agentContext.terminals.secretPatterns[${i}] ${JSON.stringify(src)}`;
    if (typeof src !== 'string' || src.length === 0) {
      errors.push(`${name}: not a non-empty string; remove it or write a regular expression.`);
      return;
    }
    if (src.length > MAX_USER_PATTERN_LENGTH) {
      errors.push(`${name}: longer than ${MAX_USER_PATTERN_LENGTH} characters; shorten it.`);
      return;
    }
    let re: RE2JS;
    try {
      re = Re.compile(src, Re.MULTILINE);
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      errors.push(`${name}: not accepted by the linear-time (RE2) engine: ${why}. Lookaround and backreferences are not supported; rewrite the pattern without them.`);
      return;
    }
    if (matchesEmpty(re)) {
      errors.push(`${name}: matches empty text, which would mask nothing useful; make it match at least one character.`);
      return;
    }
    ok.push(src);
    // Settings patterns mask the whole match, with no keywords, entropy or allowlist.
    rules.push({ id: name, marker: 'custom', re, keywords: [], secretGroup: -1, entropy: 0, allow: [] });
  });
  return { patterns: { sources: ok, rules, allow: [] }, errors };
}

/** Both rule sets as one (either may be absent). */
export function mergeRules(a: UserPatterns | undefined, b: UserPatterns | undefined): UserPatterns | undefined {
  if (!a || (a.rules.length === 0 && a.allow.length === 0)) return b && b.rules.length > 0 ? b : undefined;
  if (!b || b.rules.length === 0) return a.rules.length > 0 ? a : undefined;
  return { sources: [...a.sources, ...b.sources], rules: [...a.rules, ...b.rules], allow: [...a.allow, ...b.allow] };
}

/** Shannon entropy in bits per character. */
export function shannonEntropy(s: string): number {
  if (s.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

function allowed(lists: readonly Allowlist[], secret: string, match: string, line: () => string): boolean {
  for (const a of lists) {
    const checks: boolean[] = [];
    if (a.regexes.length > 0) {
      const target = a.target === 'match' ? match : a.target === 'line' ? line() : secret;
      checks.push(a.regexes.some((re) => re.test(target)));
    }
    if (a.stopwords.length > 0) {
      const low = secret.toLowerCase();
      checks.push(a.stopwords.some((w) => low.includes(w)));
    }
    if (checks.length === 0) continue;
    if (a.and ? checks.every(Boolean) : checks.some(Boolean)) return true;
  }
  return false;
}

/** Applies the user's rules to a text of whole lines. */
export function maskCustom(text: string, user: UserPatterns | undefined, counter: { n: number }): string {
  if (!user || user.rules.length === 0 || text.length === 0) return text;
  let out = text;
  let lower: string | undefined;
  for (const rule of user.rules) {
    if (rule.keywords.length > 0) {
      lower ??= out.toLowerCase();
      const l = lower;
      if (!rule.keywords.some((k) => l.includes(k))) continue;
    }
    if (!rule.re.test(out)) continue; // DFA fast path; positions only when there is something
    const m = rule.re.matcher(out);
    let res = '';
    let last = 0;
    let changed = false;
    while (m.find()) {
      const ms = m.start();
      const me = m.end();
      if (me === ms) continue; // compile rejects empty matches; belt and braces
      let s = ms;
      let e = me;
      if (rule.secretGroup > 0) {
        if (rule.secretGroup > m.groupCount() || m.start(rule.secretGroup) < 0) continue;
        s = m.start(rule.secretGroup);
        e = m.end(rule.secretGroup);
      } else if (rule.secretGroup === 0) {
        for (let g = 1; g <= m.groupCount(); g++) {
          if (m.start(g) >= 0 && m.end(g) > m.start(g)) {
            s = m.start(g);
            e = m.end(g);
            break;
          }
        }
      }
      if (e <= s || s < last) continue;
      const secret = out.slice(s, e);
      if (rule.entropy > 0 && shannonEntropy(secret) < rule.entropy) continue;
      const line = (): string => {
        const a = out.lastIndexOf('\n', s - 1) + 1;
        const b = out.indexOf('\n', e);
        return out.slice(a, b === -1 ? out.length : b);
      };
      if (rule.allow.length > 0 && allowed(rule.allow, secret, out.slice(ms, me), line)) continue;
      if (user.allow.length > 0 && allowed(user.allow, secret, out.slice(ms, me), line)) continue;
      res += out.slice(last, s) + maskMarker(rule.marker);
      last = e;
      counter.n++;
      changed = true;
    }
    if (changed) {
      out = res + out.slice(last);
      lower = undefined;
    }
  }
  return out;
}
