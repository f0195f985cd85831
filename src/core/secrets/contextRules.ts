/**
 * Context rules: secrets that have no shape of their own and are recognisable only by the name
 * next to them (`export DB_PASSWORD=...`, `"client_secret": "..."`, `X-Api-Key: ...`,
 * `Password=...;` in a connection string, `curl -u user:pass`, `mysql -pSECRET`...).
 *
 * Every handler starts from a keyword hit and scans a bounded distance around it, remembering
 * how far it has looked so that a later hit inside the same name or value is skipped: the work
 * per line stays linear in its length whatever the input (no regex runs over a whole line here).
 */

/** A span of the line to replace by a marker. */
export interface Span {
  start: number;
  end: number;
  marker: string;
  /** Higher wins when spans overlap (shapes name a secret more precisely than context does). */
  prio: number;
}

/** Longest name (each side of the keyword) and value a context rule looks at. */
const MAX_NAME = 80;
const MAX_VALUE = 1024;

// Character tables (ASCII only; anything else is neither).
const NAME = new Uint8Array(128);
const ALNUM = new Uint8Array(128);
const TOKEN = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  if (/[A-Za-z0-9]/.test(ch)) ALNUM[c] = 1;
  if (/[A-Za-z0-9_.\-]/.test(ch)) NAME[c] = 1;
  if (/[A-Za-z0-9._~+/:\-]/.test(ch)) TOKEN[c] = 1;
}
function isName(c: number): boolean {
  return c < 128 && NAME[c] === 1;
}
export function isAlnum(c: number): boolean {
  return c < 128 && ALNUM[c] === 1;
}
function isSpace(c: number): boolean {
  return c === 32 || c === 9;
}
function isQuote(c: number): boolean {
  return c === 34 || c === 39 || c === 96;
}
/** Ends an unquoted value: whitespace, quotes, separators of JSON, connection strings, URLs, shells. */
function endsValue(c: number): boolean {
  return c <= 32 || c === 34 || c === 39 || c === 96 || c === 44 || c === 59 || c === 125 || c === 93 || c === 41 || c === 38 || c === 92 || c === 60 || c === 62 || c === 124;
}

// ---- what a name says

const PASSWORD_WORDS = new Set(['password', 'passwd', 'pwd', 'pass', 'passphrase', 'passcode', 'pword']);
const SECRET_WORDS = new Set(['token', 'secret', 'credential', 'credentials', 'creds', 'apikey', 'authtoken', 'accesskey', 'secretkey', 'privatekey', 'accountkey', 'masterkey', 'sharedkey', 'signingkey', 'pat', 'dsn', 'webhook']);
const SECRET_SUFFIXES = ['password', 'passwd', 'token', 'secret', 'apikey', 'accesskey', 'secretkey', 'privatekey', 'accountkey', 'authkey'];
const KEY_QUALIFIERS = new Set([
  'api', 'private', 'secret', 'access', 'account', 'master', 'encryption', 'signing', 'client', 'app', 'application', 'service', 'storage',
  'subscription', 'deploy', 'consumer', 'shared', 'license', 'session', 'admin', 'write', 'ingest', 'sdk', 'server', 'personal', 'management',
  'auth', 'primary', 'secondary', 'integration', 'webhook', 'hmac', 'jwt', 'cookie', 'crypt', 'decryption', 'sas', 'function', 'host',
  'search', 'query', 'rest', 'mgmt', 'user', 'bot', 'live', 'test', 'prod', 'dev', 'sendgrid', 'stripe', 'openai', 'mistral', 'cohere',
]);
// A name ending in one of these names something about a secret, not the secret itself.
const NOT_SECRET_LAST = new Set([
  'file', 'files', 'path', 'dir', 'directory', 'url', 'uri', 'endpoint', 'host', 'hostname', 'port', 'name', 'names', 'type', 'types', 'kind',
  'mode', 'format', 'expiry', 'expires', 'expiration', 'expire', 'ttl', 'count', 'length', 'len', 'size', 'limit', 'id', 'ids', 'header', 'env',
  'var', 'field', 'prefix', 'version', 'enabled', 'enable', 'disabled', 'required', 'policy', 'rotation', 'provider', 'source', 'usage', 'region',
  'scope', 'scopes', 'audience', 'issuer', 'algorithm', 'alg', 'hint', 'label', 'description', 'ref', 'arn', 'lifetime', 'timeout', 'age', 'at',
  'created', 'updated', 'index', 'location', 'store', 'manager', 'helper', 'command', 'cmd', 'script', 'min', 'max', 'regex', 'pattern',
  'validation', 'strength', 'reset', 'changed', 'status', 'state', 'valid', 'invalid', 'error', 'errors', 'message', 'msg', 'help', 'placeholder',
  'input', 'prompt', 'class', 'set', 'exists', 'present', 'missing', 'count', 'budget', 'usage', 'estimate', 'estimated', 'total', 'left',
  'remaining', 'used', 'mount', 'volume', 'ref', 'selector', 'template', 'schema', 'option', 'options', 'flag', 'context', 'store', 'backend',
]);
const NOT_SECRET_FIRST = new Set(['max', 'min', 'num', 'total', 'prompt', 'completion', 'input', 'output', 'cached', 'reasoning', 'is', 'has', 'use', 'no', 'skip', 'show', 'validate', 'check', 'require', 'requires', 'forgot', 'n', 'next', 'page', 'continuation', 'cancellation', 'csrf', 'xsrf']);

