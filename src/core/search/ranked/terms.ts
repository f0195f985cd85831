/*
 * The terms of a text, as the ranked search indexes and queries them: one rule for the index on
 * disk (searchIndex.ts), the line ranking of an answer (lineRanking.ts) and the query.
 *
 * - Words are runs of letters and digits; `_`, `.`, `/`, `-` and the like split them, so a path or a
 *   snake_case name gives its parts. Words joined by `_`, `.` or `-` are also a term whole
 *   (`fee_at_threshold`, `carrier.go`, `orders-api`): a question naming one finds it exactly. A camelCase or PascalCase word gives itself and its humps
 *   (`AssertionError` → `assertionerror`, `assertion`, `error`), so "assertion error" finds it;
 *   a query's own camelCase word is searched whole.
 * - Lower-cased, then stemmed (Porter's stemmer: `failed`, `failing`, `fails` → `fail`).
 *   Queries also match terms that start with a query term (prefix), at a lower weight.
 * - Chinese, Japanese and Korean runs have no spaces: they give overlapping pairs of characters.
 * - Single letters are terms (`C`, `R`; a file's `.c`); a question's `a` and `I` are not.
 * - Not indexed: numbers of more than 6 digits (timestamps, ids), hex runs of 12 or more with a digit
 *   (hashes), words over 40 characters (base64), and numbers run into letters the way measurements and
 *   timestamps are (`13890ms`: 3 digits or more then letters; `12t10`: digits, letters, digits, a
 *   timestamp's day and hour): they never answer a question and would make up most of a log's
 *   vocabulary. `2d`, `10ms` and `0x1f` stay.
 * - A joined token that starts with a digit is not a term whole: a version, an address, a date
 *   (`4.2.15`, `127.0.0.1`, `2026-04-12t10`, `0009_orders_owner`). Every build, log line and
 *   timestamp gives a new one: 40% of a real log folder's distinct terms (row 23's outputs). Its
 *   parts are still terms, so a query naming one finds it by its parts (the same rule applies to the
 *   query). Names holding a version (`graceful-fs-4.2.15.tgz`) stay whole: dropping them too saved
 *   0.4% of the bytes and lost row 23 a question (node-crash).
 */

/** A word, or words joined by `_`, `.` or `-` (an identifier, a file name: `fee_at_threshold`, `carrier.go`). */
const TOKEN_RE = /[\p{L}\p{N}]+(?:[._-][\p{L}\p{N}]+)*/gu;
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
  'happen happened happens went give gave say says said out up ' +
  // A question's negation ("which symbols can javac not find", "errors, not warnings"): the output says
  // `cannot`, `no`, or nothing; searched for, `not` ranks any prose line that has it.
  'not ' +
  // What is left of a contraction once the apostrophe splits it (can't → can, t).
  's t d ll re ve m';

/** A number run into letters: a measurement (`13890ms`) or a timestamp's piece (`12t10`); not a hex literal (`0x1f`). */
const MEASURE_RE = /^(?!0x)(?:\d{3,}[a-z]|\d+[a-z]+\d)/;
/** Whether a joined token (lower-cased) is a term whole too (see the file comment). */
function wholeTerm(whole: string): boolean {
  if (whole.length > MAX_TERM) return false;
  const c = whole.charCodeAt(0);
  return c < 48 || c > 57;
}

/** Numbers of more digits are not terms (timestamps, ids). */
const MAX_NUMBER_DIGITS = 6;
/**
 * Numbers of more digits are not remembered in the word table: the numbers of a log are mostly new
 * (ids, times, counts), and remembered they pushed its words out (row 24's tree: 160,000 distinct
 * words against the 100,000 it keeps).
 */
const MAX_REMEMBERED_DIGITS = 3;

/** True for a token kept out of the index (see the file comment). */
function dropped(t: string): boolean {
  if (t.length > MAX_TERM) return true;
  if (/^\d+$/.test(t)) return t.length > MAX_NUMBER_DIGITS;
  if (MEASURE_RE.test(t)) return true;
  return t.length >= 12 && /^[0-9a-f]+$/.test(t) && /\d/.test(t);
}

let porter: ((word: string) => string) | undefined;
const stems = new Map<string, string>();
const MAX_STEMS = 200_000;

/**
 * An English word's stem (Porter's algorithm, the `stemmer` package: `failed`, `failing`, `fails` →
 * `fail`; `compiled`, `compilation` → `compil`; `connection` → `connect`). Words that are not plain
 * lower-case ASCII letters are kept as they are.
 */
export function stem(t: string): string {
  if (t.length < 4 || !/^[a-z]+$/.test(t)) return t;
  let s = stems.get(t);
  if (s !== undefined) return s;
  porter ??= (require('stemmer') as { stemmer: (w: string) => string }).stemmer;
  s = porter(t);
  if (stems.size >= MAX_STEMS) stems.clear();
  stems.set(t, s);
  return s;
}

