// A terminal catalog's first build on a worker thread (the MCP server starts one when there is no
// catalog file: bench row 14i). The first call must answer exactly what a build on its own thread
// answers: with the worker's build (checked against the files, so changes made after the worker
// read them are seen: by the worker when the call asks it, else by the caller), and with none when
// the worker fails, exits, posts something else or has not got far when the call comes.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import fsModule = require('node:fs');
import * as os from 'node:os';
import * as path from 'node:path';
import { catalogPath, settleTerminalCatalog, terminalCatalog, type CatalogTerminal } from '../../../../src/core/terminal/catalog/terminalCatalog';
import { catalogWorkerSettled, prebuildTerminalCatalog } from '../../../../src/core/terminal/catalog/catalogWorker';
import { appendCommand, catalog, folder, fresh, truth } from './catalogFixtures';
import { resetProcessState } from '../../../../src/core/processState';

type Fresh = { info: unknown; brief: { last: unknown; lastDone: unknown } }[];

/** What the briefing reads of each terminal (need 'last'): its info, last and last finished command. */
const briefingView = (ts: readonly CatalogTerminal[] | Fresh): unknown[] => ts.map((t) => ({ info: t.info, last: t.brief.last, lastDone: t.brief.lastDone }));

/** Index files opened synchronously in this thread while `f` runs (a build here opens every one). */
async function indexOpens<T>(f: () => Promise<T>): Promise<{ value: T; opened: number }> {
  const real = fsModule.openSync;
  let opened = 0;
  fsModule.openSync = ((...args: Parameters<typeof real>) => {
    if (/\.index\.jsonl$/.test(String(args[0]))) opened++;
    return real(...args);
  }) as typeof real;
  try {
    return { value: await f(), opened };
  } finally {
    fsModule.openSync = real;
  }
}

/** Index files stat'ed synchronously in this thread while `f` runs (the check of a taken build stats every one). */
async function indexStats<T>(f: () => Promise<T>): Promise<{ value: T; stated: number[] }> {
  const real = fsModule.statSync;
  const stated: number[] = [];
  const fsw = fsModule as { statSync: typeof real };
  fsw.statSync = ((...args: Parameters<typeof real>) => {
    const m = /(\d+)\.index\.jsonl$/.exec(String(args[0]));
    if (m) stated.push(Number(m[1]));
    return real(...args);
  }) as typeof real;
  try {
    return { value: await f(), stated };
  } finally {
    fsw.statSync = real;
  }
}

async function briefingCall(agentDir: string): Promise<readonly CatalogTerminal[]> {
  const r = await terminalCatalog(agentDir, { need: 'last', lazyInfo: true });
  assert.ok(r.ok);
  return r.value;
}

// 250 terminals: the worker leaves N.txt unread from 200 unknown terminals on, as the briefing's first call does.
test('the first call takes the worker\'s build: the answer of a build in this thread, without reading the indexes here', async () => {
  const { agentDir } = await folder(250);
  resetProcessState();
  assert.equal(prebuildTerminalCatalog(agentDir), true);
  await catalogWorkerSettled(agentDir);
  const { value, opened } = await indexOpens(() => briefingCall(agentDir));
  assert.equal(opened, 0, 'no index was read in this thread: the worker\'s build was used');
  assert.deepEqual(briefingView(value), briefingView((await fresh(agentDir)) as Fresh));
  // Callers that need every field get the indexes folded whole, as after a build in this thread.
  assert.deepEqual(await catalog(agentDir), await fresh(agentDir));
  await settleTerminalCatalog(agentDir);
  assert.ok(fs.existsSync(catalogPath(agentDir)), 'the catalog file is written once every N.txt is read');
  resetProcessState();
});

test('a change made after the worker read the files is in the first answer', async () => {
  const { agentDir } = await folder(250);
  resetProcessState();
  assert.equal(prebuildTerminalCatalog(agentDir), true);
  await catalogWorkerSettled(agentDir);
  // After the worker's build: a command fails in terminal 200, and terminal 251 appears.
  appendCommand(agentDir, 200, 900, 2);
  fs.copyFileSync(path.join(agentDir, 'terminals', '5.txt'), path.join(agentDir, 'terminals', '251.txt'));
  fs.copyFileSync(path.join(agentDir, 'terminals', '5.index.jsonl'), path.join(agentDir, 'terminals', '251.index.jsonl'));
  const value = await briefingCall(agentDir);
  assert.equal(value.find((t) => t.info.n === 200)?.brief.lastDone?.command, 900);
  assert.deepEqual(briefingView(value), briefingView((await fresh(agentDir)) as Fresh));
  const t = await truth(agentDir);
  assert.equal(value.length, t.total);
  assert.equal(value.filter((x) => x.brief.lastDone && x.brief.lastDone.exitCode !== 0 && x.brief.lastDone.exitCode !== null).length, t.failedLast);
  resetProcessState();
});

test('the worker checks its build\'s files when the call takes it: this thread checks only what changed', async () => {
  const { agentDir } = await folder(250);
  resetProcessState();
  assert.equal(prebuildTerminalCatalog(agentDir), true);
  await catalogWorkerSettled(agentDir);
  // After the build, before the call: a command fails in terminal 120.
  appendCommand(agentDir, 120, 901, 4);
  const { value, stated } = await indexStats(() => briefingCall(agentDir));
  assert.deepEqual([...new Set(stated)], [120], 'only the changed terminal\'s index is stat\'ed here');
  assert.equal(value.find((t) => t.info.n === 120)?.brief.lastDone?.exitCode, 4);
  assert.deepEqual(briefingView(value), briefingView((await fresh(agentDir)) as Fresh));
  resetProcessState();
});

