import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { searchIndex, type SearchAnswer } from '../../../../src/core/search/ranked/rankedSearch';
import { SearchIndex, SMALL_FILE_BYTES } from '../../../../src/core/search/ranked/searchIndex';
import { tune } from '../../../../src/core/processState';
import { BATCH_TERMS } from '../../../../src/core/search/ranked/indexWriter';
import { maskerFor } from '../../../../src/core/search/ranked/searchHere';
import { rankWindows } from '../../../../src/core/search/ranked/lineRanking';
import { rankChunks } from '../../../../src/core/search/ranked/chunkRanking';
import { CHUNK_FIELDS, manifestBytes, manifestPath, parseManifest, searchDir, SPARSE_SPAN } from '../../../../src/core/search/ranked/manifest';
import { queryTerms } from '../../../../src/core/search/ranked/terms';
import type { SearchScope } from '../../../../src/core/search/ranked/sources';
import { RunReader } from '../../../../src/core/search/ranked/runFile';
import { queuedEventsHeard } from '../../../../src/core/fs/folderWatch';

/** A workspace whose .agent/ holds `files` (relative to .agent/). */
function workspace(files: Record<string, string>): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ranked-')));
  for (const [rel, text] of Object.entries(files)) write(root, rel, text);
  return root;
}

function write(root: string, rel: string, text: string): void {
  const f = path.join(root, '.agent', rel);
  fs.mkdirSync(path.dirname(f), { recursive: true });
  fs.writeFileSync(f, text);
}

/** `n` lines of ordinary output, none of them with the words the tests ask for. */
function filler(n: number, tag: string): string[] {
  return Array.from({ length: n }, (_, i) => `${tag} step ${i}: compiled module ${tag}_${i} in ${i % 97} ms`);
}

const mask = maskerFor({ roots: [] });

function indexOf(root: string): SearchIndex {
  return new SearchIndex(path.join(root, '.agent'), { mask });
}

async function ask(idx: SearchIndex, query: string, scope?: SearchScope): Promise<SearchAnswer> {
  return searchIndex(idx, { query, scope }, mask);
}

/** "rel:line" of each line the answer quotes that holds `word`. */
function quoted(a: SearchAnswer, word: string): string[] {
  return a.windows.flatMap((w) => w.lines.filter((l) => l.text.includes(word)).map((l) => `${w.rel}:${l.n}`));
}

test('an error line outranks the same words in ordinary output', async () => {
  const ordinary = [...filler(40, 'a'), 'INFO proxy replied: connection refused for upstream cache', ...filler(40, 'b')];
  const failing = [...filler(40, 'c'), 'ERROR proxy replied: connection refused for upstream cache', ...filler(40, 'd')];
  // The ordinary one is indexed first (lower chunk ids): without the error boost it would win the tie.
  const root = workspace({ 'scratch/tool_outputs/a-info.txt': ordinary.join('\n') + '\n' });
  const idx = indexOf(root);
  await idx.refresh(Infinity);
  write(root, 'scratch/tool_outputs/b-error.txt', failing.join('\n') + '\n');
  const a = await ask(idx, 'connection refused upstream cache');
  assert.equal(a.windows[0].rel, 'scratch/tool_outputs/b-error.txt');
  assert.equal(a.windows[0].level, 2);
  assert.ok(a.windows[0].lines.some((l) => l.n === 41 && l.text.startsWith('ERROR proxy')));
  assert.equal(a.windows[1]?.rel, 'scratch/tool_outputs/a-info.txt');
  idx.dispose();
});

test('a line with every word of the query outranks lines that repeat one of them', async () => {
  const noise = Array.from({ length: 120 }, (_, i) => `socket ${i}: retry timeout reached, retry timeout reset`);
  const target = [...filler(30, 'e'), ' FAIL  test/api.test.ts > fetches the catalog before the timeout', ...filler(30, 'f')];
  const root = workspace({ 'terminals/1.txt': noise.join('\n') + '\n', 'scratch/tool_outputs/vitest.txt': target.join('\n') + '\n' });
  const idx = indexOf(root);
  const a = await ask(idx, 'which test hit the timeout?');
  assert.deepEqual(a.terms, ['test', 'hit', 'timeout']);
  assert.equal(a.windows[0].rel, 'scratch/tool_outputs/vitest.txt');
  assert.deepEqual(quoted(a, 'FAIL'), ['scratch/tool_outputs/vitest.txt:31']);
  // A window is a few lines around what matched, not the file.
  assert.ok(a.windows[0].lines.length <= 5, `${a.windows[0].lines.length} lines`);
  idx.dispose();
});

