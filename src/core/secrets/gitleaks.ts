/**
 * The user's own scanner config: a gitleaks config (`.gitleaks.toml` at a workspace folder's root,
 * or the file named by `agentContext.secrets.gitleaksConfig` / `secrets.gitleaksConfig` in
 * `.agent/config.yaml`). Its rules are applied after the built-in ones, on the linear-time RE2
 * engine (gitleaks itself is written in Go, whose regexp package is RE2: the syntax is the same).
 *
 * Supported: `[[rules]]` with id, regex, keywords, secretGroup, entropy, and allowlists
 * (`[[rules.allowlists]]` or the older `[rules.allowlist]`: regexes, regexTarget, stopwords,
 * condition); global `[allowlist]` / `[[allowlists]]` (with targetRules). Rules with only a `path`
 * match file names, which terminal output has none of: they are skipped. `[extend]` is accepted;
 * the built-in rules always apply, so `useDefault` is implied. A rule that cannot be used is
 * reported by its id and skipped; the others still apply.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { RE2JS } from 're2js';
import { loadRe2, matchesEmpty, mergeRules, compileUserPatterns, type Allowlist, type CustomRule, type UserPatterns } from './custom';
import { searchDeps } from '../search/searchDeps';
import { plural } from '../output/humanize';

export interface GitleaksLoad {
  patterns: UserPatterns;
  /** One line per unusable rule or allowlist, naming the file and the rule id. */
  errors: string[];
  /** Rules skipped because they cannot apply to text (path-only). */
  skipped: string[];
}

type Table = Record<string, unknown>;

/** smol-toml (a small, spec-complete TOML 1.0 parser, in dist/search-deps.js), loaded when a gitleaks config exists. */
function parseToml(text: string): unknown {
  return searchDeps().parseToml(text);
}

function isTable(v: unknown): v is Table {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

/** Viper (gitleaks' config reader) matches keys case-insensitively: so do we. */
function get(t: Table, key: string): unknown {
  if (key in t) return t[key];
  const low = key.toLowerCase();
  for (const k of Object.keys(t)) if (k.toLowerCase() === low) return t[k];
  return undefined;
}

function strings(v: unknown): string[] | undefined {
  if (v === undefined) return [];
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) return undefined;
  return v as string[];
}

function compileRe(src: string): RE2JS {
  const { RE2JS: Re } = loadRe2();
  return Re.compile(src);
}

function allowlistOf(v: unknown, where: string, errors: string[]): (Allowlist & { targetRules: string[] }) | undefined {
  if (!isTable(v)) {
    errors.push(`${where}: not a table; expected regexes / stopwords / regexTarget / condition.`);
    return undefined;
  }
  const regexSrc = strings(get(v, 'regexes'));
  const stopwords = strings(get(v, 'stopwords'));
  const targetRules = strings(get(v, 'targetRules'));
  if (!regexSrc || !stopwords || !targetRules) {
    errors.push(`${where}: regexes, stopwords and targetRules must be arrays of strings.`);
    return undefined;
  }
  const targetRaw = get(v, 'regexTarget') ?? 'secret';
  if (targetRaw !== 'secret' && targetRaw !== 'match' && targetRaw !== 'line') {
    errors.push(`${where}: regexTarget ${JSON.stringify(targetRaw)} is not one of "secret", "match", "line".`);
    return undefined;
  }
  const cond = String(get(v, 'condition') ?? 'OR').toUpperCase();
  if (cond !== 'OR' && cond !== 'AND') {
    errors.push(`${where}: condition ${JSON.stringify(get(v, 'condition'))} is not "OR" or "AND".`);
    return undefined;
  }
  const regexes: RE2JS[] = [];
  for (const src of regexSrc) {
    try {
      regexes.push(compileRe(src));
    } catch (e) {
      errors.push(`${where}: regex ${JSON.stringify(src)} is not valid RE2: ${(e as Error).message}.`);
      return undefined;
    }
  }
  // Commits and paths cannot be checked against terminal text: with AND they make the list
  // unsatisfiable, with OR they simply never match.
  const hasUncheckable = (strings(get(v, 'commits')) ?? []).length > 0 || (strings(get(v, 'paths')) ?? []).length > 0;
  if (cond === 'AND' && hasUncheckable) return { regexes: [], stopwords: [], target: 'secret', and: true, targetRules };
  return { regexes, stopwords: stopwords.map((w) => w.toLowerCase()), target: targetRaw, and: cond === 'AND', targetRules };
}