test('a worker that posts its build and exits without checking it: the call checks every file itself', async () => {
  const { agentDir } = await folder(250);
  const script = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ac-catalog-worker-')), 'unchecked.js');
  const compiled = (name: string): string => JSON.stringify(path.join(__dirname, '..', '..', '..', '..', 'src', 'core', 'terminal', 'catalog', `${name}.js`));
  fs.writeFileSync(script, `const { parentPort, workerData } = require('node:worker_threads');
const dev = require('node:fs').statSync(require('node:path').join(workerData.agentContextCatalog, 'terminals')).dev;
require(${compiled('terminalCatalog')}).firstBuildSnapshot(workerData.agentContextCatalog).then((snapshot) => {
  parentPort.postMessage({ agentContextCatalog: 'done', handover: require(${compiled('catalogFile')}).encodeHandover(snapshot, dev) });
  setTimeout(() => process.exit(0), 50);
});`);
  resetProcessState();
  assert.equal(prebuildTerminalCatalog(agentDir, { script }), true);
  await catalogWorkerSettled(agentDir);
  appendCommand(agentDir, 120, 901, 4);
  const { value, stated } = await indexStats(() => indexOpens(() => briefingCall(agentDir)));
  assert.equal(value.opened, 1, 'the build was taken: only the changed index is read here');
  assert.ok(new Set(stated).size >= 250, `every index is stat'ed here (${new Set(stated).size})`);
  assert.equal(value.value.find((t) => t.info.n === 120)?.brief.lastDone?.exitCode, 4);
  assert.deepEqual(briefingView(value.value), briefingView((await fresh(agentDir)) as Fresh));
  resetProcessState();
});

test('a worker that throws, exits or posts something else: the first call builds in this thread, with the same answer', async () => {
  const { agentDir } = await folder(30);
  const want = briefingView((await fresh(agentDir)) as Fresh);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-catalog-worker-'));
  const scripts = {
    throws: "throw new Error('boom');",
    exits: 'process.exit(3);',
    garbage: "require('node:worker_threads').parentPort.postMessage({ agentContextCatalog: 'done', handover: { body: JSON.stringify({ format: 'agent-context/terminal-catalog-handover', numbers: 'x' }), unread: new Float64Array(0), strings: [] } });",
    // The hand-over of an older build of this code: a structured clone of the snapshot.
    objects: "require('node:worker_threads').parentPort.postMessage({ agentContextCatalog: 'done', snapshot: { listed: true, numbers: [1], previous: [], indexed: [], entries: [] } });",
    nothing: "require('node:worker_threads').parentPort.postMessage({ agentContextCatalog: 'done' });",
  };
  for (const [name, body] of Object.entries(scripts)) {
    const script = path.join(dir, `${name}.js`);
    fs.writeFileSync(script, body);
    resetProcessState();
    fs.rmSync(catalogPath(agentDir), { force: true });
    assert.equal(prebuildTerminalCatalog(agentDir, { script }), true, name);
    const { value, opened } = await indexOpens(() => briefingCall(agentDir));
    assert.ok(opened > 0, `${name}: built in this thread`);
    assert.deepEqual(briefingView(value), want, name);
  }
  resetProcessState();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a worker that has barely begun when the first call comes: the call builds at once', async () => {
  const { agentDir } = await folder(30);
  const want = briefingView((await fresh(agentDir)) as Fresh);
  // Never done, never exits, has read nothing. A call that waits for a worker first asks it what
  // changed since its build (terminalCatalog.ts awaitPrebuild), which this one writes down: had the
  // call waited (WORKER_WAIT_MS, 20 s), the file would be there when it answered.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-catalog-worker-'));
  const script = path.join(dir, 'slow.js');
  const asked = path.join(dir, 'asked.json');
  fs.writeFileSync(script, `require('node:worker_threads').parentPort.on('message', (m) => require('node:fs').writeFileSync(${JSON.stringify(asked)}, JSON.stringify(m)));`);
  resetProcessState();
  assert.equal(prebuildTerminalCatalog(agentDir, { script }), true);
  const { value, opened } = await indexOpens(() => briefingCall(agentDir));
  assert.ok(opened > 0, 'built in this thread');
  assert.deepEqual(briefingView(value), want);
  assert.equal(fs.existsSync(asked), false, `the call waited for the worker: it asked it ${fs.existsSync(asked) ? fs.readFileSync(asked, 'utf8') : ''}`);
  resetProcessState();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('no worker when a catalog file exists or there is no terminals folder', async () => {
  const { root, agentDir } = await folder(5);
  resetProcessState();
  await terminalCatalog(agentDir);
  await settleTerminalCatalog(agentDir);
  assert.ok(fs.existsSync(catalogPath(agentDir)));
  resetProcessState();
  assert.equal(prebuildTerminalCatalog(agentDir), false, 'a catalog file: loaded instead');
  assert.equal(prebuildTerminalCatalog(path.join(root, 'elsewhere', '.agent')), false, 'no terminals folder');
  resetProcessState();
});
