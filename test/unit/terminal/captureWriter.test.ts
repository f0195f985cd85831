import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createCaptureWriter } from '../../../src/core/terminal/captureWriter';
import { openTerminalCapture } from '../../../src/core/terminal/terminalCapture';
import { type TerminalCommand } from '../../../src/core/terminal/terminalFormat';
import { listTerminals, readTerminalIndex } from '../../../src/core/terminal/terminalIndex';

const header = { name: 'bash', shell: '/bin/bash', cwd: '/w', started: new Date('2026-01-02T03:04:05.000Z'), shellIntegration: true };

function tmpAgent(): { agent: string; dir: string } {
  const agent = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-term-'));
  return { agent, dir: path.join(agent, 'terminals') };
}

function fileLines(agent: string, rel: string): string[] {
  return fs.readFileSync(path.join(agent, rel), 'utf8').split('\n');
}

/** The output lines the index says a command produced, read from the file(s). */
function outputOf(agent: string, c: TerminalCommand): string[] {
  const out: string[] = [];
  for (const p of c.parts) {
    const lines = fileLines(agent, p.file);
    out.push(...lines.slice(p.firstLine - 1, p.lastLine ?? lines.length));
  }
  return out;
}

test('numbering continues after the highest existing file and two racing writers get different numbers', async () => {
  const { dir } = tmpAgent();
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, '1.txt'), 'old one\n');
  fs.writeFileSync(path.join(dir, '4.1.txt'), 'old four\n');
  const [a, b] = await Promise.all([createCaptureWriter(dir, header), createCaptureWriter(dir, header)]);
  assert.deepEqual([a.n, b.n].sort(), [5, 6]);
  await Promise.all([a.close(), b.close()]);
  assert.equal(fs.readFileSync(path.join(dir, '1.txt'), 'utf8'), 'old one\n', 'an earlier file was touched');
  const c = await createCaptureWriter(dir, header);
  assert.equal(c.n, 7);
  await c.close();
});

test('numbering counts a terminal left with only its index (N.index.jsonl without N.txt): its number is not reused', async () => {
  const { dir } = tmpAgent();
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, '2.txt'), 'old two\n');
  fs.writeFileSync(path.join(dir, '9.index.jsonl'), '');
  const a = await createCaptureWriter(dir, header);
  assert.equal(a.n, 10);
  await a.close();
  const b = await createCaptureWriter(dir, header);
  assert.equal(b.n, 11, 'the folder changed with 10.txt: listed again');
  await b.close();
});

