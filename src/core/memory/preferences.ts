/**
 * `.agent/memory/preferences.yaml`: what the agent learned, as key → entry.
 *
 * ```yaml
 * test-command:
 *   value: npm run test:unit
 *   source: agent            # who wrote it: agent, user, mcp, …
 *   updated: 2026-11-29T19:00:00.000Z
 *   review: true             # set when a new value contradicted the previous one
 *   history:                 # earlier values, oldest first
 *     - { value: npm test, source: agent, updated: 2026-11-28T10:00:00.000Z }
 * ```
 * A hand-written `key: some text` (a plain scalar) is read as an entry with source `user`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseDocument, isMap, isScalar, Document } from 'yaml';
import { writeFileAtomic, appendLineAtomic } from '../fs/fsAtomic';
import { withFileLock } from '../fs/fileLock';
import { readOwnText } from '../fs/strictText';
import { FileDigests } from '../fs/fileDigests';
import { Result, ok, err } from '../result';
import { checkMemoryEntry, MEMORY_LIMITS } from './memoryGuard';
import { toPosixRelative } from '../workspace/relativePaths';
import { agentPath } from '../workspace/layout';

/** One earlier value of an entry. */
export interface MemoryVersion {
  value: string;
  source: string;
  updated: string;
}

/** One remembered fact or preference. */
export interface MemoryEntry extends MemoryVersion {
  key: string;
  /** 1-based line of the key in preferences.yaml. */
  line: number;
  review: boolean;
  history: MemoryVersion[];
}

/** What `remember` did. */
export interface RememberOutcome {
  entry: MemoryEntry;
  kind: 'created' | 'unchanged' | 'replaced';
  /** The previous value when it was replaced (and kept in history). */
  previous?: string;
}

const HEADER =
  '# Agent Context memory: key → { value, source, updated, review?, history? }.\n' +
  '# Written by the agentContext_memory tool; safe to edit by hand. `review: true` marks a value\n' +
  '# that contradicted an earlier one (kept under history) — check it, then clear the flag.\n';

/** Absolute path of preferences.yaml inside a `.agent` folder. */
export function preferencesPath(agentDir: string): string {
  return agentPath(agentDir, 'preferences');
}

function rel(agentDir: string, abs: string): string {
  return toPosixRelative(path.dirname(agentDir), abs);
}

function str(v: unknown): string | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

interface Loaded {
  doc: Document;
  entries: MemoryEntry[];
  text: string;
}

/**
 * Line numbers of offsets in `text`, counting from where the previous offset left off: the keys
 * come in file order, so the whole file is scanned once (a scan from the start per key made a
 * listing of 2,000 entries quadratic: over a second).
 */
function lineCounter(text: string): (offset: number | undefined) => number {
  let at = 0;
  let n = 1;
  return (offset) => {
    if (offset === undefined) return 1;
    if (offset < at) {
      at = 0;
      n = 1;
    }
    for (; at < offset && at < text.length; at++) if (text.charCodeAt(at) === 10) n++;
    return n;
  };
}

function parse(agentDir: string, text: string): Result<Loaded> {
  const file = rel(agentDir, preferencesPath(agentDir));
  const doc = parseDocument(text, { keepSourceTokens: false });
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    return err({ file, line: e.linePos?.[0].line, message: `invalid YAML: ${e.message.split('\n')[0]} — fix the file or delete it; nothing was changed` });
  }
  const entries: MemoryEntry[] = [];
  const lineOf = lineCounter(text);
  if (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null)) return ok({ doc, entries, text });
  if (!isMap(doc.contents)) return err({ file, line: 1, message: 'expected a mapping of key → entry at the top level; nothing was changed' });
  for (const pair of doc.contents.items) {
    const key = str(isScalar(pair.key) ? pair.key.value : pair.key);
    const line = lineOf(isScalar(pair.key) ? pair.key.range?.[0] : undefined);
    if (key === undefined) return err({ file, line, message: 'a key is not a plain string' });
    const raw = isScalar(pair.value) ? pair.value.value : (pair.value as { toJSON?: () => unknown } | null)?.toJSON?.();
    const plain = str(raw);
    if (plain !== undefined) {
      entries.push({ key, value: plain, source: 'user', updated: '', line, review: false, history: [] });
      continue;
    }
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return err({ file, line, message: `entry "${key}" must be a text or a mapping with a value` });
    const o = raw as Record<string, unknown>;
    const value = str(o.value);
    if (value === undefined) return err({ file, line, message: `entry "${key}" has no value` });
    const history: MemoryVersion[] = [];
    if (Array.isArray(o.history)) {
      for (const h of o.history as unknown[]) {
        const hv = h && typeof h === 'object' ? (h as Record<string, unknown>) : { value: h };
        const v = str(hv.value);
        if (v !== undefined) history.push({ value: v, source: str(hv.source) ?? '', updated: str(hv.updated) ?? '' });
      }
    }
    entries.push({ key, value, source: str(o.source) ?? 'user', updated: str(o.updated) ?? '', line, review: o.review === true, history });
  }
  return ok({ doc, entries, text });
}