export type SecretNameKind = 'password' | 'secret' | 'aws-secret-access-key';

function splitWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0);
}

const nameMemo = new Map<string, SecretNameKind | null>();

/** Whether a variable, key or header name says its value is a credential, and of which kind. */
export function secretNameKind(name: string): SecretNameKind | undefined {
  const memo = nameMemo.get(name);
  if (memo !== undefined) return memo ?? undefined;
  const kind = nameKindOf(name);
  if (nameMemo.size > 4096) nameMemo.clear();
  nameMemo.set(name, kind ?? null);
  return kind;
}

function nameKindOf(name: string): SecretNameKind | undefined {
  const words = splitWords(name);
  if (words.length === 0) return undefined;
  const last = words[words.length - 1];
  if (NOT_SECRET_LAST.has(last) || NOT_SECRET_FIRST.has(words[0])) return undefined;
  const joined = words.join('');
  if (joined.includes('secretaccesskey')) return 'aws-secret-access-key';
  let kind: SecretNameKind | undefined;
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (PASSWORD_WORDS.has(w) || w.endsWith('password') || w.endsWith('passwd')) return 'password';
    if (SECRET_WORDS.has(w)) kind = 'secret';
    else if (w === 'key' && i > 0 && KEY_QUALIFIERS.has(words[i - 1])) kind = 'secret';
    else if (w === 'auth' && i === words.length - 1) kind = 'secret';
    else if (SECRET_SUFFIXES.some((s) => w.length > s.length && w.endsWith(s))) kind = 'secret';
  }
  return kind;
}

// ---- what a value looks like

const PLACEHOLDER_WORDS = new Set([
  'true', 'false', 'null', 'none', 'nil', 'undefined', 'yes', 'no', 'on', 'off', 'required', 'optional', 'string', 'secret', 'password', 'token',
  'changeme', 'change_me', 'redacted', 'hidden', 'example', 'masked', 'xxx', 'dummy', 'placeholder', 'your_token', 'your_password', 'empty',
  'inherit', 'bearer', 'basic', 'function', 'object', 'boolean', 'number', 'env', 'default', 'unknown', 'unset', 'not-set', 'notset', 'todo',
]);

/**
 * Whether the value of a secret-named key looks like a credential rather than a path, a URL
 * without a password, a version, an ordinary word, a placeholder or a code expression.
 */