test('a scope keeps the answer to that part of .agent/; agent commands are the captures whose header names an agent', async () => {
  const needle = 'quasar flux capacitor overheated';
  const header = (agent?: string): string => ['# Agent Context terminal capture', '# terminal: t', ...(agent ? [`# agent: ${agent}`] : []), '# number: 1', ''].join('\n');
  const root = workspace({
    'terminals/1.txt': header() + `>>> command 1 | $ make\n${needle}\n`,
    'terminals/2.txt': header('codex') + `>>> command 1 | $ make\n${needle}\n`,
    'scratch/tool_outputs/make.txt': `${needle}\n`,
    'memory/notes.md': `- remember: ${needle}\n`,
    'plans/p.md': `# Plan\n- [ ] fix the ${needle}\n`,
  });
  const idx = indexOf(root);
  const files = async (scope?: SearchScope): Promise<string[]> => [...new Set((await ask(idx, needle, scope)).windows.map((w) => w.rel))].sort();
  assert.deepEqual(await files(), ['memory/notes.md', 'plans/p.md', 'scratch/tool_outputs/make.txt', 'terminals/1.txt', 'terminals/2.txt']);
  assert.deepEqual(await files('toolOutputs'), ['scratch/tool_outputs/make.txt']);
  assert.deepEqual(await files('terminals'), ['terminals/1.txt', 'terminals/2.txt']);
  assert.deepEqual(await files('agentCommands'), ['terminals/2.txt']);
  assert.deepEqual(await files('memory'), ['memory/notes.md']);
  assert.deepEqual(await files('plans'), ['plans/p.md']);
  idx.dispose();
});

test('what is not searched: the caches, the ledger, the tools\' own overflow lists, terminal indexes', async () => {
  const needle = 'zeppelin manifest mismatch';
  const root = workspace({
    '.cache/other.json': needle,
    'history/tools-2026-12.jsonl': `{"text":"${needle}"}\n`,
    'scratch/tool_outputs/grep-x.grep.txt': `${needle}\n`,
    'scratch/tool_outputs/search-x.search.txt': `${needle}\n`,
    'terminals/1.index.jsonl': `{"commandLine":"${needle}"}\n`,
    'README.md': needle,
    'history/session-1.md': `${needle}\n`,
  });
  const a = await ask(indexOf(root), needle);
  assert.deepEqual(a.windows.map((w) => w.rel), ['history/session-1.md']);
});

test('a file edited, truncated or deleted after indexing is never quoted as it was', async () => {
  const body = (word: string): string => [...filler(300, 'g'), `the ${word} went wrong here`, ...filler(300, 'h')].join('\n') + '\n';
  const root = workspace({ 'scratch/tool_outputs/edited.txt': body('alpha'), 'scratch/tool_outputs/cut.txt': body('bravo'), 'scratch/tool_outputs/gone.txt': body('charlie') });
  const idx = indexOf(root);
  await idx.refresh(Infinity);
  for (const w of ['alpha', 'bravo', 'charlie']) assert.equal(quoted(await ask(idx, `${w} wrong`), w).length, 1, w);
  // Edited: another word at another line; truncated before its line; deleted.
  write(root, 'scratch/tool_outputs/edited.txt', ['new first line', body('delta')].join('\n'));
  fs.truncateSync(path.join(root, '.agent/scratch/tool_outputs/cut.txt'), 2000);
  fs.rmSync(path.join(root, '.agent/scratch/tool_outputs/gone.txt'));
  assert.deepEqual(quoted(await ask(idx, 'alpha wrong'), 'alpha'), []);
  assert.deepEqual(quoted(await ask(idx, 'bravo wrong'), 'bravo'), []);
  assert.deepEqual(quoted(await ask(idx, 'charlie wrong'), 'charlie'), []);
  assert.deepEqual(quoted(await ask(idx, 'delta wrong'), 'delta'), ['scratch/tool_outputs/edited.txt:302']);
  assert.equal(idx.manifest.files['scratch/tool_outputs/gone.txt'], undefined);
  idx.dispose();
});

