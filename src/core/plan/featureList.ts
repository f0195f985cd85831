/**
 * `.agent/features.json`: the feature list `[{ category, description, steps[], passes }]`.
 *
 * Tools may only flip `passes` (setPasses). Every accepted version and every setPasses is
 * appended to `.agent/history/features.accepted.jsonl` (history is append-only, so the accepted
 * snapshot is a log: the last `accept` record plus the `setPasses` records after it give the
 * expected list). A file that differs from that — a feature added, removed, reworded, or a
 * `passes` flipped by hand — is "tampered": tools refuse to work from it until the user accepts
 * it with the "Accept Feature List" command. An agent cannot quietly delete the test it cannot pass.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeCacheFile, writeFileAtomic } from '../fs/fsAtomic';
import { readOwnText } from '../fs/strictText';
import { withFileLock } from '../fs/fileLock';
import { appendHistoryRecord, historyDir } from '../history/archive';
import { Result, ok, err } from '../result';
import { foldFile, type FoldSpec } from '../fs/appendFold';
import { cacheFile } from '../workspace/cacheFiles';
import { toPosixRelative } from '../workspace/relativePaths';
import { agentPath } from '../workspace/layout';
import { fileKeyOf } from '../fs/stamps';

/** One feature of the list. */
export interface Feature {
  category: string;
  description: string;
  steps: string[];
  passes: boolean;
}

/** One difference between the accepted list and the file. */
export interface FeatureChange {
  kind: 'added' | 'removed' | 'reworded' | 'changed' | 'passes';
  /** Index in the file (added, reworded, changed, passes) or in the accepted list (removed). */
  index: number;
  before?: Feature;
  after?: Feature;
}

/** The list as checked against its accepted version. */
export interface FeatureState {
  /** Workspace-relative path of features.json. */
  path: string;
  features: Feature[];
  passing: number;
  total: number;
  tampered: boolean;
  changes: FeatureChange[];
  /** Readable difference, one line per change; empty when not tampered. */
  diffText: string;
  /** True when this check recorded the file as the first accepted version. */
  baselined: boolean;
}

/** Name of the append-only log of accepted versions under history/. */
export const FEATURES_LOG = 'features.accepted.jsonl';

type LogRecord =
  | { time: string; kind: 'accept'; by: string; features: Feature[] }
  | { time: string; kind: 'setPasses'; by: string; index: number; passes: boolean };

/** Absolute path of features.json. */
export function featuresPath(agentDir: string): string {
  return agentPath(agentDir, 'features');
}

function relPath(agentDir: string): string {
  return toPosixRelative(path.dirname(agentDir), featuresPath(agentDir));
}

/** Offset of the first syntax error in JSON text (Node 20's messages often omit it), or undefined. */
function jsonErrorOffset(t: string): number | undefined {
  let i = 0;
  const ws = () => {
    while (i < t.length && ' \t\r\n'.includes(t[i])) i++;
  };
  const fail = (): never => {
    throw i;
  };
  const value = (): void => {
    ws();
    const c = t[i];
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      i++;
      ws();
      if (t[i] === close) return void i++;
      for (;;) {
        if (c === '{') {
          ws();
          if (t[i] !== '"') fail();
          value();
          ws();
          if (t[i] !== ':') fail();
          i++;
        }
        value();
        ws();
        if (t[i] === ',') i++;
        else if (t[i] === close) return void i++;
        else fail();
      }
    }
    if (c === '"') {
      i++;
      while (i < t.length && t[i] !== '"') i += t[i] === '\\' ? 2 : 1;
      if (i >= t.length) fail();
      return void i++;
    }
    const m = /^(-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null)/.exec(t.slice(i, i + 64));
    if (!m) fail();
    i += m![0].length;
  };
  try {
    value();
    ws();
    return i < t.length ? i : undefined;
  } catch (pos) {
    return pos as number;
  }
}

function lineAt(text: string, pos: number): number {
  return text.slice(0, pos).split('\n').length;
}