export function looksLikeCredential(value: string, kind: SecretNameKind): boolean {
  const v = value;
  const n = v.length;
  if (n < (kind === 'password' ? 4 : 8)) return false;
  const c0 = v.charCodeAt(0);
  // Placeholders and references: $VAR ${VAR} $(cmd) %VAR% <your-key> {{ tpl }} [MASKED:...] @Var@ #x
  if (c0 === 36 || c0 === 37 || c0 === 60 || c0 === 123 || c0 === 91 || c0 === 64 || c0 === 35) return false;
  // Code: a negated variable (`!isComplete`), an indexed one (`clauses[0]`).
  if ((c0 === 33 && /^![A-Za-z_$][A-Za-z_$]*\d{0,2}$/.test(v)) || /^[A-Za-z_$][A-Za-z_$.]*\d{0,2}\[\w*\]?$/.test(v)) return false;
  // One pass over the characters; the regexes below only run when these counts allow a match.
  let lower = 0;
  let upper = 0;
  let digit = 0;
  let dots = 0;
  let slashes = 0;
  let other = 0;
  let same = true;
  for (let i = 0; i < n; i++) {
    const c = v.charCodeAt(i);
    if (c !== c0) same = false;
    if (c >= 97 && c <= 122) lower++;
    else if (c >= 65 && c <= 90) upper++;
    else if (c >= 48 && c <= 57) digit++;
    else if (c === 46) dots++;
    else if (c === 45 || c === 95) continue; // - _ are word punctuation
    else if (c === 47) slashes++;
    else if (c === 40 || c === 41) return false; // a call: code, not a value
    else other++;
  }
  if (same) return false; // xxxxxxxx, ********
  // Ordinary words and identifiers: lowercase letters with - _ . only.
  if (upper === 0 && digit === 0 && other === 0 && slashes === 0 && lower > 0 && c0 >= 97) return false;
  // Under a token or key name, letters alone are a name (`token: CancellationToken`, `KEY=questionToken`):
  // a generated token has digits (32 random letters and digits lack one 4 times in 1,000).
  if (kind !== 'password' && digit === 0 && other === 0 && slashes === 0 && dots === 0) return false;
  if (n <= 16 && PLACEHOLDER_WORDS.has(v.toLowerCase())) return false;
  if ((c0 === 121 || c0 === 89) && /^your[_-]/i.test(v)) return false;
  // Paths and URLs (a URL's password is the URL rule's business). Not a folder check: a value that reads as a relative path.
  // eslint-disable-next-line no-restricted-syntax
  if (c0 === 47 || c0 === 126 || (c0 === 46 && (v.startsWith('./') || v.startsWith('../')))) return false;
  if (other > 0 && v.includes('://')) return false;
  if (other > 0 && n > 2 && v.charCodeAt(1) === 58 && (v.charCodeAt(2) === 92 || v.charCodeAt(2) === 47)) return false; // C:\
  if (slashes > 0 && dots > 0 && /^[\w.-]+\/[\w./-]+\.[a-z]{1,5}$/.test(v)) return false; // relative file path
  // Versions, integrity hashes.
  if (dots > 0 && digit > 0 && /^v?\d+(?:\.\d+)+(?:[-+][\w.]+)?$/.test(v)) return false;
  if ((c0 === 115 || c0 === 83) && /^sha(?:1|256|384|512)[-:]/i.test(v)) return false;
  // Member expressions (config.apiKey, process.env.TOKEN).
  // Optional chaining too (a?.b), and names with a digit or two at their end (type2.declaration).
  if (dots > 0 && slashes === 0 && /^[A-Za-z_$][A-Za-z_$]*\d{0,2}(?:\??\.[A-Za-z_$][A-Za-z_$]*\d{0,2})+$/.test(v)) return false;
  if (kind !== 'password') {
    if (upper === 1 && lower === n - 1 && c0 >= 65 && c0 <= 90) return false; // Capitalised word
    // Pure numbers under a token name are counts or ids; a credential mixes classes or is long.
    if (digit === n && n < 16) return false;
    // A number with digit separators (`1_000_000`): a limit in code.
    if (digit > 0 && lower === 0 && upper === 0 && other === 0 && /^\d{1,3}(?:_\d{3})+$/.test(v)) return false;
    if (lower === 0 && digit === 0 && other === 0 && slashes === 0 && dots === 0 && n < 24) return false; // ENUM_LIKE constants
  }
  return true;
}

// ---- handlers

/** Per-line memory of how far each handler has looked (reset for every line). */
export interface LineScanState {
  /** End of the last name-and-value looked at: hits before it are inside it. */
  nameEnd: number;
  /** The same for URLs, Authorization headers and Bearer tokens. */
  urlEnd: number;
  authEnd: number;
  bearerEnd: number;
  /** Whether the line looks like .netrc (`machine h login u password p`); computed on demand. */
  netrc?: boolean;
  handled: Set<string>;
}

/**
 * `NAME=value`, `NAME: value`, `"name": "value"`, `--name value`, `-e NAME=value`, `Name=value;`:
 * the keyword hit lies inside NAME.
 */
