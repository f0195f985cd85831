/*
 * The first stage of a query: which chunks, and which files, answer it best (BM25 over the index's
 * chunks), before their lines are read and ranked (lineRanking.ts).
 *
 * - A term's weight is its idf squared: in a folder of logs the words every output has ("error",
 *   "build", "test") would otherwise add up past the one rare word the question is about ("serde",
 *   "carrier.go").
 * - A term on an error line counts ERROR_BOOST times, on a warning line WARN_BOOST times (the
 *   reference's own rule, issueLevel): an error outranks the same words in ordinary output.
 * - Chunks holding more of the query's terms come first.
 * - Documents (a saved output, a note, a plan; in a terminal capture, one command's block) are ranked
 *   too, by BM25 over their chunks together, and by the terms a file's name holds (agentContext_run
 *   names an output after its command: `cargo-build-01J….txt`).
 * - A question about a failure ("why", "fail", "error", "crash"…) gets, besides the best chunks, the
 *   error chunks of the best documents: "why does the Rust build fail" is answered by an error line
 *   of the build's output that holds none of its words.
 *
 * At 1 GB a query reads about 10^6 postings: they are decoded into reused arrays and scored into
 * arrays by chunk id and by document (the live set's, manifest.ts, and this module's Scratch), with
 * no object, map entry or string per posting, chunk or document, and only the best chunks and
 * documents are sorted. The scores are those of the plain reading of the rules above, to the bit.
 */
import { chunkAt, chunkCount, docOf, type LiveSet, type RunEntry } from './manifest';
import { decodePostingsInto, postingsBuffer } from './runFile';
import type { SearchIndex } from './searchIndex';
import type { SearchScope } from './sources';
import { termsOf } from './terms';

const K1 = 1.2;
const B = 0.75;
/** A term on an error line counts this much more than the same term elsewhere; on a warning line, WARN_BOOST. */
export const ERROR_BOOST = 1.6;
export const WARN_BOOST = 1.2;
/** The boost of a term or line by its issue level (0 none, 1 warning, 2 error). */
export const LEVEL_BOOST = [1, WARN_BOOST, ERROR_BOOST, ERROR_BOOST];
/** A word a query term only starts counts for this share of the term (times the lengths' ratio). */
const PREFIX_WEIGHT = 0.6;
/** A query term in a file's name counts this share of the term's weight for the file. */
const NAME_WEIGHT = 0.5;

/** Documents whose error chunks join the candidates of a question about a failure, and chunks per document. */
const ERROR_DOCS = 3;
const ERROR_CHUNKS_PER_DOC = 4;

/** A chunk as a query ranks it. */
export interface RankedChunk {
  id: number;
  rel: string;
  i: number;
  /** Its document (docOf). */
  doc: string;
  score: number;
  /** Query terms it holds (or a word they start). */
  matched: string[];
  /** Joined as an error chunk of one of the best files, not for its own words. */
  forErrors?: boolean;
}

export interface ChunkRanking {
  chunks: RankedChunk[];
  /** Each query term's weight (idf squared of the term, or of the best word it starts). */
  weights: number[];
  /** The best documents and those of `chunks`, by score, best first (the first is the best of all). */
  docs: { doc: string; rel: string; score: number }[];
  broken: RunEntry[];
}

function bm25(tf: number, dl: number, avg: number): number {
  return (tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * dl) / avg));
}

/** The share of a score a chunk or document keeps for the share `coord` of the query's terms it holds. */
function coordinated(sum: number, coord: number): number {
  return sum * (0.25 + 0.75 * coord * coord);
}

/**
 * What a query fills per chunk id and per document, kept for the next query of the same live set
 * and left as found (only what a query touched is reset).
 */
class Scratch {
  /** Per chunk id: the best score of the query term being read (the max over the words it starts). */
  readonly cur: Float64Array;
  /** Per chunk id: the sum of its terms' scores so far, the count and bit set of the terms it holds, whether any posting named it. */
  readonly sum: Float64Array;
  readonly count: Uint32Array;
  matched: Uint32Array;
  readonly hit: Uint8Array;
  /** Chunk ids the term being read raised (cur), and every chunk id a posting named. */
  readonly raised: Int32Array;
  readonly named: Int32Array;
  /** Per document: terms counted for the word being read, the word's mark (its serial), whether any posting named it. */
  readonly docTf: Float64Array;
  readonly docMark: Int32Array;
  readonly docHit: Uint8Array;
  readonly docWord: Int32Array;
  readonly docNamed: Int32Array;
  serial = 0;
  readonly post = postingsBuffer();
  /** Per file: the terms of its name, once asked for. */
  readonly names: (readonly string[] | undefined)[];

