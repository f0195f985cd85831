/*
 * The shell hooks' secret prefilter: one POSIX extended regex that matches any text the built-in
 * masker could change, so a small output that does not match can be handed to the model by the
 * shell alone, without starting Node.
 *
 * Why it is a superset of the masking rules: the built-in masker (secrets/builtin.ts) first scans
 * the text for its keywords, ASCII case-insensitively, and returns the text unchanged when there is
 * no hit and no multi-line block (a PEM key, a Kubernetes data block) is open; both blocks open
 * only on a line holding a keyword, and a stream starts with none open. Every token shape and every
 * context rule is only tried at a keyword hit. So "no keyword" implies "unchanged": the prefilter
 * is the keyword list itself, lowercased, as an alternation, tested against the lowercased text.
 * The user's own rules (settings, a gitleaks config) are not covered: with any of them the hooks
 * always take the Node path (see shellFastPath). test/unit/hooks/secretPrefilter.test.ts checks the
 * claim over the secret corpus and the masker tests' own examples, through the prefilter file as the
 * hooks read it (fastPathRules.ts noSecretKeyword, the TypeScript side's one test of it).
 */
import { builtinEngine } from '../secrets/builtin';

/** The masker's keywords, lowercased, each once. */
export function maskerKeywords(): string[] {
  return [...new Set(builtinEngine().scanner.keywords.map((k) => k.toLowerCase()))];
}

/** A keyword as a literal in a POSIX ERE (as bash's and zsh's `[[ =~ ]]` compile it). */
function ereLiteral(k: string): string {
  return k.replace(/[.[\]()*+?{}|^$\\]/g, '\\$&');
}

/**
 * The prefilter: an ERE of the keywords, to be tested against the ASCII-lowercased output. A
 * keyword that holds another one is left out (wherever it occurs, the shorter one does too): the
 * shells compile the regex on every call, and fewer alternatives cost less.
 */
export function secretPrefilterEre(): string {
  const all = maskerKeywords();
  return all.filter((k) => !all.some((o) => o !== k && k.includes(o))).map(ereLiteral).join('|');
}
