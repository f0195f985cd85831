/*
 * The terms of a text, as the ranked search indexes and queries them: one rule for the index on
 * disk (searchIndex.ts), the line ranking of an answer (lineRanking.ts) and the query.
 *
 * - Words are runs of letters and digits; `_`, `.`, `/`, `-` and the like split them, so a path or a
 *   snake_case name gives its parts. A camelCase or PascalCase word gives itself and its humps
 *   (`AssertionError` → `assertionerror`, `assertion`, `error`), so "assertion error" finds it.
 * - Lower-cased, then a light English stemmer (plurals, -ed, -ing: `failed`, `failing`, `fails` →
 *   `fail`). Queries also match terms that start with a query term (prefix), at a lower weight.
 * - Chinese, Japanese and Korean runs have no spaces: they give overlapping pairs of characters.
 * - Not indexed: numbers of more than 6 digits (timestamps, ids), hex runs of 12 or more with a digit
 *   (hashes), and words over 40 characters (base64): they never answer a question and would make up
 *   most of a log's vocabulary.
 */

const WORD_RE = /[\p{L}\p{N}]+/gu;
/** Scripts written without spaces between words. */
const CJK_RE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/u;
const CJK_SPLIT_RE = /([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+)/u;
/** Humps of a camelCase word: `parseHTTPResponse` → parse, HTTP, Response; digits stay with their letters. */
const HUMP_RE = /[A-Z]{2,}(?=[A-Z][a-z]|$|[^A-Za-z])|[A-Z]?[a-z]+|[A-Z]+|\d+/g;
const MAX_TERM = 40;

/** Words a question is made of that say nothing about what it asks for (kept as written and as stemmed). */
const STOP_LIST =
  'a an and are as at be been but by can could did do does doing done for from had has have how i if in into is it its ' +
  'me my of on or our please show so tell than that the their them then there these this those to us was we were what ' +
  'when where which who whom why will with would you your about any some all also just only find get got see look ' +
  'happen happened happens go went give gave say says said out up';

/** True for a token kept out of the index (see the file comment). */
function dropped(t: string): boolean {
  if (t.length > MAX_TERM) return true;
  if (/^\d+$/.test(t)) return t.length > 6;
  return t.length >= 12 && /^[0-9a-f]+$/.test(t) && /\d/.test(t);
}

/** A light English stemmer: plurals, -ed, -ing (with a doubled last consonant undone). ASCII words only. */
export function stem(t: string): string {
  if (t.length < 4 || !/^[a-z]+$/.test(t)) return t;
  let s = t;
  if (s.endsWith('ies') && s.length > 4) return s.slice(0, -3) + 'y';
  if (s.endsWith('ing') && s.length >= 6) s = s.slice(0, -3);
  else if (s.endsWith('ed') && s.length >= 5 && !s.endsWith('eed')) s = s.slice(0, -2);
  else if (/(?:ss|sh|ch|x|z)es$/.test(s) && s.length >= 5) return s.slice(0, -2);
  else if (s.endsWith('s') && !/(?:ss|us|is)$/.test(s)) return s.slice(0, -1);
  else return s;
  // failing → fail, skipped → skip, running → run; but not pass(ed) → pas.
  if (/([b-df-hj-np-rtv-z])\1$/.test(s) && !/(?:ll|ss|zz|ff)$/.test(s)) return s.slice(0, -1);
  // timed → time, created → create, compiled → compile: the e the ending took (Porter's rules, short words and -at/-bl/-iz).
  if (/(?:at|bl|iz)$/.test(s) || /^[b-df-hj-np-tv-z][aeiou][b-df-hj-np-tv]$/.test(s)) return s + 'e';
  return s;
}

/** Calls `emit` with each term of `text`, in order (a term may come more than once). */
export function forEachTerm(text: string, emit: (term: string) => void): void {
  WORD_RE.lastIndex = 0;
  for (let m = WORD_RE.exec(text); m; m = WORD_RE.exec(text)) {
    const word = m[0];
    if (CJK_RE.test(word)) {
      for (const part of word.split(CJK_SPLIT_RE)) {
        if (!part) continue;
        if (CJK_RE.test(part)) {
          if (part.length === 1) emit(part);
          for (let i = 0; i + 1 < part.length; i++) emit(part.slice(i, i + 2));
        } else plainWord(part, emit);
      }
      continue;
    }
    plainWord(word, emit);
  }
}

function plainWord(word: string, emit: (term: string) => void): void {
  const lower = word.toLowerCase();
  if (lower.length < 2 && !/\d/.test(lower)) return;
  if (dropped(lower)) return;
  emit(stem(lower));
  // Humps only of a word that has a lower-case letter after an upper-case one (not ALLCAPS, not lower).
  if (word !== lower && /[a-z]/.test(word) && /[A-Z]/.test(word.slice(1))) {
    HUMP_RE.lastIndex = 0;
    for (let h = HUMP_RE.exec(word); h; h = HUMP_RE.exec(word)) {
      const part = h[0].toLowerCase();
      if (part.length >= 2 && part !== lower && !/^\d+$/.test(part)) emit(stem(part));
    }
  }
}

let stops: Set<string> | undefined;
function stopWords(): Set<string> {
  if (!stops) {
    const words = STOP_LIST.split(' ');
    stops = new Set([...words, ...words.map(stem)]);
  }
  return stops;
}

/** The terms of a text, in order, with repeats. */
export function termsOf(text: string): string[] {
  const out: string[] = [];
  forEachTerm(text, (t) => out.push(t));
  return out;
}

/**
 * The terms a query asks for, each once, in order: its words without the question's own words
 * ("why did the … fail" keeps what the question is about); all of them when nothing else is left.
 */
export function queryTerms(query: string): string[] {
  const all: string[] = [];
  const kept: string[] = [];
  forEachTerm(query, (t) => {
    if (!all.includes(t)) all.push(t);
  });
  for (const t of all) if (!stopWords().has(t)) kept.push(t);
  return kept.length > 0 ? kept : all;
}
