// What the terminal catalog checks on each call (src/core/terminal/catalog/terminalCatalog.ts): the folder's
// stat, the open terminals, and closed ones in turn. Every change capture makes is seen by the next
// call whatever the turn; a closed terminal changed in place by another program within the stated
// bound (catalogClosedChecksPerCall per call, a sweep after a new process's first call); and the tools
// never name a failure that is no longer there, even while the catalog's brief of it is stale.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
// The module object itself (the namespace import is a read-only copy): its statSync can be watched.
import fsModule = require('node:fs');
import * as path from 'node:path';
import { catalogPath, settleTerminalCatalog, terminalCatalog } from '../../../../src/core/terminal/catalog/terminalCatalog';
import { formatHeader } from '../../../../src/core/terminal/terminalFormat';
import { invokeTool } from '../../../../src/core/tools/invokeTool';
import { gatherBriefing } from '../../../../src/core/briefing/briefingSources';
import { composeBriefing } from '../../../../src/core/briefing/composeBriefing';
import { DEFAULT_TOOL_CONFIG } from '../../../../src/core/config';
import { nullLogger } from '../../../../src/core/log';
import type { ToolContext } from '../../../../src/core/tools/toolContext';
import { appendCommand, catalog, commandsOf, folder, fresh, truth } from './catalogFixtures';
import { resetProcessState, tune } from '../../../../src/core/processState';

/** Runs `f` with `n` closed terminals checked per call, in a fresh set of catalogs. */
async function withTurn<T>(n: number, f: () => Promise<T>): Promise<T> {
  resetProcessState();
  const restore = tune({ catalogClosedChecksPerCall: n });
  try {
    return await f();
  } finally {
    restore();
    resetProcessState();
  }
}

const closeNote = (agentDir: string, n: number): void => fs.appendFileSync(path.join(agentDir, 'terminals', `${n}.txt`), '# terminal closed at 2026-06-01T14:00:00.000Z\n');

test('a warm call stats the open terminals and a few closed ones in turn, not every terminal', () => withTurn(4, async () => {
  const { root, agentDir } = await folder(40);
  const real = fsModule.statSync;
  let stats = 0;
  try {
    await catalog(agentDir);
    await settleTerminalCatalog(agentDir);
    const watched = fsModule as { statSync: typeof real };
    watched.statSync = ((...args: Parameters<typeof real>) => {
      if (String(args[0]).includes(`${path.sep}terminals${path.sep}`)) stats++;
      return real(...args);
    }) as typeof real;
    const r = await catalog(agentDir);
    watched.statSync = real;
    // Terminals 1, 39 and 40 are open: two files each, plus two files of each of 4 closed ones (80 files in all).
    assert.ok(stats <= 2 * (3 + 4), `${stats} stats of terminal files`);
    assert.deepEqual(r, await fresh(agentDir));
  } finally {
    (fsModule as { statSync: typeof real }).statSync = real;
    fs.rmSync(root, { recursive: true, force: true });
  }
}));

