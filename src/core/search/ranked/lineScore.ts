/*
 * BM25+ over the lines of an answer's candidate chunks (lineRanking.ts): the scores MiniSearch 7 gives
 * when it indexes the lines (one document each, one field, termsOf as its tokenizer) and is asked the
 * query's terms (OR, prefix search for a term searchedByPrefix allows, a boost per line), computed
 * from the lines' term ids instead of a radix tree of their terms built for each query (that index
 * was most of a warm query's line ranking).
 *
 * The same formula, parameters and order of operations as the library, so the scores are its scores
 * to the last bit and an answer's order is unchanged; a unit test compares the two on random and on
 * real lines:
 * - a line's length is its number of distinct terms; the average length is updated line by line as
 *   the library adds them;
 * - a term's score in a line: idf · (d + tf·(k+1) / (tf + k·(1 − b + b·len/avg))), with
 *   idf = ln(1 + (N − n + 0.5)/(n + 0.5)) over the N lines, n of them holding the term;
 * - a query term counts its own term fully and each longer term it starts at
 *   PREFIX_WEIGHT · length / (length + 0.3 · extra characters), both times the line's boost;
 * - a query term's matches are summed in the order of the library's radix tree (its SearchableMap,
 *   holding the lines' terms in the order they first occur), the query terms' sums one after the
 *   other, and the total is multiplied by the number of distinct query terms the line holds.
 */
import SearchableMap from 'minisearch/SearchableMap';
import { forEachTermId, forgetTermIdsIfMany, searchedByPrefix, termId, termName } from './terms';

/** MiniSearch's BM25+ parameters (its defaults): saturation k, length normalisation b, the + of BM25+ d. */
const K = 1.2;
const B = 0.7;
const D = 0.5;
/** MiniSearch's default weight of a prefix match. */
const PREFIX_WEIGHT = 0.375;

/** One line that holds a query term (or a word one starts). */
export interface LineScore {
  /** The line's index in the lines given. */
  id: number;
  score: number;
  /** The query terms it matched, each once, in the query's order. */
  queryTerms: string[];
}

/*
 * Scratch reused across queries (a query runs to its end synchronously): the local number of each
 * term id the query's lines hold (valid where `seenIn` holds this query's stamp).
 */
let seenIn = new Int32Array(1 << 16);
let localOf = new Int32Array(1 << 16);
let stamp = 0;

function growFor(id: number): void {
  if (id < seenIn.length) return;
  let n = seenIn.length;
  while (n <= id) n *= 2;
  const s = new Int32Array(n);
  s.set(seenIn);
  const l = new Int32Array(n);
  l.set(localOf);
  seenIn = s;
  localOf = l;
}