export function nameValue(text: string, ls: number, le: number, ks: number, ke: number, st: LineScanState, out: Span[]): void {
  if (ks < st.nameEnd) return;
  let ns = ks;
  const minNs = Math.max(ls, ks - MAX_NAME, st.nameEnd);
  while (ns > minNs && isName(text.charCodeAt(ns - 1))) ns--;
  let ne = ke;
  while (ne < le && isName(text.charCodeAt(ne))) ne++;
  st.nameEnd = ne;
  if (ne - ns > 2 * MAX_NAME + 20) return;
  if (ns > ls && ns === minNs && isName(text.charCodeAt(ns - 1))) return; // name too long
  // The separator first: it is cheap and rules out nearly every hit in ordinary text.
  let p = ne;
  // closing quote of the key, maybe escaped inside a JSON string
  if (text.charCodeAt(p) === 92 && isQuote(text.charCodeAt(p + 1))) p += 2;
  else if (isQuote(text.charCodeAt(p))) p++;
  const afterName = p;
  while (p < le && isSpace(text.charCodeAt(p))) p++;
  if (p >= le) return;
  const c = text.charCodeAt(p);
  const c1 = text.charCodeAt(p + 1);
  let spaced = false;
  let quotedOnly = false;
  if (c === 61 && c1 === 62) p += 2; // =>
  else if (c === 58 && c1 === 61) p += 2; // :=
  else if (c === 61) {
    if (c1 === 61) return; // == comparison
    p += 1;
  } else if (c === 58) {
    if (c1 === 58 || c1 === 47) return; // :: or ://
    p += 1;
  } else if (c === 44 && afterName > ne) {
    // `setProperty("API_TOKEN", "value")`, `{"name": "X_TOKEN", ...}` is not this: the value must be quoted
    p += 1;
    quotedOnly = true;
  } else if (p > afterName && isTypeThenAssign(text, p, le)) {
    // `var apiToken string = "..."` (Go): skip the type
    while (p < le && text.charCodeAt(p) !== 61) p++;
    p++;
  } else if (p > afterName) spaced = true; // `--password VALUE`, .netrc's `password VALUE`
  else return;
  // Leading dashes make a command-line flag; a trailing dot or dash is punctuation.
  let a = ns;
  while (a < ne && text.charCodeAt(a) === 45) a++;
  const flag = a > ns;
  let z = ne;
  while (z > a && (text.charCodeAt(z - 1) === 45 || text.charCodeAt(z - 1) === 46)) z--;
  const name = text.slice(a, z);
  if (spaced && !flag && name.toLowerCase() !== 'password') return;
  const kind = secretNameKind(name);
  if (!kind) return;
  if (spaced && !flag) {
    st.netrc ??= lineHas(text, ls, le, ' login ');
    if (!st.netrc) return;
  }
  // A blank after `=` or `:`: code (`x = y;`, `{ token: y }`), not `Password=abc;` or `TOKEN=abc`.
  const blankAfter = !spaced && !flag && isSpace(text.charCodeAt(p));
  while (p < le && isSpace(text.charCodeAt(p))) p++;
  if (spaced && text.charCodeAt(p) === 45) return; // `--flag --next-flag`: no value
  if (quotedOnly && !isQuote(text.charCodeAt(p))) return;
  const { span, end } = readValue(text, p, le);
  st.nameEnd = Math.max(st.nameEnd, end);
  if (!span) return;
  const value = text.slice(span[0], span[1]);
  if (!looksLikeCredential(value, kind)) return;
  if (blankAfter && codeReference(text, span, le)) return;
  out.push({ start: span[0], end: span[1], marker: kind, prio: 1 });
}

/**
 * A variable of source code on the right of `name = ` or `name: `, as agentContext_read and grep
 * show code and compilers print it (`tokenValue = saveTokenValue;`, `{ token: nextToken }`,
 * `x = token2 && y`, `fix: !isComplete,`): an unquoted identifier (at most two digits, at its end) or
 * its negation, followed by code punctuation. A secret written in code is a quoted literal; a config
 * file's `password = hunter2` ends its line and stays masked.
 */
function codeReference(text: string, span: [number, number], le: number): boolean {
  let q = span[1];
  while (q < le && isSpace(text.charCodeAt(q))) q++;
  if (q >= le || !CODE_AFTER.has(text.charCodeAt(q))) return false;
  return /^!?[A-Za-z_$][A-Za-z_$]*\d{0,2}$/.test(text.slice(span[0], span[1]));
}
/** ; , ) } ] [ ? & | = : what can follow a variable in code, and not a value in a config file. */
const CODE_AFTER = new Set([59, 44, 41, 125, 93, 91, 63, 38, 124, 61]);

