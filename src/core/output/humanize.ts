/**
 * Sizes, counts and ages as people read them. One formatter for the briefing, the tools' messages
 * and the views, so a size reads the same everywhere ("420 B" in the Scratch view and the briefing).
 */

/** A byte size: `420 B`, `3.4 KB`, `12.0 MB`, `1.2 GB` (binary units; under 1 KB in bytes). */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(1)} GB`;
}

/**
 * A count with thousands separators, as `n.toLocaleString('en-US')` writes it (`10,003`), without
 * ICU: the first toLocaleString of a process sets up a number formatter (~13 ms of CPU on Node 24,
 * paid by every editor start and MCP server's first call); this is a string operation. Anything but
 * a safe integer goes to toLocaleString.
 */
export function groupDigits(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString('en-US');
  const digits = String(Math.abs(n));
  let out = digits.slice(0, digits.length % 3 || 3);
  for (let i = out.length; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return n < 0 ? `-${out}` : out;
}

/**
 * A count and its noun, agreeing: `1 call`, `2 calls`, `10,003 files`, `1 entry` / `2 entries`
 * (`many` for a plural that is not the noun plus s). The one rule for plurals in every message,
 * view and report.
 */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${groupDigits(n)} ${n === 1 ? one : many}`;
}

/** `1 file · 12 B`, `10,003 files · 39.1 KB` (`sep` between the count and the size). */
export function countLabel(files: number, bytes: number, sep = ' · '): string {
  return `${plural(files, 'file')}${sep}${formatBytes(bytes)}`;
}

/**
 * An age that cannot be misread: `just now` (under a minute), `1 min ago`, `3 h ago`, `2 d ago`.
 * Callers that show several ages take `now` once per render, so equal times show equal ages.
 */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86_400)} d ago`;
}

/** A local date and time for tooltips (`toLocaleString` of the host), never raw UTC ISO; a bare date or unparsable text stays as written. */
export function formatLocalTime(t: number | string | Date): string {
  if (typeof t === 'string' && !/^\d{4}-\d\d-\d\dT\d/.test(t)) return t;
  const d = t instanceof Date ? t : new Date(t);
  return Number.isNaN(d.getTime()) ? String(t) : localFormat().format(d);
}

let local: Intl.DateTimeFormat | undefined;
/**
 * What Date.prototype.toLocaleString() uses (every field numeric, the default locale and zone), made
 * once: toLocaleString builds a formatter per call, ~0.25 ms, 13 ms for one page of the Terminals view.
 */
function localFormat(): Intl.DateTimeFormat {
  return (local ??= new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' }));
}
