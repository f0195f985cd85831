import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkFeatures, setPasses, acceptFeatures, featuresPath, featuresSummary, featuresSummaryPath, diffFeatures, parseFeatures, Feature } from '../../../src/core/plan/featureList';

function tmpAgent(features?: unknown): string {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-feat-'));
  const a = path.join(ws, '.agent');
  fs.mkdirSync(a);
  if (features !== undefined) fs.writeFileSync(featuresPath(a), JSON.stringify(features, null, 2) + '\n');
  return a;
}

const LIST: Feature[] = [
  { category: 'plan', description: 'Plan view shows steps', steps: ['open view', 'see steps'], passes: false },
  { category: 'plan', description: 'Status edit keeps comments', steps: ['edit', 'diff'], passes: false },
  { category: 'scratch', description: 'Cleanup follows policy', steps: ['run cleanup'], passes: true },
];

test('first sight baselines the list; setPasses flips one flag and counts passing', async () => {
  const a = tmpAgent(LIST);
  const s = await checkFeatures(a);
  assert.ok(s.ok && s.value);
  assert.equal(s.value.baselined, true);
  assert.equal(s.value.tampered, false);
  assert.equal(s.value.passing, 1);
  const r = await setPasses(a, 0, true);
  assert.ok(r.ok);
  assert.equal(r.value.passing, 2);
  const after = JSON.parse(fs.readFileSync(featuresPath(a), 'utf8')) as Feature[];
  assert.deepEqual(after.map((f) => f.passes), [true, false, true]);
  assert.deepEqual(after.map((f) => f.description), LIST.map((f) => f.description));
  const again = await checkFeatures(a);
  assert.ok(again.ok && again.value);
  assert.equal(again.value.tampered, false, 'a setPasses change is not tampering');
});

test('a rewording made outside the tools is detected, shown as a diff, and setPasses refuses until accepted', async () => {
  const a = tmpAgent(LIST);
  await checkFeatures(a);
  const edited = LIST.map((f) => ({ ...f }));
  edited[1].description = 'Status edit keeps most comments';
  fs.writeFileSync(featuresPath(a), JSON.stringify(edited, null, 2));
  const s = await checkFeatures(a);
  assert.ok(s.ok && s.value);
  assert.equal(s.value.tampered, true);
  assert.equal(s.value.diffText, '~ reworded feature 1: "Status edit keeps comments" → "Status edit keeps most comments"');
  const before = fs.readFileSync(featuresPath(a), 'utf8');
  const r = await setPasses(a, 1, true);
  assert.ok(!r.ok);
  assert.match(r.error.message, /Accept Feature List/);
  assert.match(r.error.message, /reworded feature 1/);
  assert.equal(fs.readFileSync(featuresPath(a), 'utf8'), before, 'nothing written while tampered');
  assert.ok((await acceptFeatures(a)).ok);
  const ok2 = await setPasses(a, 1, true);
  assert.ok(ok2.ok);
});

test('deleting the test the agent cannot pass is detected', async () => {
  const a = tmpAgent(LIST);
  await checkFeatures(a);
  fs.writeFileSync(featuresPath(a), JSON.stringify([LIST[0], LIST[2]], null, 2));
  const s = await checkFeatures(a);
  assert.ok(s.ok && s.value);
  assert.equal(s.value.tampered, true);
  assert.equal(s.value.diffText, '- removed accepted feature 1: [plan] "Status edit keeps comments"');
  fs.rmSync(featuresPath(a));
  const gone = await checkFeatures(a);
  assert.ok(gone.ok && gone.value);
  assert.equal(gone.value.tampered, true);
  assert.equal(gone.value.changes.filter((c) => c.kind === 'removed').length, 3);
});

test('additions, step edits and hand-flipped passes are reported; a reorder alone is not', () => {
  assert.deepEqual(diffFeatures(LIST, [LIST[2], LIST[0], LIST[1]]), []);
  const c = diffFeatures(LIST, [
    { ...LIST[0], passes: true },
    { ...LIST[1], steps: ['edit'] },
    LIST[2],
    { category: 'x', description: 'new', steps: [], passes: false },
  ]);
  assert.deepEqual(c.map((x) => [x.kind, x.index]), [['passes', 0], ['changed', 1], ['added', 3]]);
});

