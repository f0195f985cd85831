// The terminal catalog's first build for the briefing (need 'last' with lazyInfo: the first call of
// a server that finds no .agent/.cache/, bench row 14i): it folds only the end of each index and
// opens no N.txt but those whose info is looked at. Its answers must be those of a whole build, in
// this process and in later ones that load the catalog file it leaves (with indexes folded from
// their end only), also after other processes truncate, delete and add terminal files.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
// The module object itself (the namespace import is a read-only copy): its openSync can be watched.
import fsModule = require('node:fs');
import * as path from 'node:path';
import { catalogPath, settleTerminalCatalog, terminalCatalog, type CatalogTerminal } from '../../../../src/core/terminal/catalog/terminalCatalog';
import { formatHeader } from '../../../../src/core/terminal/terminalFormat';
import { invokeTool } from '../../../../src/core/tools/invokeTool';
import { gatherBriefing } from '../../../../src/core/briefing/briefingSources';
import { composeBriefing } from '../../../../src/core/briefing/composeBriefing';
import { DEFAULT_TOOL_CONFIG } from '../../../../src/core/config';
import { nullLogger } from '../../../../src/core/log';
import type { ToolContext } from '../../../../src/core/tools/toolContext';
import { SCAN_BLOCK, TAIL_BYTES } from '../../../../src/core/terminal/catalog/catalogColdRead';
import { appendCommand, commandsOf, folder, fresh, truth } from './catalogFixtures';
import { resetProcessState, tune } from '../../../../src/core/processState';

/** Runs `f` with N.txt left unread from the first unknown terminal on (the default waits for a first build of hundreds). */
async function lazyFromOne<T>(f: () => Promise<T>): Promise<T> {
  const restore = tune({ catalogLazyInfoMin: 0 });
  try {
    return await f();
  } finally {
    restore();
  }
}

const ctxOf = (root: string): ToolContext => ({ folders: [{ name: 'w', path: root }], config: DEFAULT_TOOL_CONFIG, signal: new AbortController().signal, log: nullLogger, source: 'mcp', trusted: true, allowRun: false });

/** Counts the N.txt and N.index.jsonl opened synchronously while `f` runs. */
async function opening<T>(f: () => Promise<T>): Promise<{ value: T; txt: string[]; idx: string[] }> {
  const real = fsModule.openSync;
  const txt: string[] = [];
  const idx: string[] = [];
  fsModule.openSync = ((...args: Parameters<typeof real>) => {
    const name = path.basename(String(args[0]));
    if (/^\d+\.txt$/.test(name)) txt.push(name);
    if (/^\d+\.index\.jsonl$/.test(name)) idx.push(name);
    return real(...args);
  }) as typeof real;
  try {
    return { value: await f(), txt, idx };
  } finally {
    fsModule.openSync = real;
  }
}

/** What a whole build says (a new process, no catalog file). */
async function wholeBuild(agentDir: string): Promise<readonly CatalogTerminal[]> {
  resetProcessState();
  fs.rmSync(catalogPath(agentDir), { force: true });
  const r = await terminalCatalog(agentDir);
  assert.ok(r.ok);
  await settleTerminalCatalog(agentDir);
  resetProcessState();
  fs.rmSync(catalogPath(agentDir), { force: true });
  return r.value;
}

const rec = (n: number, command: number, status: string, exitCode: number | null, second: number): string =>
  JSON.stringify({ v: 1, command, status, file: `${n}.txt`, commandLine: `step ${command}`, cwd: '/w', started: new Date(Date.UTC(2026, 5, 1, 11) + second * 1000).toISOString(), headerLine: command * 3, firstLine: command * 3 + 1, lastLine: status === 'done' ? command * 3 + 1 : null, exitCode, durationMs: status === 'done' ? 300 : null, secretsMasked: 0 });

