// The terminal catalog (src/core/terminal/catalog/terminalCatalog.ts): its answers equal a fresh reading of
// the files after appends, truncation, deletion, rotation and a corrupt or foreign catalog file, and
// a new process that finds the catalog reads no terminal file that did not change.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
// The module object itself (the namespace import is a read-only copy): its openSync can be watched.
import fsModule = require('node:fs');
import * as path from 'node:path';
import { catalogPath, settleTerminalCatalog } from '../../../../src/core/terminal/catalog/terminalCatalog';
import { decodeCatalogSliced, encodeCatalogSliced } from '../../../../src/core/terminal/catalog/catalogFile';
import { appendCommand, catalog, commandsOf, folder, fresh } from './catalogFixtures';
import { resetProcessState, tune } from '../../../../src/core/processState';

test('the catalog equals a fresh reading of the files, in this process and in a new one, after appends, truncation, deletion and rotation', async () => {
  resetProcessState();
  // The catalog file is saved and loaded in slices of 7 entries here (1000 in production): every slice boundary is crossed.
  const restore = tune({ catalogRowsPerSlice: 7 });
  const { root, agentDir } = await folder();
  const dir = path.join(agentDir, 'terminals');
  try {
    assert.deepEqual(await catalog(agentDir), await fresh(agentDir));
    await settleTerminalCatalog(agentDir);
    assert.ok(fs.existsSync(catalogPath(agentDir)), 'the first build is saved');

    // Appends: a failure in a closed terminal, a command still running in the long-lived one.
    appendCommand(agentDir, 7, (await commandsOf(agentDir, 7)) + 1, 3);
    appendCommand(agentDir, 1, 401, 0, false);
    assert.deepEqual(await catalog(agentDir), await fresh(agentDir));

    // Truncation: terminal 2's index cut to its first 10 lines, rewritten in place (same inode).
    const idx2 = path.join(dir, '2.index.jsonl');
    fs.writeFileSync(idx2, fs.readFileSync(idx2, 'utf8').split('\n').slice(0, 10).join('\n') + '\n');
    // Rewritten in place to the same size with other content: terminal 3's exit codes flipped.
    const idx3 = path.join(dir, '3.index.jsonl');
    const t3 = fs.readFileSync(idx3, 'utf8');
    fs.writeFileSync(idx3, t3.replace(/"exitCode":0/g, '"exitCode":7'));
    // Deletion: terminal 5 gone, terminal 6's index gone.
    fs.rmSync(path.join(dir, '5.txt'));
    fs.rmSync(path.join(dir, '5.index.jsonl'));
    fs.rmSync(path.join(dir, '6.index.jsonl'));
    // Rotation: 4.txt becomes 4.1.txt, a new 4.txt and an index rewritten under a new inode.
    fs.renameSync(path.join(dir, '4.txt'), path.join(dir, '4.1.txt'));
    fs.writeFileSync(path.join(dir, '4.txt'), '# Agent Context terminal capture\n# terminal: bash 4\n# number: 4\n# continued: earlier output is in 4.1.txt\n');
    const idx4 = path.join(dir, '4.index.jsonl');
    const rotated = fs.readFileSync(idx4, 'utf8').split('\n').filter(Boolean).map((l) => JSON.stringify({ ...JSON.parse(l), file: '4.1.txt' })).join('\n') + '\n';
    fs.rmSync(idx4);
    fs.writeFileSync(idx4, rotated);
    appendCommand(agentDir, 4, 9999, 1);
    // A new terminal.
    fs.copyFileSync(path.join(dir, '8.txt'), path.join(dir, '41.txt'));
    fs.copyFileSync(path.join(dir, '8.index.jsonl'), path.join(dir, '41.index.jsonl'));

    const want = await fresh(agentDir);
    assert.deepEqual(await catalog(agentDir), want, 'this process');
    await settleTerminalCatalog(agentDir);
    resetProcessState();
    assert.deepEqual(await catalog(agentDir), want, 'a new process with the catalog file');
    // A new process that finds the catalog written before these changes.
    const before = fs.readFileSync(catalogPath(agentDir), 'utf8');
    appendCommand(agentDir, 9, (await commandsOf(agentDir, 9)) + 1, 2);
    fs.writeFileSync(idx2, '');
    resetProcessState();
    fs.writeFileSync(catalogPath(agentDir), before);
    assert.deepEqual(await catalog(agentDir), await fresh(agentDir), 'a new process with a stale catalog file');
  } finally {
    restore();
    resetProcessState();
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('a corrupt, truncated or foreign catalog file is ignored and rebuilt; an entry that no longer matches its file is read again', async () => {
  resetProcessState();
  const { root, agentDir } = await folder(12);
  try {
    const want = await fresh(agentDir);
    await catalog(agentDir);
    await settleTerminalCatalog(agentDir);
    const good = fs.readFileSync(catalogPath(agentDir), 'utf8');
    // The file: a header line, then a line per row: [n, ino, size, mtimeMs, ctimeMs, name, shell, cwd, started, flags, idx], idx: [ino, offset, lines, size, mtimeMs, tail, count, maxCommand, last, prevDone, lastFailed].
    type Row = [number, number, number, number, number, unknown, unknown, unknown, unknown, number, unknown[]];
    const lines = good.split('\n');
    assert.equal(lines.pop(), '', 'the file ends with a line end');
    const parsed = { head: JSON.parse(lines[0]) as { v: number; rows: number }, terminals: lines.slice(1).map((l) => JSON.parse(l) as Row) };
    const forged = (f: (o: typeof parsed) => void): string => {
      const o = { head: { ...parsed.head }, terminals: lines.slice(1).map((l) => JSON.parse(l) as Row) };
      f(o);
      return [o.head, ...o.terminals].map((x) => `${JSON.stringify(x)}\n`).join('');
    };
    assert.equal(parsed.terminals.length, 12);
    assert.equal(parsed.head.rows, 12);
    const variants: [string, string][] = [
      ['garbage', 'not json {'],
      ['truncated', good.slice(0, Math.floor(good.length / 2))],
      ['cut at a line end', `${lines.slice(0, 7).join('\n')}\n`],
      ['a line more than its header says', `${good}${lines[3]}\n`],
      ['a torn line', good.replace(lines[5], lines[5].slice(0, 20))],
      ['an array', '[]'],
      ['another version', forged((o) => { o.head.v = 99; o.terminals[0][10][6] = 12345; })],
      // Same version, written when the files were longer (since truncated): neither entry part may be believed.
      ['a stale entry', forged((o) => { const t = o.terminals[2]; (t[10][3] as number) += 1000; (t[10][1] as number) += 1000; t[10][6] = 12345; t[2] += 1000; t[5] = 'forged'; })],
      ['a malformed entry', forged((o) => { o.terminals[3][5] = 5; o.terminals[4][10][8] = 5; })],
    ];
    // A file that is not whole, or not of this version, is not used at all (not even its good rows).
    assert.equal((await decodeCatalogSliced(good))?.entries.length, 12, 'the good file decodes whole');
    for (const [what, text] of variants.slice(0, 7)) assert.equal(await decodeCatalogSliced(text), undefined, `${what}: not used`);
    for (const [what, text] of variants) {
      resetProcessState();
      fs.writeFileSync(catalogPath(agentDir), text);
      assert.deepEqual(await catalog(agentDir), want, what);
      await settleTerminalCatalog(agentDir);
      // The rebuilt catalog replaced the bad one.
      resetProcessState();
      assert.deepEqual(await catalog(agentDir), want, `${what}, then a new process`);
    }
  } finally {
    resetProcessState();
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('a new process that finds the catalog opens only the terminal files that changed', async () => {
  resetProcessState();
  const { root, agentDir } = await folder(30);
  const realOpen = fs.promises.open;
  const realOpenSync = fsModule.openSync;
  const opened: string[] = [];
  try {
    await catalog(agentDir);
    await settleTerminalCatalog(agentDir);
    appendCommand(agentDir, 11, (await commandsOf(agentDir, 11)) + 1, 1);
    resetProcessState();
    fs.promises.open = (async (...args: Parameters<typeof realOpen>) => {
      opened.push(path.basename(String(args[0])));
      return realOpen(...args);
    }) as typeof realOpen;
    fsModule.openSync = ((...args: Parameters<typeof realOpenSync>) => {
      opened.push(path.basename(String(args[0])));
      return realOpenSync(...args);
    }) as typeof realOpenSync;
    const r = await catalog(agentDir);
    fs.promises.open = realOpen;
    fsModule.openSync = realOpenSync;
    const terminalFiles = opened.filter((f) => /^\d+\.(txt|index\.jsonl)$/.test(f));
    assert.deepEqual([...new Set(terminalFiles)].sort(), ['11.index.jsonl', '11.txt']);
    assert.deepEqual(r, await fresh(agentDir));
  } finally {
    fs.promises.open = realOpen;
    fsModule.openSync = realOpenSync;
    resetProcessState();
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('a terminal file rewritten in place to the same size with its mtime set back (a restore, touch -d) is read again by a new process: its ctime changed', async () => {
  resetProcessState();
  const { root, agentDir } = await folder(6);
  const txt = path.join(agentDir, 'terminals', '3.txt');
  // A whole second, which utimes sets back exactly.
  const t = Math.floor(Date.now() / 1000) - 3600;
  try {
    fs.utimesSync(txt, t, t);
    await catalog(agentDir);
    await settleTerminalCatalog(agentDir);
    const before = fs.statSync(txt);
    const text = fs.readFileSync(txt, 'utf8');
    const renamed = text.replace(/^# terminal: (.*)$/m, (_l, name: string) => `# terminal: ${'R'.repeat(name.length)}`);
    assert.notEqual(renamed, text);
    fs.writeFileSync(txt, renamed);
    fs.utimesSync(txt, t, t);
    const after = fs.statSync(txt);
    assert.deepEqual([after.ino, after.size, after.mtimeMs], [before.ino, before.size, before.mtimeMs], 'only the ctime tells the rewrite');
    resetProcessState();
    const want = await fresh(agentDir);
    assert.deepEqual(await catalog(agentDir), want);
    assert.match(JSON.stringify(want), /"RRR/);
  } finally {
    resetProcessState();
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('the catalog file loads and saves in slices to the same entries and the same text, whatever the slice size', async () => {
  resetProcessState();
  const { root, agentDir } = await folder();
  try {
    await catalog(agentDir);
    await settleTerminalCatalog(agentDir);
    const text = fs.readFileSync(catalogPath(agentDir), 'utf8');
    const rows = (JSON.parse(text.slice(0, text.indexOf('\n'))) as { rows: number }).rows;
    assert.ok(rows >= 30, `a catalog of ${rows} terminals`);
    const whole = await decodeCatalogSliced(text);
    assert.ok(whole);
    assert.equal(whole.entries.length, rows, 'every row an entry');
    const dev = fs.statSync(path.join(agentDir, 'terminals')).dev;
    for (const slice of [1, 7, rows - 1, rows + 1]) {
      const restore = tune({ catalogRowsPerSlice: slice });
      try {
        const s = await decodeCatalogSliced(text);
        assert.deepEqual(s, whole, `loaded in slices of ${slice}`);
        assert.equal(await encodeCatalogSliced(s!, dev), text, `saved in slices of ${slice}`);
        // A new process's first answer, its views made in slices, while another terminal's index grows between the turns.
        resetProcessState();
        const grown = 3 + (slice % 5);
        const pending = catalog(agentDir);
        appendCommand(agentDir, grown, (await commandsOf(agentDir, grown)) + 1, 7);
        await pending;
        assert.deepEqual(await catalog(agentDir), await fresh(agentDir), `answered in slices of ${slice}, then after a change between turns`);
      } finally {
        restore();
      }
    }
  } finally {
    resetProcessState();
    fs.rmSync(root, { recursive: true, force: true });
  }
});
