// Row 23: retrieval precision. 46 questions over real recorded outputs (bench/retrieval/), each
// with its answer's lines marked by hand, asked three ways of one .agent/ tree holding every
// recording (the questions' outputs and an agent's everyday history around them):
// - ours: agentContext_search with the question as the query, then the read its answer proposes
//   ("Next: read lines a–b of …") whenever it proposes one (an agent cannot tell whether an answer
//   is complete; the answer proposes one only when its best window lacks part of its block,
//   core/search/ranked/windowRest.ts); beside it, the search alone, and how many proposed reads
//   added a marked line;
// - ripgrep with the question's keywords (`rg -uu -n -C 2 -i -F -e w1 -e w2 …`: .agent/ is git-ignored in most workspaces), the agent's usual move;
// - the head and tail an agent's own shell showed of the output that answers (bench/README.md,
//   "agents at a glance"): Codex (first and last 5 KB), Gemini CLI (first 8,000 and last 32,000
//   characters), opencode (last 950 lines), Copilot CLI (first 500 characters).
// Precision: loaded lines within CONTEXT_CREDIT lines of a marked line ÷ loaded lines; recall:
// marked lines loaded ÷ marked lines; per-question averages, each question weighing the same.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { corpusDir } from './corpusLoader';
import { loadBuilt, stats, type ConfigModule, type InvokeModule, type Row } from './harness';

interface TokensModule {
  countTokens(text: string): { tokens: number };
}
interface ServiceModule {
  stopSearchWorker(): Promise<void>;
}
interface ScratchModule {
  slugify(hint: string): string;
}
interface ReferenceModule {
  buildReferenceFromText(text: string, meta: { path: string; command?: string; exitCode?: number; range?: { start: number; end: number } }): string;
}

export interface Question {
  id: string;
  q: string;
  /** The recording: `<name>` in bench/retrieval/outputs/, or `corpus:<name>` in bench/corpus/. */
  output: string;
  gold: number[];
  /** Other places of the same output stating the same answer in full. */
  alt?: number[][];
  /** Places in other outputs stating the same answer (the same error in another run of the tool). */
  elsewhere?: { output: string; lines: number[] }[];
  /** Where the output is in the searched tree (set when the tree is built). */
  file: string;
  /** Every place that answers: the marked lines and the alternatives, each with its file in the tree. */
  places: { file: string; lines: number[] }[];
}

/** A loaded line within this many lines of a marked one counts as relevant (the rule). */
const CONTEXT_CREDIT = 2;
/** Words of a question nobody greps for. */
const RG_STOP = new Set('a an and are as at be by can could did do does for from had has have how i in into is it its of on or not the their them then this to was were what when where which who why will with would after about'.split(' '));

/** Where the recordings are, and the tree the questions' `file` paths are in. */
/** What the bench's tool calls over a retrieval tree at `root` run with (an MCP call of a trusted folder, no commands). */
export function retrievalToolContext(root: string, config: ConfigModule) {
  return {
    folders: [{ name: 'bench', path: root }], config: config.DEFAULT_TOOL_CONFIG, signal: new AbortController().signal,
    log: { info() {}, warn() {}, error() {}, debug() {}, trace() {} }, source: 'mcp' as const, trusted: true, allowRun: false,
  };
}

/** Searches until the index holds the whole tree (a search answers from what it indexed within its time, and says what is not indexed yet). */
export async function indexWhole(invoke: InvokeModule, ctx: ReturnType<typeof retrievalToolContext>, what: string): Promise<void> {
  for (let i = 0; ; i++) {
    const warm = await invoke.invokeTool('agentContext_search', { query: 'warm up the index' }, ctx);
    if (!/^Not indexed yet: /m.test(warm.text)) return;
    if (i >= 600) throw new Error(`${what} is still not indexed after ${i} searches: ${warm.text.slice(0, 500)}`);
  }
}