/** Parses and validates features.json text; errors name the line. */
export function parseFeatures(text: string, file = '.agent/features.json'): Result<Feature[]> {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    const msg = (e as Error).message;
    const pos = jsonErrorOffset(text);
    return err({ file, line: pos !== undefined ? lineAt(text, pos) : undefined, message: `invalid JSON: ${msg.split('\n')[0]}` });
  }
  if (!Array.isArray(data)) return err({ file, line: 1, message: 'expected a JSON array of { category, description, steps, passes }' });
  const out: Feature[] = [];
  for (let i = 0; i < data.length; i++) {
    const f = data[i] as Record<string, unknown>;
    const where = `feature ${i}`;
    if (!f || typeof f !== 'object' || Array.isArray(f)) return err({ file, message: `${where} is not an object` });
    if (typeof f.description !== 'string' || !f.description.trim()) return err({ file, message: `${where} has no "description"` });
    if (f.category !== undefined && typeof f.category !== 'string') return err({ file, message: `${where}: "category" must be text` });
    if (f.steps !== undefined && (!Array.isArray(f.steps) || f.steps.some((s) => typeof s !== 'string'))) return err({ file, message: `${where}: "steps" must be a list of text` });
    if (f.passes !== undefined && typeof f.passes !== 'boolean') return err({ file, message: `${where}: "passes" must be true or false` });
    out.push({ category: (f.category as string) ?? '', description: f.description, steps: (f.steps as string[]) ?? [], passes: f.passes === true });
  }
  return ok(out);
}

interface LogState {
  /** The last accepted list with later setPasses applied; null before any accept. */
  base: Feature[] | null;
}

// The log only grows: fold it incrementally (an accept record replaces the list; setPasses flips one).
const LOG_SPEC: FoldSpec<LogState> & { id: string } = {
  id: 'features-log',
  version: 1,
  init: () => ({ base: null }),
  line(s, text) {
    if (!text.trim()) return;
    let r: LogRecord;
    try {
      r = JSON.parse(text) as LogRecord;
    } catch {
      return; // a torn last line from a crash: ignore it
    }
    if (r.kind === 'accept' && Array.isArray(r.features)) s.base = r.features.map((f) => ({ ...f, steps: [...(f.steps ?? [])] }));
    else if (r.kind === 'setPasses' && s.base?.[r.index]) s.base[r.index].passes = r.passes;
  },
};

/** The list the tools expect: the last accepted version with later setPasses applied; undefined if never accepted. */
async function expectedFeatures(agentDir: string): Promise<Feature[] | undefined> {
  const { state } = await foldFile(path.join(historyDir(agentDir), FEATURES_LOG), LOG_SPEC).read();
  return state.base ? state.base.map((f) => ({ ...f, steps: [...f.steps] })) : undefined;
}

const same = (a: Feature, b: Feature) => a.description === b.description && a.category === b.category && a.steps.length === b.steps.length && a.steps.every((s, i) => s === b.steps[i]);

/** Compares the accepted list with the file: additions, removals, rewordings, other edits and hand-flipped `passes`. */
export function diffFeatures(accepted: Feature[], current: Feature[]): FeatureChange[] {
  const changes: FeatureChange[] = [];
  const usedA = new Set<number>();
  const match = new Map<number, number>(); // current index → accepted index
  // Exact description matches first (a reorder is not a rewording), nearest index wins.
  // Indices by description, so a long list costs O(n), not O(n²).
  const byDescription = new Map<string, number[]>();
  accepted.forEach((a, ai) => {
    const l = byDescription.get(a.description);
    if (l) l.push(ai);
    else byDescription.set(a.description, [ai]);
  });
  current.forEach((c, ci) => {
    let best = -1;
    for (const ai of byDescription.get(c.description) ?? []) {
      if (!usedA.has(ai) && (best < 0 || Math.abs(ai - ci) < Math.abs(best - ci))) best = ai;
    }
    if (best >= 0) {
      usedA.add(best);
      match.set(ci, best);
    }
  });
  // Unmatched at the same position: a rewording.
  current.forEach((_c, ci) => {
    if (!match.has(ci) && ci < accepted.length && !usedA.has(ci)) {
      usedA.add(ci);
      match.set(ci, ci);
    }
  });
  current.forEach((c, ci) => {
    const ai = match.get(ci);
    if (ai === undefined) return changes.push({ kind: 'added', index: ci, after: c });
    const a = accepted[ai];
    if (a.description !== c.description) changes.push({ kind: 'reworded', index: ci, before: a, after: c });
    else if (!same(a, c)) changes.push({ kind: 'changed', index: ci, before: a, after: c });
    else if (a.passes !== c.passes) changes.push({ kind: 'passes', index: ci, before: a, after: c });
    return undefined;
  });
  accepted.forEach((a, ai) => {
    if (!usedA.has(ai)) changes.push({ kind: 'removed', index: ai, before: a });
  });
  return changes;
}

