// The end of a terminal index read without reading the whole index (the editor's cost must not grow
// with history): checked against the whole-file reader, after appends, truncation and replacement.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type IndexRecord } from '../../../src/core/terminal/terminalFormat';
import { listingFileOf, listTerminals, listTerminalsPage, parseTerminalNames, readTerminalIndex, readTerminalIndexTail } from '../../../src/core/terminal/terminalIndex';
import { resetProcessState } from '../../../src/core/processState';

function tmpAgent(): string {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-scale-'));
  fs.mkdirSync(path.join(ws, '.agent'));
  return path.join(ws, '.agent');
}

function record(k: number, status: 'running' | 'done', extra: Partial<IndexRecord> = {}): string {
  const r: IndexRecord = {
    v: 1, command: k, status, file: '1.txt', commandLine: `echo ${k} ✓ ünïcödé`, cwd: '/w', started: new Date(2026, 0, 1, 0, 0, k % 60).toISOString(),
    headerLine: k * 3, firstLine: k * 3 + 1, lastLine: status === 'done' ? k * 3 + 1 : null, exitCode: status === 'done' ? k % 7 : null,
    durationMs: status === 'done' ? 5 : null, secretsMasked: 0, ...extra,
  };
  return JSON.stringify(r) + '\n';
}

function writeIndex(agentDir: string, n: number, commands: number): string {
  const dir = path.join(agentDir, 'terminals');
  fs.mkdirSync(dir, { recursive: true });
  const lines: string[] = [];
  for (let k = 1; k <= commands; k++) lines.push(record(k, 'running'), record(k, 'done'));
  const file = path.join(dir, `${n}.index.jsonl`);
  fs.writeFileSync(file, lines.join(''));
  fs.writeFileSync(path.join(dir, `${n}.txt`), `# Agent Context terminal capture\n# terminal: t${n}\n# number: ${n}\n`);
  return file;
}

test('the end of a terminal index gives the same newest commands as the whole index, pages back, and counts the older ones', async () => {
  const a = tmpAgent();
  writeIndex(a, 1, 3000);
  const whole = await readTerminalIndex(a, 1);
  assert.ok(whole.ok);
  const page = await readTerminalIndexTail(a, 1, { count: 200 });
  assert.ok(page.ok);
  assert.deepEqual(page.value.commands, whole.value.commands.slice(-200));
  assert.equal(page.value.total, 3000);
  assert.equal(page.value.older, 2800);
  const next = await readTerminalIndexTail(a, 1, { count: 200, before: page.value.commands[0].command });
  assert.ok(next.ok);
  assert.deepEqual(next.value.commands, whole.value.commands.slice(-400, -200));
  assert.equal(next.value.older, 2600);
  const first = await readTerminalIndexTail(a, 1, { count: 200, before: 150 });
  assert.ok(first.ok);
  assert.deepEqual(first.value.commands, whole.value.commands.slice(0, 149));
  assert.equal(first.value.older, 0);
  const last = await readTerminalIndexTail(a, 1, { count: 1 });
  assert.ok(last.ok);
  assert.equal(last.value.commands[0].command, 3000);
  assert.equal(last.value.commands[0].status, 'done');
});

test('the end of a terminal index: a running last command, a half-written last line, a missing file', async () => {
  const a = tmpAgent();
  const file = writeIndex(a, 2, 10);
  fs.appendFileSync(file, record(11, 'running') + record(12, 'running').slice(0, 30));
  const page = await readTerminalIndexTail(a, 2, { count: 5 });
  assert.ok(page.ok);
  assert.deepEqual(page.value.commands.map((c) => c.command), [7, 8, 9, 10, 11]);
  assert.equal(page.value.commands[4].status, 'running');
  assert.equal(page.value.problems.length, 1, 'the torn line is reported, not fatal');
  const none = await readTerminalIndexTail(a, 9, { count: 5 });
  assert.ok(none.ok);
  assert.deepEqual(none.value, { commands: [], total: 0, older: 0, problems: [] });
});