test('a file changed behind the index\'s back is caught when its lines are read: not quoted, indexed again, then found', async () => {
  const root = workspace({ 'scratch/notes.txt': [...filler(100, 'i'), 'the kernel panic came from the driver', ...filler(100, 'j')].join('\n') + '\n' });
  const idx = indexOf(root);
  await idx.refresh(Infinity);
  // Same size, other bytes: nothing but reading the chunk can tell.
  const file = path.join(root, '.agent/scratch/notes.txt');
  const st = fs.statSync(file);
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('kernel panic came from the driver', 'kernel panic came from the memory'));
  fs.utimesSync(file, st.atime, st.mtime);
  const terms = queryTerms('kernel panic driver');
  const ranking = rankChunks(idx, terms, undefined, 10, false);
  assert.ok(ranking.chunks.length > 0, 'the index still has the old chunk');
  const r = rankWindows((rel) => path.join(root, '.agent', rel), (rel) => idx.manifest.files[rel], ranking, terms, mask, false);
  assert.deepEqual(r.windows, []);
  assert.deepEqual(r.stale, ['scratch/notes.txt']);
  // The whole search: the stale file is indexed again and the query asked again.
  const a = await ask(idx, 'kernel panic driver');
  assert.deepEqual(quoted(a, 'driver'), []);
  assert.deepEqual(quoted(a, 'memory'), ['scratch/notes.txt:101']);
  idx.dispose();
});

test('a growing file is indexed from its last chunk on: earlier chunks are kept, new lines found at once', async () => {
  const root = workspace({ 'terminals/3.txt': filler(500, 'k').join('\n') + '\n' });
  const idx = indexOf(root);
  await idx.refresh(Infinity);
  const before = Array.from(idx.manifest.files['terminals/3.txt'].c);
  fs.appendFileSync(path.join(root, '.agent/terminals/3.txt'), ['npm error code ERESOLVE unable to resolve dependency tree', ...filler(10, 'l')].join('\n') + '\n');
  const a = await ask(idx, 'unable to resolve dependency tree');
  assert.deepEqual(quoted(a, 'ERESOLVE'), ['terminals/3.txt:501']);
  const after = Array.from(idx.manifest.files['terminals/3.txt'].c);
  // Every chunk but the last one indexed before is the same chunk (same id): only the tail was read.
  const fields = CHUNK_FIELDS;
  assert.deepEqual(after.slice(0, before.length - fields), before.slice(0, before.length - fields));
  assert.notEqual(after[before.length - fields], before[before.length - fields]);
  idx.dispose();
});

