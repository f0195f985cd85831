// `npm run bench` (via scripts/bench.mjs): runs the eight rows, prints the table, writes
// bench/results.md and refreshes the table in bench/README.md.
// Env: BENCH_ONLY=1,3 (rows to run; results.md is then not rewritten unless BENCH_MERGE=1, which
// replaces just those rows in it; with BENCH_DIMS, just the row-17 ids measured), BENCH_NOTE (said
// on the merged run's "Re-measured" line: the load, what the build was), BENCH_SCALE=0.1 (smaller
// streams for a quick look; row 9's S/M/L folders become 0.1×/1×/10×), BENCH_RUNS / BENCH_WARMUP, BENCH_RG (path to rg) or
// BENCH_RG_MISSING (why it is unavailable).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LOAD_RETRIES, machineDescription, renderPlain, renderTable, repoRoot, runRow, sampleForeignLoad, type Row } from './harness';
import { rowActivation } from './rowActivation';
import { activationRow, agentHistoryEditorLevels, EDITOR_STARTS, editorAllDimensionLevels, editorSessions, editorTerminalLevels, rowEditor } from './rowEditor';
import { rowCapture, rowCaptureSearch } from './rowCapture';
import { rowClaudeCode } from './rowClaudeCode';
import { rowGrep } from './rowGrep';
import { renderOffloadDetails, rowOffload, type OffloadDetail } from './rowOffload';
import { rowRenderer } from './rowRenderer';
import { renderRetrievalDetails, retrievalDir, rowRetrieval } from './rowRetrieval';
import { rowScale } from './rowScale';
import { rowSearchScale } from './rowSearchScale';
import { rowScratch } from './rowScratch';
import { rowSecrets } from './rowSecrets';
import { rowSoak } from './rowSoak';
import { rowStatic } from './rowStatic';
import { checkDimensionLetters, rowDimensions } from './rowDimensions';
import { HISTORY_TERMINALS_ROW, historyTerminalLevels, rowTerminals } from './rowTerminals';
import { rowAgentHistory } from './rowAgentHistory';
import { mergeRows, parseResults, readmeHeaderAfterMerge, remeasuredLine, rowNumber, withTestRunRows } from './resultsFile';

const log = (s: string): void => void process.stderr.write(`[bench] ${s}\n`);

const METHOD = `Method: each timed figure is the median of the runs after a warm-up, with (min–max); ours and
the reference run in the same process, interleaved (a b, b a, ...), and the ratio is of the medians,
because absolute times drift on this shared machine. Inputs are generated from fixed seeds (rows 1–3, 8)
or recorded real outputs (bench/corpus/, rows 4–5). Row 1's reference renders with @xterm/headless
(cols wider than any generated line, so nothing wraps) and copies each line with translateToString(true);
both sides are compared after dropping trailing spaces. Row 3 runs the agentContext_grep tool through
invokeTool (case-sensitive) against \`rg -uu -n\` and \`LC_ALL=C grep -rn\`, counting matching lines.

Row 24 (bench/rowSearchScale.ts): the generated tree is slices of the real recordings with their numbers
varied, built once in a temp folder; its size is in each row (BENCH_SEARCH_SCALE=1 is 1 GB). Why
agentContext_search keeps its own index and does not use a library (rows 24f–h; 24i–k at BENCH_LIB_SCALE of the generated tree): FlexSearch, Orama and
MiniSearch hold the whole index in memory and serialise it whole, so every process (each MCP server, the
editor's worker) would rebuild or re-read all of it at start and rewrite all of it after a change; their
serialised index is larger than ours on disk; once in memory they answer a query faster than ours (no
disk reads, no worker hop), but on row 23's questions (3-line documents, the top 4 for
the question's keywords) they load fewer of the marked lines than ours, which ranks windows with error
lines first and masks secrets before anything is indexed. Ours keeps immutable runs on disk, merged in
the background, so a fresh process answers without rebuilding (row 24c). MiniSearch stays in the worker
bundle: it ranks the lines inside the chunks our index picked (src/core/search/ranked/lineRanking.ts);
FlexSearch and Orama are devDependencies for this comparison only.`;