async function load(agentDir: string): Promise<Result<Loaded>> {
  const r = await readOwnText(path.dirname(agentDir), preferencesPath(agentDir));
  if (!r.ok) return err({ file: rel(agentDir, preferencesPath(agentDir)), message: r.error });
  return parse(agentDir, r.value ?? '');
}

function toYaml(e: MemoryEntry): Record<string, unknown> {
  const o: Record<string, unknown> = { value: e.value, source: e.source, updated: e.updated };
  if (e.review) o.review = true;
  if (e.history.length) o.history = e.history.map((h) => ({ value: h.value, source: h.source, updated: h.updated }));
  return o;
}

async function save(agentDir: string, loaded: Loaded): Promise<void> {
  let out = loaded.doc.toString({ lineWidth: 0 });
  if (loaded.text.trim() === '') out = HEADER + (out.trim() === '{}' ? '' : out);
  await writeFileAtomic(preferencesPath(agentDir), out);
}

/** Normalises a value for comparison: case, surrounding and repeated whitespace do not make a contradiction. */
function norm(v: string): string {
  return v.trim().replace(/\s+/g, ' ').toLowerCase();
}

const isStr = (x: unknown): boolean => typeof x === 'string';
const isVersion = (v: unknown): boolean => typeof v === 'object' && v !== null && isStr((v as MemoryVersion).value) && isStr((v as MemoryVersion).source) && isStr((v as MemoryVersion).updated);

/** The entries of a preferences.yaml (or the error naming its line) as parse() produces them. */
function validListing(v: unknown): v is Result<MemoryEntry[]> {
  const o = v as { ok?: unknown; value?: unknown; error?: { file?: unknown; message?: unknown; line?: unknown } };
  if (typeof o !== 'object' || o === null) return false;
  if (o.ok === false) return typeof o.error === 'object' && o.error !== null && isStr(o.error.file) && isStr(o.error.message) && (o.error.line === undefined || typeof o.error.line === 'number');
  return o.ok === true && Array.isArray(o.value) && o.value.every((e: MemoryEntry) => isVersion(e) && isStr(e.key) && Number.isInteger(e.line) && typeof e.review === 'boolean' && Array.isArray(e.history) && e.history.every(isVersion));
}

/**
 * The parsed listing kept in `.agent/.cache/memory.json` and checked by a stat of preferences.yaml
 * (fs/fileDigests.ts): parsing 2,000 hand-written entries with their lines takes ~100 ms, every call.
 */
const MEMORY_DIGESTS = { cache: 'memoryDigests', version: 1, valid: validListing } as const;

/** Reads all memory entries in file order; an invalid file is an error naming its line. Parsed again only when the file changed. */
export async function listMemory(agentDir: string): Promise<Result<MemoryEntry[]>> {
  const file = preferencesPath(agentDir);
  const { values, failed } = await FileDigests.of(agentDir, MEMORY_DIGESTS).get([file], async (f) => {
    const l = parse(agentDir, await fs.promises.readFile(f, 'utf8'));
    return l.ok ? ok(l.value.entries) : l;
  });
  const listed = values.get(file);
  if (listed) return listed.ok ? ok([...listed.value]) : listed;
  const e = failed.get(file);
  if (e) return err({ file: rel(agentDir, file), message: `cannot read: ${e.message}` });
  // Missing (no entries yet), or not a regular file: read as before.
  const l = await load(agentDir);
  return l.ok ? ok(l.value.entries) : l;
}

