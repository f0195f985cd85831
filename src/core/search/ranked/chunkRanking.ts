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
 */
import { CHUNK_FIELDS, chunkAt, chunkCount, docOf, type LiveChunk, type RunEntry } from './manifest';
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
  /** Documents by score, best first. */
  docs: { doc: string; rel: string; score: number }[];
  broken: RunEntry[];
}

/** Ranks the chunks of `index` for the query terms, in `scopes` (all when undefined). */
export function rankChunks(index: SearchIndex, terms: readonly string[], scopes: ReadonlySet<SearchScope> | undefined, k: number, forFailure: boolean): ChunkRanking {
  const live = index.liveChunks;
  const broken: RunEntry[] = [];
  const n = Math.max(1, live.chunks);
  const avgdl = live.tokens / n || 1;
  const best = new Map<number, number[]>();
  const docBest = new Map<string, { rel: string; per: number[] }>();
  const avgDoc = live.tokens / Math.max(1, live.docTokens.size) || 1;
  const weights = terms.map(() => 0);
  const inScope = (c: LiveChunk): boolean => !scopes || scopes.has(c.e.scope) || (c.e.agent === true && scopes.has('agentCommands'));
  const bm25 = (tf: number, dl: number, avg: number): number => (tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * dl) / avg));
  terms.forEach((q, qi) => {
    const { found, broken: b } = index.lookup(q);
    for (const r of b) if (!broken.includes(r)) broken.push(r);
    for (const [term, f] of found) {
      const weight = term === q ? 1 : (PREFIX_WEIGHT * q.length) / term.length;
      const idf = Math.log(1 + (n - f.df + 0.5) / (f.df + 0.5));
      const w = weight * idf * idf;
      if (w > weights[qi]) weights[qi] = w;
      const docTf = new Map<string, { rel: string; tf: number }>();
      for (const list of f.lists) {
        for (let j = 0; j < list.ids.length; j++) {
          const c = live.byId.get(list.ids[j]);
          if (!c || !inScope(c)) continue;
          const v = list.values[j];
          const tf = v >> 2;
          const s = w * bm25(tf, c.e.c[c.i * CHUNK_FIELDS + 3], avgdl) * LEVEL_BOOST[v & 3];
          let per = best.get(list.ids[j]);
          if (!per) best.set(list.ids[j], (per = new Array<number>(terms.length).fill(0)));
          if (s > per[qi]) per[qi] = s;
          const d = docTf.get(c.doc);
          if (d) d.tf += tf;
          else docTf.set(c.doc, { rel: c.rel, tf });
        }
      }
      for (const [doc, { rel, tf }] of docTf) {
        const s = w * bm25(tf, live.docTokens.get(doc) ?? avgDoc, avgDoc);
        let d = docBest.get(doc);
        if (!d) docBest.set(doc, (d = { rel, per: new Array<number>(terms.length).fill(0) }));
        if (s > d.per[qi]) d.per[qi] = s;
      }
    }
  });
  const coordinated = (per: readonly number[]): { score: number; matched: string[] } => {
    let sum = 0;
    const matched: string[] = [];
    per.forEach((s, qi) => {
      if (s > 0) {
        sum += s;
        matched.push(terms[qi]);
      }
    });
    const coord = matched.length / terms.length;
    return { score: sum * (0.25 + 0.75 * coord * coord), matched };
  };
  const ranked: RankedChunk[] = [];
  for (const [id, per] of best) {
    const c = live.byId.get(id)!;
    ranked.push({ id, rel: c.rel, i: c.i, doc: c.doc, ...coordinated(per) });
  }
  ranked.sort((a, b) => b.score - a.score || a.id - b.id);
  const docs: { doc: string; rel: string; score: number }[] = [];
  for (const [doc, { rel, per }] of docBest) {
    // A saved output's name: the command it was saved for (a terminal block has its command line in its text).
    const name = doc === rel ? new Set(termsOf(rel.split('/').pop() ?? '')) : new Set<string>();
    const withName = per.map((s, qi) => (name.has(terms[qi]) ? s + NAME_WEIGHT * weights[qi] : s));
    docs.push({ doc, rel, score: coordinated(withName).score });
  }
  docs.sort((a, b) => b.score - a.score || (a.doc < b.doc ? -1 : 1));
  const chunks = ranked.slice(0, k);
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