export function retrievalDir(): string {
  for (const dir of [path.resolve(__dirname, 'retrieval'), path.resolve(__dirname, '../../bench/retrieval')]) {
    if (fs.existsSync(path.join(dir, 'questions.json'))) return dir;
  }
  throw new Error(`bench/retrieval/questions.json not found near ${__dirname}`);
}

/** A fixed ULID-like suffix for a saved output's name (agentContext_run adds a ULID to the command's slug). */
function suffix(name: string): string {
  let h = 2166136261;
  for (const c of name) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
  const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  let out = '01JE';
  for (let i = 0; i < 22; i++) {
    h = Math.imul(h ^ (h >>> 13), 0x5bd1e995) >>> 0;
    out += alphabet[h % 32];
  }
  return out;
}

/**
 * Builds `<root>/.agent/` from the recordings: single-command outputs in scratch/tool_outputs/, named
 * after their commands as agentContext_run names them (`cargo-build-01JE….txt`), and the two
 * recorded terminal sessions as terminals/1.txt and 2.txt. Returns where each recording went.
 */
export function buildRetrievalTree(root: string, slugify: (hint: string) => string): { files: number; bytes: number; where: Map<string, string>; commands: Map<string, string> } {
  fs.rmSync(root, { recursive: true, force: true });
  const agent = path.join(root, '.agent');
  const dir = retrievalDir();
  const where = new Map<string, string>();
  const commandOf = new Map<string, string>();
  let files = 0;
  let bytes = 0;
  const add = (output: string, rel: string, data: Buffer): void => {
    fs.mkdirSync(path.dirname(path.join(agent, rel)), { recursive: true });
    fs.writeFileSync(path.join(agent, rel), data);
    where.set(output, rel);
    files++;
    bytes += data.length;
  };
  const saved = (output: string, command: string, data: Buffer, ext = '.txt'): void => {
    const rel = `scratch/tool_outputs/${slugify(command)}-${suffix(output)}${ext}`;
    add(output, rel, data);
    commandOf.set(rel, command);
  };
  const out = path.join(dir, 'outputs');
  const commands = (JSON.parse(fs.readFileSync(path.join(out, 'commands.json'), 'utf8')) as { commands: Record<string, string> }).commands;
  for (const [name, command] of Object.entries(commands)) saved(name, command, fs.readFileSync(path.join(out, name)));
  add('session-migrations.txt', 'terminals/1.txt', fs.readFileSync(path.join(out, 'session-migrations.txt')));
  add('history/session-docs.txt', 'terminals/2.txt', fs.readFileSync(path.join(out, 'history', 'session-docs.txt')));
  const corpus = corpusDir();
  const manifest = JSON.parse(fs.readFileSync(path.join(corpus, 'manifest.json'), 'utf8')) as { entries: { file: string; command: string }[] };
  for (const e of manifest.entries) {
    let data = fs.readFileSync(path.join(corpus, e.file));
    let name = e.file;
    if (name.endsWith('.gz')) {
      data = zlib.gunzipSync(data);
      name = name.slice(0, -3);
    }
    saved(`corpus:${name}`, e.command, data, name.endsWith('.json') ? '.json' : '.txt');
  }
  return { files, bytes, where, commands: commandOf };
}

/** Sets a question's file and every place that answers it, from where the tree put each recording. */
export function resolvePlaces(q: Question, where: ReadonlyMap<string, string>): void {
  const at = (output: string): string => {
    const f = where.get(output);
    if (!f) throw new Error(`bench/retrieval/questions.json: ${q.id}: no recording ${output}`);
    return f;
  };
  q.file = at(q.output);
  q.places = [q.gold, ...(q.alt ?? [])].map((lines) => ({ file: q.file, lines }));
  for (const e of q.elsewhere ?? []) q.places.push({ file: at(e.output), lines: e.lines });
}