const q = (s: string) => JSON.stringify(s.length > 120 ? s.slice(0, 117) + '…' : s);

/** Formats changes as readable lines (`- removed`, `+ added`, `~ reworded "a" → "b"`). */
export function formatFeatureDiff(changes: FeatureChange[]): string {
  return changes
    .map((c) => {
      switch (c.kind) {
        case 'added':
          return `+ added feature ${c.index}: [${c.after!.category}] ${q(c.after!.description)}`;
        case 'removed':
          return `- removed accepted feature ${c.index}: [${c.before!.category}] ${q(c.before!.description)}`;
        case 'reworded':
          return `~ reworded feature ${c.index}: ${q(c.before!.description)} → ${q(c.after!.description)}`;
        case 'changed': {
          const what = c.before!.category !== c.after!.category ? `category ${q(c.before!.category)} → ${q(c.after!.category)}` : `steps changed (${c.before!.steps.length} → ${c.after!.steps.length})`;
          return `~ feature ${c.index} ${q(c.after!.description)}: ${what}`;
        }
        case 'passes':
          return `! feature ${c.index} ${q(c.after!.description)}: passes set to ${c.after!.passes} by hand, not through setPasses`;
      }
    })
    .join('\n');
}

async function readFile(agentDir: string): Promise<Result<{ text: string; features: Feature[] } | undefined>> {
  const r = await readOwnText(path.dirname(agentDir), featuresPath(agentDir));
  if (!r.ok) return err({ file: relPath(agentDir), message: r.error });
  if (r.value === undefined) return ok(undefined);
  const text = r.value;
  const p = parseFeatures(text, relPath(agentDir));
  return p.ok ? ok({ text, features: p.value }) : p;
}

/**
 * Reads features.json and checks it against the last accepted version. The first time a list is
 * seen (nothing accepted yet) it is recorded as accepted. Returns undefined when there is no file
 * and nothing was ever accepted.
 */
export async function checkFeatures(agentDir: string, opts: { now?: Date } = {}): Promise<Result<FeatureState | undefined>> {
  const r = await sharedFeatureState(agentDir, opts);
  if (!r.ok || !r.value) return r as Result<FeatureState | undefined>;
  const st = r.value;
  return ok({ ...st, features: [...st.features], changes: [...st.changes] });
}

/**
 * checkFeatures' answer itself, not a copy: the same object from one call to the next while neither
 * file changed, so a caller can keep what it derives from it (keyed by the object: the briefing's
 * failing list, 5,000 features mapped at every call otherwise). Never to be modified.
 */
export async function sharedFeatureState(agentDir: string, opts: { now?: Date } = {}): Promise<Result<Readonly<FeatureState> | undefined>> {
  const r = await check(agentDir, opts);
  if (!r.ok) return r;
  return ok(r.value.entry?.state);
}

