/**
 * One pass over a text finding every occurrence of a set of literal keywords, ASCII
 * case-insensitively: an Aho-Corasick automaton compiled to a dense transition table.
 *
 * Why: the masker has well over a hundred rules, and nearly all output lines contain none of
 * their keywords. Scanning once per rule (indexOf per keyword) costs in proportion to the rule
 * count; this scan costs one table lookup per character whatever the number of keywords, so the
 * price of adding a provider is only paid on the rare lines that mention it.
 */

/** A compiled keyword set; build once, scan many texts. */
export class KeywordScanner {
  /** Character code (< 128) → alphabet index; 0 = a character no keyword contains. */
  private readonly cls = new Uint8Array(128);
  private readonly width: number;
  private readonly delta: Int32Array;
  /** For each state, the keyword ids that end there (flattened: outStart[s]..outStart[s+1]). */
  private readonly outStart: Int32Array;
  private readonly outIds: Int32Array;
  readonly keywords: readonly string[];
  /** Reused hit buffer: pairs (keyword id, end index exclusive). */
  private hits = new Int32Array(256);

  constructor(keywords: readonly string[]) {
    this.keywords = keywords;
    let next = 1;
    for (const k of keywords) {
      if (k.length === 0) throw new Error('empty keyword');
      for (let i = 0; i < k.length; i++) {
        const c = k.charCodeAt(i);
        if (c >= 128) throw new Error(`keyword ${JSON.stringify(k)}: only ASCII keywords are supported`);
        const lower = c >= 65 && c <= 90 ? c + 32 : c;
        if (this.cls[lower] === 0) {
          this.cls[lower] = next;
          if (lower >= 97 && lower <= 122) this.cls[lower - 32] = next;
          next++;
        }
      }
    }
    this.width = next;
    // Trie.
    const go: Map<number, number>[] = [new Map()];
    const out: number[][] = [[]];
    keywords.forEach((k, id) => {
      let s = 0;
      for (let i = 0; i < k.length; i++) {
        const a = this.cls[k.charCodeAt(i)];
        let t = go[s].get(a);
        if (t === undefined) {
          t = go.length;
          go.push(new Map());
          out.push([]);
          go[s].set(a, t);
        }
        s = t;
      }
      out[s].push(id);
    });
    // Breadth-first failure links, folded into a full transition table.
    const n = go.length;
    const delta = new Int32Array(n * this.width);
    const fail = new Int32Array(n);
    const queue: number[] = [];
    for (let a = 0; a < this.width; a++) {
      const t = go[0].get(a);
      if (t !== undefined) {
        delta[a] = t;
        queue.push(t);
      }
    }
    for (let qi = 0; qi < queue.length; qi++) {
      const s = queue[qi];
      out[s] = out[s].concat(out[fail[s]]);
      for (let a = 0; a < this.width; a++) {
        const t = go[s].get(a);
        if (t !== undefined) {
          fail[t] = delta[fail[s] * this.width + a];
          delta[s * this.width + a] = t;
          queue.push(t);
        } else {
          delta[s * this.width + a] = delta[fail[s] * this.width + a];
        }
      }
    }
    // Class 0 (any character outside every keyword) always returns to the root.
    for (let s = 0; s < n; s++) delta[s * this.width] = 0;
    this.delta = delta;
    this.outStart = new Int32Array(n + 1);
    const flat: number[] = [];
    for (let s = 0; s < n; s++) {
      this.outStart[s] = flat.length;
      flat.push(...out[s]);
    }
    this.outStart[n] = flat.length;
    this.outIds = Int32Array.from(flat);
  }

  /**
   * Every keyword occurrence in text[from, to), in order of its end. Returns the number of hits;
   * read them with hitKeyword(i) / hitEnd(i) until the next scan.
   */
  scan(text: string, from = 0, to = text.length): number {
    const cls = this.cls;
    const delta = this.delta;
    const w = this.width;
    const outStart = this.outStart;
    let s = 0;
    let count = 0;
    for (let i = from; i < to; i++) {
      const c = text.charCodeAt(i);
      s = delta[s * w + (c < 128 ? cls[c] : 0)];
      const o0 = outStart[s];
      const o1 = outStart[s + 1];
      if (o0 !== o1) {
        for (let o = o0; o < o1; o++) {
          if (count * 2 + 2 > this.hits.length) {
            const bigger = new Int32Array(this.hits.length * 2);
            bigger.set(this.hits);
            this.hits = bigger;
          }
          this.hits[count * 2] = this.outIds[o];
          this.hits[count * 2 + 1] = i + 1;
          count++;
        }
      }
    }
    return count;
  }

  hitKeyword(i: number): number {
    return this.hits[i * 2];
  }

  hitEnd(i: number): number {
    return this.hits[i * 2 + 1];
  }
}