/** The lines of `file` (1-based). */
function linesOf(agentDir: string, rel: string): string[] {
  const text = fs.readFileSync(path.join(agentDir, rel), 'utf8');
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Lines loaded: `rel\0n` keys. */
type Loaded = Set<string>;
const key = (rel: string, n: number): string => `${rel}\0${n}`;

/** The file lines a search answer quotes: `.agent/<rel>:a-b (…)` headers, then `L<n>: text`. */
export function searchLines(text: string): Loaded {
  const out: Loaded = new Set();
  let rel: string | undefined;
  for (const line of text.split('\n')) {
    const h = /^\.agent\/(\S+):\d+-\d+(?: \(.*\))?$/.exec(line);
    if (h) rel = h[1];
    const m = /^L(\d+): /.exec(line);
    if (m && rel) out.add(key(rel, Number(m[1])));
    if (line === '') rel = rel ?? undefined;
  }
  return out;
}

/** The file lines a read answer quotes: `.agent/<rel>: lines a–b …` then `n: text`. */
export function readLines(text: string): Loaded {
  const out: Loaded = new Set();
  const h = /^\.agent\/(\S+): lines /m.exec(text);
  if (!h) return out;
  for (const m of text.matchAll(/^(\d+): /gm)) out.add(key(h[1], Number(m[1])));
  return out;
}

/**
 * What an agent loads for question q following our answers (row 23a): the search's answer, then the
 * read it proposes ("Next: read lines a–b of .agent/…"), whenever it proposes one: an agent cannot
 * see the marks. `searchMs`: the search call alone.
 */
export async function agentPath(invoke: InvokeModule, ctx: unknown, q: Question): Promise<{ answer: string; searchMs: number; searched: Loaded; loaded: Loaded; readText: string | undefined }> {
  const t0 = performance.now();
  const a = await invoke.invokeTool('agentContext_search', { query: q.q }, ctx);
  const searchMs = performance.now() - t0;
  if (a.isError) throw new Error(`agentContext_search failed on ${q.id}: ${a.text}`);
  const searched = searchLines(a.text);
  const loaded = new Set(searched);
  let readText: string | undefined;
  const next = /^Next: read lines (\d+)–(\d+) of \.agent\/(\S+) /m.exec(a.text);
  if (next) {
    const r = await invoke.invokeTool('agentContext_read', { path: `.agent/${next[3]}`, offset: Number(next[1]), limit: Number(next[2]) - Number(next[1]) + 1 }, ctx);
    for (const k of readLines(r.text)) loaded.add(k);
    readText = r.text;
  }
  return { answer: a.text, searchMs, searched, loaded, readText };
}

/**
 * ripgrep's arguments for a question, the agent's usual move (`rg -uu -n -C 2 -i -F -e w1 -e w2 … .agent`),
 * with `--null`: each path ends in a NUL where ripgrep prints `:` or `-`, so a file named
 * `rust-backtrace-1-cargo-test-….txt` is not read as line 1 of `rust-backtrace` (it was: ripgrep's
 * recall was under-counted for every output with `-<digits>-` in its name). What the agent would
 * read is rgShown of the output.
 */
export function rgArgs(question: string): string[] {
  return ['-uu', '-n', '-C', '2', '-i', '-F', '--null', ...keywordsOf(question).flatMap((w) => ['-e', w]), '.agent'];
}

/** ripgrep's output as it prints it without `--null` (each path's NUL back to the `:` or `-` after its line number): the text an agent reads. */
export function rgShown(output: string): string {
  return output.replace(/\0(\d+)([:-])/g, '$2$1$2');
}

/** The file and line of one line of ripgrep's output with `--null` (`path\0n:text`, context `path\0n-text`); undefined for a `--` separator or a path outside agentPrefix. */
export function rgLineOf(line: string, agentPrefix: string): { rel: string; n: number } | undefined {
  if (!line.startsWith(agentPrefix)) return undefined;
  const end = line.indexOf('\0', agentPrefix.length);
  if (end < 0) return undefined;
  const m = /^(\d+)[:-]/.exec(line.slice(end + 1, end + 16));
  return m ? { rel: line.slice(agentPrefix.length, end), n: Number(m[1]) } : undefined;
}

/** The file lines of ripgrep's output. */
export function rgLines(text: string, agentPrefix: string): Loaded {
  const out: Loaded = new Set();
  for (const line of text.split('\n')) {
    const at = rgLineOf(line, agentPrefix);
    if (at) out.add(key(at.rel, at.n));
  }
  return out;
}

/**
 * Precision and recall of what was loaded for a question, fed one loaded line at a time: relevant are
 * the loaded lines within CONTEXT_CREDIT lines of a marked line (of the answer or of an alternative
 * place); recall is of the answer, or of the alternative place most of whose lines were loaded. Only
 * counts and the marked lines found are kept, so ripgrep's output at 1 GB (longer than Node's longest
 * string) is scored as it streams. Each line is given once (ripgrep prints a line once: its
 * overlapping contexts are merged).
 */
export class LoadedScore {
  private lines = 0;
  private relevant = 0;
  private readonly found = new Set<string>();
  constructor(private readonly q: Pick<Question, 'places'>) {}
  add(rel: string, n: number): void {
    this.lines++;
    if (this.q.places.some((p) => p.file === rel && p.lines.some((g) => Math.abs(g - n) <= CONTEXT_CREDIT))) this.relevant++;
    if (this.q.places.some((p) => p.file === rel && p.lines.includes(n))) this.found.add(key(rel, n));
  }
  result(): { precision: number; recall: number; lines: number } {
    const recall = Math.max(...this.q.places.map((p) => p.lines.filter((g) => this.found.has(key(p.file, g))).length / p.lines.length));
    return { precision: this.lines ? this.relevant / this.lines : 0, recall, lines: this.lines };
  }
}

/** LoadedScore of a set of loaded lines. */
export function score(loaded: Loaded, q: Pick<Question, 'places'>): { precision: number; recall: number; lines: number } {
  const s = new LoadedScore(q);
  for (const k of loaded) {
    const [rel, n] = k.split('\0');
    s.add(rel, Number(n));
  }
  return s.result();
}

/** The question's keywords, as an agent greps them: its words but the question's own, punctuation around them dropped. */
export function keywordsOf(question: string): string[] {
  const words = question.split(/\s+/).map((w) => w.replace(/^[^\p{L}\p{N}_]+|[^\p{L}\p{N}_]+$/gu, '')).filter((w) => w.length >= 2 && !RG_STOP.has(w.toLowerCase()));
  return [...new Set(words.map((w) => w.toLowerCase()))];
}

/** The lines (1-based) of an output an agent's own shell showed: head and tail within the shape's limits. */
export type Shape = { name: string; pick: (lines: string[]) => number[] };

function byChars(lines: string[], head: number, tail: number): number[] {
  const total = lines.reduce((s, l) => s + l.length + 1, 0);
  if (total <= head + tail) return lines.map((_, i) => i + 1);
  const out: number[] = [];
  let used = 0;
  for (let i = 0; i < lines.length && used < head; i++) {
    out.push(i + 1);
    used += lines[i].length + 1;
  }
  used = 0;
  for (let i = lines.length - 1; i >= 0 && used < tail; i--) {
    if (!out.includes(i + 1)) out.push(i + 1);
    used += lines[i].length + 1;
  }
  return out;
}

export const SHAPES: Shape[] = [
  { name: 'Codex CLI (first and last 5 KB)', pick: (l) => byChars(l, 5 * 1024, 5 * 1024) },
  { name: 'Gemini CLI (first 8,000 and last 32,000 characters)', pick: (l) => byChars(l, 8000, 32000) },
  { name: 'opencode (last 950 lines)', pick: (l) => l.map((_, i) => i + 1).slice(-950) },
  { name: 'Copilot CLI (first 500 characters)', pick: (l) => byChars(l, 500, 0) },
];

/**
 * The command output an agent's shell showed for a question: the whole file of a single command's
 * output, or, in a terminal capture, each command block holding a marked line.
 */
function shownOutputs(agentDir: string, q: Question): { first: number; lines: string[]; command?: string }[] {
  const lines = linesOf(agentDir, q.file);
  if (!q.file.startsWith('terminals/')) return [{ first: 1, lines }];
  const marked = q.places.filter((p) => p.file === q.file).flatMap((p) => p.lines);
  const blocks: { first: number; lines: string[]; command?: string }[] = [];
  const starts: number[] = [];
  lines.forEach((l, i) => {
    if (l.startsWith('>>> command ')) starts.push(i + 2);
  });
  for (const s of starts) {
    let e = s;
    while (e <= lines.length && !lines[e - 1].startsWith('<<< command ')) e++;
    if (marked.some((g) => g >= s && g < e)) blocks.push({ first: s, lines: lines.slice(s - 1, e - 1), command: / \| \$ (.*)$/.exec(lines[s - 2])?.[1] });
  }
  return blocks;
}

export interface RetrievalDetail {
  id: string;
  ours: { precision: number; recall: number; tokens: number; lines: number; read: boolean };
  /** The search's answer alone. */
  searchOnly: { precision: number; recall: number; tokens: number };
  /** Whether the proposed read added a marked line (a read proposed that added none cost precision for nothing). */
  readHelped: boolean;
  rg: { precision: number; recall: number; tokens: number; lines: number };
  shapes: { precision: number; recall: number; tokens: number }[];
  /** The reference's preview of the output that answers (what agentContext_run, the hooks and agentContext_terminal return). */
  preview: { precision: number; recall: number; tokens: number };
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const median = (xs: number[]): number => (xs.length ? stats(xs).median : 0);
const group = (n: number): string => Math.round(n).toLocaleString('en-US');

/** Measures row 23; returns its rows and the per-question figures. */
export async function rowRetrieval(workDir: string, rgPath: string | undefined, log: (s: string) => void): Promise<{ rows: Row[]; details: RetrievalDetail[] }> {
  const invoke = loadBuilt<InvokeModule>('core/tools/invokeTool', ['invokeTool']);
  const tok = loadBuilt<TokensModule>('core/output/tokens', ['countTokens']);
  const config = loadBuilt<ConfigModule>('core/config', ['DEFAULT_TOOL_CONFIG']);
  const service = loadBuilt<ServiceModule>('core/search/ranked/searchService', ['stopSearchWorker']);
  const scratch = loadBuilt<ScratchModule>('core/tools/scratchOutput', ['slugify']);
  const reference = loadBuilt<ReferenceModule>('core/output/reference', ['buildReferenceFromText']);
  const questions = (JSON.parse(fs.readFileSync(path.join(retrievalDir(), 'questions.json'), 'utf8')) as { questions: Question[] }).questions;
  const root = path.join(workDir, 'retrieval-tree');
  const tree = buildRetrievalTree(root, scratch.slugify);
  const agentDir = path.join(root, '.agent');
  for (const q of questions) resolvePlaces(q, tree.where);
  log(`retrieval tree: ${tree.files} files, ${group(tree.bytes)} bytes, ${questions.length} questions`);
  for (const q of questions) {
    for (const p of q.places) {
      const n = linesOf(agentDir, p.file).length;
      for (const g of p.lines) if (g < 1 || g > n) throw new Error(`bench/retrieval/questions.json: ${q.id}: line ${g} is past the end of ${p.file} (${n} lines)`);
    }
  }
  const ctx = retrievalToolContext(root, config);
  // Index once before the questions (an agent's index is kept up to date between its questions): a
  // search answers from what it indexed within its time and says what is not indexed yet, so ask until
  // nothing is left, or the first questions would be scored on part of the tree.
  await indexWhole(invoke, ctx, 'the retrieval tree');
  const rg = rgPath ?? 'rg';
  const details: RetrievalDetail[] = [];
  for (const q of questions) {
    // Ours: the search, then the read its answer proposes, whenever it proposes one: an agent cannot
    // tell whether the answer it got is complete. Beside it, the search alone.
    const { answer, searched, loaded, readText } = await agentPath(invoke, ctx, q);
    const searchTokens = tok.countTokens(answer).tokens;
    const tokens = searchTokens + (readText === undefined ? 0 : tok.countTokens(readText).tokens);
    const read = readText !== undefined;
    const ours = { ...score(loaded, q), tokens, read };
    const searchOnly = { ...score(searched, q), tokens: searchTokens };
    // ripgrep with the question's keywords, over the whole tree (the agent does not know where the answer is).
    const args = rgArgs(q.q);
    let out = '';
    try {
      out = execFileSync(rg, args, { cwd: root, encoding: 'utf8', maxBuffer: 1 << 30 });
    } catch (e) {
      const ex = e as { status?: number; stdout?: string };
      if (ex.status !== 1) throw new Error(`${rg} ${args.join(' ')} failed: ${(e as Error).message}`);
      out = ex.stdout ?? '';
    }
    const rgScore = { ...score(rgLines(out, '.agent/'), q), tokens: tok.countTokens(rgShown(out)).tokens };
    // The agents' own shells: head and tail of the output that answers.
    const shapes = SHAPES.map((s) => {
      const shown: Loaded = new Set();
      let text = '';
      for (const b of shownOutputs(agentDir, q)) {
        for (const i of s.pick(b.lines)) {
          shown.add(key(q.file, b.first + i - 1));
          text += b.lines[i - 1] + '\n';
        }
      }
      const sc = score(shown, q);
      return { precision: sc.precision, recall: sc.recall, tokens: tok.countTokens(text).tokens };
    });
    // The reference's preview of the same output (2 KB: first lines, errors ranked, last lines).
    const previewShown: Loaded = new Set();
    let previewText = '';
    for (const b of shownOutputs(agentDir, q)) {
      const range = { start: b.first, end: b.first + b.lines.length - 1 };
      const command = b.command ?? tree.commands.get(q.file);
      const text = reference.buildReferenceFromText(b.lines.join('\n') + '\n', { path: q.file, command, exitCode: 1, range });
      for (const m of text.matchAll(/^L(\d+): /gm)) previewShown.add(key(q.file, Number(m[1])));
      previewText += text;
    }
    const preview = { ...score(previewShown, q), tokens: tok.countTokens(previewText).tokens };
    details.push({ id: q.id, ours: { precision: ours.precision, recall: ours.recall, tokens: ours.tokens, lines: ours.lines, read }, searchOnly: { precision: searchOnly.precision, recall: searchOnly.recall, tokens: searchOnly.tokens }, readHelped: read && ours.recall > searchOnly.recall, rg: { precision: rgScore.precision, recall: rgScore.recall, tokens: rgScore.tokens, lines: rgScore.lines }, shapes, preview });
    log(`${q.id}: ours P ${pct(ours.precision)} R ${pct(ours.recall)} ${ours.tokens} tok${read ? ' (+read)' : ''} · rg P ${pct(rgScore.precision)} R ${pct(rgScore.recall)} ${rgScore.tokens} tok`);
  }
  await service.stopSearchWorker();
  const P = mean(details.map((d) => d.ours.precision));
  const R = mean(details.map((d) => d.ours.recall));
  const oursTok = details.map((d) => d.ours.tokens);
  const rgP = mean(details.map((d) => d.rg.precision));
  const rgR = mean(details.map((d) => d.rg.recall));
  const rgTok = details.map((d) => d.rg.tokens);
  const reads = details.filter((d) => d.ours.read).length;
  const helped = details.filter((d) => d.readHelped).length;
  const what = `${questions.length} hand-marked questions over ${tree.files} real recorded outputs (${(tree.bytes / 1024 / 1024).toFixed(1)} MB)`;
  const rows: Row[] = [
    {
      id: '23a', what: `retrieval precision: agentContext_search with the question, then the read its answer proposes whenever it proposes one (${reads} of ${questions.length}; ${helped} of those reads added a marked line); ${what}`,
      ours: `precision ${pct(P)} at recall ${pct(R)}; tokens per question: mean ${group(mean(oursTok))}, median ${group(median(oursTok))} · the search alone: ${pct(mean(details.map((d) => d.searchOnly.precision)))} / ${pct(mean(details.map((d) => d.searchOnly.recall)))}`,
      reference: `ripgrep -n -C 2 -i with the question's keywords: precision ${pct(rgP)}, recall ${pct(rgR)}`,
      ratio: '—', goal: 'precision ≥ 70% at recall ≥ 90% (per-question averages)', met: P >= 0.7 && R >= 0.9,
    },
    {
      id: '23b', what: `the same questions against ripgrep with the question's keywords (rg -n -C 2 -i -F -e …, the whole .agent/)`,
      ours: `recall ${pct(R)}; ${group(mean(oursTok))} tokens per question (mean)`,
      reference: `recall ${pct(rgR)}; ${group(mean(rgTok))} tokens per question (mean), median ${group(median(rgTok))}`,
      ratio: `${(mean(rgTok) / Math.max(1, mean(oursTok))).toFixed(1)}× fewer tokens`, goal: 'recall ≥ ripgrep\'s with ≤ 1/10 of its tokens', met: R >= rgR && mean(oursTok) * 10 <= mean(rgTok),
    },
    ...SHAPES.map((s, i): Row => {
      const sp = mean(details.map((d) => d.shapes[i].precision));
      const sr = mean(details.map((d) => d.shapes[i].recall));
      const st = mean(details.map((d) => d.shapes[i].tokens));
      return {
        id: `23${String.fromCharCode(99 + i)}`, what: `the same questions against what ${s.name} showed of the output that answers`,
        ours: `precision ${pct(P)}, recall ${pct(R)}, ${group(mean(oursTok))} tokens`, reference: `precision ${pct(sp)}, recall ${pct(sr)}, ${group(st)} tokens`,
        ratio: '—', goal: '—',
      };
    }),
    {
      id: '23g', what: 'the same questions against the reference\'s preview of the output that answers (what agentContext_run, the hooks and agentContext_terminal return; errors first, then the command\'s words)',
      ours: `precision ${pct(P)}, recall ${pct(R)}, ${group(mean(oursTok))} tokens`,
      reference: `precision ${pct(mean(details.map((d) => d.preview.precision)))}, recall ${pct(mean(details.map((d) => d.preview.recall)))}, ${group(mean(details.map((d) => d.preview.tokens)))} tokens`,
      ratio: '—', goal: '—',
    },
  ];
  return { rows, details };
}

/** The per-question table written under results.md's table. */
export function renderRetrievalDetails(details: RetrievalDetail[]): string {
  const head = '| question | ours: precision / recall / tokens | ripgrep: precision / recall / tokens | Codex: P / R / tokens | reference preview: P / R / tokens |\n|---|---|---|---|---|';
  const rows = details.map((d) => `| ${d.id} | ${pct(d.ours.precision)} / ${pct(d.ours.recall)} / ${group(d.ours.tokens)}${d.ours.read ? (d.readHelped ? ' (read; it added a marked line)' : ' (read)') : ''} | ${pct(d.rg.precision)} / ${pct(d.rg.recall)} / ${group(d.rg.tokens)} | ${pct(d.shapes[0].precision)} / ${pct(d.shapes[0].recall)} / ${group(d.shapes[0].tokens)} | ${pct(d.preview.precision)} / ${pct(d.preview.recall)} / ${group(d.preview.tokens)} |`);
  return [head, ...rows].join('\n');
}