/** `string = ` / `String = ` after a name: a typed declaration. */
function isTypeThenAssign(text: string, p: number, le: number): boolean {
  let q = p;
  while (q < le && q - p < 24 && isName(text.charCodeAt(q))) q++;
  if (q === p || q - p >= 24) return false;
  while (q < le && isSpace(text.charCodeAt(q))) q++;
  return text.charCodeAt(q) === 61 && text.charCodeAt(q + 1) !== 61;
}

function lineHas(text: string, ls: number, le: number, s: string): boolean {
  const i = text.indexOf(s, ls);
  return i !== -1 && i < le;
}

/**
 * The value starting at p: quoted (maybe escaped, as inside JSON strings) or up to a terminator.
 * `end` is how far it looked (a later hit before it is inside this value); `span` is absent when
 * there is no value, it is too long, or it is a quoted sentence (stopping at its first blank).
 */
function readValue(text: string, p: number, le: number): { span?: [number, number]; end: number } {
  let q = -1;
  let escaped = false;
  const c = text.charCodeAt(p);
  if (c === 92 && isQuote(text.charCodeAt(p + 1))) {
    q = text.charCodeAt(p + 1);
    escaped = true;
    p += 2;
  } else if (isQuote(c)) {
    q = c;
    p++;
  }
  const max = Math.min(le, p + MAX_VALUE);
  let e = p;
  if (q !== -1) {
    while (e < max) {
      const ch = text.charCodeAt(e);
      if (escaped ? ch === 92 && text.charCodeAt(e + 1) === q : ch === q && text.charCodeAt(e - 1) !== 92) break;
      if (!escaped && ch === 92 && text.charCodeAt(e + 1) === 110) break; // \n inside a JSON string
      if (ch === 32 || ch === 9) return { end: e }; // a sentence, not a credential
      e++;
    }
  } else {
    while (e < max && !endsValue(text.charCodeAt(e))) e++;
  }
  if (e === max && max < le && !endsValue(text.charCodeAt(e))) return { end: e };
  return e > p ? { span: [p, e], end: e } : { end: e };
}

/** `Authorization: Bearer|Basic|token|Bot|SSWS|ApiKey X` and a bare `Authorization: X`. */
export function authorization(text: string, ls: number, le: number, ks: number, ke: number, st: LineScanState, out: Span[]): void {
  if (ks < st.authEnd) return;
  let p = ke;
  st.authEnd = ke;
  if (text.charCodeAt(p) === 92 && isQuote(text.charCodeAt(p + 1))) p += 2;
  else if (isQuote(text.charCodeAt(p))) p++;
  while (p < le && isSpace(text.charCodeAt(p))) p++;
  const c = text.charCodeAt(p);
  if (c !== 58 && c !== 61) return;
  p++;
  while (p < le && isSpace(text.charCodeAt(p))) p++;
  if (text.charCodeAt(p) === 92 && isQuote(text.charCodeAt(p + 1))) p += 2;
  else if (isQuote(text.charCodeAt(p))) p++;
  let w = p;
  while (w < le && w - p < 20 && isSchemeChar(text.charCodeAt(w))) w++;
  const scheme = text.slice(p, w).toLowerCase();
  let vs = p;
  let marker = 'authorization';
  if (w < le && isSpace(text.charCodeAt(w)) && scheme.length > 0) {
    if (scheme === 'digest' || scheme === 'negotiate' || scheme === 'ntlm' || scheme === 'aws4-hmac-sha256') return;
    vs = w;
    while (vs < le && isSpace(text.charCodeAt(vs))) vs++;
    marker = scheme === 'basic' ? 'basic-auth' : scheme === 'bearer' ? 'bearer-token' : 'authorization';
  }
  const span = tokenRun(text, vs, le);
  if (!span) return;
  st.authEnd = span[1];
  st.bearerEnd = Math.max(st.bearerEnd, span[1]); // the Bearer handler need not look again
  const v = text.slice(span[0], span[1]);
  if (v.length < 8 || !/[0-9]/.test(v) && !(/[a-z]/.test(v) && /[A-Z]/.test(v))) return;
  if (v.startsWith('$') || v.startsWith('<') || v.startsWith('{{')) return;
  out.push({ start: span[0], end: span[1], marker, prio: 1 });
}

function isSchemeChar(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 45;
}

/** A credential-like run: token characters and trailing base64 padding. */
function tokenRun(text: string, p: number, le: number): [number, number] | undefined {
  let e = p;
  const max = Math.min(le, p + MAX_VALUE);
  while (e < max && text.charCodeAt(e) < 128 && TOKEN[text.charCodeAt(e)] === 1) e++;
  while (e < max && text.charCodeAt(e) === 61) e++;
  return e > p ? [p, e] : undefined;
}