test('repeated reads of terminal files follow every change: appends, a same-size rewrite, a replaced file, a closed terminal', async () => {
  const a = tmpAgent();
  const file = writeIndex(a, 1, 50);
  const txt = path.join(a, 'terminals', '1.txt');
  const last = async (): Promise<string> => {
    const r = await readTerminalIndexTail(a, 1, { count: 1 });
    assert.ok(r.ok);
    const c = r.value.commands[0];
    return `${r.value.total}:${c.command}:${c.status}:${c.exitCode}:${c.commandLine}`;
  };
  const info = async () => {
    const r = await listTerminalsPage(a, { count: 10 });
    assert.ok(r.ok);
    return r.value.terminals[0];
  };
  assert.equal(await last(), `50:50:done:${50 % 7}:echo 50 ✓ ünïcödé`);
  assert.equal(await last(), `50:50:done:${50 % 7}:echo 50 ✓ ünïcödé`, 'unchanged: the same answer');
  fs.appendFileSync(file, record(51, 'running'));
  assert.equal(await last(), '51:51:running:null:echo 51 ✓ ünïcödé');
  fs.appendFileSync(file, record(51, 'done'));
  assert.equal(await last(), `51:51:done:${51 % 7}:echo 51 ✓ ünïcödé`);
  // Rewritten in place to the same size (another exit code): the mtime differs.
  const before = fs.readFileSync(file, 'utf8');
  await new Promise((r) => setTimeout(r, 20));
  fs.writeFileSync(file, before.replace(/"exitCode":2,"durationMs":5,"secretsMasked":0}\n$/, '"exitCode":9,"durationMs":5,"secretsMasked":0}\n'));
  assert.equal(fs.statSync(file).size, Buffer.byteLength(before));
  assert.equal(await last(), '51:51:done:9:echo 51 ✓ ünïcödé');
  // Replaced by rename (rotation): another inode.
  fs.writeFileSync(file + '.new', record(1, 'running') + record(1, 'done'));
  fs.renameSync(file + '.new', file);
  assert.equal(await last(), `1:1:done:${1 % 7}:echo 1 ✓ ünïcödé`);
  // The text file: closed, and a previous generation appearing, are both seen on the next list.
  assert.deepEqual([(await info()).closed, (await info()).previousFile], [false, null]);
  fs.appendFileSync(txt, '# terminal closed at 2026-01-01T00:00:00.000Z\n');
  fs.writeFileSync(path.join(a, 'terminals', '1.1.txt'), '# older\n');
  assert.deepEqual([(await info()).closed, (await info()).previousFile], [true, 'terminals/1.1.txt']);
});

test('the terminals folder is read by one parser: N.txt are terminals, N.1.txt and N.index.jsonl are marked, other names are left out', async () => {
  const names = ['3.txt', '12.txt', '12.1.txt', '12.index.jsonl', '3.index.jsonl', '7.1.txt', 'x.txt', '.txt', '4.TXT', '5.txt.tmp', '6.2.txt', '8.index.json', 'notes.md', '9.txt~', '10.txt', '0.txt', '003.txt', '012.1.txt', '1234567890123456.txt'];
  const l = parseTerminalNames(names);
  assert.deepEqual(l.numbers, [0, 3, 10, 12], 'ascending, only `<digits>.txt` as capture names them (no leading zero, at most 15 digits): each number once');
  assert.deepEqual([...l.previous].sort((a, b) => a - b), [7, 12]);
  assert.deepEqual([...l.indexed].sort((a, b) => a - b), [3, 12]);
  // The lists see the same: a rotated file without its N.txt is no terminal, and the previous file is named.
  const a = tmpAgent();
  writeIndex(a, 3, 1);
  writeIndex(a, 12, 1);
  const dir = path.join(a, 'terminals');
  for (const n of ['12.1.txt', '7.1.txt', 'x.txt', '5.txt.tmp']) fs.writeFileSync(path.join(dir, n), '# older\n');
  const all = await listTerminals(a);
  assert.ok(all.ok);
  assert.deepEqual(all.value.map((t) => [t.n, t.previousFile]), [[3, null], [12, 'terminals/12.1.txt']]);
  const page = await listTerminalsPage(a, { count: 10, first: [7, 3] });
  assert.ok(page.ok);
  assert.deepEqual(page.value.terminals.map((t) => [t.n, t.previousFile]), [[3, null], [12, 'terminals/12.1.txt']], 'a live terminal without N.txt is not listed');
  assert.equal(page.value.total, 2);
});

test('a page of terminals leads with the live ones, then the newest, and counts all', async () => {
  const a = tmpAgent();
  for (let n = 1; n <= 7; n++) writeIndex(a, n, 1);
  const page = await listTerminalsPage(a, { count: 3, first: [2] });
  assert.ok(page.ok);
  assert.deepEqual(page.value.terminals.map((t) => t.n), [2, 7, 6]);
  assert.equal(page.value.total, 7);
  const rest = await listTerminalsPage(a, { count: 3, skip: 6, first: [2] });
  assert.ok(rest.ok);
  assert.deepEqual(rest.value.terminals.map((t) => t.n), [1]);
  const all = await listTerminals(a);
  assert.ok(all.ok);
  assert.equal(all.value.length, 7);
});

