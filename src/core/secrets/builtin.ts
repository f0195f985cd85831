/**
 * The built-in masker over whole lines: one keyword scan over a batch of lines, then the token
 * shapes and context rules of only those keywords, on only the lines that contain them.
 *
 * Multi-line state (a PEM private-key block, a Kubernetes Secret's `data:` block) lives in
 * BuiltinState, which the streaming masker carries from one batch to the next.
 */
import { KeywordScanner } from './keywordScan';
import { MAX_TOKEN, SHAPE_RULES, type ShapeRule } from './providerRules';
import { authorization, bearer, flagPassword, isAlnum, nameValue, urlPassword, type LineScanState, type Span } from './contextRules';

/** The text that replaces a secret of the given kind. */
export function maskMarker(kind: string): string {
  return `[MASKED:${kind}]`;
}

type Handler = (text: string, ls: number, le: number, ks: number, ke: number, st: LineScanState, out: Span[]) => void;

interface CompiledShape {
  readonly rule: ShapeRule;
  /** Keywords the pattern starts with: a hit on one of them starts the token (no widening left). */
  readonly startKw: ReadonlySet<string>;
  readonly re: RegExp;
  readonly cls: Uint8Array;
  readonly dot: boolean;
  readonly marker: string;
  /** No run shorter than this can match. */
  readonly minLen: number;
}

interface Engine {
  readonly scanner: KeywordScanner;
  readonly kwLen: Int32Array;
  readonly kwShapes: number[][];
  readonly kwHandlers: Handler[][];
  readonly shapes: CompiledShape[];
  /** Keyword ids that may open a Kubernetes data block. */
  readonly kubeKw: Set<number>;
  /** Keyword id of "private key" (PEM blocks). */
  readonly pemKw: number;
}

const CONTEXT_HANDLERS: [string[], Handler][] = [
  [['token', 'secret', 'pass', 'pwd', 'credential', 'creds', 'key', 'auth', 'dsn', 'webhook', 'pat'], nameValue],
  [['authorization'], authorization],
  [['bearer'], bearer],
  [['://'], urlPassword],
  [['curl'], flagPassword('curl', ['-u', '--user'], 'both', true)],
  [['mysql', 'mariadb'], flagPassword('mysql', ['-p'], 'attached', false)],
  [['redis-cli'], flagPassword('redis-cli', ['-a', '--pass'], 'spaced', false)],
  [['login'], flagPassword('login', ['-p'], 'spaced', false)],
  [['sshpass'], flagPassword('sshpass', ['-p'], 'both', false)],
];
const KUBE_KEYWORDS = ['data:', '"data"', 'stringdata'];

function classTable(body: string): Uint8Array {
  const t = new Uint8Array(128);
  const re = new RegExp(`[${body}]`);
  for (let c = 0; c < 128; c++) if (re.test(String.fromCharCode(c))) t[c] = 1;
  return t;
}

/** The literal text a pattern starts with (up to its first metacharacter). */
function literalPrefix(src: string): string {
  let out = '';
  for (let i = 0; i < src.length; i++) {
    const ch = src[i];
    if (ch === '\\') {
      const n = src[i + 1];
      if (n === undefined || /[A-Za-z0-9]/.test(n)) break;
      out += n;
      i++;
    } else if ('[](){}?*+|^$.'.includes(ch)) {
      if ('?*{'.includes(ch)) out = out.slice(0, -1); // the last literal is optional or repeated
      break;
    } else out += ch;
  }
  return out;
}

/**
 * A lower bound of the length of any match of a pattern (literals, classes and counted repeats;
 * alternatives take their shortest). Lets the masker drop most keyword runs without a regex.
 */
