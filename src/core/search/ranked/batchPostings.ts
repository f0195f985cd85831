/*
 * The postings of one batch being indexed (indexWriter.ts indexBatch), until they are written as a
 * run. A batch holds up to BATCH_TERMS distinct terms and hundreds of thousands of postings: kept as
 * two small arrays per term they were most of the batch's garbage (GC was the largest single cost of
 * indexing in the profile), so they go into three growing typed arrays (term, chunk id, value) and
 * are grouped by term only when the run is written. Chunks come in id order, so grouping them in the
 * order they came keeps each term's ids ascending.
 */
import { ByteWriter, writePosting } from './runFile';

export class BatchPostings {
  private readonly termIndex = new Map<string, number>();
  private readonly termNames: string[] = [];
  private termOf = new Int32Array(1 << 16);
  private idOf = new Uint32Array(1 << 16);
  private valueOf = new Uint8Array(1 << 16);
  private n = 0;

  /** Distinct terms so far. */
  get terms(): number {
    return this.termNames.length;
  }

  /** Adds a posting; chunk ids must not decrease from one call to the next. */
  add(term: string, id: number, value: number): void {
    let t = this.termIndex.get(term);
    if (t === undefined) {
      t = this.termNames.length;
      this.termIndex.set(term, t);
      this.termNames.push(term);
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
    const nTerms = this.termNames.length;
    // Group the postings by term, each group in the order its postings came (ids ascending).
    const start = new Int32Array(nTerms + 1);
    for (let i = 0; i < this.n; i++) start[this.termOf[i] + 1]++;
    for (let t = 0; t < nTerms; t++) start[t + 1] += start[t];
    const fill = start.slice(0, nTerms);
    const order = new Int32Array(this.n);
    for (let i = 0; i < this.n; i++) order[fill[this.termOf[i]]++] = i;
    const byName = Array.from({ length: nTerms }, (_, t) => t).sort((a, b) => (this.termNames[a] < this.termNames[b] ? -1 : this.termNames[a] > this.termNames[b] ? 1 : 0));
    const w = new ByteWriter(1 << 12);
    for (const t of byName) {
      w.len = 0;
      let prev = 0;
      for (let k = start[t]; k < start[t + 1]; k++) {
        const i = order[k];
        writePosting(w, this.idOf[i] - prev, this.valueOf[i]);
        prev = this.idOf[i];
      }
      each(this.termNames[t], w.take(), start[t + 1] - start[t]);
    }
  }
}