  constructor(ids: number, docs: number, files: number) {
    this.names = new Array<readonly string[] | undefined>(files);
    this.cur = new Float64Array(ids);
    this.sum = new Float64Array(ids);
    this.count = new Uint32Array(ids);
    this.matched = new Uint32Array(ids);
    this.hit = new Uint8Array(ids);
    this.raised = new Int32Array(ids);
    this.named = new Int32Array(ids);
    this.docTf = new Float64Array(docs);
    this.docMark = new Int32Array(docs);
    this.docHit = new Uint8Array(docs);
    this.docWord = new Int32Array(docs);
    this.docNamed = new Int32Array(docs);
  }
}

const scratches = new WeakMap<LiveSet, Scratch>();

/** The `k` best of `n` candidates, best first, by `better` (a strict order): a heap of k, not a sort of n. */
function best(n: number, k: number, better: (a: number, b: number) => boolean): number[] {
  const heap: number[] = [];
  // heap[0] is the worst kept.
  const down = (i: number): void => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let w = i;
      if (l < heap.length && better(heap[w], heap[l])) w = l;
      if (r < heap.length && better(heap[w], heap[r])) w = r;
      if (w === i) return;
      [heap[i], heap[w]] = [heap[w], heap[i]];
      i = w;
    }
  };
  for (let c = 0; c < n && k > 0; c++) {
    if (heap.length < k) {
      heap.push(c);
      for (let i = heap.length - 1; i > 0; ) {
        const p = (i - 1) >> 1;
        if (!better(heap[p], heap[i])) break;
        [heap[i], heap[p]] = [heap[p], heap[i]];
        i = p;
      }
    } else if (better(c, heap[0])) {
      heap[0] = c;
      down(0);
    }
  }
  return heap.sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0));
}