/** A growable Int32Array. */
class Ints {
  a = new Int32Array(1024);
  n = 0;
  push(v: number): void {
    if (this.n === this.a.length) {
      const b = new Int32Array(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.n++] = v;
  }
}

/**
 * Scores `lines` for the query `terms` (each searched as written; a term searchedByPrefix allows also
 * finds the longer terms it starts). `boost(id)` multiplies a line's score for each term it matches; a
 * line boosted 0 is left out. Returns the lines that match, best first (ties: the earlier line first).
 */
export function scoreLines(lines: readonly string[], terms: readonly string[], boost: (id: number) => number): LineScore[] {
  // No term id is held between calls: a long-lived process's ids may be forgotten here.
  forgetTermIdsIfMany();
  if (++stamp === 0x7fffffff) {
    seenIn.fill(0);
    stamp = 1;
  }
  // The lines' terms as local numbers (in the order they first occur), each line's distinct terms.
  const tokens = new Ints();
  const starts = new Int32Array(lines.length + 1);
  const lengths = new Int32Array(lines.length);
  const globalOf = new Ints();
  const lastLine = new Ints();
  const df = new Ints();
  let avg = 0;
  for (let d = 0; d < lines.length; d++) {
    starts[d] = tokens.n;
    let distinct = 0;
    forEachTermId(lines[d], (g) => {
      growFor(g);
      let l: number;
      if (seenIn[g] !== stamp) {
        seenIn[g] = stamp;
        l = localOf[g] = globalOf.n;
        globalOf.push(g);
        lastLine.push(-1);
        df.push(0);
      } else l = localOf[g];
      if (lastLine.a[l] !== d) {
        lastLine.a[l] = d;
        df.a[l]++;
        distinct++;
      }
      tokens.push(l);
    });
    lengths[d] = distinct;
    // The library's running average, in its order of operations.
    avg = (avg * d + distinct) / (d + 1);
  }
  starts[lines.length] = tokens.n;

  // The query's terms as the library reads them (split at spaces, empty ones dropped), and for each
  // the local terms it matches with their weights, in the library's order.
  const query = terms.join(' ').split(' ').filter((t) => !!t);
  const specs = query.map((q) => ({ q, matches: matchesOf(q, globalOf) }));
  const wanted = new Uint8Array(globalOf.n);
  for (const s of specs) for (const m of s.matches) wanted[m.local] = 1;

  // Postings of the wanted terms: lines (ascending) and term frequencies.
  const postLines = new Map<number, number[]>();
  const postTf = new Map<number, number[]>();
  for (let d = 0; d < lines.length; d++) {
    for (let t = starts[d]; t < starts[d + 1]; t++) {
      const l = tokens.a[t];
      if (!wanted[l]) continue;
      let ls = postLines.get(l);
      let tf = postTf.get(l);
      if (!ls || !tf) {
        postLines.set(l, (ls = []));
        postTf.set(l, (tf = []));
      }
      if (ls[ls.length - 1] === d) tf[tf.length - 1]++;
      else {
        ls.push(d);
        tf.push(1);
      }
    }
  }

  const n = lines.length;
  const boosts = new Float64Array(n).fill(NaN);
  const total = new Float64Array(n);
  const matched: (string[] | undefined)[] = new Array<string[] | undefined>(n);
  const part = new Float64Array(n);
  const inPart = new Uint8Array(n);
  const touched: number[] = [];
  const order: number[] = [];
  for (const { q, matches } of specs) {
    touched.length = 0;
    for (const m of matches) {
      const ls = postLines.get(m.local);
      const tfs = postTf.get(m.local);
      if (!ls || !tfs) continue;
      const matching = df.a[m.local];
      const idf = Math.log(1 + (n - matching + 0.5) / (matching + 0.5));
      for (let j = 0; j < ls.length; j++) {
        const d = ls[j];
        let docBoost = boosts[d];
        if (docBoost !== docBoost) docBoost = boosts[d] = boost(d);
        if (!docBoost) continue;
        const tf = tfs[j];
        const raw = idf * (D + (tf * (K + 1)) / (tf + K * (1 - B + (B * lengths[d]) / avg)));
        // The library's term weight · term boost (1) · field boost (1) · line boost · score, in that order.
        const weighted = m.weight * docBoost * raw;
        if (inPart[d]) part[d] += weighted;
        else {
          inPart[d] = 1;
          part[d] = weighted;
          touched.push(d);
        }
      }
    }
    for (const d of touched) {
      inPart[d] = 0;
      const qt = matched[d];
      if (qt === undefined) {
        matched[d] = [q];
        total[d] = part[d];
        order.push(d);
      } else {
        total[d] = total[d] + part[d];
        if (!qt.includes(q)) qt.push(q);
      }
    }
  }
  const out: LineScore[] = order.map((d) => {
    const queryTerms = matched[d]!;
    return { id: d, score: total[d] * (queryTerms.length || 1), queryTerms };
  });
  out.sort((a, b) => b.score - a.score || a.id - b.id);
  return out;
}

/**
 * The local terms a query term matches, with their weights, in the order the library sums them: the
 * term itself, then (if searchedByPrefix) the longer terms it starts, in its radix tree's order.
 */
function matchesOf(q: string, globalOf: Ints): { local: number; weight: number }[] {
  const out: { local: number; weight: number }[] = [];
  const g = termId(q);
  if (g < seenIn.length && seenIn[g] === stamp) out.push({ local: localOf[g], weight: 1 });
  if (!searchedByPrefix(q)) return out;
  const longer: number[] = [];
  const c0 = q.charCodeAt(0);
  for (let l = 0; l < globalOf.n; l++) {
    const t = termName(globalOf.a[l]);
    if (t.length > q.length && t.charCodeAt(0) === c0 && t.startsWith(q)) longer.push(l);
  }
  if (longer.length === 0) return out;
  // The tree's order over the terms that start with q depends only on the order they were added in
  // (local numbers are that order); the library iterates the subtree of q.
  let ordered: number[] = longer;
  if (longer.length > 1) {
    const tree = new SearchableMap<number>();
    for (const l of longer) tree.set(termName(globalOf.a[l]), l);
    ordered = [...tree.atPrefix(q).values()];
  }
  for (const l of ordered) {
    const len = termName(globalOf.a[l]).length;
    out.push({ local: l, weight: (PREFIX_WEIGHT * len) / (len + 0.3 * (len - q.length)) });
  }
  return out;
}
