// Row 23's questions in one process, for ranking work: asks each question as row 23a does (the search,
// then the read its answer proposes) and prints per-question precision, recall and tokens, so a ranking
// change is an A/B in seconds instead of a bench run. Not a row: results.md is never written.
//
//   npx tsc -p . && node out/bench/askRetrieval.js                     # row 23's 2.1 MB tree
//   node out/bench/askRetrieval.js --scale 0.1                         # row 24e's generated tree (BENCH_SEARCH_DIR)
//   node out/bench/askRetrieval.js --json /tmp/a.json                  # keep the figures …
//   node out/bench/askRetrieval.js --against /tmp/a.json               # … and print what changed since
//   node out/bench/askRetrieval.js --show node-crash,c-build           # print those answers beside their marks
//
// The tree (and its index, in its .agent/.cache/) is kept between runs: under bench/work/ for the
// 2.1 MB one, where row 24 puts it for a scale. A ranking change needs no new index; a change to what
// is indexed does (delete the tree's .agent/.cache/).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadBuilt, type ConfigModule, type InvokeModule } from './harness';
import { agentPath, buildRetrievalTree, indexWhole, resolvePlaces, retrievalDir, retrievalToolContext, score, type Question } from './rowRetrieval';
import { ensureSearchTree } from './rowSearchScale';

interface Figures {
  precision: number;
  recall: number;
  tokens: number;
  read: boolean;
}

function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const pct = (x: number): string => (x * 100).toFixed(1).padStart(5);

/** The tree to ask, and where each recording is in it. */
function treeOf(scale: number | undefined, slugify: (hint: string) => string): { root: string; where: Map<string, string> } {
  if (scale === undefined) {
    const root = path.resolve(__dirname, '..', '..', 'bench', 'work', 'ask-retrieval');
    const stamp = path.join(root, 'where.json');
    if (fs.existsSync(stamp)) return { root, where: new Map(JSON.parse(fs.readFileSync(stamp, 'utf8')) as [string, string][]) };
    const where = buildRetrievalTree(root, slugify).where;
    fs.writeFileSync(stamp, JSON.stringify([...where]));
    return { root, where };
  }
  const tree = ensureSearchTree(scale, slugify, (s) => console.log(s));
  // Row 23's recordings have the names buildRetrievalTree gives them there too.
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-ask-where-'));
  try {
    return { root: tree.root, where: buildRetrievalTree(tmp, slugify).where };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const invoke = loadBuilt<InvokeModule>('core/tools/invokeTool', ['invokeTool']);
  const tok = loadBuilt<{ countTokens(text: string): { tokens: number } }>('core/output/tokens', ['countTokens']);
  const config = loadBuilt<ConfigModule>('core/config', ['DEFAULT_TOOL_CONFIG']);
  const service = loadBuilt<{ stopSearchWorker(): Promise<void> }>('core/search/ranked/searchService', ['stopSearchWorker']);
  const scratch = loadBuilt<{ slugify(hint: string): string }>('core/tools/scratchOutput', ['slugify']);
  const scaleText = option('--scale');
  const show = new Set((option('--show') ?? '').split(',').filter(Boolean));
  const { root, where } = treeOf(scaleText === undefined ? undefined : Number(scaleText), scratch.slugify);
  const questions = (JSON.parse(fs.readFileSync(path.join(retrievalDir(), 'questions.json'), 'utf8')) as { questions: Question[] }).questions;
  for (const q of questions) resolvePlaces(q, where);
  // The answers' overflow lists of an earlier run (never indexed; removed so the tree stays as built).
  const outputs = path.join(root, '.agent', 'scratch', 'tool_outputs');
  for (const f of fs.readdirSync(outputs)) if (f.endsWith('.search.txt')) fs.rmSync(path.join(outputs, f), { force: true });
  const ctx = retrievalToolContext(root, config);
  // Indexed whole before the first question (as row 23 does).
  await indexWhole(invoke, ctx, root);
  const figures: Record<string, Figures> = {};
  for (const q of questions) {
    const { answer, loaded, readText } = await agentPath(invoke, ctx, q);
    const tokens = tok.countTokens(answer).tokens + (readText === undefined ? 0 : tok.countTokens(readText).tokens);
    const s = score(loaded, q);
    figures[q.id] = { precision: s.precision, recall: s.recall, tokens, read: readText !== undefined };
    console.log(`${q.id.padEnd(20)} P ${pct(s.precision)} R ${pct(s.recall)} ${String(tokens).padStart(5)}${readText !== undefined ? ' +read' : ''}`);
    if (show.has(q.id)) {
      console.log(`  marked: ${q.places.map((p) => `${p.file}:${p.lines.join(',')}`).join(' | ')}`);
      console.log([answer, readText ?? ''].filter(Boolean).join('\n').replace(/^/gm, '  | '));
    }
  }
  await service.stopSearchWorker();
  const all = Object.values(figures);
  const mean = (f: (x: Figures) => number): number => all.reduce((a, x) => a + f(x), 0) / Math.max(1, all.length);
  console.log(`mean: P ${pct(mean((x) => x.precision))} R ${pct(mean((x) => x.recall))} tokens ${mean((x) => x.tokens).toFixed(0)} (${all.length} questions; load ${fs.readFileSync('/proc/loadavg', 'utf8').trim()})`);
  const against = option('--against');
  if (against) {
    const before = JSON.parse(fs.readFileSync(against, 'utf8')) as Record<string, Figures>;
    for (const [id, b] of Object.entries(before)) {
      const a = figures[id];
      if (a && (a.precision !== b.precision || a.recall !== b.recall)) console.log(`changed ${id.padEnd(20)} P ${pct(b.precision)} → ${pct(a.precision)}  R ${pct(b.recall)} → ${pct(a.recall)}  tokens ${b.tokens} → ${a.tokens}`);
    }
  }
  const json = option('--json');
  if (json) fs.writeFileSync(json, JSON.stringify(figures, null, 1) + '\n');
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