test('header, command blocks and index line ranges match the file', async () => {
  const { agent, dir } = tmpAgent();
  const cap = await openTerminalCapture(dir, header, { settleMs: 0 });
  const t0 = new Date('2026-01-02T03:05:00.000Z');
  const c1 = cap.beginCommand({ commandLine: 'printf "a\\rb\\n"', cwd: '/w', started: t0 });
  c1.write('\x1b]633;C\x07a\rb\r\n');
  c1.end(0, new Date(t0.getTime() + 1500));
  const c2 = cap.beginCommand({ commandLine: 'seq 1 3; (exit 3)', cwd: '/w/sub', started: t0 });
  c2.write('1\r\n2\r');
  c2.write('\n3\r\n');
  c2.end(3, t0);
  const c3 = cap.beginCommand({ commandLine: 'true', started: t0 });
  c3.end(0, t0);
  await cap.close(t0);

  const text = fs.readFileSync(path.join(dir, '1.txt'), 'utf8');
  assert.match(text, /^# Agent Context terminal capture\n# terminal: bash\n# number: 1\n# shell: \/bin\/bash\n# cwd: \/w\n# started: 2026-01-02T03:04:05.000Z\n# shell integration: active\n/);
  assert.match(text, /\n>>> command 1 \| started 2026-01-02T03:05:00.000Z \| cwd \/w \| \$ printf "a\\rb\\n"\nb\n<<< command 1 \| exit 0 \| 1.50s \| secrets masked 0\n/);
  assert.match(text, /\n<<< command 2 \| exit 3 \|/);
  assert.match(text, /# terminal closed at 2026-01-02T03:05:00.000Z\n$/);

  const idx = await readTerminalIndex(agent, 1);
  assert.ok(idx.ok);
  assert.deepEqual(idx.value.problems, []);
  // The index ends with the closing record (terminalFormat.ts ClosingRecord), its tally where the line is: 3 commands, the failure on line 4.
  const indexText = fs.readFileSync(path.join(dir, '1.index.jsonl'), 'utf8');
  const indexLines = indexText.trimEnd().split('\n');
  assert.equal(indexLines.length, 7);
  const failedAt = Buffer.byteLength(indexLines.slice(0, 3).join('\n')) + 1;
  assert.equal(indexLines[6], `{"v":1,"closed":"2026-01-02T03:05:00.000Z","tally":[${Buffer.byteLength(indexText) - Buffer.byteLength(indexLines[6]) - 1},3,${failedAt}]}`);
  const [i1, i2, i3] = idx.value.commands;
  assert.equal(idx.value.commands.length, 3);
  assert.deepEqual(outputOf(agent, i1), ['b']);
  assert.deepEqual(outputOf(agent, i2), ['1', '2', '3']);
  assert.deepEqual(outputOf(agent, i3), []);
  assert.equal(i2.exitCode, 3);
  assert.equal(i2.cwd, '/w/sub');
  assert.equal(i1.durationMs, 1500);
  const lines = text.split('\n');
  assert.match(lines[i2.headerLine - 1], /^>>> command 2 /);
  assert.match(lines[i2.lastLine!], /^<<< command 2 /);
  assert.equal(i3.lastLine, i3.firstLine - 1);
});

test('secrets are masked in output and command line, and counted in the closing line and index', async () => {
  const { agent, dir } = tmpAgent();
  const cap = await openTerminalCapture(dir, header, { settleMs: 0 });
  const token = 'ghp' + '_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
  const akid = 'AKIA' + 'IOSFODNN7EXAMPLE';
  const c = cap.beginCommand({ commandLine: `echo ${token}`, started: new Date() });
  // the token arrives split over two chunks
  c.write(token.slice(0, 10));
  c.write(token.slice(10) + '\r\nkey ' + akid + '\r\n');
  c.end(0);
  await cap.close();
  const text = fs.readFileSync(path.join(dir, '1.txt'), 'utf8');
  assert.ok(!text.includes(token) && !text.includes(akid), text);
  assert.match(text, /\$ echo \[MASKED:github-token\]\n\[MASKED:github-token\]\nkey \[MASKED:aws-access-key-id\]\n<<< command 1 \| exit 0 \| [0-9.]+s \| secrets masked 3\n/);
  const idx = await readTerminalIndex(agent, 1);
  assert.ok(idx.ok);
  assert.equal(idx.value.commands[0].secretsMasked, 3);
  assert.ok(!fs.readFileSync(path.join(dir, '1.index.jsonl'), 'utf8').includes(token));
});

test('a running command reaches the file before it ends (settle + flush)', async () => {
  const { agent, dir } = tmpAgent();
  const cap = await openTerminalCapture(dir, header, { settleMs: 0 });
  const c = cap.beginCommand({ commandLine: 'npm start', started: new Date() });
  c.write('server listening on 3000\r\nGET / 200\r\n');
  const t = Date.now();
  c.settle(t);
  c.settle(t + 5000); // lines still on the screen reach the file once they sat unchanged for 5 s
  await cap.writer.flush();
  assert.match(fs.readFileSync(path.join(dir, '1.txt'), 'utf8'), /server listening on 3000\nGET \/ 200\n$/);
  const idx = await readTerminalIndex(agent, 1);
  assert.ok(idx.ok);
  assert.equal(idx.value.commands[0].status, 'running');
  await cap.close();
  const done = await readTerminalIndex(agent, 1);
  assert.ok(done.ok);
  assert.equal(done.value.commands[0].status, 'done');
  assert.equal(done.value.commands[0].exitCode, null);
  assert.deepEqual(outputOf(agent, done.value.commands[0]), ['server listening on 3000', 'GET / 200']);
});

test('rotation keeps one previous generation and the index follows the output into it', async () => {
  const { agent, dir } = tmpAgent();
  const cap = await openTerminalCapture(dir, header, { settleMs: 0, maxFileBytes: 64 * 1024 });
  const before = cap.beginCommand({ commandLine: 'echo first', started: new Date() });
  before.write('first\r\n');
  before.end(0);
  const big = cap.beginCommand({ commandLine: 'seq 1 40000', started: new Date() });
  for (let i = 1; i <= 40000; i += 100) {
    let s = '';
    for (let j = i; j < i + 100; j++) s += `${j}\r\n`;
    big.write(s);
  }
  big.end(0);
  await cap.close();
  const names = fs.readdirSync(dir).sort();
  assert.deepEqual(names, ['1.1.txt', '1.index.jsonl', '1.txt']);
  for (const n of names.filter((x) => x.endsWith('.txt'))) assert.ok(fs.statSync(path.join(dir, n)).size <= 64 * 1024 + 8192, `${n} too big`);
  assert.match(fs.readFileSync(path.join(dir, '1.txt'), 'utf8'), /^# Agent Context terminal capture\n[^]*# continued: earlier output is in 1.1.txt\n>>> command 2 \(continued from 1.1.txt\)/);
  const idx = await readTerminalIndex(agent, 1);
  assert.ok(idx.ok);
  // "first" was in a generation that rotated away twice: its record is gone, not pointing at wrong lines
  const cmd = idx.value.commands.find((c) => c.command === 2)!;
  assert.equal(cmd.status, 'done');
  assert.equal(cmd.parts.length, 2);
  assert.equal(cmd.parts[0].file, 'terminals/1.1.txt');
  assert.equal(cmd.parts[1].file, 'terminals/1.txt');
  const out = outputOf(agent, cmd);
  const lastNumber = Number(out[out.length - 1]);
  assert.equal(lastNumber, 40000);
  // the two parts are contiguous numbers, in order
  const first = Number(out[0]);
  assert.deepEqual(out, Array.from({ length: out.length }, (_, i) => String(first + i)));
  for (const c of idx.value.commands) for (const p of c.parts) assert.ok(fs.existsSync(path.join(agent, p.file)), `index points at missing ${p.file}`);
});

test('listTerminals reports name, number, integration and closed state', async () => {
  const { agent, dir } = tmpAgent();
  const a = await openTerminalCapture(dir, header);
  const b = await openTerminalCapture(dir, { ...header, name: 'zsh', shellIntegration: false });
  await a.close();
  await b.writer.flush();
  const list = await listTerminals(agent);
  assert.ok(list.ok);
  assert.deepEqual(
    list.value.map((t) => [t.n, t.name, t.shellIntegration, t.closed, t.file]),
    [[1, 'bash', true, true, 'terminals/1.txt'], [2, 'zsh', false, false, 'terminals/2.txt']],
  );
  await b.close();
  const empty = await listTerminals(path.join(agent, 'nothing-here'));
  assert.ok(empty.ok);
  assert.deepEqual(empty.value, []);
});

test('a damaged index line is reported with file and line, the rest is still read', async () => {
  const { agent, dir } = tmpAgent();
  const cap = await openTerminalCapture(dir, header, { settleMs: 0 });
  cap.beginCommand({ commandLine: 'a', started: new Date() }).end(0);
  await cap.close();
  fs.appendFileSync(path.join(dir, '1.index.jsonl'), '{"broken\n');
  const idx = await readTerminalIndex(agent, 1);
  assert.ok(idx.ok);
  assert.equal(idx.value.commands.length, 1);
  assert.equal(idx.value.problems.length, 1);
  assert.equal(idx.value.problems[0].line, 4); // after the command's two records and the closing record
  assert.match(idx.value.problems[0].file, /1\.index\.jsonl$/);
});

test('the index never records a command as done before its output lines are on disk', async () => {
  const { agent, dir } = tmpAgent();
  const cap = await openTerminalCapture(dir, header, { settleMs: 0, flushMs: 60_000 });
  const c = cap.beginCommand({ commandLine: 'echo hi', started: new Date() });
  c.write('hi\r\n');
  c.end(0);
  const indexFile = path.join(dir, '1.index.jsonl');
  // Poll the index as a reader in another process would, without flushing the writer.
  for (let i = 0; i < 2000 && !(fs.existsSync(indexFile) && fs.readFileSync(indexFile, 'utf8').includes('"done"')); i++) {
    await new Promise((r) => setTimeout(r, 1));
  }
  const idx = await readTerminalIndex(agent, 1);
  assert.ok(idx.ok);
  assert.equal(idx.value.commands[0].status, 'done');
  assert.deepEqual(outputOf(agent, idx.value.commands[0]), ['hi']);
  await cap.close();
});

test('a command whose data never arrived is marked as not delivered, not as empty', async () => {
  const { agent, dir } = tmpAgent();
  const cap = await openTerminalCapture(dir, header, { settleMs: 0 });
  const lost = cap.beginCommand({ commandLine: 'echo lost', started: new Date() });
  lost.end(0, new Date(), lost.missing);
  const ok = cap.beginCommand({ commandLine: 'true', started: new Date() });
  ok.write('\x1b]633;C\x07');
  ok.end(0, new Date(), ok.missing);
  const half = cap.beginCommand({ commandLine: 'seq 3', started: new Date() });
  half.write('2\r\n3\r\n');
  half.end(0, new Date(), half.missing);
  await cap.close();
  const text = fs.readFileSync(path.join(dir, '1.txt'), 'utf8');
  assert.match(text, /<<< command 1 \| exit 0 \| [0-9.]+s \| secrets masked 0 \| output not delivered by VS Code\n/);
  assert.match(text, /<<< command 2 \| exit 0 \| [0-9.]+s \| secrets masked 0\n/);
  assert.match(text, /\n2\n3\n<<< command 3 \| exit 0 \| [0-9.]+s \| secrets masked 0 \| start of output not delivered by VS Code\n/);
  const idx = await readTerminalIndex(agent, 1);
  assert.ok(idx.ok);
  assert.deepEqual(idx.value.commands.map((c) => c.outputMissing), ['all', null, 'start']);
});