export function minMatchLength(src: string): number {
  let i = 0;
  const alt = (): number => {
    let best = Infinity;
    let cur = 0;
    while (i < src.length && src[i] !== ')') {
      if (src[i] === '|') {
        best = Math.min(best, cur);
        cur = 0;
        i++;
        continue;
      }
      let item: number;
      const ch = src[i];
      if (ch === '(') {
        i++;
        if (src[i] === '?') i += src[i + 1] === '<' ? src.indexOf('>', i) - i + 1 : 2;
        item = alt();
        i++; // ')'
      } else if (ch === '[') {
        i++;
        if (src[i] === ']') i++;
        while (i < src.length && src[i] !== ']') i += src[i] === '\\' ? 2 : 1;
        i++;
        item = 1;
      } else if (ch === '\\') {
        i += 2;
        item = 1;
      } else if (ch === '^' || ch === '$') {
        i++;
        item = 0;
      } else {
        i++;
        item = 1;
      }
      const q = src[i];
      if (q === '?' || q === '*') {
        item = 0;
        i++;
      } else if (q === '+') i++;
      else if (q === '{') {
        const close = src.indexOf('}', i);
        item *= parseInt(src.slice(i + 1, close), 10);
        i = close + 1;
      }
      if (src[i] === '?') i++; // lazy
      cur += item;
    }
    return Math.min(best, cur);
  };
  return alt();
}

let engine: Engine | undefined;

/** The compiled rule set (built on first use: about a millisecond, never at activation). */
export function builtinEngine(): Engine {
  if (engine) return engine;
  const keywords: string[] = [];
  const index = new Map<string, number>();
  const kwShapes: number[][] = [];
  const kwHandlers: Handler[][] = [];
  const idOf = (k: string): number => {
    let i = index.get(k);
    if (i === undefined) {
      i = keywords.length;
      keywords.push(k);
      index.set(k, i);
      kwShapes.push([]);
      kwHandlers.push([]);
    }
    return i;
  };
  const shapes: CompiledShape[] = SHAPE_RULES.map((rule, i) => {
    for (const k of rule.keywords) kwShapes[idOf(k.toLowerCase())].push(i);
    const src = rule.search ? `(?:${rule.pattern})$` : `^(?:${rule.pattern})$`;
    const lit = literalPrefix(rule.pattern).toLowerCase();
    return {
      rule,
      startKw: new Set(rule.search ? [] : rule.keywords.filter((k) => lit.startsWith(k.toLowerCase()))),
      re: new RegExp(src, (rule.ignoreCase ? 'i' : '') + 'd'),
      cls: classTable(rule.chars),
      dot: classTable(rule.chars)[46] === 1,
      marker: rule.marker ?? rule.id,
      minLen: minMatchLength(rule.pattern),
    };
  });
  for (const [kws, h] of CONTEXT_HANDLERS) for (const k of kws) kwHandlers[idOf(k)].push(h);
  const kubeKw = new Set(KUBE_KEYWORDS.map(idOf));
  const pemKw = idOf('private key');
  const scanner = new KeywordScanner(keywords);
  engine = { scanner, kwLen: Int32Array.from(keywords.map((k) => k.length)), kwShapes, kwHandlers, shapes, kubeKw, pemKw };
  return engine;
}

/** Multi-line state carried across batches. */
export interface BuiltinState {
  pem: boolean;
  /** Inside a Kubernetes Secret data block: its key indentation, and whether values are plain (stringData). */
  kube?: { indent: number; plain: boolean };
}

const PEM_BEGIN = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/;
const PEM_END = /-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/;
// A whole key on one line (e.g. JSON with escaped newlines). Lazy, but bounded by the END literal.
const PEM_INLINE = /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----[^-]{0,20000}-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----/g;
// Lines that can sit inside a PEM body: base64, RFC 1421 headers, blank.
const PEM_BODY = /^(?:[A-Za-z0-9+/=]*|[A-Za-z-]+: .*)\r?$/;
const KUBE_OPEN = /^(\s*)(?:(data|stringData):[ \t]*|"(data|stringData)":[ \t]*\{[ \t]*)\r?$/;
const KUBE_ENTRY = /^[ \t]*"?([\w.-]{1,253})"?[ \t]*:[ \t]*"?([^"\s]{1,4096}?)"?,?\r?$/;

function indentOf(line: string): number {
  let i = 0;
  while (i < line.length && (line.charCodeAt(i) === 32 || line.charCodeAt(i) === 9)) i++;
  return i;
}

/**
 * Masks a text made of whole lines (the last may lack its newline). Returns the text unchanged
 * (the same string) when nothing was found and no block is open, which is nearly always.
 */