/** A check's answer, kept while neither file changes (their stamp), with what setPasses needs to edit the list. */
interface Checked {
  key: string;
  state: FeatureState;
  /** features.json's text as checked (undefined: no file). */
  text: string | undefined;
  /**
   * The file and the accepted list agree description by description, position by position (no
   * reorder): diffFeatures then pairs feature i with accepted i, and a setPasses (which flips the
   * same index in both) leaves the list untampered.
   */
  aligned: boolean;
  /** Where each feature's `passes` value starts in text (-1: none), when text is this process's own write. */
  passesAt?: Int32Array;
}

interface Stamp {
  key: string;
  file: fs.Stats;
  log: fs.Stats;
}

const checked = new Map<string, Checked>();

/** Both files' keys (fs/stamps.ts) as one string: the feature list and its accepted log. */
const keyOf = (a: fs.Stats, b: fs.Stats): string => [...fileKeyOf(a), ...fileKeyOf(b)].join(':');

async function stamp(agentDir: string): Promise<Stamp | undefined> {
  try {
    const [file, log] = await Promise.all([fs.promises.stat(featuresPath(agentDir)), fs.promises.stat(path.join(historyDir(agentDir), FEATURES_LOG))]);
    return { key: keyOf(file, log), file, log };
  } catch {
    return undefined;
  }
}

async function stateKey(agentDir: string): Promise<string | undefined> {
  return (await stamp(agentDir))?.key;
}

/** The check behind checkFeatures and setPasses: unchanged file and log since the last check in this process give the same answer without re-reading a long list. */
async function check(agentDir: string, opts: { now?: Date }): Promise<Result<{ entry: Checked | undefined; stamp: Stamp | undefined }>> {
  const s = await stamp(agentDir);
  const hit = s && checked.get(agentDir);
  if (hit && hit.key === s.key) return ok({ entry: hit, stamp: s });
  const r = await checkFeaturesUncached(agentDir, opts);
  if (!r.ok) return r;
  const entry = r.value && { ...r.value, key: s?.key ?? '' };
  if (s && entry && !entry.state.baselined) checked.set(agentDir, entry);
  return ok({ entry, stamp: s });
}

/** What the Plan view's Features row shows: the counts and the verdict, not the list. */
export interface FeatureSummary {
  /** Workspace-relative path of features.json. */
  path: string;
  passing: number;
  total: number;
  tampered: boolean;
  /** Readable difference when tampered (see FeatureState.diffText); empty otherwise. */
  diffText: string;
}

const SUMMARY_VERSION = 1;

/** The file that keeps the last untampered summary between processes (`.agent/.cache/`, ignored by git). */
export function featuresSummaryPath(agentDir: string): string {
  return cacheFile(agentDir, 'featuresSummary');
}

/**
 * The Features row without reading the list when neither features.json nor its accepted log
 * changed since some process last checked them: that check's counts are kept in
 * `.agent/.cache/features-summary.json`, keyed on both files' device, inode, size and mtime, so an
 * edit by anyone (a tool, the user, another window, git) makes the next call check again. At L
 * (10,000 features, a 1.8 MB list and a 1.8 MB log) a check parses both in one go on the editor's
 * thread at every start; this costs two stats and a small read. Only an untampered result is kept:
 * a tampered list is checked each time (the user has to act on it anyway).
 */
export async function featuresSummary(agentDir: string, opts: { now?: Date } = {}): Promise<Result<FeatureSummary | undefined>> {
  const before = await stateKey(agentDir);
  const file = featuresSummaryPath(agentDir);
  if (before) {
    try {
      const o = JSON.parse(await fs.promises.readFile(file, 'utf8')) as { v?: number; key?: string; summary?: FeatureSummary };
      const sm = o?.summary;
      if (o?.v === SUMMARY_VERSION && o.key === before && sm && typeof sm.passing === 'number' && typeof sm.total === 'number' && sm.tampered === false) {
        return ok({ path: relPath(agentDir), passing: sm.passing, total: sm.total, tampered: false, diffText: '' });
      }
    } catch {
      // none yet, or unreadable: check the files themselves
    }
  }
  const r = await checkFeatures(agentDir, opts);
  if (!r.ok) return r;
  if (!r.value) return ok(undefined);
  const summary: FeatureSummary = { path: r.value.path, passing: r.value.passing, total: r.value.total, tampered: r.value.tampered, diffText: r.value.diffText };
  // Saved only when nothing changed during the check (a first-seen baseline appends to the log: the next call saves).
  if (before && !summary.tampered && (await stateKey(agentDir)) === before) {
    try {
      await writeCacheFile(file, JSON.stringify({ v: SUMMARY_VERSION, key: before, summary }));
    } catch {
      // a read-only folder: the next start checks again
    }
  }
  return ok(summary);
}