/** Terminals whose index ends in the ways the end fold must handle (41 and up). */
function oddTerminals(agentDir: string): void {
  const dir = path.join(agentDir, 'terminals');
  const add = (n: number, index: string | undefined): void => {
    fs.writeFileSync(path.join(dir, `${n}.txt`), formatHeader({ name: `bash ${n}`, n, shell: '/bin/bash', cwd: '/w', started: new Date('2026-06-01T11:00:00Z'), shellIntegration: true }) + '# terminal closed at 2026-06-01T11:30:00.000Z\n');
    if (index !== undefined) fs.writeFileSync(path.join(dir, `${n}.index.jsonl`), index);
  };
  // The last command still running after a failure: lastDone is the failure, a line before the last.
  add(41, [rec(41, 1, 'running', null, 1), rec(41, 1, 'done', 0, 1), rec(41, 2, 'running', null, 5), rec(41, 2, 'done', 4, 5), rec(41, 3, 'running', null, 9)].join('\n') + '\n');
  // The last finished command far before the end (more than the 4 KB read of the end): folded whole.
  const long = [rec(42, 1, 'running', null, 1), rec(42, 1, 'done', 2, 1)];
  for (let k = 2; k < 40; k++) long.push(rec(42, k, 'running', null, k * 2));
  add(42, long.join('\n') + '\n');
  // CRLF, and a torn last line (no newline yet).
  add(43, rec(43, 1, 'done', 0, 3) + '\r\n' + rec(43, 2, 'done', 6, 4) + '\r\n' + rec(43, 3, 'done', 0, 5).slice(0, 50));
  // An empty index, no index at all.
  add(44, '');
  add(45, undefined);
  // Garbage after the last record; a running command after it, a finished one before.
  add(46, [rec(46, 1, 'done', 0, 2), rec(46, 2, 'done', 1, 6), rec(46, 3, 'running', null, 7), 'garbage', '{"v":1}'].join('\n') + '\n');
  // Not capture's order: a copy of its first commands appended (a concatenation, another writer). The
  // highest command, whose last record decides, is far before the end; larger and smaller than what is read of the end.
  const run = (n: number, from: number, to: number, failAt: number): string[] => {
    const out: string[] = [];
    for (let k = from; k <= to; k++) out.push(rec(n, k, 'running', null, k * 2), rec(n, k, 'done', k === failAt ? 3 : 0, k * 2));
    return out;
  };
  add(47, [...run(47, 1, 30, 30), ...run(47, 1, 8, 99)].join('\n') + '\n');
  add(48, [...run(48, 1, 4, 4), ...run(48, 1, 2, 99)].join('\n') + '\n');
}

test('a first build for the briefing opens no N.txt, reads the end of each index, and says what a whole build says of each terminal\'s last commands', () => lazyFromOne(async () => {
  resetProcessState();
  const { root, agentDir } = await folder(40);
  try {
    oddTerminals(agentDir);
    const whole = await wholeBuild(agentDir);
    assert.equal(whole.length, 48);

    // A few terminals it does not know (fewer than a first build's hundreds) are read at once: nothing is left for later.
    tune({ catalogLazyInfoMin: 200 });
    const few = await opening(() => terminalCatalog(agentDir, { need: 'last', lazyInfo: true }));
    assert.equal(few.txt.length, 48);
    tune({ catalogLazyInfoMin: 0 });
    resetProcessState();
    fs.rmSync(catalogPath(agentDir), { force: true });
    const first = await opening(() => terminalCatalog(agentDir, { need: 'last', lazyInfo: true }));
    assert.ok(first.value.ok);
    const lazy = first.value.value;
    assert.deepEqual(first.txt, [], 'no N.txt opened by the call');
    assert.equal(lazy.length, whole.length);
    // Briefs first (looking at info reads N.txt).
    for (const [i, x] of lazy.entries()) {
      const w = whole[i].brief;
      assert.deepEqual([x.brief.last, x.brief.lastDone, x.brief.commands > 0], [w.last, w.lastDone, w.commands > 0], `terminal ${i + 1}: last, lastDone`);
      if (x.brief.lastFailed !== undefined) assert.deepEqual(x.brief.lastFailed, w.lastFailed, `terminal ${i + 1}: lastFailed`);
      assert.ok(x.brief.commands <= w.commands);
    }
    // Terminal 1's index (400 commands) is larger than what is read of its end; 42's last finished command is before that.
    const big = fs.statSync(path.join(agentDir, 'terminals', '1.index.jsonl')).size;
    assert.ok(big > 16 * 1024, `${big} bytes`);
    // Its lines carry the writer's tallies (indexTally.ts): the end read alone gives the whole index's count and last failure.
    assert.deepEqual([lazy[0].brief.commands, lazy[0].brief.lastFailed], [whole[0].brief.commands, whole[0].brief.lastFailed], 'terminal 1: its tally');
    assert.equal(lazy[41].brief.commands, whole[41].brief.commands, 'terminal 42: folded whole');
    // 47 and 48: the end alone would say the last command succeeded; the whole index says it failed.
    for (const i of [46, 47]) assert.equal(whole[i].brief.lastDone?.exitCode, 3, `terminal ${i + 1}: the whole fold's last finished command failed`);

    // The info of a terminal is read when looked at, once, and is the whole build's.
    const looked = await opening(async () => [lazy[6].info, lazy[40].info, lazy[6].info]);
    assert.deepEqual(looked.txt, ['7.txt', '41.txt']);
    assert.deepEqual(looked.value, [whole[6].info, whole[40].info, whole[6].info]);

    // Right after the call, the rest is read and the catalog written; a call that needs every field folds every index whole.
    await settleTerminalCatalog(agentDir);
    assert.deepEqual(await terminalCatalog(agentDir), { ok: true, value: whole }, 'this process, every field');
    resetProcessState();
    assert.deepEqual(await terminalCatalog(agentDir), { ok: true, value: whole }, 'a new process, with the catalog file');
  } finally {
    resetProcessState();
    fs.rmSync(root, { recursive: true, force: true });
  }
}));


