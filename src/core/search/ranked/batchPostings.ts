/*
 * The postings of one batch being indexed (indexWriter.ts indexBatch), until they are written as a
 * run. A batch holds up to BATCH_TERMS distinct terms and hundreds of thousands of postings: kept as
 * two small arrays per term they were most of the batch's garbage (GC was the largest single cost of
 * indexing in the profile), so they go into three growing typed arrays (term, chunk id, value) and
 * are grouped by term only when the run is written. Chunks come in id order, so grouping them in the
 * order they came keeps each term's ids ascending. Terms are known by their ids (terms.ts termId),
 * as the chunk's tally (TermTally) counts them.
 */
import { ByteWriter, MAX_TF, writePosting } from './runFile';
import { termName } from './terms';

/**
 * The terms of one chunk being counted (chunker.ts): by term id, min(tf, MAX_TF) << 2 | the highest
 * issue level of a line it stood on, in a typed array reused from chunk to chunk (a Map per chunk
 * was a fifth of indexing's time with the tokenizer's look-ups).
 */
export class TermTally {
  private value = new Uint8Array(1 << 16);
  private touched = new Int32Array(1 << 10);
  private n = 0;

  /** Distinct terms counted. */
  get size(): number {
    return this.n;
  }

  /** Counts one occurrence of term `id` on a line of issue level `level`. */
  add(id: number, level: number): void {
    if (id >= this.value.length) {
      const value = new Uint8Array(Math.max(this.value.length * 2, id + 1));
      value.set(this.value);
      this.value = value;
    }
    const v = this.value[id];
    if (v === 0) {
      if (this.n === this.touched.length) {
        const touched = new Int32Array(this.n * 2);
        touched.set(this.touched);
        this.touched = touched;
      }
      this.touched[this.n++] = id;
      this.value[id] = (1 << 2) | level;
    } else this.value[id] = (Math.min(MAX_TF, (v >> 2) + 1) << 2) | Math.max(v & 3, level);
  }

  /** Calls `each` with every term counted (in the order first counted) and its value, and empties the tally. */
  drain(each?: (id: number, value: number) => void): void {
    for (let k = 0; k < this.n; k++) {
      const id = this.touched[k];
      each?.(id, this.value[id]);
      this.value[id] = 0;
    }
    this.n = 0;
  }
}

export class BatchPostings {
  /** By term id: the term's index in this batch + 1 (0: not in it). */
  private indexOf = new Int32Array(1 << 16);
  /** By index in this batch: the term's id. */
  private readonly termIds: number[] = [];
  private termOf = new Int32Array(1 << 16);
  private idOf = new Uint32Array(1 << 16);
  private valueOf = new Uint8Array(1 << 16);
  private n = 0;

  /** Distinct terms so far. */
  get terms(): number {
    return this.termIds.length;
  }

  /** Adds a posting of the term whose id is `term` (terms.ts termId); chunk ids must not decrease from one call to the next. */
  add(term: number, id: number, value: number): void {
    if (term >= this.indexOf.length) {
      const indexOf = new Int32Array(Math.max(this.indexOf.length * 2, term + 1));
      indexOf.set(this.indexOf);
      this.indexOf = indexOf;
    }
    let t = this.indexOf[term] - 1;
    if (t < 0) {
      t = this.termIds.length;
      this.indexOf[term] = t + 1;
      this.termIds.push(term);
    }
    if (this.n === this.termOf.length) this.grow();
    this.termOf[this.n] = t;
    this.idOf[this.n] = id;
    this.valueOf[this.n] = value;
    this.n++;
  }

  private grow(): void {
    const size = this.termOf.length * 2;
    const termOf = new Int32Array(size);
    termOf.set(this.termOf);
    const idOf = new Uint32Array(size);
    idOf.set(this.idOf);
    const valueOf = new Uint8Array(size);
    valueOf.set(this.valueOf);
    this.termOf = termOf;
    this.idOf = idOf;
    this.valueOf = valueOf;
  }

  /**
   * Calls `each` with every term in sorted order (JavaScript string order, as runs keep them), its
   * encoded postings (a view of a reused buffer: copy it to keep it) and its document frequency.
   */
  forEachSorted(each: (term: string, postings: Buffer, df: number) => void): void {
    const nTerms = this.termIds.length;
    const names = this.termIds.map(termName);
    // Group the postings by term, each group in the order its postings came (ids ascending).
    const start = new Int32Array(nTerms + 1);
    for (let i = 0; i < this.n; i++) start[this.termOf[i] + 1]++;
    for (let t = 0; t < nTerms; t++) start[t + 1] += start[t];
    const fill = start.slice(0, nTerms);
    const order = new Int32Array(this.n);
    for (let i = 0; i < this.n; i++) order[fill[this.termOf[i]]++] = i;
    const byName = Array.from({ length: nTerms }, (_, t) => t).sort((a, b) => (names[a] < names[b] ? -1 : names[a] > names[b] ? 1 : 0));
    const w = new ByteWriter(1 << 12);
    for (const t of byName) {
      w.len = 0;
      let prev = 0;
      for (let k = start[t]; k < start[t + 1]; k++) {
        const i = order[k];
        writePosting(w, this.idOf[i] - prev, this.valueOf[i]);
        prev = this.idOf[i];
      }
      each(names[t], w.take(), start[t + 1] - start[t]);
    }
  }
}