/** `Bearer X` anywhere (the scheme without its header). */
export function bearer(text: string, ls: number, le: number, ks: number, ke: number, st: LineScanState, out: Span[]): void {
  if (ks < st.bearerEnd) return;
  let p = ke;
  if (!isSpace(text.charCodeAt(p))) return;
  while (p < le && isSpace(text.charCodeAt(p))) p++;
  st.bearerEnd = p;
  const span = tokenRun(text, p, le);
  if (!span) return;
  st.bearerEnd = span[1];
  const v = text.slice(span[0], span[1]);
  if (v.length < 8 || !/[0-9]/.test(v) || !/[A-Za-z]/.test(v)) return;
  out.push({ start: span[0], end: span[1], marker: 'bearer-token', prio: 1 });
}

/** `scheme://user:password@host`, except a docker reference `image:tag@sha256:...`. */
export function urlPassword(text: string, ls: number, le: number, ks: number, ke: number, st: LineScanState, out: Span[]): void {
  if (ks < st.urlEnd) return;
  let p = ke;
  const max = Math.min(le, p + 256);
  while (p < max) {
    const c = text.charCodeAt(p);
    if (c <= 32 || c === 47 || c === 58 || c === 64) break;
    p++;
  }
  st.urlEnd = p;
  if (p === ke || text.charCodeAt(p) !== 58) return;
  const ps = p + 1;
  let e = ps;
  const max2 = Math.min(le, ps + 512);
  while (e < max2) {
    const c = text.charCodeAt(e);
    if (c <= 32 || c === 47 || c === 64 || c === 34 || c === 39) break;
    e++;
  }
  st.urlEnd = e;
  if (e === ps || text.charCodeAt(e) !== 64) return;
  if (/^@sha(?:256|384|512):/.test(text.slice(e, e + 8))) return; // a pinned image digest
  out.push({ start: ps, end: e, marker: 'url-password', prio: 1 });
}

/**
 * Password flags of command lines: `curl -u user:pass`, `mysql -pPASS`, `redis-cli -a PASS`,
 * `docker login -p PASS`, `sshpass -p PASS`. Runs once per line and program.
 */
export function flagPassword(program: string, flags: readonly string[], mode: 'attached' | 'spaced' | 'both', userColon: boolean) {
  return (text: string, ls: number, le: number, ks: number, ke: number, st: LineScanState, out: Span[]): void => {
    const key = 'flag:' + program;
    if (st.handled.has(key)) return;
    st.handled.add(key);
    let p = ke;
    // Next occurrence of each flag (preceded by a space), cached so the line is searched once per flag.
    const next = flags.map(() => -2);
    const find = (f: string, from: number): number => {
      let i = text.indexOf(' ' + f, from);
      while (i !== -1 && i < le) {
        const after = text.charCodeAt(i + 1 + f.length);
        const spaced = after === 32 || after === 9 || after === 61;
        if (mode === 'both' ? i + 1 + f.length < le : mode === 'spaced' ? spaced : !spaced && i + 1 + f.length < le) return i;
        i = text.indexOf(' ' + f, i + 1);
      }
      return -1;
    };
    while (p < le) {
      let best = -1;
      let bestFlag = '';
      flags.forEach((f, k) => {
        if (next[k] !== -1 && next[k] < p) next[k] = find(f, p);
        const i = next[k];
        if (i !== -1 && (best === -1 || i < best)) {
          best = i;
          bestFlag = f;
        }
      });
      if (best === -1) return;
      let v = best + 1 + bestFlag.length;
      if (text.charCodeAt(v) === 61) v++;
      else while (v < le && isSpace(text.charCodeAt(v))) v++;
      const { span, end } = readValue(text, v, le);
      if (!span) {
        p = Math.max(v + 1, end);
        continue;
      }
      const e = span[1];
      let s = span[0];
      if (userColon) {
        while (s < e && text.charCodeAt(s) !== 58) s++;
        if (s === e) {
          p = e;
          continue;
        }
        s++;
      }
      const value = text.slice(s, e);
      if (value.length > 0 && !value.startsWith('$') && !/^(?:\*+|x+)$/i.test(value)) out.push({ start: s, end: e, marker: 'password', prio: 1 });
      p = Math.max(e, best + 1);
    }
  };
}