test('what capture does is seen by the very next call, without waiting for a closed terminal\'s turn', () => withTurn(0, async () => {
  const { root, agentDir } = await folder(40);
  const dir = path.join(agentDir, 'terminals');
  try {
    assert.deepEqual(await catalog(agentDir), await fresh(agentDir), 'first build');
    const steps: [string, () => void][] = [
      ['an open terminal appended to (a command still running)', () => appendCommand(agentDir, 1, 401, 0, false)],
      ['an open terminal appended to (a failure)', () => appendCommand(agentDir, 39, 100, 3)],
      ['an open terminal closed', () => closeNote(agentDir, 39)],
      ['a new terminal', () => {
        fs.writeFileSync(path.join(dir, '41.txt'), formatHeader({ name: 'bash 41', n: 41, shell: '/bin/bash', cwd: '/w', started: new Date('2026-06-01T13:30:00Z'), shellIntegration: true }));
        appendCommand(agentDir, 41, 1, 2);
      }],
      ['a closed terminal deleted', () => {
        fs.rmSync(path.join(dir, '5.txt'));
        fs.rmSync(path.join(dir, '5.index.jsonl'));
      }],
      ['a closed terminal\'s index deleted', () => fs.rmSync(path.join(dir, '6.index.jsonl'))],
      ['an open terminal rotated (N.1.txt, a new N.txt, its index rewritten by rename)', () => {
        fs.renameSync(path.join(dir, '40.txt'), path.join(dir, '40.1.txt'));
        fs.writeFileSync(path.join(dir, '40.txt'), formatHeader({ name: 'bash 40', n: 40, shell: '/bin/bash', cwd: '/w', started: new Date('2026-06-01T11:00:00Z'), shellIntegration: true, continued: true }));
        const idx = path.join(dir, '40.index.jsonl');
        const moved = fs.readFileSync(idx, 'utf8').split('\n').filter(Boolean).map((l) => JSON.stringify({ ...JSON.parse(l), file: '40.1.txt' })).join('\n') + '\n';
        fs.writeFileSync(`${idx}.tmp`, moved);
        fs.renameSync(`${idx}.tmp`, idx);
      }],
    ];
    for (const [what, change] of steps) {
      change();
      assert.deepEqual(await catalog(agentDir), await fresh(agentDir), what);
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}));

test('a closed terminal changed in place by another program is seen within ceil(terminals / per call) calls, and by a new process once its sweep ran', () => withTurn(4, async () => {
  const { root, agentDir } = await folder(40);
  const dir = path.join(agentDir, 'terminals');
  try {
    await catalog(agentDir);
    await settleTerminalCatalog(agentDir);
    const before = fs.readFileSync(catalogPath(agentDir), 'utf8');
    const inPlace = (): void => {
      // Truncated, rewritten to the same size with other exit codes, appended to: same inodes, the folder unchanged.
      const idx9 = path.join(dir, '9.index.jsonl');
      fs.writeFileSync(idx9, fs.readFileSync(idx9, 'utf8').split('\n')[0] + '\n');
      const idx3 = path.join(dir, '3.index.jsonl');
      fs.writeFileSync(idx3, fs.readFileSync(idx3, 'utf8').replace(/"exitCode":0/g, '"exitCode":7'));
      appendCommand(agentDir, 7, 50, 4);
    };
    inPlace();
    for (let i = 0; i < Math.ceil(40 / 4); i++) await catalog(agentDir);
    assert.deepEqual(await catalog(agentDir), await fresh(agentDir), 'this process, after a full turn');

    // A new process that loads a catalog written before such changes: its first call checks the
    // open terminals and starts a sweep; once that ran, every answer is exact.
    fs.writeFileSync(catalogPath(agentDir), before);
    appendCommand(agentDir, 11, (await commandsOf(agentDir, 11)) + 1, 9);
    fs.writeFileSync(path.join(dir, '13.index.jsonl'), '');
    resetProcessState();
    await catalog(agentDir);
    await settleTerminalCatalog(agentDir);
    assert.deepEqual(await catalog(agentDir), await fresh(agentDir), 'a new process, after its sweep');
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}));


test('lastFailed and the briefing name only failures that are there, even while the catalog\'s brief of a closed terminal is stale', () => withTurn(0, async () => {
  const { root, agentDir } = await folder(40);
  const ctx: ToolContext = { folders: [{ name: 'w', path: root }], config: DEFAULT_TOOL_CONFIG, signal: new AbortController().signal, log: nullLogger, source: 'mcp', trusted: true, allowRun: false };
  const idx7 = path.join(agentDir, 'terminals', '7.index.jsonl');
  try {
    // Closed terminal 7's index gets the newest failure of all (its text stays closed), and the catalog learns it.
    const original = fs.readFileSync(idx7, 'utf8');
    const k = (await commandsOf(agentDir, 7)) + 1;
    const rec = { v: 1, command: k, status: 'done', file: '7.txt', commandLine: 'make late', cwd: '/w', started: '2026-06-01T15:00:00.000Z', headerLine: 1, firstLine: 2, lastLine: 1, exitCode: 6, durationMs: 10, secretsMasked: 0 };
    fs.appendFileSync(idx7, JSON.stringify(rec) + '\n');
    assert.equal((await truth(agentDir)).lastFailed, `Terminal 7 command #${k}:`);
    await catalog(agentDir);
    // Then rewritten in place as it was: the catalog, checking no closed terminal in turn, still holds the failure.
    fs.writeFileSync(idx7, original);
    const want = await truth(agentDir);
    assert.notEqual(want.lastFailed, `Terminal 7 command #${k}:`);
    const lf = await invokeTool('agentContext_terminal', { command: 'lastFailed' }, ctx);
    assert.ok(lf.text.startsWith(want.lastFailed), `expected "${want.lastFailed}", got ${lf.text.slice(0, 200)}`);

    // The same for the briefing's count of terminals whose last command failed.
    fs.appendFileSync(idx7, JSON.stringify(rec) + '\n');
    assert.ok((await terminalCatalog(agentDir, { check: [7] })).ok);
    fs.writeFileSync(idx7, original);
    const now = await truth(agentDir);
    const text = composeBriefing(await gatherBriefing(agentDir)).text;
    assert.match(text, new RegExp(`Terminals whose last command failed \\(${now.failedLast} of ${now.total}\\):`), text);
    assert.doesNotMatch(text, /make late/);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}));

test('the folder\'s listing is trusted by its stat once it is old enough to be, and a new terminal still counts at once', () => withTurn(4, async () => {
  const { root, agentDir } = await folder(12);
  const dir = path.join(agentDir, 'terminals');
  const real = fs.promises.readdir;
  let listings = 0;
  try {
    // A stat can only stand for a listing when no change can share the clock tick of the last one (2 s).
    await new Promise((r) => setTimeout(r, 2100));
    fs.promises.readdir = (async (p: string) => {
      if (p === dir) listings++;
      return real(p);
    }) as unknown as typeof real;
    // Listings made by a catalog call alone (fresh() lists the folder too), and how many terminals it counted.
    const call = async (): Promise<{ listed: number; terminals: number }> => {
      listings = 0;
      const r = (await catalog(agentDir)) as unknown[];
      return { listed: listings, terminals: r.length };
    };
    assert.deepEqual(await call(), { listed: 1, terminals: 12 }, 'first call: listed');
    assert.deepEqual(await call(), { listed: 0, terminals: 12 }, 'the folder unchanged: not listed again');
    assert.deepEqual(await catalog(agentDir), await fresh(agentDir));
    fs.writeFileSync(path.join(dir, '13.txt'), formatHeader({ name: 'bash 13', n: 13, shell: '/bin/bash', cwd: '/w', started: new Date('2026-06-01T13:30:00Z'), shellIntegration: true }));
    assert.deepEqual(await call(), { listed: 1, terminals: 13 }, 'a new file: listed again');
    assert.deepEqual(await catalog(agentDir), await fresh(agentDir));
  } finally {
    fs.promises.readdir = real;
    fs.rmSync(root, { recursive: true, force: true });
  }
}));

test('a sweep of many terminals stats them on the check worker and checks here only those it names; a failing worker leaves the sweep to this thread', () => withTurn(0, async () => {
  const { root, agentDir } = await folder(40);
  const dir = path.join(agentDir, 'terminals');
  const failing = path.join(root, 'fail.js');
  fs.writeFileSync(failing, 'throw new Error("broken worker");\n');
  const real = fsModule.statSync;
  const watched = fsModule as { statSync: typeof real };
  try {
    await catalog(agentDir);
    await settleTerminalCatalog(agentDir);
    const before = fs.readFileSync(catalogPath(agentDir), 'utf8');
    for (const [how, tuned] of [
      ['here, the worker failing', { catalogSweepOffThreadMin: 0, digestCheckScript: failing }],
      ['here, too few terminals for a worker', { catalogSweepOffThreadMin: 41 }],
      ['on the worker', { catalogSweepOffThreadMin: 0 }],
    ] as const) {
      // A new process loads a catalog written before closed terminals were changed in place (same inodes, the folder unchanged).
      fs.writeFileSync(catalogPath(agentDir), before);
      resetProcessState();
      const restore = tune(tuned);
      try {
        const idx9 = path.join(dir, '9.index.jsonl');
        fs.writeFileSync(idx9, fs.readFileSync(idx9, 'utf8').split('\n')[0] + '\n');
        appendCommand(agentDir, 11, (await commandsOf(agentDir, 11)) + 1, 9);
        const txt20 = path.join(dir, '20.txt');
        fs.writeFileSync(txt20, fs.readFileSync(txt20, 'utf8').replace('/work/app', `/work/ap${how.length % 10}`)); // its header's folder, same size
        await catalog(agentDir);
        let stats = 0;
        watched.statSync = ((...args: Parameters<typeof real>) => {
          if (String(args[0]).includes(`${path.sep}terminals${path.sep}`)) stats++;
          return real(...args);
        }) as typeof real;
        await settleTerminalCatalog(agentDir);
        watched.statSync = real;
        assert.deepEqual(await catalog(agentDir), await fresh(agentDir), `after the sweep ${how}`);
        if (how === 'on the worker') assert.ok(stats <= 2 * 3, `${stats} stats of terminal files on this thread: the three terminals the worker named`);
        else assert.ok(stats >= 2 * 37, `${stats} stats of terminal files on this thread: every closed terminal`);
      } finally {
        watched.statSync = real;
        restore();
      }
    }
  } finally {
    watched.statSync = real;
    fs.rmSync(root, { recursive: true, force: true });
  }
}));