export function maskBuiltin(text: string, state: BuiltinState, counter: { n: number }): string {
  const e = builtinEngine();
  const sc = e.scanner;
  const nh = sc.scan(text);
  if (nh === 0 && !state.pem && !state.kube) return text;
  let out = '';
  let copied = 0;
  let h = 0;
  let pos = 0;
  const spans: Span[] = [];
  const st: LineScanState = { nameEnd: 0, urlEnd: 0, authEnd: 0, bearerEnd: 0, handled: new Set() };
  const gen = new Int32Array(e.shapes.length).fill(-1);
  const lastEnd = new Int32Array(e.shapes.length);
  let lineNo = 0;
  while (pos <= text.length) {
    let ls: number;
    if (state.pem || state.kube) {
      ls = pos;
      if (ls >= text.length) break;
    } else {
      if (h >= nh) break;
      const ks = sc.hitEnd(h) - e.kwLen[sc.hitKeyword(h)];
      ls = text.lastIndexOf('\n', ks - 1) + 1;
      if (ls < pos) ls = pos;
    }
    const nl = text.indexOf('\n', ls);
    const le = nl === -1 ? text.length : nl;
    const next = nl === -1 ? text.length : nl + 1;
    // hits of this line
    const h0 = h;
    while (h < nh && sc.hitEnd(h) <= le) h++;
    lineNo++;
    const replaced = maskLine(text, ls, le, next, h0, h, state, counter, e, spans, st, gen, lastEnd, lineNo);
    if (replaced !== undefined) {
      out += text.slice(copied, ls) + replaced;
      copied = next;
    }
    pos = next;
    if (nl === -1) break;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** The replacement of [ls, next) (the line and its newline), or undefined to keep it. */
function maskLine(
  text: string, ls: number, le: number, next: number, h0: number, h1: number, state: BuiltinState, counter: { n: number },
  e: Engine, spans: Span[], st: LineScanState, gen: Int32Array, lastEnd: Int32Array, lineNo: number,
): string | undefined {
  const sc = e.scanner;
  let prefix = '';
  if (state.pem) {
    const line = text.slice(ls, le);
    if (PEM_END.test(line)) {
      state.pem = false;
      counter.n++;
      return maskMarker('private-key') + '\n';
    }
    if (PEM_BODY.test(line)) return '';
    // Not key material: the block was cut short. Mark it and treat this line normally.
    state.pem = false;
    counter.n++;
    prefix = maskMarker('private-key') + '\n';
  }
  spans.length = 0;
  st.nameEnd = st.urlEnd = st.authEnd = st.bearerEnd = ls;
  st.netrc = undefined;
  st.handled.clear();
  let pemHit = false;
  let kubeHit = false;
  if (state.kube) {
    const line = text.slice(ls, le);
    const ind = indentOf(line);
    if (ind === line.replace(/\r$/, '').length) {
      // blank line: the block goes on
    } else if (ind <= state.kube.indent) {
      state.kube = undefined;
    } else {
      const m = KUBE_ENTRY.exec(line);
      if (m && kubeValueIsSecret(m[2], state.kube.plain)) {
        const vs = ls + line.indexOf(m[2], line.indexOf(':') + 1);
        spans.push({ start: vs, end: vs + m[2].length, marker: 'kubernetes-secret', prio: 1 });
      }
    }
  }
  for (let h = h0; h < h1; h++) {
    const kw = sc.hitKeyword(h);
    const ke = sc.hitEnd(h);
    const ks = ke - e.kwLen[kw];
    if (kw === e.pemKw) pemHit = true;
    if (e.kubeKw.has(kw)) kubeHit = true;
    for (const si of e.kwShapes[kw]) shapeAt(text, ls, le, ks, ke, kw, si, e, gen, lastEnd, lineNo, spans);
    for (const hd of e.kwHandlers[kw]) hd(text, ls, le, ks, ke, st, spans);
  }
  let line: string | undefined;
  if (pemHit) {
    line = text.slice(ls, le);
    if (PEM_BEGIN.test(line) && !PEM_END.test(line)) {
      state.pem = true;
      return prefix === '' ? '' : prefix;
    }
  }
  if (kubeHit && !state.kube) {
    line ??= text.slice(ls, le);
    const m = KUBE_OPEN.exec(line);
    if (m) state.kube = { indent: m[1].length, plain: (m[2] ?? m[3]) === 'stringData' };
  }
  let body: string | undefined;
  if (spans.length > 0) body = applySpans(text, ls, le, spans, counter);
  if (pemHit) {
    const src = body ?? text.slice(ls, le);
    PEM_INLINE.lastIndex = 0;
    if (PEM_INLINE.test(src)) {
      PEM_INLINE.lastIndex = 0;
      body = src.replace(PEM_INLINE, () => {
        counter.n++;
        return maskMarker('private-key');
      });
    }
  }
  if (body === undefined && prefix === '') return undefined;
  return prefix + (body ?? text.slice(ls, le)) + text.slice(le, next);
}

function kubeValueIsSecret(v: string, plain: boolean): boolean {
  if (v === '|' || v === '>' || v === '|-' || v === '>-' || v === '{}' || v === 'null' || v === '""' || v === "''") return false;
  if (plain) return v.length > 0 && !v.startsWith('$') && !v.startsWith('{{');
  if (v.length < 4 || !/^[A-Za-z0-9+/]+={0,2}$/.test(v)) return false;
  return v.length % 4 === 0 || v.endsWith('=');
}

function shapeAt(text: string, ls: number, le: number, ks: number, ke: number, kw: number, si: number, e: Engine, gen: Int32Array, lastEnd: Int32Array, lineNo: number, spans: Span[]): void {
  if (gen[si] === lineNo && ks < lastEnd[si]) return; // inside a run this rule already looked at
  const s = e.shapes[si];
  const cls = s.cls;
  const inCls = (i: number): boolean => {
    const c = text.charCodeAt(i);
    return c < 128 && cls[c] === 1;
  };
  const minA = Math.max(ls, ks - MAX_TOKEN, gen[si] === lineNo ? lastEnd[si] : ls);
  let a = ks;
  const startsHere = s.startKw.has(e.scanner.keywords[kw]);
  if (!startsHere) while (a > minA && inCls(a - 1)) a--;
  let b = ke;
  while (b < le && inCls(b)) b++; // unbounded, so later hits inside the same long run are skipped
  gen[si] = lineNo;
  lastEnd[si] = b;
  if (!startsHere && a === minA && a > ls && inCls(a - 1)) return; // run longer than MAX_TOKEN (or glued to the previous one)
  if (b - a > MAX_TOKEN) return;
  if (b - a < s.minLen) return;
  if (a > ls && isAlnum(text.charCodeAt(a - 1))) return;
  if (b < le && isAlnum(text.charCodeAt(b))) return;
  let m = matchRun(s, text.slice(a, b));
  // A class with `=`, `+` or `/` can widen over `NAME=` before the token: retry from the keyword.
  if (!m && a < ks && b - ks >= s.minLen && !isAlnum(text.charCodeAt(ks - 1))) {
    a = ks;
    m = matchRun(s, text.slice(a, b));
  }
  if (!m) return;
  if (s.rule.check && !s.rule.check(m[0])) return;
  const idx = m.indices!;
  const [ms, me] = idx[1] ?? idx[0]!;
  spans.push({ start: a + ms, end: a + me, marker: s.marker, prio: 10000 - si }); // earlier (more specific) rules win
}

function matchRun(s: CompiledShape, tok: string): RegExpExecArray | null {
  const m = s.re.exec(tok);
  if (m || !s.dot || !tok.endsWith('.')) return m;
  return s.re.exec(tok.replace(/\.+$/, '')); // a sentence's full stop after the token
}

/** Replaces the spans (merging overlaps; the highest priority names the merged span). */
function applySpans(text: string, ls: number, le: number, spans: Span[], counter: { n: number }): string | undefined {
  spans.sort((x, y) => x.start - y.start || y.end - x.end);
  let out = '';
  let pos = ls;
  let i = 0;
  while (i < spans.length) {
    let { start, end, marker, prio } = spans[i];
    i++;
    while (i < spans.length && spans[i].start < end) {
      if (spans[i].end > end) end = spans[i].end;
      if (spans[i].prio > prio) {
        prio = spans[i].prio;
        marker = spans[i].marker;
      }
      i++;
    }
    if (start < pos) start = pos;
    if (end > le) end = le;
    if (end <= start) continue;
    out += text.slice(pos, start) + maskMarker(marker);
    pos = end;
    counter.n++;
  }
  if (pos === ls) return undefined;
  return out + text.slice(pos, le);
}