test('setPasses validates the index and keeps the file indentation and CRLF', async () => {
  const a = tmpAgent();
  fs.writeFileSync(featuresPath(a), JSON.stringify(LIST, null, 4).replace(/\n/g, '\r\n') + '\r\n');
  let r = await setPasses(a, 7, true);
  assert.ok(!r.ok);
  assert.match(r.error.message, /no feature 7; the list has 3/);
  r = await setPasses(a, -1, true);
  assert.ok(!r.ok);
  r = await setPasses(a, 2, false);
  assert.ok(r.ok);
  const text = fs.readFileSync(featuresPath(a), 'utf8');
  assert.equal(text, JSON.stringify(LIST.map((f, i) => (i === 2 ? { ...f, passes: false } : f)), null, 4).replace(/\n/g, '\r\n') + '\r\n');
});

test('invalid JSON and schema errors name the file and line; history log only grows', async () => {
  const p = parseFeatures('[\n  { "description": "a" },\n  oops\n]');
  assert.ok(!p.ok);
  assert.equal(p.error.file, '.agent/features.json');
  assert.equal(p.error.line, 3);
  const q = parseFeatures('[{ "category": "x" }]');
  assert.ok(!q.ok);
  assert.match(q.error.message, /feature 0 has no "description"/);
  const a = tmpAgent(LIST);
  await checkFeatures(a);
  const log = path.join(a, 'history', 'features.accepted.jsonl');
  const first = fs.readFileSync(log, 'utf8');
  await setPasses(a, 0, true);
  await acceptFeatures(a);
  assert.ok(fs.readFileSync(log, 'utf8').startsWith(first));
  assert.equal(fs.readFileSync(log, 'utf8').trim().split('\n').length, 3);
});

test('featuresSummary keeps the counts between processes, keyed on both files, and checks again after any edit', async () => {
  const a = tmpAgent(LIST);
  // First sight: the check baselines (appends to the log), so nothing is saved yet; the next call saves.
  const first = await featuresSummary(a);
  assert.ok(first.ok && first.value);
  assert.deepEqual({ ...first.value }, { path: '.agent/features.json', passing: 1, total: 3, tampered: false, diffText: '' });
  assert.equal(fs.existsSync(featuresSummaryPath(a)), false);
  await featuresSummary(a);
  const saved = JSON.parse(fs.readFileSync(featuresSummaryPath(a), 'utf8')) as { key: string; summary: { passing: number } };
  assert.equal(saved.summary.passing, 1);
  assert.equal(fs.readFileSync(path.join(path.dirname(featuresSummaryPath(a)), '.gitignore'), 'utf8'), '*\n');
  // The saved answer is what a new process gets while the key matches: prove it is read, not recomputed.
  fs.writeFileSync(featuresSummaryPath(a), JSON.stringify({ ...saved, v: 1, summary: { ...saved.summary, passing: 42 } }));
  const cached = await featuresSummary(a);
  assert.ok(cached.ok && cached.value);
  assert.equal(cached.value.passing, 42);
  // A hand edit (passes flipped outside setPasses) changes features.json's size: checked again, tampered, not saved.
  const edited = LIST.map((f, i) => (i === 0 ? { ...f, passes: true } : f));
  fs.writeFileSync(featuresPath(a), JSON.stringify(edited, null, 1) + '\n');
  const tampered = await featuresSummary(a);
  assert.ok(tampered.ok && tampered.value);
  assert.equal(tampered.value.tampered, true);
  assert.equal(tampered.value.passing, 2);
  assert.match(tampered.value.diffText, /feature 0 .*passes set to true by hand/);
  assert.equal((JSON.parse(fs.readFileSync(featuresSummaryPath(a), 'utf8')) as { summary: { passing: number } }).summary.passing, 42, 'a tampered result is not saved');
  // Accepted: the log grows, the key changes, the new counts are checked and saved.
  await acceptFeatures(a);
  const ok1 = await featuresSummary(a);
  assert.ok(ok1.ok && ok1.value);
  assert.deepEqual([ok1.value.passing, ok1.value.tampered], [2, false]);
  assert.equal((JSON.parse(fs.readFileSync(featuresSummaryPath(a), 'utf8')) as { summary: { passing: number } }).summary.passing, 2);
  // A setPasses by another process (the MCP server) appends to the log: the next summary follows it.
  await setPasses(a, 1, true);
  const ok2 = await featuresSummary(a);
  assert.ok(ok2.ok && ok2.value);
  assert.equal(ok2.value.passing, 3);
  // An unreadable summary file is ignored, not an error.
  fs.writeFileSync(featuresSummaryPath(a), '{not json');
  const ok3 = await featuresSummary(a);
  assert.ok(ok3.ok && ok3.value);
  assert.equal(ok3.value.passing, 3);
});