/** Ranks the chunks of `index` for the query terms, in `scopes` (all when undefined). */
export function rankChunks(index: SearchIndex, terms: readonly string[], scopes: ReadonlySet<SearchScope> | undefined, k: number, forFailure: boolean): ChunkRanking {
  const live = index.liveChunks;
  const ids = live.chunkFile.length;
  const nDocs = live.docs.length;
  const nTerms = terms.length;
  const words = Math.max(1, Math.ceil(nTerms / 32));
  // Taken while the query runs: a query that throws (a run cut short) leaves no half-reset arrays behind.
  const s = scratches.get(live) ?? new Scratch(ids, nDocs, live.rels.length);
  scratches.delete(live);
  if (s.matched.length < ids * words) s.matched = new Uint32Array(ids * words);
  const { cur, sum, count, matched, hit, raised, named, docTf, docMark, docHit, docWord, docNamed, post, names } = s;
  const { chunkFile, chunkTokens, chunkDoc, docTokens } = live;
  const broken: RunEntry[] = [];
  const n = Math.max(1, live.chunks);
  const avgdl = live.tokens / n || 1;
  const avgDoc = live.tokens / Math.max(1, nDocs) || 1;
  const weights = terms.map(() => 0);
  // Per file: whether it is in scope.
  let inScope: Uint8Array | undefined;
  if (scopes) {
    inScope = new Uint8Array(live.rels.length);
    live.entries.forEach((e, f) => {
      if (scopes.has(e.scope) || (e.agent === true && scopes.has('agentCommands'))) inScope![f] = 1;
    });
  }
  // Per document and query term: the best score of the term's words.
  const docPer = new Float64Array(nDocs * nTerms);
  let nNamed = 0;
  let nDocNamed = 0;
  terms.forEach((q, qi) => {
    const { found, broken: b } = index.lookup(q);
    for (const r of b) if (!broken.includes(r)) broken.push(r);
    let nRaised = 0;
    for (const [term, f] of found) {
      const weight = term === q ? 1 : (PREFIX_WEIGHT * q.length) / term.length;
      const idf = Math.log(1 + (n - f.df + 0.5) / (f.df + 0.5));
      const w = weight * idf * idf;
      if (w > weights[qi]) weights[qi] = w;
      const mark = ++s.serial;
      let nWord = 0;
      for (const raw of f.lists) {
        const got = decodePostingsInto(raw, post, live.base);
        const pIds = post.ids;
        const pValues = post.values;
        for (let j = 0; j < got; j++) {
          const id = pIds[j];
          if (id >= ids) continue;
          const file = chunkFile[id];
          if (file < 0 || (inScope !== undefined && inScope[file] === 0)) continue;
          const v = pValues[j];
          const tf = v >> 2;
          const sc = w * bm25(tf, chunkTokens[id], avgdl) * LEVEL_BOOST[v & 3];
          if (hit[id] === 0) {
            hit[id] = 1;
            named[nNamed++] = id;
          }
          const was = cur[id];
          if (sc > was) {
            if (was === 0) raised[nRaised++] = id;
            cur[id] = sc;
          }
          const d = chunkDoc[id];
          if (docMark[d] !== mark) {
            docMark[d] = mark;
            docTf[d] = 0;
            docWord[nWord++] = d;
          }
          docTf[d] += tf;
        }
      }
      for (let x = 0; x < nWord; x++) {
        const d = docWord[x];
        const sd = w * bm25(docTf[d], docTokens[d], avgDoc);
        if (docHit[d] === 0) {
          docHit[d] = 1;
          docNamed[nDocNamed++] = d;
        }
        if (sd > docPer[d * nTerms + qi]) docPer[d * nTerms + qi] = sd;
      }
    }
    // The term's best per chunk joins the chunk's sum, in term order (as a sum over the terms would add them).
    const bit = 1 << (qi % 32);
    const word = qi >> 5;
    for (let x = 0; x < nRaised; x++) {
      const id = raised[x];
      sum[id] += cur[id];
      count[id]++;
      matched[id * words + word] |= bit;
      cur[id] = 0;
    }
  });
  const chunkScore = (id: number): number => coordinated(sum[id], count[id] / nTerms);
  const scores = new Float64Array(nNamed);
  for (let x = 0; x < nNamed; x++) scores[x] = chunkScore(named[x]);
  const top = best(nNamed, k, (a, b) => scores[a] > scores[b] || (scores[a] === scores[b] && named[a] < named[b]));
  const chunks: RankedChunk[] = top.map((x) => {
    const id = named[x];
    const has: string[] = [];
    for (let qi = 0; qi < nTerms; qi++) if (matched[id * words + (qi >> 5)] & (1 << (qi % 32))) has.push(terms[qi]);
    return { id: id + live.base, rel: live.rels[chunkFile[id]], i: live.chunkIndex[id], doc: live.docs[chunkDoc[id]], score: scores[x], matched: has };
  });
  // Documents: a saved output's name is the command it was saved for (a terminal block has its command line in its text).
  const docScores = new Float64Array(nDocNamed);
  for (let x = 0; x < nDocNamed; x++) {
    const d = docNamed[x];
    const file = live.docFile[d];
    const rel = live.rels[file];
    const name = live.docs[d] === rel ? (names[file] ??= termsOf(rel.split('/').pop() ?? '')) : undefined;
    let total = 0;
    let held = 0;
    for (let qi = 0; qi < nTerms; qi++) {
      let v = docPer[d * nTerms + qi];
      if (name?.includes(terms[qi])) v = v + NAME_WEIGHT * weights[qi];
      if (v > 0) {
        total += v;
        held++;
      }
    }
    docScores[x] = coordinated(total, held / nTerms);
  }
  const docBetter = (a: number, b: number): boolean => docScores[a] > docScores[b] || (docScores[a] === docScores[b] && live.docs[docNamed[a]] < live.docs[docNamed[b]]);
  const wanted = new Set(best(nDocNamed, ERROR_DOCS, docBetter));
  if (chunks.length > 0) {
    const chunkDocs = new Set(top.map((x) => chunkDoc[named[x]]));
    for (let x = 0; x < nDocNamed; x++) if (chunkDocs.has(docNamed[x])) wanted.add(x);
  }
  const docs = [...wanted].sort((a, b) => (docBetter(a, b) ? -1 : 1)).map((x) => ({ doc: live.docs[docNamed[x]], rel: live.rels[live.docFile[docNamed[x]]], score: docScores[x] }));
  // Left as found for the next query.
  for (let x = 0; x < nNamed; x++) {
    const id = named[x];
    hit[id] = 0;
    sum[id] = 0;
    count[id] = 0;
    matched.fill(0, id * words, id * words + words);
  }
  for (let x = 0; x < nDocNamed; x++) docHit[docNamed[x]] = 0;
  scratches.set(live, s);
  if (forFailure) {
    const have = new Set(chunks.map((c) => c.id));
    for (const d of docs.slice(0, ERROR_DOCS)) {
      const e = index.manifest.files[d.rel];
      if (!e) continue;
      let added = 0;
      for (let i = 0; i < chunkCount(e) && added < ERROR_CHUNKS_PER_DOC; i++) {
        const c = chunkAt(e, i);
        if (c.level < 2 || have.has(c.id) || docOf(d.rel, c.block) !== d.doc) continue;
        chunks.push({ id: c.id, rel: d.rel, i, doc: d.doc, score: 0, matched: [], forErrors: true });
        have.add(c.id);
        added++;
      }
    }
  }
  return { chunks, weights, docs, broken };
}