/** Reads a gitleaks config's text; `file` names it in errors. Never throws. */
export function parseGitleaksConfig(text: string, file: string): GitleaksLoad {
  const errors: string[] = [];
  const skipped: string[] = [];
  const empty: GitleaksLoad = { patterns: { sources: [], rules: [], allow: [] }, errors, skipped };
  let doc: Table;
  try {
    doc = parseToml(text) as Table;
  } catch (e) {
    const err = e as Error & { line?: number; column?: number };
    errors.push(`${file}${err.line ? `:${err.line}` : ''}: not valid TOML: ${err.message.split('\n')[0]}; none of its rules are applied.`);
    return empty;
  }
  // Global allowlists (old single table and new array of tables).
  const globalAllow: (Allowlist & { targetRules: string[] })[] = [];
  const ga = get(doc, 'allowlist');
  if (ga !== undefined) {
    const a = allowlistOf(ga, `${file} [allowlist]`, errors);
    if (a) globalAllow.push(a);
  }
  const gas = get(doc, 'allowlists');
  if (gas !== undefined) {
    if (!Array.isArray(gas)) errors.push(`${file} [[allowlists]]: not an array of tables.`);
    else
      gas.forEach((x, i) => {
        const a = allowlistOf(x, `${file} [[allowlists]] #${i + 1}`, errors);
        if (a) globalAllow.push(a);
      });
  }
  const rulesRaw = get(doc, 'rules') ?? [];
  if (!Array.isArray(rulesRaw)) {
    errors.push(`${file}: "rules" is not an array of tables ([[rules]]); no rules applied.`);
    return empty;
  }
  const rules: CustomRule[] = [];
  rulesRaw.forEach((r, i) => {
    if (!isTable(r)) {
      errors.push(`${file} [[rules]] #${i + 1}: not a table; skipped.`);
      return;
    }
    const id = typeof get(r, 'id') === 'string' && (get(r, 'id') as string).length > 0 ? (get(r, 'id') as string) : `#${i + 1}`;
    const where = `${file} rule ${JSON.stringify(id)}`;
    const regex = get(r, 'regex');
    if (regex === undefined || regex === '') {
      if (get(r, 'path') !== undefined) skipped.push(id);
      else errors.push(`${where}: has neither regex nor path; skipped.`);
      return;
    }
    if (typeof regex !== 'string') {
      errors.push(`${where}: regex is not a string; skipped.`);
      return;
    }
    let re: RE2JS;
    try {
      re = compileRe(regex);
    } catch (e) {
      errors.push(`${where}: regex is not valid RE2 (the syntax gitleaks uses): ${(e as Error).message}; skipped.`);
      return;
    }
    if (matchesEmpty(re)) {
      errors.push(`${where}: regex matches empty text; skipped.`);
      return;
    }
    const keywords = strings(get(r, 'keywords'));
    if (!keywords) {
      errors.push(`${where}: keywords must be an array of strings; skipped.`);
      return;
    }
    const sg = get(r, 'secretGroup') ?? 0;
    if (typeof sg !== 'number' || !Number.isInteger(sg) || sg < 0) {
      errors.push(`${where}: secretGroup must be a whole number >= 0; skipped.`);
      return;
    }
    if (sg > re.groupCount()) {
      errors.push(`${where}: secretGroup ${sg} but the regex has ${plural(re.groupCount(), 'group')}; skipped.`);
      return;
    }
    const entropy = get(r, 'entropy') ?? 0;
    if (typeof entropy !== 'number' || entropy < 0) {
      errors.push(`${where}: entropy must be a number >= 0; skipped.`);
      return;
    }
    const allow: Allowlist[] = [];
    let bad = false;
    const one = get(r, 'allowlist');
    if (one !== undefined) {
      const a = allowlistOf(one, `${where} [rules.allowlist]`, errors);
      if (a) allow.push(a);
      else bad = true;
    }
    const many = get(r, 'allowlists');
    if (many !== undefined) {
      if (!Array.isArray(many)) {
        errors.push(`${where}: allowlists is not an array of tables; skipped.`);
        bad = true;
      } else
        many.forEach((x, k) => {
          const a = allowlistOf(x, `${where} [[rules.allowlists]] #${k + 1}`, errors);
          if (a) allow.push(a);
          else bad = true;
        });
    }
    if (bad) return; // a rule without its allowlist would mask what the user allowed
    // Global allowlists aimed at specific rules become that rule's own.
    for (const g of globalAllow) if (g.targetRules.includes(id)) allow.push(g);
    rules.push({ id, marker: safeMarker(id), re, keywords: keywords.map((k) => k.toLowerCase()), secretGroup: sg, entropy, allow });
  });
  const allow = globalAllow.filter((g) => g.targetRules.length === 0);
  return { patterns: { sources: [], rules, allow }, errors, skipped };
}