test('a page of terminals lists the folder again only when it changed: a terminal added or removed is seen at once, appends do not list it again', async () => {
  const a = tmpAgent();
  for (let n = 1; n <= 5; n++) writeIndex(a, n, 1);
  const realFs = require('node:fs') as { promises: { readdir: (...x: unknown[]) => Promise<unknown> } };
  const readdir = realFs.promises.readdir;
  let lists = 0;
  realFs.promises.readdir = (...x: unknown[]) => {
    lists++;
    return readdir(...x);
  };
  try {
    const ns = async (): Promise<number[]> => {
      const p = await listTerminalsPage(a, { count: 10 });
      assert.ok(p.ok);
      return p.value.terminals.map((t) => t.n);
    };
    // A listing is kept only once the folder's stamp is settled (older than RACY_MS, 2 s).
    await new Promise((r) => setTimeout(r, 2100));
    assert.deepEqual(await ns(), [5, 4, 3, 2, 1]);
    fs.appendFileSync(path.join(a, 'terminals', '5.txt'), 'more output\n');
    assert.deepEqual(await ns(), [5, 4, 3, 2, 1]);
    assert.equal(lists, 1, 'an append does not list the folder again');
    writeIndex(a, 6, 1);
    assert.deepEqual(await ns(), [6, 5, 4, 3, 2, 1]);
    fs.rmSync(path.join(a, 'terminals', '3.txt'));
    fs.rmSync(path.join(a, 'terminals', '3.index.jsonl'));
    assert.deepEqual(await ns(), [6, 5, 4, 2, 1]);
    assert.equal(lists, 3);
  } finally {
    realFs.promises.readdir = readdir;
  }
});

test('a terminal added in the same clock tick as the listing seen is listed: a fresh folder stamp is not trusted', async () => {
  const a = tmpAgent();
  writeIndex(a, 1, 1);
  const dir = path.join(a, 'terminals');
  // A coarse clock: the folder's mtime is a whole second, just now.
  const tick = Math.floor(Date.now() / 1000);
  fs.utimesSync(dir, tick, tick);
  const first = await listTerminalsPage(a, { count: 10 });
  assert.ok(first.ok);
  assert.deepEqual(first.value.terminals.map((t) => t.n), [1]);
  // Terminal 2 appears within the same tick: the folder's mtime stays what it was.
  writeIndex(a, 2, 1);
  fs.utimesSync(dir, tick, tick);
  const next = await listTerminalsPage(a, { count: 10 });
  assert.ok(next.ok);
  assert.deepEqual(next.value.terminals.map((t) => t.n), [2, 1]);
  assert.equal(next.value.total, 2);
});

test('a new process takes the terminals folder\'s listing from .agent/.cache/terminal-names.json while the folder is as it was listed; a change, a garbage file or another folder\'s file make it list again', async () => {
  const a = tmpAgent();
  for (let n = 1; n <= 4; n++) writeIndex(a, n, 1);
  fs.writeFileSync(path.join(a, 'terminals', '2.1.txt'), 'older part\n');
  const realFs = require('node:fs') as { promises: { readdir: (...x: unknown[]) => Promise<unknown> } };
  const readdir = realFs.promises.readdir;
  let lists = 0;
  realFs.promises.readdir = (...x: unknown[]) => {
    lists++;
    return readdir(...x);
  };
  const page = async (): Promise<string[]> => {
    const p = await listTerminalsPage(a, { count: 10 });
    assert.ok(p.ok);
    return p.value.terminals.map((t) => `${t.n}${t.previousFile ? '+' : ''}`);
  };
  const file = listingFileOf(path.join(a, 'terminals'));
  try {
    await new Promise((r) => setTimeout(r, 2100)); // a settled folder stamp (RACY_MS)
    assert.deepEqual(await page(), ['4', '3', '2+', '1']);
    assert.equal(lists, 1);
    await waitForFile(file);
    resetProcessState(); // a new process
    assert.deepEqual(await page(), ['4', '3', '2+', '1']);
    assert.equal(lists, 1, 'the new process did not list the folder');
    // Garbage, then a listing of another folder: ignored.
    for (const text of ['{"format":"agent-context/terminal-names","numbers":[1', JSON.stringify({ ...JSON.parse(fs.readFileSync(file, 'utf8')), ino: 1 })]) {
      const good = fs.readFileSync(file, 'utf8');
      fs.writeFileSync(file, text);
      resetProcessState();
      assert.deepEqual(await page(), ['4', '3', '2+', '1']);
      fs.writeFileSync(file, good);
    }
    assert.equal(lists, 3);
    // A terminal added since: the folder's stamp changed, so it is listed.
    writeIndex(a, 5, 1);
    resetProcessState();
    assert.deepEqual(await page(), ['5', '4', '3', '2+', '1']);
    assert.equal(lists, 4);
  } finally {
    realFs.promises.readdir = readdir;
  }
});