/** TOKEN_RE for text that is all ASCII (the same tokens: there \p{L}\p{N} is [A-Za-z0-9]), without the cost of Unicode classes. */
const ASCII_TOKEN_RE = /[A-Za-z0-9]+(?:[._-][A-Za-z0-9]+)*/g;
const ASCII_RE = /^[\x00-\x7f]*$/;
/** A token of one ASCII word: its only word (what eachWord would find). */
const ASCII_WORD_RE = /^[A-Za-z0-9]+$/;
const JOINED_RE = /[._-]/;

/** Calls `emit` with each term of `text`, in order (a term may come more than once); without `humps`, a camelCase word gives only itself (a query's). */
export function forEachTerm(text: string, emit: (term: string) => void, humps = true): void {
  if (humps && ASCII_RE.test(text)) {
    asciiTokens(
      text,
      (slot) => {
        const terms = wordValues[slot];
        for (let k = 0; k < terms.length; k++) emit(terms[k]);
      },
      emit,
    );
    return;
  }
  const re = ASCII_RE.test(text) ? ASCII_TOKEN_RE : TOKEN_RE;
  re.lastIndex = 0;
  for (let t = re.exec(text); t; t = re.exec(text)) {
    const token = t[0];
    if (ASCII_WORD_RE.test(token)) {
      plainWord(token, emit, humps);
      continue;
    }
    if (!JOINED_RE.test(token) || CJK_RE.test(token)) {
      eachWord(token, emit, humps);
      continue;
    }
    // A joined name is a term of its own (it answers "why did fee_at_threshold fail" exactly), and so is each part.
    const whole = token.toLowerCase();
    if (wholeTerm(whole)) emit(whole);
    eachWord(token, emit, humps);
  }
}

/** 1 for an ASCII letter or digit (a word's character), 2 for `.`, `_`, `-` (what joins words into a token). */
const ASCII_CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  ASCII_CLASS[c] = /[A-Za-z0-9]/.test(ch) ? 1 : /[._-]/.test(ch) ? 2 : 0;
}

/**
 * The tokens of an all-ASCII text for forEachTerm (with humps) and forEachTermId, the indexing path:
 * the same tokens as ASCII_TOKEN_RE and so the same terms in the same order, read char by char so
 * that a word already seen costs a hash and a compare, not a new string (the regex path's match,
 * slice and Map look-up per word were most of the tokenizer's time, and it was 40% of indexing).
 * Calls `word` with the word table's slot of each word, and of each joined token (its whole term,
 * if it has one), and `number` with each number of more than MAX_REMEMBERED_DIGITS digits that is a
 * term (wordAt). A unit test compares it with the regex path.
 */
function asciiTokens(text: string, word: (slot: number) => void, number: (digits: string) => void): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    if (ASCII_CLASS[text.charCodeAt(i)] !== 1) {
      i++;
      continue;
    }
    const start = i;
    let h = HASH_SEED;
    let c = 0;
    let letters = false;
    while (i < n && ASCII_CLASS[(c = text.charCodeAt(i))] === 1) {
      h = Math.imul(h ^ c, HASH_PRIME);
      if (c > 57) letters = true;
      i++;
    }
    if (i + 1 >= n || ASCII_CLASS[text.charCodeAt(i)] !== 2 || ASCII_CLASS[text.charCodeAt(i + 1)] !== 1) {
      wordAt(text, start, i, h, letters, word, number);
      continue;
    }
    // A joined token: its end first (its whole term comes before its words), then its words. The
    // whole term is remembered in the word table too (under its characters as written, which no
    // word's key can equal: they hold a joining character), unless it starts with a digit (a
    // version, a date: never a term whole, and nearly always new).
    let end = i;
    let hw = h;
    while (end + 1 < n && ASCII_CLASS[(c = text.charCodeAt(end))] === 2 && ASCII_CLASS[text.charCodeAt(end + 1)] === 1) {
      hw = Math.imul(hw ^ c, HASH_PRIME);
      end++;
      while (end < n && ASCII_CLASS[(c = text.charCodeAt(end))] === 1) {
        hw = Math.imul(hw ^ c, HASH_PRIME);
        end++;
      }
    }
    const first = text.charCodeAt(start);
    if (first < 48 || first > 57) word(wordSlot(text, start, end, hw));
    wordAt(text, start, i, h, letters, word, number);
    while (i < end) {
      i++; // the joining character
      const ws = i;
      h = HASH_SEED;
      letters = false;
      while (i < end && ASCII_CLASS[(c = text.charCodeAt(i))] === 1) {
        h = Math.imul(h ^ c, HASH_PRIME);
        if (c > 57) letters = true;
        i++;
      }
      wordAt(text, ws, i, h, letters, word, number);
    }
  }
}

