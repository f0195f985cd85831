// The secret masker as it was before issue 12 (src/core/secrets.ts at the commit before it),
// built-in shapes only: the reference of bench row 12, so the cost of the wider coverage is
// measured against what it replaced, in the same run. Not used by the extension.
export interface MaskResult {
  text: string;
  count: number;
}


/** The kinds of secret the built-in shapes recognise; the marker names one of them. */
export type SecretKind =
  | 'github-token'
  | 'aws-access-key-id'
  | 'aws-secret-access-key'
  | 'slack-token'
  | 'openai-key'
  | 'anthropic-key'
  | 'jwt'
  | 'bearer-token'
  | 'basic-auth'
  | 'url-password'
  | 'private-key'
  | 'custom';

/** The text that replaces a secret of the given kind. */
export function maskMarker(kind: SecretKind): string {
  return `[MASKED:${kind}]`;
}

/** An unfinished line longer than this is masked and emitted in pieces rather than held. */
export const MAX_HELD_LINE = 1 << 20;

// One alternation, one pass per batch of lines. Groups: 1 github, 2 aws id, 3+4 aws secret
// (prefix, value), 5 slack, 6 anthropic, 7 openai, 8 jwt, 9+10 bearer, 11+12 basic,
// 13+14 url password (prefix, password). No `\s` that could cross a line break.
const BUILTIN = new RegExp(
  [
    /\b(gh[pousr]_[A-Za-z0-9]{20,255}|github_pat_[A-Za-z0-9_]{20,255})\b/.source,
    /\b((?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16})\b/.source,
    /(\b[Aa][Ww][Ss]_?[Ss][Ee][Cc][Rr][Ee][Tt]_?[Aa][Cc][Cc][Ee][Ss][Ss]_?[Kk][Ee][Yy](?:_[Ii][Dd])?["']?[ \t]*[=:][ \t]*["']?)([A-Za-z0-9/+=]{30,})/.source,
    /\b(xox[abprs]-[A-Za-z0-9-]{10,})/.source,
    /\b(sk-ant-[A-Za-z0-9_-]{20,})/.source,
    /\b(sk-[A-Za-z0-9_-]{20,})/.source,
    /\b(eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{10,})/.source,
    /(\b(?:[Bb]earer|BEARER)[ \t]+)([A-Za-z0-9._~+/-]{8,}=*)/.source,
    /(\b[Aa]uthorization:[ \t]*[Bb]asic[ \t]+)([A-Za-z0-9+/]{8,}=*)/.source,
    /(:\/\/[^\s/:@]+:)([^\s/@]+)(?=@)/.source,
  ].join('|'),
  'g',
);

const PEM_BEGIN = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/;
const PEM_END = /-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/;
// A whole key on one line (e.g. JSON with escaped newlines).
const PEM_INLINE = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/g;
// Lines that can sit inside a PEM body: base64, RFC 1421 headers, blank.
const PEM_BODY = /^(?:[A-Za-z0-9+/=]*|[A-Za-z-]+: .*)\r?$/;

function hasLetterAndDigit(s: string): boolean {
  return /[0-9]/.test(s) && /[A-Za-z]/.test(s);
}

// Every built-in shape contains one of these literals; String.includes scans far faster than the
// alternation, so text without any of them (nearly all output) skips the regex.
const TRIGGERS = ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_', 'PRIVATE KEY', 'AKIA', 'ASIA', 'AGPA', 'AIDA', 'AROA', 'ANPA', 'ANVA', 'AIPA', 'ecret', 'ECRET', 'xox', 'sk-', 'eyJ', 'earer', 'EARER', 'uthorization', '://'];

function mayHoldSecret(text: string): boolean {
  for (const t of TRIGGERS) if (text.includes(t)) return true;
  return false;
}

function maskBuiltin(text: string, counter: { n: number }): string {
  if (text.length === 0) return text;
  if (!mayHoldSecret(text)) return text;
  let out = text;
  if (out.includes('PRIVATE KEY')) {
    out = out.replace(PEM_INLINE, () => {
      counter.n++;
      return maskMarker('private-key');
    });
  }
  BUILTIN.lastIndex = 0;
  return out.replace(BUILTIN, (m: string, ...g: (string | undefined)[]) => {
    let r: string | undefined;
    if (g[0] !== undefined) r = maskMarker('github-token');
    else if (g[1] !== undefined) r = maskMarker('aws-access-key-id');
    else if (g[3] !== undefined) r = g[2] + maskMarker('aws-secret-access-key');
    else if (g[4] !== undefined) r = maskMarker('slack-token');
    else if (g[5] !== undefined) r = maskMarker('anthropic-key');
    // `sk-` alone is too common in names (sk-learn-...): require a mix of letters and digits.
    else if (g[6] !== undefined) r = hasLetterAndDigit(g[6].slice(3)) ? maskMarker('openai-key') : undefined;
    else if (g[7] !== undefined) r = maskMarker('jwt');
    else if (g[9] !== undefined) r = hasLetterAndDigit(g[9]) ? g[8] + maskMarker('bearer-token') : undefined;
    else if (g[11] !== undefined) r = g[10] + maskMarker('basic-auth');
    else if (g[13] !== undefined) r = g[12] + maskMarker('url-password');
    if (r === undefined) return m;
    counter.n++;
    return r;
  });
}

/** Masks known secret shapes (and the given user patterns) in a complete text. */
export function maskSecrets(text: string): MaskResult {
  const m = new StreamingMasker();
  const out = m.push(text) + m.flush();
  return { text: out, count: m.count };
}

/**
 * Streaming masker: a secret split across two chunks is still masked. push() returns the text
 * that is safe to emit now (holding back a short tail that could be the start of a secret),
 * flush() the rest.
 *
 * What is held back: the unfinished last line (a secret never spans a line break), and while a
 * PEM private-key block is open, nothing of it is emitted; the whole block becomes one marker
 * line. An unfinished line longer than MAX_HELD_LINE is cut at a space and emitted.
 */
export class StreamingMasker {
  private held = '';
  private inPem = false;
  private readonly counter = { n: 0 };


  /** How many secrets have been masked so far. */
  get count(): number {
    return this.counter.n;
  }

  push(chunk: string): string {
    if (chunk.length === 0) return '';
    const buf = this.held.length > 0 ? this.held + chunk : chunk;
    // `held` never contains a newline, so only the new chunk needs searching.
    const nl = chunk.lastIndexOf('\n');
    let cut = nl === -1 ? 0 : buf.length - chunk.length + nl + 1;
    if (cut === 0 && buf.length > MAX_HELD_LINE) {
      // A giant line with no newline: emit up to a space, keeping a tail that may hold a secret's start.
      const sp = buf.lastIndexOf(' ', buf.length - 4096);
      cut = sp > 0 ? sp + 1 : buf.length - 4096;
    }
    if (cut === 0) {
      this.held = buf;
      return '';
    }
    this.held = buf.slice(cut);
    return this.processComplete(buf.slice(0, cut));
  }

  flush(): string {
    const rest = this.held;
    this.held = '';
    const out = rest.length > 0 ? this.processComplete(rest) : '';
    if (this.inPem) {
      // An unterminated key at the very end: its body was swallowed; say so.
      this.inPem = false;
      return out + maskMarker('private-key') + '\n';
    }
    return out;
  }

  /** Masks text made of whole lines (the last may lack its newline only at flush). */
  private processComplete(text: string): string {
    if (!this.inPem && !text.includes('PRIVATE KEY')) return this.maskLines(text);
    // Slow path around PEM blocks, line by line.
    let out = '';
    let plainStart = 0;
    let pos = 0;
    while (pos < text.length) {
      const nl = text.indexOf('\n', pos);
      const end = nl === -1 ? text.length : nl + 1;
      const line = text.slice(pos, nl === -1 ? text.length : nl);
      let consumed = false;
      if (this.inPem) {
        consumed = true;
        if (PEM_END.test(line)) {
          this.inPem = false;
          out += maskMarker('private-key') + '\n';
          this.counter.n++;
          plainStart = end;
        } else if (!PEM_BODY.test(line)) {
          // Not key material: the block was cut short. Mark it and treat this line normally.
          this.inPem = false;
          out += maskMarker('private-key') + '\n';
          this.counter.n++;
          plainStart = pos;
          consumed = false;
        } else {
          plainStart = end;
        }
      }
      if (!consumed && PEM_BEGIN.test(line) && !PEM_END.test(line)) {
        out += this.maskLines(text.slice(plainStart, pos));
        this.inPem = true;
        plainStart = end;
      }
      pos = end;
    }
    if (!this.inPem) out += this.maskLines(text.slice(plainStart));
    return out;
  }

  private maskLines(text: string): string {
    return maskBuiltin(text, this.counter);
  }
}