test('secrets are masked before anything is indexed: the index holds no byte of one, and a search shows it masked', async () => {
  const token = 'ghp_' + 'aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5'.slice(0, 36);
  const root = workspace({ 'scratch/deploy.txt': [...filler(20, 'm'), `export GITHUB_TOKEN=${token} # deploy key for staging`, ...filler(20, 'n')].join('\n') + '\n' });
  const idx = indexOf(root);
  await idx.refresh(Infinity);
  const dir = searchDir(path.join(root, '.agent'));
  for (const f of fs.readdirSync(dir)) {
    const bytes = fs.readFileSync(path.join(dir, f));
    assert.equal(bytes.includes(token.slice(4).toLowerCase()), false, f);
    assert.equal(bytes.includes(token.slice(4)), false, f);
  }
  assert.deepEqual((await ask(idx, token)).windows.filter((w) => w.lines.some((l) => l.text.includes('GITHUB_TOKEN'))), []);
  const a = await ask(idx, 'deploy key staging');
  const line = a.windows[0].lines.find((l) => l.text.includes('GITHUB_TOKEN'))!;
  assert.ok(line, 'the line is found by its other words');
  assert.equal(line.text.includes(token), false);
  assert.match(line.text, /GITHUB_TOKEN=\S*\*|\[MASKED|masked|REDACTED/i);
  idx.dispose();
});

test('a backlog larger than a refresh allows is answered newest first, says what is left, and is finished later', async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 30; i++) files[`scratch/tool_outputs/out-${i}.txt`] = [...filler(200, `o${i}`), `needle number n${i}x`].join('\n') + '\n';
  const root = workspace(files);
  for (let i = 0; i < 30; i++) {
    const t = new Date(Date.UTC(2026, 0, 1, 0, i));
    fs.utimesSync(path.join(root, '.agent', `scratch/tool_outputs/out-${i}.txt`), t, t);
  }
  const untune = tune({ searchBatchBytes: 20_000 });
  try {
    let clock = 0;
    const idx = new SearchIndex(path.join(root, '.agent'), { mask, now: () => clock++ });
    const a = await searchIndex(idx, { query: 'needle n29x', refreshMs: 3 }, mask, () => clock);
    assert.ok(a.pending.files > 0 && a.pending.files < 30, `${a.pending.files} pending`);
    assert.equal(quoted(a, 'n29x').length, 1, 'the newest file is in the first answer');
    assert.equal(quoted(await searchIndex(idx, { query: 'needle n0x', refreshMs: 0 }, mask, () => clock), 'n0x').length, 0, 'the oldest is not yet');
    await idx.refresh(Infinity);
    const b = await searchIndex(idx, { query: 'needle n0x', refreshMs: 0 }, mask, () => clock);
    assert.equal(b.pending.files, 0);
    assert.equal(quoted(b, 'n0x').length, 1);
    // Many small runs were merged down.
    while (await idx.mergeOnce()) {
      // merge until the tiers are satisfied
    }
    assert.ok(idx.manifest.runs.length <= 4, `${idx.manifest.runs.length} runs`);
    assert.equal(quoted(await searchIndex(idx, { query: 'needle n17x', refreshMs: 0 }, mask, () => clock), 'n17x').length, 1);
    idx.dispose();
  } finally {
    untune();
  }
});

test('output with a new term on every line (a log of numbers) is indexed in batches of at most BATCH_TERMS terms, and every line is found', async () => {
  const n = Math.round(BATCH_TERMS * 2.5);
  const lines = Array.from({ length: n }, (_, i) => `value ${100_000 + i}`);
  lines[n - 10] = 'FATAL checksum mismatch in segment zebra';
  const root = workspace({ 'scratch/tool_outputs/numbers.txt': lines.join('\n') + '\n' });
  const idx = indexOf(root);
  const first = await idx.refresh(Date.now() - 1);
  assert.equal(first.pendingFiles, 1, 'a refresh whose time is up indexes nothing and says what is left');
  await idx.refresh(Infinity);
  // More than two batches, each a run: no batch took in every term at once.
  assert.ok(idx.manifest.runs.length >= 3, `${idx.manifest.runs.length} runs`);
  assert.equal(idx.manifest.files['scratch/tool_outputs/numbers.txt'].size, fs.statSync(path.join(root, '.agent/scratch/tool_outputs/numbers.txt')).size);
  assert.deepEqual(quoted(await ask(idx, 'checksum mismatch zebra'), 'zebra'), [`scratch/tool_outputs/numbers.txt:${n - 9}`]);
  assert.deepEqual(quoted(await ask(idx, String(100_000 + 5)), '100005'), ['scratch/tool_outputs/numbers.txt:6']);
  idx.dispose();
});

test('a refresh whose time runs out in the middle of a long file stops between batches: the answer quotes only what was indexed, says what is left, and the rest comes later', async () => {
  const lines = filler(3000, 'q');
  lines[40] = 'early marker alpha here';
  lines[2990] = 'late marker omega here';
  const root = workspace({ 'scratch/tool_outputs/long.txt': lines.join('\n') + '\n' });
  let clock = 0;
  // Batches of 20 KB (the file is 8 of them); time passes as chunks are made (each chunk's text is masked once).
  const untune = tune({ searchBatchBytes: 20_000 });
  const idx = new SearchIndex(path.join(root, '.agent'), { mask: (t) => ((clock += 10), mask(t)), now: () => clock });
  const a = await searchIndex(idx, { query: 'marker alpha omega', refreshMs: 200 }, mask, () => clock);
  untune();
  assert.equal(a.pending.files, 1, 'the file is not indexed whole yet');
  assert.deepEqual(quoted(a, 'marker'), ['scratch/tool_outputs/long.txt:41']);
  const size = fs.statSync(path.join(root, '.agent/scratch/tool_outputs/long.txt')).size;
  const indexed = idx.manifest.files['scratch/tool_outputs/long.txt'].size;
  assert.ok(indexed < size);
  assert.equal(a.pending.bytes, size - indexed, 'what is pending is what is left of the file');
  await idx.refresh(Infinity);
  assert.deepEqual(quoted(await ask(idx, 'marker alpha omega'), 'marker').sort(), ['scratch/tool_outputs/long.txt:2991', 'scratch/tool_outputs/long.txt:41']);
  idx.dispose();
});