/** A word of asciiTokens: a long number given as its digits (or not at all, past MAX_NUMBER_DIGITS), any other word as its slot. */
function wordAt(text: string, start: number, end: number, h: number, letters: boolean, word: (slot: number) => void, number: (digits: string) => void): void {
  const len = end - start;
  if (letters || len <= MAX_REMEMBERED_DIGITS) word(wordSlot(text, start, end, h));
  else if (len <= MAX_NUMBER_DIGITS) number(text.slice(start, end));
}

/**
 * forEachTerm with each term as its id (termId), the indexing path: a chunk's terms are counted in
 * arrays by id (chunker.ts, batchPostings.ts), and a word seen before gives its ids without a string
 * being looked up.
 */
export function forEachTermId(text: string, emit: (id: number) => void): void {
  if (!ASCII_RE.test(text)) {
    forEachTerm(text, (t) => emit(termId(t)));
    return;
  }
  asciiTokens(
    text,
    (slot) => {
      let ids = wordIds[slot];
      if (ids === undefined) ids = wordIds[slot] = wordValues[slot].map(termId);
      for (let k = 0; k < ids.length; k++) emit(ids[k]);
    },
    (digits) => emit(termId(digits)),
  );
}

/*
 * Term ids: a number for each distinct term this thread has indexed, so indexing counts in typed
 * arrays, not Maps of strings. They are forgotten all at once (forgetTermIdsIfMany) only between
 * batches, when nothing holds an id.
 */
const idOfTerm = new Map<string, number>();
const termNames: string[] = [];
const MAX_TERM_IDS = 1 << 19;

/** The id of a term (a new one the first time). */
export function termId(term: string): number {
  let id = idOfTerm.get(term);
  if (id === undefined) {
    id = termNames.length;
    idOfTerm.set(term, id);
    termNames.push(term);
  }
  return id;
}

/** The term of an id termId gave. */
export function termName(id: number): string {
  return termNames[id];
}

/** Forgets every term id once there are MAX_TERM_IDS of them (a long-lived worker's memory); call only when no id is held. */
export function forgetTermIdsIfMany(): void {
  if (termNames.length < MAX_TERM_IDS) return;
  idOfTerm.clear();
  termNames.length = 0;
  wordIds.fill(undefined);
}

function eachWord(text: string, emit: (term: string) => void, humps: boolean): void {
  WORD_RE.lastIndex = 0;
  for (let m = WORD_RE.exec(text); m; m = WORD_RE.exec(text)) {
    const word = m[0];
    if (CJK_RE.test(word)) {
      for (const part of word.split(CJK_SPLIT_RE)) {
        if (!part) continue;
        if (CJK_RE.test(part)) {
          if (part.length === 1) emit(part);
          for (let i = 0; i + 1 < part.length; i++) emit(part.slice(i, i + 2));
        } else plainWord(part, emit, humps);
      }
      continue;
    }
    plainWord(word, emit, humps);
  }
}

/*
 * The terms of a word as written, remembered (a log repeats its words): MAX_WORDS at most, then
 * forgotten at once. An open-addressing table keyed by the word's characters (FNV-1a), so the ASCII
 * path finds a word it has seen without making a string of it.
 */
const MAX_WORDS = 100_000;
const WORD_SLOTS = 1 << 18;
const HASH_SEED = 0x811c9dc5 | 0;
const HASH_PRIME = 0x01000193;
const wordKeys: string[] = new Array<string>(WORD_SLOTS).fill('');
const wordHashes = new Int32Array(WORD_SLOTS);
const wordValues: (readonly string[])[] = new Array<readonly string[]>(WORD_SLOTS).fill([]);
/** The term ids of a slot's terms, made when first asked for (forEachTermId). */
const wordIds: (readonly number[] | undefined)[] = new Array<readonly number[] | undefined>(WORD_SLOTS).fill(undefined);
let wordCount = 0;
const NO_TERMS: readonly string[] = [];

/** The slot of the word table that holds the word `text`'s characters [start, end) (whose FNV-1a hash is `h`) and its terms. */
function wordSlot(text: string, start: number, end: number, h: number): number {
  const len = end - start;
  let slot = (h ^ (h >>> 15)) & (WORD_SLOTS - 1);
  for (;;) {
    const key = wordKeys[slot];
    if (key.length === 0) break;
    if (wordHashes[slot] === h && key.length === len && sameChars(key, text, start)) return slot;
    slot = (slot + 1) & (WORD_SLOTS - 1);
  }
  const word = start === 0 && end === text.length ? text : text.slice(start, end);
  const terms = JOINED_RE.test(word) ? wholeTermOf(word) : termsOfWord(word);
  if (wordCount >= MAX_WORDS) {
    wordKeys.fill('');
    wordValues.fill(NO_TERMS);
    wordIds.fill(undefined);
    wordCount = 0;
    slot = (h ^ (h >>> 15)) & (WORD_SLOTS - 1);
    while (wordKeys[slot].length !== 0) slot = (slot + 1) & (WORD_SLOTS - 1);
  }
  wordKeys[slot] = word;
  wordHashes[slot] = h;
  wordValues[slot] = terms;
  wordIds[slot] = undefined;
  wordCount++;
  return slot;
}