async function main(): Promise<void> {
  const repo = repoRoot();
  const workDir = path.join(repo, 'bench', 'work');
  fs.mkdirSync(workDir, { recursive: true });
  const only = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',').map((s) => s.trim())) : undefined;
  const want = (n: string): boolean => !only || only.has(n);
  const scale = Number(process.env.BENCH_SCALE ?? 1);
  const rows: Row[] = [];
  let details: OffloadDetail[] = [];
  const started = Date.now();
  // Every row goes through runRow: load average at its start and end, re-run when the machine was loaded.
  // Rows that start real editors (7 and 10) are held to the load of other processes (runRow's `foreign`).
  // `retries`: re-runs when loaded (default BENCH_LOAD_RETRIES); 0 for a row whose result does not depend on the load.
  if (want('17')) checkDimensionLetters();
  const step = async (n: string, name: string, f: () => Promise<Row[]> | Row[], ownProcesses = false, retries?: number): Promise<void> => {
    if (!want(n)) return;
    const t0 = Date.now();
    log(`row ${n}: ${name}…`);
    const r = await runRow(n, f, log, { ...(ownProcesses ? { foreign: () => sampleForeignLoad() } : {}), ...(retries !== undefined ? { retries } : {}) });
    rows.push(...r);
    log(`row ${n} done in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  };
  await step('1', 'terminal renderer vs @xterm/headless', () => rowRenderer(scale));
  await step('12', 'secret masking: throughput, recall, false positives, worst line', () => rowSecrets(scale));
  await step('2', 'capture pipeline, 200 MB, child process', async () => [await rowCapture(workDir, Math.max(1, Math.round(200 * scale)))]);
  await step('2s', 'capture pipeline, 100 MB, with the search index kept up to date beside it', async () => [await rowCaptureSearch(workDir, Math.max(1, Math.round(100 * scale)))]);
  await step('3', 'grep on a 1 GB .agent/ tree', () => rowGrep(workDir, process.env.BENCH_RG || undefined, process.env.BENCH_RG_MISSING ?? 'ripgrep not found', log));
  if (want('5') && !want('4')) only?.add('4');
  await step('4', 'offload savings and error-line recall (rows 4, 5)', async () => {
    const r = await rowOffload(workDir);
    details = r.details;
    return r.rows;
  });
  await step('6', 'static context', () => [rowStatic()]);
  await step('7', 'activation (real editors started by the bench), bundle and vsix', async () => {
    // 7a comes from fresh editors: row 10's when it runs too (it then adds 7a), else start-up-only editors on the S folder.
    const own = want('10') ? [] : [activationRow((await editorSessions(log, ['S'])).sessions)];
    return [...own, ...rowActivation(repo, workDir).filter((r) => r.id !== '7a')];
  }, true);
  await step('8', 'scratch view and retention, 10,000 files', () => rowScratch(workDir));
  // Row 9: S, M, L (1×, 10×, 100× history); BENCH_SCALE shrinks all three for a quick look.
  await step('9', 'scale study: tool calls over MCP on generated S/M/L .agent/ folders', () =>
    rowScale([['S', 1], ['M', 10], ['L', 100]].map(([label, k]) => ({ label: label as string, scale: (k as number) * scale })), process.env.BENCH_RG || undefined, log));
  await step('10', `scale study in the extension host (real editor, ${EDITOR_STARTS} starts per level)`, () => rowEditor(log, want('7')), true);
  await step('18', `terminals dimension in the extension host (real editor, ${EDITOR_STARTS} starts per level; 10 / 1,000 / 10,000 terminal files)`, () =>
    rowEditor(log, false, { id: '18', what: 'terminal files', levels: editorTerminalLevels() }), true);
  await step('19', `every dimension at once in the extension host (real editor, ${EDITOR_STARTS} starts per level; S and every dimension at its L)`, () =>
    rowEditor(log, false, { id: '19', what: 'every dimension at once', levels: editorAllDimensionLevels(), sizes: 'S: the row-9 S folder; L: 10,000 terminal files and every row-17 dimension at its L' }), true);
  await step('23', 'retrieval precision: 46 hand-marked questions over real recorded outputs, agentContext_search vs ripgrep -n -C 2 vs the agents\' own head and tail', async () => {
    const r = await rowRetrieval(workDir, process.env.BENCH_RG || undefined, log);
    // The per-question figures beside the corpus (bench/retrieval/results.md), tokens printed for each.
    fs.writeFileSync(path.join(retrievalDir(), 'results.md'), `# Row 23 per question\n\nWritten by \`npm run bench\` (BENCH_ONLY=23), ${new Date().toISOString()}.\n\n${renderRetrievalDetails(r.details)}\n`);
    return r.rows;
  }, false, 0);
  await step('24', 'agentContext_search at 1 GB of indexed output (index size, throughput, first and warm query vs ripgrep) and the library comparison', () => rowSearchScale(log), false, 0);
  await step('14', 'terminals dimension: tool calls over MCP with 10 / 1,000 / 10,000 terminal files, cold and warm', () => rowTerminals(log));
  await step('22', "the briefing's growth with terminal files (issue 46): row 9's S history with 21 / 201 terminals over MCP, cold and warm", () => rowTerminals(log, historyTerminalLevels(), HISTORY_TERMINALS_ROW));
  await step('20', 'agent-command history: tool calls over MCP with 500 / 50,000 agent commands beside 10,000 terminal files, cold (with and without .agent/.cache/) and warm', () => rowAgentHistory(log));
  await step('21', `agent-command history in the extension host (real editor, ${EDITOR_STARTS} starts per level; 500 / 50,000 agent commands beside 10,000 terminal files)`, () =>
    rowEditor(log, false, { id: '21', what: 'agent-command history', levels: agentHistoryEditorLevels(), sizes: 'S: 500 commands in 20 sessions, L: 50,000 commands in 2,000 sessions, each beside 10,000 terminal files' }), true);
  await step('17', 'every other dimension grown on its own (issue 22 §1): tool calls over MCP at S/M/L, cold and warm', () => rowDimensions(log));
  // Row 16 checks correctness under concurrency, not time: a loaded machine is no reason to re-run it.
  await step('16', 'concurrency soak: 2 editor windows + 3 MCP servers on one .agent/ for 60 s', () => rowSoak(log), true, 0);
  await step('11', 'Claude Code (real CLI, fake model API): its Bash with our hook vs without', () => rowClaudeCode(repo, workDir));

  rows.sort((a, b) => Number(rowNumber(a.id)) - Number(rowNumber(b.id))); // 7a may come from row 10's editors
  process.stdout.write(`\n${renderPlain(rows)}\n\n`);
  const resultsPath = path.join(repo, 'bench', 'results.md');
  const merge = only && process.env.BENCH_MERGE === '1' && fs.existsSync(resultsPath);
  let header = [...machineDescription(repo), `- Whole run: ${((Date.now() - started) / 1000).toFixed(0)} s${scale !== 1 ? `; BENCH_SCALE=${scale} (reduced inputs)` : ''}; a row whose load average exceeded the core count is re-run up to ${LOAD_RETRIES} time(s) (BENCH_LOAD_RETRIES) and marked ⚠ if still loaded`];
  let allRows = rows;
  let detailsText = details.length ? `## Rows 4 and 5 per recorded output\n\n${renderOffloadDetails(details)}` : undefined;
  if (!only && fs.existsSync(resultsPath)) {
    // The rows measured by the test runs (13, 15) are not the bench's: kept, with the lines saying when.
    const old = parseResults(fs.readFileSync(resultsPath, 'utf8'));
    allRows = withTestRunRows(old.rows, rows);
    const kept = [...new Set(allRows.filter((r) => !rows.includes(r)).map((r) => rowNumber(r.id)))];
    if (kept.length) header = [...header, `- Rows ${kept.join(', ')}: measured by the test runs, not by npm run bench; kept from the previous results.md`];
  }
  if (merge) {
    // Keep the last full run's other rows; say which rows this run replaced, and when.
    // Row 17 with BENCH_DIMS measured some dimensions only, row 24 with BENCH_LIB_SCALE=0 no library
    // comparison on the big tree (24i–24k): their other ids stay as they were.
    const partial = new Set([...(want('17') && process.env.BENCH_DIMS ? ['17'] : []), ...(want('24') && Number(process.env.BENCH_LIB_SCALE) === 0 && process.env.BENCH_LIB_SCALE !== undefined ? ['24'] : [])]);
    const old = parseResults(fs.readFileSync(resultsPath, 'utf8'));
    allRows = mergeRows(old.rows, rows, partial);
    const now = machineDescription(repo);
    header = [...old.header, remeasuredLine(rows, partial, now[0].slice(2), now[1].slice(2), process.env.BENCH_NOTE)];
    detailsText ??= old.details;
  }
  const table = renderTable(allRows);
  const md = [
    '# Benchmark results',
    '',
    'Written by `npm run bench` (bench/main.ts). Goals are from issue 6; "**missed**" means the goal is not met.',
    '',
    ...header,
    '',
    table,
    '',
    METHOD,
    ...(detailsText ? ['', detailsText] : []),
    '',
  ].join('\n');
  if (only && !merge) {
    log(`BENCH_ONLY set: bench/results.md left as it was (BENCH_MERGE=1 replaces those rows in it); this run's table is in bench/work/results-partial.md`);
    fs.writeFileSync(path.join(workDir, 'results-partial.md'), md);
    return;
  }
  fs.writeFileSync(resultsPath, md);
  const readme = path.join(repo, 'bench', 'README.md');
  if (fs.existsSync(readme)) {
    const text = fs.readFileSync(readme, 'utf8');
    const a = text.indexOf('<!-- bench-table:start -->');
    const b = text.indexOf('<!-- bench-table:end -->');
    if (a !== -1 && b > a) {
      // A merge keeps the README's own (annotated) header lines and adds this run's line.
      const lines = merge ? readmeHeaderAfterMerge(text.slice(a, b), header[header.length - 1]) : header;
      const block = `<!-- bench-table:start -->\n${lines.join('\n')}\n\n${table}\n`;
      fs.writeFileSync(readme, text.slice(0, a) + block + text.slice(b));
    }
  }
  log(`wrote bench/results.md${merge ? ' (rows merged into the last full run)' : ''}`);
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