async function checkFeaturesUncached(agentDir: string, opts: { now?: Date }): Promise<Result<Omit<Checked, 'key'> | undefined>> {
  const f = await readFile(agentDir);
  if (!f.ok) return f;
  const expected = await expectedFeatures(agentDir);
  if (!f.value && !expected) return ok(undefined);
  const features = f.value?.features ?? [];
  let baselined = false;
  let changes: FeatureChange[] = [];
  if (!expected) {
    await appendHistoryRecord(agentDir, FEATURES_LOG, { time: (opts.now ?? new Date()).toISOString(), kind: 'accept', by: 'first-seen', features });
    baselined = true;
  } else {
    changes = diffFeatures(expected, features);
  }
  const state: FeatureState = {
    path: relPath(agentDir),
    features,
    passing: features.filter((x) => x.passes).length,
    total: features.length,
    tampered: changes.length > 0,
    changes,
    diffText: formatFeatureDiff(changes),
    baselined,
  };
  const aligned = !!expected && changes.length === 0 && expected.length === features.length && features.every((x, i) => x.description === expected[i].description);
  return ok({ state, text: f.value?.text, aligned });
}

/** Records the current features.json as the accepted version (the user's "Accept Feature List" command). */
export async function acceptFeatures(agentDir: string, opts: { by?: string; now?: Date } = {}): Promise<Result<{ total: number }>> {
  return withFileLock(featuresPath(agentDir), async () => {
    const f = await readFile(agentDir);
    if (!f.ok) return f;
    const features = f.value?.features ?? [];
    await appendHistoryRecord(agentDir, FEATURES_LOG, { time: (opts.now ?? new Date()).toISOString(), kind: 'accept', by: opts.by ?? 'user', features });
    return ok({ total: features.length });
  });
}

/** Sets one feature's `passes` (0-based index) — the only change tools may make; refused while the list is tampered. */
export async function setPasses(agentDir: string, index: number, passes: boolean, opts: { by?: string; now?: Date } = {}): Promise<Result<FeatureState>> {
  const file = relPath(agentDir);
  if (!Number.isInteger(index) || index < 0) return err({ file, message: `feature index must be a whole number from 0 (got ${String(index)})` });
  if (typeof passes !== 'boolean') return err({ file, message: 'passes must be true or false' });
  return withFileLock(featuresPath(agentDir), async () => {
    const c = await check(agentDir, opts);
    if (!c.ok) return c;
    const entry = c.value.entry;
    if (!entry) return err({ file, message: 'there is no features.json; create it (a JSON array of { category, description, steps, passes }) first' });
    const st = entry.state;
    if (st.tampered) {
      return err({ file, message: `the feature list was changed outside setPasses and is not accepted; ask the user to review and run "Agent Context: Accept Feature List". Differences:\n${st.diffText}` });
    }
    if (index >= st.features.length) return err({ file, message: `there is no feature ${index}; the list has ${st.features.length} (indices 0–${st.features.length - 1})` });
    // Our own last write: change the one value in place (what re-serializing would give, see
    // spliceEdit); any other text is parsed and re-serialized in the file's indentation and line ends.
    const edit = entry.passesAt && entry.passesAt[index] >= 0 ? spliceEdit(entry.text!, entry.passesAt, index, passes) : rewriteEdit(entry.text ?? '[]', index, passes);
    const written = await writeFileAtomic(featuresPath(agentDir), edit.text);
    const record = { time: (opts.now ?? new Date()).toISOString(), kind: 'setPasses', by: opts.by ?? 'tool', index, passes };
    await appendHistoryRecord(agentDir, FEATURES_LOG, record);
    const features = [...st.features];
    features[index] = { ...features[index], passes };
    const state: FeatureState = { ...st, features, changes: [...st.changes], passing: st.passing - (st.features[index].passes ? 1 : 0) + (passes ? 1 : 0) };
    await remember(agentDir, c.value.stamp, written, Buffer.byteLength(JSON.stringify(record) + '\n'), { ...entry, state, text: edit.text, passesAt: edit.passesAt });
    return ok({ ...state, features: [...features] });
  });
}