/**
 * Indexes whose earlier part (before the 4 KB read of the end) holds a command higher than those
 * of the end, a failure, written in every way JSON allows and at the places where the scan of the
 * earlier bytes cuts them: the first build must fold each whole (13 and up; `hidden` is where each
 * one's hidden command is).
 */
function hiddenHigher(agentDir: string): Map<number, string> {
  const dir = path.join(agentDir, 'terminals');
  const hidden = new Map<number, string>();
  let n = 12;
  /** Lines of low, successful commands (from `k`) of at least `bytes` bytes. */
  const fill = (t: number, k: number, bytes: number): string => {
    let out = '';
    for (; out.length < bytes; k++) out += rec(t, k, 'running', null, k) + '\n' + rec(t, k, 'done', 0, k) + '\n';
    return out;
  };
  /** A line that is no record, of exactly `bytes` bytes (0, or at least 12). */
  const pad = (bytes: number): string => (bytes === 0 ? '' : `{"pad":"${'x'.repeat(bytes - 11)}"}\n`);
  /** The end: commands 1000 to 1010 done, then one more line, more than what is read of the end. */
  const end = (t: number): string => fill(t, 1000, TAIL_BYTES + 600);
  const add = (what: string, index: (t: number) => string): void => {
    const t = ++n;
    fs.writeFileSync(path.join(dir, `${t}.txt`), formatHeader({ name: `bash ${t}`, n: t, shell: '/bin/bash', cwd: '/w', started: new Date('2026-06-01T11:00:00Z'), shellIntegration: true }) + '# terminal closed at 2026-06-01T11:30:00.000Z\n');
    fs.writeFileSync(path.join(dir, `${t}.index.jsonl`), index(t));
    hidden.set(t, what);
  };
  // The failed command 5000, finished after all others.
  const high = (t: number, command = 5000): string => rec(t, command, 'done', 7, 9000) + '\n';
  /** `line` placed so that byte `keyAt` of it is at byte `at` of the file, after low commands and a pad. */
  const placed = (t: number, line: string, keyAt: number, at: number): string => {
    const head = fill(t, 1, at - keyAt - 1200);
    return head + pad(at - keyAt - head.length) + line + end(t);
  };
  add('as the first line', (t) => high(t) + fill(t, 1, 300_000) + end(t));
  add('as the first line of a 50 KB index', (t) => high(t) + fill(t, 1, 50_000) + end(t));
  add('in the middle of a 600 KB index', (t) => fill(t, 1, 300_000) + high(t) + fill(t, 500, 300_000) + end(t));
  const key = (line: string): number => line.indexOf('"command"');
  add('its key cut by the end of the first block', (t) => placed(t, high(t), key(high(t)) + 4, SCAN_BLOCK));
  add('its number cut by the end of the first block', (t) => placed(t, high(t, 50_000), key(high(t, 50_000)) + '"command":5'.length, SCAN_BLOCK));
  add('its key cut by the end of the second block', (t) => placed(t, high(t), key(high(t)) + 7, 2 * SCAN_BLOCK - 64));
  for (const size of [50_000, 300_000]) add(`its key written with a \\u escape, in a ${size / 1000} KB index`, (t) => fill(t, 1, size) + high(t).replace('"command"', '"comm\\u0061nd"') + end(t));
  add('as a second "command" key of a line', (t) => fill(t, 1, 300_000) + rec(t, 3, 'done', 7, 9000).slice(0, -1) + ',"command":5000}\n' + end(t));
  add('its key spaced from its number', (t) => fill(t, 1, 300_000) + high(t).replace('"command":5000', '"command" \t: 5000') + end(t));
  // Just before and just after the start of what is read of the end (of an index read in blocks): the index's size puts it there.
  for (const d of [-5, 3, 60]) {
    add(`its key ${d} bytes from the start of what is read of the end`, (t) => {
      const line = high(t).replace('"command":', `"command"${' '.repeat(70)}:`);
      // The end read starts TAIL_BYTES before the file's end: that many bytes follow the key, less d.
      const tail = fill(t, 1000, 2000);
      return fill(t, 1, 300_000) + line + pad(TAIL_BYTES - d - (line.length - key(line)) - tail.length) + tail;
    });
  }
  return hidden;
}