/** The features module as a new process loads it: nothing remembered in memory (the disk's .agent/.cache/ is shared, as between processes). */
function freshModule(): typeof import('../../../src/core/plan/featureList') {
  const id = require.resolve('../../../src/core/plan/featureList');
  const kept = require.cache[id];
  delete require.cache[id];
  try {
    return require(id) as typeof import('../../../src/core/plan/featureList');
  } finally {
    require.cache[id] = kept;
  }
}

/** Counts reads of features.json and parses of long JSON texts while `fn` runs, through the real modules' objects. */
async function counting<T>(file: string, fn: () => Promise<T>): Promise<{ value: T; reads: number; parses: number }> {
  const realFs = require('node:fs') as typeof fs;
  const readFile = realFs.promises.readFile;
  const parse = JSON.parse;
  let reads = 0;
  let parses = 0;
  realFs.promises.readFile = ((f: unknown, ...rest: unknown[]) => {
    if (String(f) === file) reads++;
    return (readFile as (...a: unknown[]) => unknown)(f, ...rest);
  }) as typeof readFile;
  JSON.parse = ((text: string, ...rest: unknown[]) => {
    if (typeof text === 'string' && text.length > 10_000) parses++;
    return (parse as (...a: unknown[]) => unknown)(text, ...rest);
  }) as typeof JSON.parse;
  try {
    return { value: await fn(), reads, parses };
  } finally {
    realFs.promises.readFile = readFile;
    JSON.parse = parse;
  }
}

test('setPasses after its own write neither reads nor parses the list again, and writes what re-serializing gives', async () => {
  // 300 features, 4-space CRLF, a key the tools do not know, text that needs escapes, one feature without "passes".
  const list: Record<string, unknown>[] = Array.from({ length: 300 }, (_, i) => ({
    category: i % 2 ? 'ui' : 'core',
    description: `Feature ${i}: "quoted" é\ttab`,
    steps: [`step ${i}`, 'check'],
    passes: i % 3 === 0,
    ...(i % 50 === 7 ? { owner: { name: 'x', passes: 'nested, not the flag' } } : {}),
  }));
  delete list[5].passes;
  const a = tmpAgent();
  const file = featuresPath(a);
  fs.writeFileSync(file, JSON.stringify(list, null, 4).replace(/\n/g, '\r\n') + '\r\n');
  const expected = list.map((f) => ({ ...f }));
  const want = () => JSON.stringify(expected, null, 4).replace(/\n/g, '\r\n') + '\r\n';
  await checkFeatures(a); // first sight: baselined
  assert.ok((await setPasses(a, 1, true)).ok); // the file as the user wrote it: parsed once and re-serialized
  expected[1].passes = true;
  assert.equal(fs.readFileSync(file, 'utf8'), want());
  const edits: [number, boolean][] = [[0, false], [0, true], [299, true], [150, false], [7, true], [7, true], [298, false]];
  const run = await counting(file, async () => {
    let last;
    for (const [i, p] of edits) {
      last = await setPasses(a, i, p);
      assert.ok(last.ok, `setPasses ${i}`);
      expected[i].passes = p;
      assert.equal(fs.readFileSync(file, 'utf8'), want(), `file after setPasses(${i}, ${p})`);
    }
    return last!;
  });
  assert.deepEqual([run.reads, run.parses], [0, 0], 'features.json read and parsed again after our own write');
  assert.ok(run.value.ok);
  const passing = expected.filter((f) => f.passes === true).length;
  assert.equal(run.value.value.passing, passing);
  // A feature without "passes" gets the key by re-serializing, once; the next edit of it is in place again.
  assert.ok((await setPasses(a, 5, true)).ok);
  expected[5].passes = true;
  assert.equal(fs.readFileSync(file, 'utf8'), want());
  const again = await counting(file, () => setPasses(a, 5, false));
  expected[5].passes = false;
  assert.deepEqual([again.reads, again.parses], [0, 0]);
  assert.equal(fs.readFileSync(file, 'utf8'), want());
  // Another process checks the files from scratch and finds the same: untampered, the same counts.
  const fresh = await freshModule().checkFeatures(a);
  const mine = await checkFeatures(a);
  assert.ok(fresh.ok && fresh.value && mine.ok && mine.value);
  assert.deepEqual([fresh.value.tampered, fresh.value.passing, fresh.value.total], [false, passing, 300]);
  assert.deepEqual(mine.value, fresh.value);
});

