/* What a search asks and what it yields, shared by the engines (grepEngine.ts) and the block scanner (blockScan.ts). */

/** One line of grep output: a match or a context line. */
export interface GrepHit {
  /** Absolute path. */
  file: string;
  line: number;
  text: string;
  context: boolean;
}

/** What to search and how; `regex` is the JavaScript form the built-in engine uses. */
export interface GrepQuery {
  /** The pattern as given (a regex source, or the literal text). */
  pattern: string;
  literal: boolean;
  caseSensitive: boolean;
  regex: RegExp;
  /** A folder or a single file (absolute). */
  root: string;
  /** Only files matching this glob (basename glob when it has no slash, like ripgrep's -g). */
  include?: string;
  /** Globs (relative to root) never searched. */
  exclude: readonly string[];
  /** Honour .gitignore (a workspace path) or not (.agent/). */
  useIgnoreFiles: boolean;
  /** Ignore globs from .gitignore for the built-in engine (ripgrep reads the files itself). */
  ignoreGlobs: readonly string[];
  context: number;
  signal: AbortSignal;
  /** How long ripgrep may run before it is stopped (default RIPGREP_TIMEOUT_MS). */
  timeoutMs?: number;
  /** Filled in by the engines: which one answered, what it could not read, whether it completed. */
  report?: GrepReport;
}

/** What a search could not do, so an answer never claims more than was searched. */
export interface GrepReport {
  engine: 'ripgrep' | 'builtin';
  /** Why ripgrep's answer was not used (it could not start, was killed, failed or hung). */
  fallback?: string;
  /** Files and folders that could not be read (the first UNREADABLE_KEPT), with the reason. */
  unreadable: { path: string; reason: string }[];
  /** All of them, also those not kept. */
  unreadableCount: number;
  /** Set when the search stopped before it had looked everywhere: why. */
  incomplete?: string;
}