test('a first build for the briefing folds whole each index whose earlier bytes hold a higher command, however it is written and wherever the scan cuts it', () => lazyFromOne(async () => {
  resetProcessState();
  const { root, agentDir } = await folder(12);
  try {
    const hidden = hiddenHigher(agentDir);
    const whole = await wholeBuild(agentDir);
    resetProcessState();
    const r = await terminalCatalog(agentDir, { need: 'last', lazyInfo: true });
    assert.ok(r.ok);
    const first: readonly CatalogTerminal[] = r.value;
    assert.equal(first.length, whole.length);
    for (const [n, what] of hidden) {
      const w = whole[n - 1].brief;
      // The index's end alone would say command 1010 succeeded.
      assert.equal(w.lastDone?.exitCode, 7, `terminal ${n} (${what}): the whole fold finds the hidden failure`);
      assert.ok((w.lastDone?.command ?? 0) >= 5000, `terminal ${n} (${what})`);
      const x = first[n - 1].brief;
      assert.deepEqual([x.last, x.lastDone], [w.last, w.lastDone], `terminal ${n} (${what}): last, lastDone`);
    }
    // The briefing counts them among the terminals whose last command failed, as a whole build does.
    const failing = (v: readonly CatalogTerminal[]): number[] => v.filter((t) => t.brief.lastDone?.exitCode === 7).map((t) => t.info.n);
    assert.deepEqual(failing(first), failing(whole));
    assert.deepEqual(failing(whole), [...hidden.keys()]);
  } finally {
    resetProcessState();
    fs.rmSync(root, { recursive: true, force: true });
  }
}));