test('small files are indexed before large ones: a large log written after a small build output does not keep it out of the first answer', async () => {
  const small = [...filler(100, 's'), 'error: linker failed on symbol quux_frobnicate'];
  const root = workspace({ 'scratch/tool_outputs/small-build.txt': small.join('\n') + '\n', 'terminals/9.txt': filler(8000, 'big').join('\n') + '\n' });
  const old = new Date(Date.now() - 60_000);
  fs.utimesSync(path.join(root, '.agent/scratch/tool_outputs/small-build.txt'), old, old);
  assert.ok(fs.statSync(path.join(root, '.agent/terminals/9.txt')).size > SMALL_FILE_BYTES);
  let clock = 0;
  // Batches of 100 KB; time passes as chunks are made, so one batch runs before the deadline.
  const untune = tune({ searchBatchBytes: 100_000 });
  const idx = new SearchIndex(path.join(root, '.agent'), { mask: (t) => ((clock += 10), mask(t)), now: () => clock });
  const a = await searchIndex(idx, { query: 'linker failed quux_frobnicate', refreshMs: 5 }, mask, () => clock);
  untune();
  assert.deepEqual(quoted(a, 'quux_frobnicate'), ['scratch/tool_outputs/small-build.txt:101']);
  assert.equal(a.pending.files, 1, 'the large file is left for later');
  idx.dispose();
});

test('a garbage manifest or a run cut short is rebuilt: the same answers as without them', async () => {
  const root = workspace({ 'scratch/a.txt': [...filler(50, 'p'), 'segmentation fault in libfoo'].join('\n') + '\n' });
  const expect = (a: SearchAnswer): void => assert.deepEqual(quoted(a, 'segmentation'), ['scratch/a.txt:51']);
  let idx = indexOf(root);
  expect(await ask(idx, 'segmentation fault'));
  idx.dispose();
  fs.writeFileSync(manifestPath(path.join(root, '.agent')), '{"kind":"agent-context-search","v":1,"nextChunk":');
  idx = indexOf(root);
  expect(await ask(idx, 'segmentation fault'));
  idx.dispose();
  const dir = searchDir(path.join(root, '.agent'));
  for (const f of fs.readdirSync(dir).filter((f) => f.endsWith('.run'))) fs.truncateSync(path.join(dir, f), 20);
  idx = indexOf(root);
  expect(await ask(idx, 'segmentation fault'));
  idx.dispose();
});

test('numbers of one or two digits are not posted (pieces of every time and date of a log); a query naming one finds its line by its other words', async () => {
  const root = workspace({ 'scratch/a.txt': [...filler(50, 'p'), 'FATAL checksum mismatch in segment 7 of 12: HTTP 404'].join('\n') + '\n' });
  const idx = indexOf(root);
  const a = await ask(idx, 'checksum mismatch in segment 7');
  assert.deepEqual(quoted(a, 'checksum'), ['scratch/a.txt:51']);
  idx.dispose();
  const dir = searchDir(path.join(root, '.agent'));
  const runs = fs.readdirSync(dir).filter((f) => f.endsWith('.run')).map((f) => RunReader.open(path.join(dir, f)));
  const posted = (term: string): boolean => runs.some((r) => r.entry(term) !== undefined);
  try {
    assert.ok(runs.length > 0);
    assert.deepEqual(['checksum', 'segment', '404', 'p_7'].map(posted), [true, true, true, true]);
    assert.deepEqual(['7', '12', '0', '96'].map(posted), [false, false, false, false], 'filler lines hold 0-96 too');
  } finally {
    for (const r of runs) r.close();
  }
});