/**
 * Keeps the state after setPasses, so the next call neither reads nor parses the list, only when
 * it is provably what a check would find: features.json is the file we wrote (its inode and mtime),
 * the log grew by our record alone since the call's stamp, and the list is aligned with the
 * accepted one (else a check may disagree: leave it to the check).
 */
async function remember(agentDir: string, before: Stamp | undefined, written: fs.Stats, appended: number, next: Omit<Checked, 'key'>): Promise<void> {
  checked.delete(agentDir);
  if (!before || !next.aligned) return;
  const log = await fs.promises.stat(path.join(historyDir(agentDir), FEATURES_LOG)).catch(() => undefined);
  if (!log || log.dev !== before.log.dev || log.ino !== before.log.ino || log.size !== before.log.size + appended) return;
  checked.set(agentDir, { ...next, key: keyOf(written, log) });
}

interface PassesEdit {
  text: string;
  passesAt?: Int32Array;
}

/** Parses the list's text, sets one `passes` and writes it back in the text's indentation and line ends. */
function rewriteEdit(text: string, index: number, passes: boolean): PassesEdit {
  const raw = JSON.parse(text) as Record<string, unknown>[];
  raw[index].passes = passes;
  const indent = /^\[\s*\n(\s+)\{/.exec(text)?.[1] ?? '  ';
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const out = JSON.stringify(raw, null, indent).replace(/\n/g, eol) + eol;
  return { text: out, passesAt: locatePasses(out, indent, raw.length) };
}

/**
 * Where each feature's `passes` value starts in text written by rewriteEdit, or undefined when
 * that cannot be told for sure. JSON.stringify puts each feature's `{` on a line of one indent and
 * its keys on lines of two (strings cannot hold a raw line break), so a scan for those lines finds
 * them; deeper values have more indent.
 */
function locatePasses(text: string, indent: string, count: number): Int32Array | undefined {
  const gap = indent.slice(0, 10); // JSON.stringify uses at most 10 characters of indent
  if (!/^[ \t]+$/.test(gap)) return undefined;
  const at = new Int32Array(count).fill(-1);
  const re = new RegExp(`\\n${gap}(?:\\{|${gap}"passes": (?=true|false))`, 'g');
  let i = -1;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[0].endsWith('{')) i++;
    else if (i >= 0 && i < count) at[i] = m.index + m[0].length;
  }
  return i === count - 1 ? at : undefined;
}

/**
 * The same edit on our own last write without parsing it: the text is JSON.stringify's output,
 * which parsing and re-serializing gives back unchanged, so changing the one literal in place is
 * exactly what rewriteEdit would write. Later features' offsets move by the literal's change in length.
 */
function spliceEdit(text: string, passesAt: Int32Array, index: number, passes: boolean): PassesEdit {
  const at = passesAt[index];
  const was = text.startsWith('true', at) ? 'true' : 'false';
  const now = passes ? 'true' : 'false';
  const moved = passesAt.slice();
  const d = now.length - was.length;
  if (d) for (let j = index + 1; j < moved.length; j++) if (moved[j] >= 0) moved[j] += d;
  return { text: text.slice(0, at) + now + text.slice(at + was.length), passesAt: moved };
}