async function waitForFile(file: string): Promise<void> {
  for (let i = 0; i < 100 && !fs.existsSync(file); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(fs.existsSync(file), `${file} was written`);
}

test('an index or terminal file that is a FIFO (or a folder) gives an error naming it, never a hang: the reads are synchronous, so one blocked open would stop the editor', { skip: process.platform === 'win32' && 'no FIFOs', timeout: 20_000 }, async () => {
  const { execFileSync } = await import('node:child_process');
  const a = tmpAgent();
  const dir = path.join(a, 'terminals');
  writeIndex(a, 1, 3);
  fs.writeFileSync(path.join(dir, '1.txt'), '# terminal 1\n$ echo 1\n');
  execFileSync('mkfifo', [path.join(dir, '2.index.jsonl')]);
  fs.writeFileSync(path.join(dir, '2.txt'), '# terminal 2\n');
  fs.mkdirSync(path.join(dir, '3.index.jsonl'));
  fs.writeFileSync(path.join(dir, '3.txt'), '# terminal 3\n');
  const fifo = await readTerminalIndexTail(a, 2, { count: 1 });
  assert.ok(!fifo.ok);
  assert.match(`${fifo.error.file}: ${fifo.error.message}`, /2\.index\.jsonl: cannot read the terminal index: not a regular file/);
  const folder = await readTerminalIndexTail(a, 3, { count: 1 });
  assert.ok(!folder.ok);
  assert.match(`${folder.error.file}: ${folder.error.message}`, /3\.index\.jsonl: cannot read the terminal index/);
  const good = await readTerminalIndexTail(a, 1, { count: 1 });
  assert.ok(good.ok);
  assert.equal(good.value.commands[0].command, 3);
  // The listing of the folder still shows every terminal.
  resetProcessState();
  const page = await listTerminalsPage(a, { count: 10 });
  assert.ok(page.ok);
  assert.deepEqual(page.value.terminals.map((t) => t.n), [3, 2, 1]);
});

test('a terminal\'s header facts: the header lines, the closing note at its end, shell integration said in the header or by a note in its first 4 KB or last 200 bytes', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-header-'));
  const t = path.join(dir, 'terminals');
  fs.mkdirSync(t);
  const header = (n: number, si: string, extra = ''): string => `# Agent Context terminal capture\n# terminal: bash ${n}\n# number: ${n}\n${extra}# shell: /bin/bash\n# cwd: /w\n# started: 2026-12-07T00:00:00.000Z\n# shell integration: ${si}\n# format: per command\n`;
  const note = '# shell integration became active at 2026-12-07T00:00:01.000Z\n';
  const filler = (bytes: number): string => 'x'.repeat(79).concat('\n').repeat(Math.ceil(bytes / 80));
  const files: [string, boolean, boolean][] = [
    // text, shell integration, closed
    [header(1, 'active'), true, false],
    [header(2, 'inactive') + '$ ls\n' + note + 'out\n', true, false],
    [header(3, 'inactive') + filler(6000) + note + 'y\n', true, false], // the note in the last 200 bytes
    [header(4, 'inactive') + filler(5000) + note + filler(3000), false, false], // the note past 4 KB and before the last 200 bytes: not read
    [header(5, 'inactive') + '# a line after the header\n', false, true],
    [header(6, 'inactive', '# agent: codex\n# session: s-1\n') + '>>> command 1\n' + note.replace('# ', '') + '# terminal closed at 2026-12-07T00:00:02.000Z\n', false, true],
  ];
  files.forEach(([text, , closed], i) => fs.writeFileSync(path.join(t, `${i + 1}.txt`), closed ? text.replace(/\n$/, '\n# terminal closed at 2026-12-07T00:00:02.000Z\n') : text));
  resetProcessState();
  const l = await listTerminals(dir);
  assert.ok(l.ok);
  assert.deepEqual(l.value.map((x) => [x.n, x.name, x.cwd, x.shellIntegration, x.closed, x.agent ?? null]), files.map(([, si, closed], i) => [i + 1, `bash ${i + 1}`, '/w', si, closed, i === 5 ? 'codex' : null]));
  fs.rmSync(dir, { recursive: true, force: true });
});