/** The three answers a user checks: the briefing's count, the listing's count, lastFailed. */
async function answers(root: string, agentDir: string): Promise<{ lastFailed: string; failedLast: number; total: number }> {
  const text = composeBriefing(await gatherBriefing(agentDir)).text;
  const m = /Terminals whose last command failed \((\d+) of (\d+)\):/.exec(text);
  assert.ok(m, text);
  const list = await invokeTool('agentContext_terminal', {}, ctxOf(root));
  const total = Number(/^(\d+) captured terminal/.exec(list.text)?.[1]);
  assert.equal(total, Number(m[2]), 'the listing and the briefing count the same terminals');
  const lf = await invokeTool('agentContext_terminal', { command: 'lastFailed' }, ctxOf(root));
  return { lastFailed: /^(Terminal \d+ command #\d+:|No failed command)/.exec(lf.text)?.[0] ?? lf.text.slice(0, 80), failedLast: Number(m[1]), total };
}

test('a catalog file left by a first build for the briefing gives later processes the right counts and the newest failure, after other processes truncate, delete and add terminal files', () => lazyFromOne(async () => {
  resetProcessState();
  const { root, agentDir } = await folder(40);
  const dir = path.join(agentDir, 'terminals');
  try {
    // Terminal 7 holds the newest failure of all, with a command that succeeded after it: the end of its index does not show the failure.
    const k = (await commandsOf(agentDir, 7)) + 1;
    appendCommand(agentDir, 7, k, 5);
    appendCommand(agentDir, 7, k + 1, 0);
    fs.appendFileSync(path.join(dir, '7.txt'), '# terminal closed at 2026-06-01T14:00:00.000Z\n');
    const before = await truth(agentDir);
    assert.equal(before.lastFailed, `Terminal 7 command #${k}:`);

    // Process 1: the first briefing of a server that finds no catalog; it exits within a second (no sweep).
    const text = composeBriefing(await gatherBriefing(agentDir)).text;
    assert.match(text, new RegExp(`\\(${before.failedLast} of ${before.total}\\):`));
    await settleTerminalCatalog(agentDir, { sweep: false });
    resetProcessState();
    // The file: a header line, then one line per terminal's row.
    const file = { terminals: fs.readFileSync(catalogPath(agentDir), 'utf8').split('\n').slice(1, -1).map((l) => JSON.parse(l) as [number, ...unknown[]]) };
    const row7 = file.terminals.find((t) => t[0] === 7)!;
    assert.ok((row7[10] as number[])[11] > 0, 'the file holds terminal 7 folded from the end of its index');
    assert.equal(file.terminals.length, before.total, 'every terminal, with its N.txt read after the call');

    // Other processes: terminal 9's index truncated to its first line, terminal 5 deleted, terminal 41 added, terminal 3 given a failure in place.
    const idx9 = path.join(dir, '9.index.jsonl');
    fs.writeFileSync(idx9, fs.readFileSync(idx9, 'utf8').split('\n')[0] + '\n');
    fs.rmSync(path.join(dir, '5.txt'));
    fs.rmSync(path.join(dir, '5.index.jsonl'));
    fs.copyFileSync(path.join(dir, '8.txt'), path.join(dir, '41.txt'));
    fs.copyFileSync(path.join(dir, '8.index.jsonl'), path.join(dir, '41.index.jsonl'));
    const idx3 = path.join(dir, '3.index.jsonl');
    fs.writeFileSync(idx3, fs.readFileSync(idx3, 'utf8').replace(/"exitCode":0/g, '"exitCode":7'));
    const after = await truth(agentDir);
    assert.notDeepEqual(after, before);

    // Process 2, with that file: briefing, listing, lastFailed.
    assert.deepEqual(await answers(root, agentDir), after, 'a new process with the file');
    // Process 3, lastFailed first.
    resetProcessState();
    const lf = await invokeTool('agentContext_terminal', { command: 'lastFailed' }, ctxOf(root));
    assert.ok(lf.text.startsWith(after.lastFailed), lf.text.slice(0, 120));
    assert.deepEqual(await answers(root, agentDir), after, 'a new process, lastFailed first');
    await settleTerminalCatalog(agentDir);
    assert.deepEqual(await terminalCatalog(agentDir), { ok: true, value: await fresh(agentDir) }, 'every field exact');
  } finally {
    resetProcessState();
    fs.rmSync(root, { recursive: true, force: true });
  }
}));

test('a terminal file or index that is a FIFO does not stop a first build: the terminal is shown as unreadable or without commands', { timeout: 30_000 }, () => lazyFromOne(async () => {
  resetProcessState();
  const { root, agentDir } = await folder(6);
  const dir = path.join(agentDir, 'terminals');
  try {
    fs.rmSync(path.join(dir, '3.txt'));
    execFileSync('mkfifo', [path.join(dir, '3.txt')]);
    fs.rmSync(path.join(dir, '4.index.jsonl'));
    execFileSync('mkfifo', [path.join(dir, '4.index.jsonl')]);
    for (const opts of [{ need: 'last', lazyInfo: true } as const, {}]) {
      resetProcessState();
      fs.rmSync(catalogPath(agentDir), { force: true });
      const r = await terminalCatalog(agentDir, opts);
      assert.ok(r.ok);
      assert.equal(r.value.length, 6);
      assert.match(r.value[2].info.error ?? '', /cannot be read/, JSON.stringify(opts));
      assert.equal(r.value[3].brief.commands, 0);
      assert.equal(r.value[3].info.error, undefined);
      await settleTerminalCatalog(agentDir);
      const again = await terminalCatalog(agentDir);
      assert.ok(again.ok);
      assert.match(again.value[2].info.error ?? '', /cannot be read/);
      assert.equal(again.value[3].brief.commands, 0);
      // A caller that leaves N.txt unread still sees the unreadable one as it is (it once threw here).
      for (const need of ['last', 'lastFailed'] as const) {
        const lazy = await terminalCatalog(agentDir, { need, lazyInfo: true });
        assert.ok(lazy.ok);
        assert.match(lazy.value[2].info.error ?? '', /cannot be read/, need);
      }
    }
  } finally {
    resetProcessState();
    fs.rmSync(root, { recursive: true, force: true });
  }
}));