/** Looks up one entry by key (exact match first, then case-insensitive). */
export async function recallMemory(agentDir: string, key: string): Promise<Result<MemoryEntry | undefined>> {
  const l = await listMemory(agentDir);
  if (!l.ok) return l;
  return ok(l.value.find((e) => e.key === key) ?? l.value.find((e) => e.key.toLowerCase() === key.toLowerCase()));
}

/**
 * Stores a value under a key after the guard accepts it. A different value for an existing key
 * keeps the old one in the entry's history and sets `review: true` instead of silently replacing it.
 */
export async function rememberMemory(
  agentDir: string,
  key: string,
  value: string,
  opts: { source?: string; now?: Date } = {},
): Promise<Result<RememberOutcome>> {
  const file = rel(agentDir, preferencesPath(agentDir));
  const refusal = checkMemoryEntry(key, value);
  if (refusal) return err({ file, message: `not remembered "${key.slice(0, 100)}": ${refusal}` });
  const source = opts.source ?? 'agent';
  const updated = (opts.now ?? new Date()).toISOString();
  return withFileLock(preferencesPath(agentDir), async () => {
    const l = await load(agentDir);
    if (!l.ok) return l;
    const loaded = l.value;
    const existing = loaded.entries.find((e) => e.key === key);
    let outcome: RememberOutcome;
    if (!existing) {
      if (loaded.entries.length >= MEMORY_LIMITS.entries) {
        return err({ file, message: `memory holds ${loaded.entries.length} entries, the limit is ${MEMORY_LIMITS.entries}; forget an entry first` });
      }
      const entry: MemoryEntry = { key, value, source, updated, line: 0, review: false, history: [] };
      outcome = { entry, kind: 'created' };
    } else if (norm(existing.value) === norm(value)) {
      const entry = { ...existing, value, source, updated };
      outcome = { entry, kind: 'unchanged' };
    } else {
      const previous: MemoryVersion = { value: existing.value, source: existing.source, updated: existing.updated };
      // The user is the authority: their own edit needs no review; anyone else's contradiction does.
      const review = source !== 'user';
      const entry = { ...existing, value, source, updated, review, history: [...existing.history, previous].slice(-20) };
      outcome = { entry, kind: 'replaced', previous: existing.value };
    }
    loaded.doc.set(key, loaded.doc.createNode(toYaml(outcome.entry)));
    await save(agentDir, loaded);
    const after = await load(agentDir);
    if (after.ok) outcome.entry.line = after.value.entries.find((e) => e.key === key)?.line ?? 0;
    return ok(outcome);
  });
}

/** Removes an entry; the removed entry is appended to `.agent/history/memory-forgotten.jsonl` so nothing is lost. */
export async function forgetMemory(agentDir: string, key: string, opts: { now?: Date } = {}): Promise<Result<MemoryEntry | undefined>> {
  return withFileLock(preferencesPath(agentDir), async () => {
    const l = await load(agentDir);
    if (!l.ok) return l;
    const existing = l.value.entries.find((e) => e.key === key);
    if (!existing) return ok(undefined);
    await appendLineAtomic(
      agentPath(agentDir, 'history', 'memory-forgotten.jsonl'),
      JSON.stringify({ time: (opts.now ?? new Date()).toISOString(), key, ...toYaml(existing) }),
    );
    l.value.doc.delete(key);
    await save(agentDir, l.value);
    return ok(existing);
  });
}

/** Clears an entry's review flag once the user has checked it (the history stays). */
export async function markMemoryReviewed(agentDir: string, key: string): Promise<Result<MemoryEntry | undefined>> {
  return withFileLock(preferencesPath(agentDir), async () => {
    const l = await load(agentDir);
    if (!l.ok) return l;
    const existing = l.value.entries.find((e) => e.key === key);
    if (!existing) return ok(undefined);
    const entry = { ...existing, review: false };
    l.value.doc.set(key, l.value.doc.createNode(toYaml(entry)));
    await save(agentDir, l.value);
    return ok(entry);
  });
}

/** Workspace-relative path of preferences.yaml, for references in tool results. */
export function preferencesRelPath(agentDir: string): string {
  return rel(agentDir, preferencesPath(agentDir));
}