function sameChars(key: string, text: string, at: number): boolean {
  for (let k = 0; k < key.length; k++) if (key.charCodeAt(k) !== text.charCodeAt(at + k)) return false;
  return true;
}

/** Emits a word's terms: its stem, then (with `humps`) the stems of its camelCase humps. */
function plainWord(word: string, emit: (term: string) => void, humps: boolean): void {
  let h = HASH_SEED;
  for (let k = 0; k < word.length; k++) h = Math.imul(h ^ word.charCodeAt(k), HASH_PRIME);
  const terms = wordValues[wordSlot(word, 0, word.length, h)];
  if (!humps) {
    if (terms.length > 0) emit(terms[0]);
    return;
  }
  for (let k = 0; k < terms.length; k++) emit(terms[k]);
}

/** The whole term of a joined token ([] for none), as the word table keeps it. */
function wholeTermOf(token: string): readonly string[] {
  const whole = token.toLowerCase();
  return wholeTerm(whole) ? [whole] : NO_TERMS;
}

function termsOfWord(word: string): readonly string[] {
  const lower = word.toLowerCase();
  if (dropped(lower)) return NO_TERMS;
  const out = [stem(lower)];
  // Humps only of a word that has a lower-case letter after an upper-case one (not ALLCAPS, not lower).
  if (word !== lower && /[a-z]/.test(word) && /[A-Z]/.test(word.slice(1))) {
    HUMP_RE.lastIndex = 0;
    for (let h = HUMP_RE.exec(word); h; h = HUMP_RE.exec(word)) {
      const part = h[0].toLowerCase();
      if (part.length >= 2 && part !== lower && !/^\d+$/.test(part)) out.push(stem(part));
    }
  }
  return out;
}

let stops: Set<string> | undefined;
function stopWords(): Set<string> {
  if (!stops) {
    const words = STOP_LIST.split(' ');
    stops = new Set([...words, ...words.map(stem)]);
  }
  return stops;
}

/** Words that make a question one about a failure ("why does the build fail?", "what crashed?"): its answer is likely an error line. */
const FAILURE_RE = /\b(?:why|fail\w*|error\w*|wrong|crash\w*|broke\w*|break\w*|exception\w*|panic\w*|problem\w*|bug\w*|cannot|can't|couldn't|unable|refus\w*|denied|reject\w*|timed out|timeout\w*|missing|undefined|not found|not defined)\b/i;

/** Whether a query asks about a failure (then the error lines of the outputs it names are candidates even without its words). */
export function asksAboutFailure(query: string): boolean {
  return FAILURE_RE.test(query);
}

/**
 * The word of the query each of its terms came from, as the query wrote it (lower-cased): an answer
 * names `declaration`, not its stem `declar`.
 */
export function termWords(query: string): Map<string, string> {
  const out = new Map<string, string>();
  // matchAll on a copy: forEachTerm runs TOKEN_RE itself.
  for (const t of query.matchAll(new RegExp(TOKEN_RE))) {
    const token = t[0];
    forEachTerm(token, (term) => {
      if (!out.has(term)) out.set(term, term === token.toLowerCase() ? term : wordOf(token, term));
    });
  }
  return out;
}

/** The word of `token` whose stem is `term` (the term itself for a camelCase hump or a CJK pair). */
function wordOf(token: string, term: string): string {
  for (const w of token.match(new RegExp(WORD_RE)) ?? []) if (stem(w.toLowerCase()) === term) return w.toLowerCase();
  return term;
}

/** Query terms of this many characters or more also find the longer terms they start (prefix search). */
const PREFIX_MIN = 3;

/** Whether a query term also finds the longer terms it starts, in the index and in an answer's lines. */
export function searchedByPrefix(q: string): boolean {
  return q.length >= PREFIX_MIN;
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
  // A camelCase word of the query is searched whole: the index holds it whole (and its humps, for a
  // query that writes them apart); its humps would find other words (`ESLint` → `es` in `es-errors`).
  forEachTerm(
    query,
    (t) => {
      if (!all.includes(t)) all.push(t);
    },
    false,
  );
  for (const t of all) if (!stopWords().has(t)) kept.push(t);
  return kept.length > 0 ? kept : all;
}