test('an index of version 4 (its terms held versions and dates whole) is built anew, not searched', async () => {
  const root = workspace({ 'scratch/a.txt': [...filler(50, 'p'), 'segmentation fault in libfoo 4.2.15'].join('\n') + '\n' });
  const expect = (a: SearchAnswer): void => assert.deepEqual(quoted(a, 'segmentation'), ['scratch/a.txt:51']);
  let idx = indexOf(root);
  expect(await ask(idx, 'segmentation fault'));
  idx.dispose();
  const file = manifestPath(path.join(root, '.agent'));
  const old = parseManifest(fs.readFileSync(file));
  assert.ok(old && old.v > 4);
  fs.writeFileSync(file, manifestBytes({ ...old, v: 4 as typeof old.v }));
  assert.equal(parseManifest(fs.readFileSync(file)), undefined, 'another version is not read as this one');
  idx = indexOf(root);
  expect(await ask(idx, 'segmentation fault'));
  idx.dispose();
  assert.equal(parseManifest(fs.readFileSync(file))?.v, old.v, 'rebuilt in the current version');
});

test('a file added to a folder whose mtime is then set back (a restore, a git checkout) is found by the next search', async () => {
  const root = workspace({ 'scratch/tool_outputs/a.txt': 'alpha build ok\n' });
  // A clock 10 s ahead: the folders count as settled when listed, so their stamps are trusted.
  const ahead = (): number => Date.now() + 10_000;
  const idx = new SearchIndex(path.join(root, '.agent'), { mask, now: ahead });
  const dir = path.join(root, '.agent', 'scratch/tool_outputs');
  const old = new Date(Date.UTC(2026, 0, 1));
  fs.utimesSync(dir, old, old);
  await idx.refresh(Infinity);
  const listed = fs.statSync(dir);
  // Past the file system's clock tick (a few ms), so the change below gives the folder a new ctime.
  await new Promise((r) => setTimeout(r, 50));
  write(root, 'scratch/tool_outputs/b.txt', 'FATAL zebra checksum mismatch in segment 7\n');
  fs.utimesSync(dir, old, old);
  const after = fs.statSync(dir);
  assert.equal(after.mtimeMs, listed.mtimeMs, 'the folder has its old mtime');
  assert.notEqual(after.ctimeMs, listed.ctimeMs, 'only its ctime tells');
  const a = await searchIndex(idx, { query: 'zebra checksum mismatch' }, mask, ahead);
  assert.deepEqual(quoted(a, 'zebra'), ['scratch/tool_outputs/b.txt:1']);
  idx.dispose();
});

test('a folder listed before it settled is listed again: a file added in the same clock tick is not missed', async () => {
  const root = workspace({ 'scratch/tool_outputs/a.txt': 'alpha build ok\n' });
  // The real clock: the folder was written a moment ago, so its stamp cannot stand for its listing.
  const idx = indexOf(root);
  const dir = path.join(root, '.agent', 'scratch/tool_outputs');
  const now = new Date();
  fs.utimesSync(dir, now, now);
  await idx.refresh(Infinity);
  write(root, 'scratch/tool_outputs/b.txt', 'FATAL zebra checksum mismatch in segment 7\n');
  // As if the file had come in the listing's clock tick: the folder's mtime as it was (its ctime is
  // recent either way, so an index that trusted ctime alone would miss nothing here; one that trusted
  // the unsettled mtime would).
  fs.utimesSync(dir, now, now);
  const a = await ask(idx, 'zebra checksum mismatch');
  assert.deepEqual(quoted(a, 'zebra'), ['scratch/tool_outputs/b.txt:1']);
  idx.dispose();
});