function safeMarker(id: string): string {
  const m = id.replace(/[^A-Za-z0-9_.-]+/g, '-').slice(0, 60);
  return m.length > 0 ? m : 'custom';
}

const cache = new Map<string, { mtimeMs: number; size: number; load: GitleaksLoad }>();

/** Loads a gitleaks config file (cached until it changes), or undefined when there is none. */
export function loadGitleaksFile(file: string): GitleaksLoad | undefined {
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch {
    return undefined;
  }
  const hit = cache.get(file);
  if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return hit.load;
  let load: GitleaksLoad;
  try {
    load = parseGitleaksConfig(fs.readFileSync(file, 'utf8'), file);
  } catch (e) {
    load = { patterns: { sources: [], rules: [], allow: [] }, errors: [`${file}: could not be read: ${(e as Error).message}`], skipped: [] };
  }
  cache.set(file, { mtimeMs: st.mtimeMs, size: st.size, load });
  return load;
}

export interface MaskerRuleSources {
  /** Workspace folder roots: `<root>/.gitleaks.toml` is used when present. */
  roots: readonly string[];
  /** Regexes from settings. */
  secretPatterns?: readonly string[];
  /** Explicit gitleaks config path (absolute, or relative to the first root); overrides discovery. */
  gitleaksConfig?: string;
}

/**
 * Every user rule that applies: settings patterns plus the gitleaks config. The one place the
 * terminal capture, agentContext_run / _offload, the ledger and the MCP server get their rules.
 */
export function userRulesFor(src: MaskerRuleSources): { rules: UserPatterns | undefined; errors: string[] } {
  const errors: string[] = [];
  let rules: UserPatterns | undefined;
  if (src.secretPatterns && src.secretPatterns.length > 0) {
    const c = compileUserPatterns([...src.secretPatterns]);
    errors.push(...c.errors);
    rules = c.patterns;
  }
  const files: string[] = [];
  if (src.gitleaksConfig && src.gitleaksConfig.trim()) {
    const p = src.gitleaksConfig.trim();
    const abs = path.isAbsolute(p) ? p : path.resolve(src.roots[0] ?? '.', p);
    if (!fs.existsSync(abs)) errors.push(`gitleaks config ${abs} (agentContext.secrets.gitleaksConfig): file not found; only the built-in rules apply.`);
    else files.push(abs);
  } else {
    for (const r of src.roots) {
      const f = path.join(r, '.gitleaks.toml');
      if (fs.existsSync(f)) files.push(f);
    }
  }
  for (const f of files) {
    const g = loadGitleaksFile(f);
    if (!g) continue;
    errors.push(...g.errors);
    rules = mergeRules(rules, g.patterns);
  }
  return { rules, errors };
}