test('after setPasses, edits by others are seen: a hand edit is refused, another process\'s setPasses is followed', async () => {
  const a = tmpAgent(LIST);
  const file = featuresPath(a);
  await checkFeatures(a);
  assert.ok((await setPasses(a, 0, true)).ok);
  assert.ok((await setPasses(a, 1, true)).ok);
  // Another process (the extension host beside the MCP server) flips feature 2 through setPasses.
  assert.ok((await freshModule().setPasses(a, 2, false)).ok);
  const r = await setPasses(a, 0, false);
  assert.ok(r.ok);
  assert.deepEqual([r.value.passing, r.value.tampered], [1, false]);
  assert.deepEqual((JSON.parse(fs.readFileSync(file, 'utf8')) as Feature[]).map((f) => f.passes), [false, true, false]);
  // A passes flipped by hand right after our write, the file's length unchanged ("false" → "true " keeps the size).
  const text = fs.readFileSync(file, 'utf8');
  const i = text.indexOf('"passes": false');
  fs.writeFileSync(file, text.slice(0, i) + '"passes": true ' + text.slice(i + '"passes": false'.length));
  assert.equal(fs.statSync(file).size, Buffer.byteLength(text));
  const refused = await setPasses(a, 1, false);
  assert.ok(!refused.ok);
  assert.match(refused.error.message, /feature 0 .*passes set to true by hand/);
});

test('a list reordered by hand (not tampering) is checked after setPasses as another process would check it', async () => {
  const a = tmpAgent(LIST);
  await checkFeatures(a);
  fs.writeFileSync(featuresPath(a), JSON.stringify([LIST[1], LIST[0], LIST[2]], null, 2) + '\n');
  assert.ok((await setPasses(a, 2, false)).ok);
  const mine = await checkFeatures(a);
  const fresh = await freshModule().checkFeatures(a);
  assert.ok(mine.ok && fresh.ok);
  assert.deepEqual(mine.value, fresh.value);
});

test('a features.json that is not UTF-8 is not rewritten by setPasses: the Latin-1 byte stays, the call says why', async () => {
  const a = tmpAgent();
  const bytes = Buffer.concat([Buffer.from('[{"category":"a","description":"caf'), Buffer.from([0xe9]), Buffer.from('","steps":[],"passes":false}]\n')]);
  fs.writeFileSync(featuresPath(a), bytes);
  const r = await setPasses(a, 0, true, { by: 'tool' });
  assert.ok(!r.ok);
  assert.match(r.error.message, /not valid UTF-8/);
  assert.ok(fs.readFileSync(featuresPath(a)).equals(bytes));
});