test('a search\'s own list added beside 1,000 outputs costs a stat of the names that changed, not of every file; a new, a replaced, an edited and a deleted file are still seen', { skip: process.platform !== 'linux' && 'fs.watch names the files of a folder on Linux only' }, async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 1000; i++) files[`scratch/tool_outputs/out-${i}.txt`] = `build step ${i} finished\n`;
  files['scratch/tool_outputs/replaced.txt'] = 'the yankee job passed\n';
  files['scratch/tool_outputs/edited.txt'] = 'the xray job passed\n';
  files['scratch/tool_outputs/gone.txt'] = 'the whiskey job passed\n';
  const root = workspace(files);
  const dir = path.join(root, '.agent', 'scratch/tool_outputs');
  // A clock 10 s ahead: the folders count as settled when listed, so their stamps are trusted.
  const ahead = (): number => Date.now() + 10_000;
  const idx = new SearchIndex(path.join(root, '.agent'), { mask, now: ahead, watch: true });
  const first = await idx.refresh(Infinity);
  assert.ok(first.looked >= 1003, `the first refresh looks at every file (${first.looked})`);
  // What agentContext_search writes after each answer: a list of windows, not searched itself.
  fs.writeFileSync(path.join(dir, 'search-why-01JX.search.txt'), 'the windows of an earlier answer\n');
  await queuedEventsHeard();
  const next = await idx.refresh(Infinity);
  assert.ok(next.looked < 1000, `a changed listing costs its new names and the round's files, not every file (${next.looked} looked at)`);
  // A new file, one moved onto an existing name (an editor's save), one edited in place, one deleted.
  write(root, 'scratch/tool_outputs/new.txt', 'FATAL zebra checksum mismatch in segment 7\n');
  fs.writeFileSync(path.join(dir, 'replaced.tmp'), 'the yankee job FAILED with quokka\n');
  fs.renameSync(path.join(dir, 'replaced.tmp'), path.join(dir, 'replaced.txt'));
  fs.appendFileSync(path.join(dir, 'edited.txt'), 'then the xray job FAILED with narwhal\n');
  fs.rmSync(path.join(dir, 'gone.txt'));
  const ask2 = (q: string): Promise<SearchAnswer> => searchIndex(idx, { query: q }, mask, ahead);
  assert.deepEqual(quoted(await ask2('zebra checksum mismatch'), 'zebra'), ['scratch/tool_outputs/new.txt:1']);
  assert.deepEqual(quoted(await ask2('yankee quokka'), 'quokka'), ['scratch/tool_outputs/replaced.txt:1']);
  assert.deepEqual(quoted(await ask2('xray narwhal'), 'narwhal'), ['scratch/tool_outputs/edited.txt:2']);
  assert.deepEqual(quoted(await ask2('whiskey job'), 'whiskey'), []);
  assert.equal(idx.manifest.files['scratch/tool_outputs/gone.txt'], undefined);
  idx.dispose();
});

test('in a folder watched since it was listed, a search\'s own list relists nothing, yet a new or deleted file is seen at once; the upkeep\'s relisting finds a name no event reported yet', { skip: process.platform !== 'linux' && 'fs.watch names the files of a folder on Linux only' }, async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 1000; i++) files[`scratch/tool_outputs/out-${i}.txt`] = `build step ${i} finished\n`;
  files['scratch/tool_outputs/gone.txt'] = 'the whiskey job passed\n';
  const root = workspace(files);
  const dir = path.join(root, '.agent', 'scratch/tool_outputs');
  const ahead = (): number => Date.now() + 10_000;
  const idx = new SearchIndex(path.join(root, '.agent'), { mask, now: ahead, watch: true });
  await idx.refresh(Infinity);
  // The first listing came before the watch: the next change of the folder lists it again, now watched.
  fs.writeFileSync(path.join(dir, 'search-a.search.txt'), 'the windows of an earlier answer\n');
  await queuedEventsHeard();
  assert.ok((await idx.refresh(Infinity)).relisted >= 1000, 'listed again once, with its watch live');
  // Each answer's own list from now on: the watch names it, and nothing is listed again.
  fs.writeFileSync(path.join(dir, 'search-b.search.txt'), 'the windows of another answer\n');
  await queuedEventsHeard();
  const next = await idx.refresh(Infinity);
  assert.equal(next.relisted, 0, 'no relisting for a list the search wrote');
  assert.ok(next.looked < 1000, `only the round's files are looked at (${next.looked})`);
  write(root, 'scratch/tool_outputs/new.txt', 'FATAL zebra checksum mismatch in segment 7\n');
  fs.rmSync(path.join(dir, 'gone.txt'));
  const ask2 = (q: string): Promise<SearchAnswer> => searchIndex(idx, { query: q }, mask, ahead);
  assert.deepEqual(quoted(await ask2('zebra checksum mismatch'), 'zebra'), ['scratch/tool_outputs/new.txt:1']);
  assert.deepEqual(quoted(await ask2('whiskey job'), 'whiskey'), []);
  assert.equal(idx.manifest.files['scratch/tool_outputs/gone.txt'], undefined);
  // A file whose event has not been heard (plan() runs before any event is read): a query's refresh
  // does not list the folder, the upkeep's does.
  write(root, 'scratch/tool_outputs/late.txt', 'FATAL yak shaving overflow\n');
  const upkeep = await idx.refresh(Infinity, { relistWatched: true });
  assert.ok(upkeep.relisted >= 1000, 'the upkeep lists the watched folder whose time changed');
  assert.ok(idx.manifest.files['scratch/tool_outputs/late.txt'], 'the file no event had named yet is indexed');
  idx.dispose();
});

test('ids only grow, yet the arrays of a query stay sized by the live chunks: the oldest files are indexed again when the ids spread out, and every answer stays', async () => {
  const root = workspace({
    'scratch/old.txt': [...filler(60, 'o'), 'the walrus migration finished cleanly', ...filler(60, 'p')].join('\n') + '\n',
    'scratch/churn.txt': 'first round\n',
  });
  const idx = new SearchIndex(path.join(root, '.agent'), { mask, sparseSlack: 0 });
  await idx.refresh(Infinity);
  // A file written anew 40 times (a plan, a status file): each time its chunks take new ids and the old ones die.
  for (let i = 0; i < 40; i++) {
    write(root, 'scratch/churn.txt', [...filler(40 + i, `r${i}`), `round ${i} ended with the ${i === 39 ? 'pelican' : 'sparrow'} check`].join('\n') + '\n');
    await idx.refresh(Infinity);
  }
  const before = idx.liveChunks;
  assert.ok(before.chunkFile.length > SPARSE_SPAN * before.chunks, `the ids spread out: ${before.chunkFile.length} ids for ${before.chunks} live chunks`);
  let steps = 0;
  while (await idx.compactOnce()) steps++;
  const after = idx.liveChunks;
  assert.ok(steps > 0);
  assert.ok(after.chunkFile.length <= SPARSE_SPAN * after.chunks, `the arrays span ${after.chunkFile.length} ids for ${after.chunks} live chunks`);
  assert.deepEqual(quoted(await ask(idx, 'walrus migration'), 'walrus'), ['scratch/old.txt:61']);
  assert.deepEqual(quoted(await ask(idx, 'pelican check'), 'pelican'), ['scratch/churn.txt:80']);
  assert.deepEqual(quoted(await ask(idx, 'sparrow check'), 'sparrow'), []);
  // A fresh process reads the same index the same way.
  const again = new SearchIndex(path.join(root, '.agent'), { mask });
  assert.deepEqual(quoted(await ask(again, 'walrus migration'), 'walrus'), ['scratch/old.txt:61']);
  again.dispose();
  idx.dispose();
});

test('a query of more than 32 terms: each chunk holds the terms it matched, the 33rd and later too, and the chunk with all of them ranks first', async () => {
  // Words no filler line has: 'quark' + two letters + 'n', 40 of them (none a stem of another).
  const words = Array.from({ length: 40 }, (_, i) => `quark${String.fromCharCode(97 + Math.floor(i / 26))}${String.fromCharCode(97 + (i % 26))}n`);
  // One chunk per file, so the chunks' ids follow one another: a term's mark kept in a neighbour's place would show.
  const root = workspace({
    'scratch/all.txt': words.join(' ') + '\n',
    'scratch/some.txt': words.slice(10, 20).join(' ') + '\n',
    'scratch/late.txt': words.slice(30).join(' ') + '\n',
  });
  const idx = indexOf(root);
  await idx.refresh(Infinity);
  const terms = queryTerms(words.join(' '));
  assert.deepEqual(terms, words);
  const { chunks } = rankChunks(idx, terms, undefined, 10, false);
  assert.equal(chunks[0].rel, 'scratch/all.txt');
  assert.deepEqual(Object.fromEntries(chunks.map((c) => [c.rel, c.matched])), { 'scratch/all.txt': words, 'scratch/some.txt': words.slice(10, 20), 'scratch/late.txt': words.slice(30) });
  idx.dispose();
});
