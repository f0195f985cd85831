import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { formatSpoolRecord, parseSpoolRecord, SPOOL_DIR, writeSpoolRecord, type SpoolRecord } from '../../../../src/core/terminal/agentCommands/commandSpool';
import { foldCommandSpool } from '../../../../src/core/terminal/agentCommands/sessionFold';
import { listTerminals, readTerminalIndex } from '../../../../src/core/terminal/terminalIndex';

function tmpAgent(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'ac-fold-'));
}

const base = (over: Partial<SpoolRecord> = {}): SpoolRecord => ({
  agent: 'codex',
  session: 's-1',
  startedMs: Date.parse('2026-12-01T10:00:00.000Z'),
  endedMs: Date.parse('2026-12-01T10:00:01.500Z'),
  exitCode: 0,
  cwd: '/w',
  command: 'echo hi',
  enc: 'raw',
  output: 'hi\n',
  ...over,
});

/** The lines of a command's output, read from the capture by the index's line numbers (what a tool hands an agent). */
function outputOf(agentDir: string, file: string, first: number, last: number | null): string[] {
  const lines = fs.readFileSync(path.join(agentDir, file), 'utf8').split('\n');
  return lines.slice(first - 1, last ?? lines.length);
}

test('a record survives its own format: every field, escapes, an output with the end word inside it', () => {
  const r = base({ command: 'printf "a\\\\b\nc"\r', cwd: '/w/with space', output: 'x\nagent-context-end 123\ny', exitCode: 3, pid: 42, shell: '/bin/bash', saved: 'scratch/tool_outputs/x.txt', masked: 2 });
  const back = parseSpoolRecord(formatSpoolRecord(r));
  assert.equal(back.ok, true);
  assert.deepEqual(back.ok && back.record, r);
});

test('a record cut short anywhere is incomplete, never misread', () => {
  const text = formatSpoolRecord(base({ output: 'line one\nline two\n' }));
  for (let cut = 1; cut < text.length; cut++) {
    const r = parseSpoolRecord(text.slice(0, cut));
    assert.equal(r.ok, false, `cut at ${cut} parsed`);
    assert.equal(!r.ok && r.incomplete, true, `cut at ${cut} was not taken as still being written`);
  }
});

test('commands of one session fold into one capture in the terminal format, numbered, with exit codes and the output the agent read', async () => {
  const agentDir = tmpAgent();
  await writeSpoolRecord(agentDir, base());
  await writeSpoolRecord(agentDir, base({ command: 'make', exitCode: 2, output: 'cc -c x.c\nx.c:3: error: boom\n', startedMs: Date.parse('2026-12-01T10:00:02Z'), endedMs: Date.parse('2026-12-01T10:00:05Z') }));
  const out = await foldCommandSpool(agentDir);
  assert.equal(out.folded, 2);
  assert.deepEqual(out.problems, []);
  const list = await listTerminals(agentDir);
  assert.ok(list.ok);
  assert.equal(list.value.length, 1);
  const t = list.value[0];
  assert.equal(t.agent, 'codex');
  assert.equal(t.session, 's-1');
  assert.equal(t.closed, false);
  assert.match(t.name, /Codex CLI · session s-1/);
  const idx = await readTerminalIndex(agentDir, t.n);
  assert.ok(idx.ok);
  assert.deepEqual(idx.value.commands.map((c) => [c.command, c.commandLine, c.exitCode, c.durationMs]), [
    [1, 'echo hi', 0, 1500],
    [2, 'make', 2, 3000],
  ]);
  const make = idx.value.commands[1];
  assert.deepEqual(outputOf(agentDir, make.file, make.firstLine, make.lastLine), ['cc -c x.c', 'x.c:3: error: boom']);
  const text = fs.readFileSync(path.join(agentDir, t.file), 'utf8');
  assert.match(text, /^>>> command 2 \| started 2026-12-01T10:00:02.000Z \| cwd \/w \| \$ make$/m);
  assert.match(text, /^<<< command 2 \| exit 2 \| 3\.00s \| secrets masked 0$/m);
  assert.deepEqual(fs.readdirSync(path.join(agentDir, SPOOL_DIR)).filter((f) => f.endsWith('.rec')), [], 'folded records were left in the spool');
});

test('two sessions and two agents get captures of their own; a later fold appends to the open one', async () => {
  const agentDir = tmpAgent();
  await writeSpoolRecord(agentDir, base());
  await writeSpoolRecord(agentDir, base({ agent: 'claude-code', session: 'abc' }));
  await writeSpoolRecord(agentDir, base({ session: 's-2' }));
  await foldCommandSpool(agentDir);
  await writeSpoolRecord(agentDir, base({ command: 'ls', endedMs: Date.parse('2026-12-01T10:01:00Z') }));
  await foldCommandSpool(agentDir);
  const list = await listTerminals(agentDir);
  assert.ok(list.ok);
  const sessions = list.value.map((t) => `${t.agent}/${t.session}`).sort();
  assert.deepEqual(sessions, ['claude-code/abc', 'codex/s-1', 'codex/s-2']);
  const s1 = list.value.find((t) => t.session === 's-1')!;
  const idx = await readTerminalIndex(agentDir, s1.n);
  assert.ok(idx.ok);
  assert.deepEqual(idx.value.commands.map((c) => c.commandLine), ['echo hi', 'ls']);
});

test('output is rendered as a terminal shows it and masked before it is written; a JSON-escaped output is decoded', async () => {
  const agentDir = tmpAgent();
  const token = `ghp_${'a1B2c3D4e5F6g7H8i9J0'.repeat(2).slice(0, 36)}`;
  await writeSpoolRecord(agentDir, base({ output: `50%\r100%\n\u001b[31mred\u001b[0m\ntoken ${token}\n` }));
  await writeSpoolRecord(agentDir, base({ enc: 'json', output: 'line \\"one\\"\\nline two\\n', endedMs: Date.parse('2026-12-01T10:00:09Z') }));
  await foldCommandSpool(agentDir);
  const list = await listTerminals(agentDir);
  assert.ok(list.ok);
  const idx = await readTerminalIndex(agentDir, list.value[0].n);
  assert.ok(idx.ok);
  const [a, b] = idx.value.commands;
  assert.deepEqual(outputOf(agentDir, a.file, a.firstLine, a.lastLine), ['100%', 'red', 'token [MASKED:github-token]']);
  assert.equal(a.secretsMasked, 1);
  assert.deepEqual(outputOf(agentDir, b.file, b.firstLine, b.lastLine), ['line "one"', 'line two']);
  assert.doesNotMatch(fs.readFileSync(path.join(agentDir, a.file), 'utf8'), /ghp_/);
});

test('a record still being written is left for the next fold; one abandoned mid-write is set aside and named', async () => {
  const agentDir = tmpAgent();
  const dir = path.join(agentDir, SPOOL_DIR);
  fs.mkdirSync(dir, { recursive: true });
  const text = formatSpoolRecord(base());
  fs.writeFileSync(path.join(dir, '1-1-a.rec'), text.slice(0, text.length - 5));
  let out = await foldCommandSpool(agentDir);
  assert.equal(out.folded, 0);
  assert.deepEqual(out.problems, []);
  assert.ok(fs.existsSync(path.join(dir, '1-1-a.rec')), 'a record being written was touched');
  out = await foldCommandSpool(agentDir, { now: Date.now() + 120_000 });
  assert.equal(out.problems.length, 1);
  assert.match(out.problems[0], /1-1-a\.rec has no end line .*set aside as 1-1-a\.rec\.bad/);
  assert.ok(fs.existsSync(path.join(dir, '1-1-a.rec.bad')));
});

test('a session is closed when its agent is gone or it has been idle; its next command opens a new capture', async () => {
  const agentDir = tmpAgent();
  await writeSpoolRecord(agentDir, base({ pid: 999_999 }));
  await foldCommandSpool(agentDir, { alive: () => true });
  let list = await listTerminals(agentDir);
  assert.ok(list.ok);
  assert.equal(list.value[0].closed, false);
  const out = await foldCommandSpool(agentDir, { alive: () => false });
  assert.deepEqual(out.closed, [list.value[0].n]);
  list = await listTerminals(agentDir);
  assert.ok(list.ok);
  assert.equal(list.value[0].closed, true);
  const note = /# terminal closed at (\S+) \(the agent's process ended\)\n$/.exec(fs.readFileSync(path.join(agentDir, list.value[0].file), 'utf8'));
  assert.ok(note);
  // The index ends with the closing record: when, and whose commands (terminalFormat.ts ClosingRecord), its tally where the line is.
  const indexFile = path.join(agentDir, 'terminals', `${list.value[0].n}.index.jsonl`);
  const indexText = fs.readFileSync(indexFile, 'utf8');
  const last = indexText.trimEnd().split('\n').at(-1)!;
  const closing = JSON.parse(last) as Record<string, unknown>;
  assert.deepEqual({ ...closing, tally: undefined }, { v: 1, closed: note[1], agent: 'codex', session: base({}).session, tally: undefined });
  assert.deepEqual(closing.tally, [Buffer.byteLength(indexText) - Buffer.byteLength(last) - 1, 1, -1]);
  const idx = await readTerminalIndex(agentDir, list.value[0].n);
  assert.ok(idx.ok);
  assert.equal(idx.value.commands.length, 1);
  assert.deepEqual(idx.value.problems, []);
  await writeSpoolRecord(agentDir, base({ command: 'again' }));
  await foldCommandSpool(agentDir, { alive: () => true });
  list = await listTerminals(agentDir);
  assert.ok(list.ok);
  assert.equal(list.value.length, 2);
  const idle = await foldCommandSpool(agentDir, { now: Date.now() + 31 * 60_000, alive: () => true });
  assert.equal(idle.closed.length, 1);
});

test('a fold that died after writing (records and sessions.json left behind) neither loses nor doubles a command', async () => {
  const agentDir = tmpAgent();
  await writeSpoolRecord(agentDir, base());
  await foldCommandSpool(agentDir);
  const dir = path.join(agentDir, SPOOL_DIR);
  const before = fs.readFileSync(path.join(dir, 'sessions.json'), 'utf8');
  await writeSpoolRecord(agentDir, base({ command: 'second' }));
  const names = fs.readdirSync(dir).filter((f) => f.endsWith('.rec'));
  const saved = new Map(names.map((n) => [n, fs.readFileSync(path.join(dir, n), 'utf8')]));
  await foldCommandSpool(agentDir);
  // Put back what the fold removed and rewrote: as if it had died after appending.
  for (const [n, t] of saved) fs.writeFileSync(path.join(dir, n), t);
  fs.writeFileSync(path.join(dir, 'sessions.json'), before);
  await writeSpoolRecord(agentDir, base({ command: 'third' }));
  await foldCommandSpool(agentDir);
  const list = await listTerminals(agentDir);
  assert.ok(list.ok);
  const idx = await readTerminalIndex(agentDir, list.value[0].n);
  assert.ok(idx.ok);
  assert.deepEqual(idx.value.commands.map((c) => `${c.command} ${c.commandLine}`), ['1 echo hi', '2 second', '3 third']);
});

test('a fold killed between the closing record and N.txt\'s note: the next fold writes the note alone, and the capture is closed once', async () => {
  const agentDir = tmpAgent();
  await writeSpoolRecord(agentDir, base({ exitCode: 2 }));
  await foldCommandSpool(agentDir, { alive: () => true });
  const dir = path.join(agentDir, SPOOL_DIR);
  const before = fs.readFileSync(path.join(dir, 'sessions.json'), 'utf8');
  const out = await foldCommandSpool(agentDir, { alive: () => false });
  assert.equal(out.closed.length, 1);
  const n = out.closed[0];
  const txt = path.join(agentDir, 'terminals', `${n}.txt`);
  const indexFile = path.join(agentDir, 'terminals', `${n}.index.jsonl`);
  const closedIndex = fs.readFileSync(indexFile, 'utf8');
  // As the kill leaves it: the index closed, N.txt without its note, sessions.json from before the close.
  const text = fs.readFileSync(txt, 'utf8');
  fs.writeFileSync(txt, text.replace(/# terminal closed at [^\n]*\n$/, ''));
  fs.writeFileSync(path.join(dir, 'sessions.json'), before);
  const again = await foldCommandSpool(agentDir, { alive: () => false });
  assert.deepEqual(again.closed, [n]);
  assert.equal(fs.readFileSync(indexFile, 'utf8'), closedIndex, 'no second closing record');
  assert.equal(fs.readFileSync(txt, 'utf8').match(/^# terminal closed at /gm)?.length, 1);
  const idx = await readTerminalIndex(agentDir, n);
  assert.ok(idx.ok);
  assert.deepEqual([idx.value.commands.map((c) => c.exitCode), idx.value.problems], [[2], []]);
});

test('a damaged sessions.json is set aside, not rewritten, and recording goes on', async () => {
  const agentDir = tmpAgent();
  const dir = path.join(agentDir, SPOOL_DIR);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'sessions.json'), '{"open": [');
  await writeSpoolRecord(agentDir, base());
  const out = await foldCommandSpool(agentDir);
  assert.equal(out.folded, 1);
  assert.match(out.problems.join('\n'), /sessions\.json was not a sessions file .*moved to sessions\.json\.damaged-\d+/);
  assert.equal(fs.readdirSync(dir).filter((f) => f.startsWith('sessions.json.damaged-')).length, 1);
});

test('with nothing to fold and no session due, a fold leaves .agent/terminals/ untouched; a due session is still closed, a damaged sessions.json still set aside', async () => {
  // The Terminals view folds on every refresh and refreshes on changes in .agent/terminals/: a lock
  // file taken there by a fold with nothing to do refreshed it again, every half second, for good.
  const agentDir = tmpAgent();
  await writeSpoolRecord(agentDir, base({ pid: 999_999, startedMs: Date.now() - 2000, endedMs: Date.now() - 1000 }));
  await foldCommandSpool(agentDir, { alive: () => true });
  const seen: string[] = [];
  const watchers = [path.join(agentDir, 'terminals'), path.join(agentDir, SPOOL_DIR)].map((d) => fs.watch(d, (e, f) => seen.push(`${e} ${String(f)}`)));
  try {
    for (let i = 0; i < 3; i++) {
      const out = await foldCommandSpool(agentDir, { alive: () => true });
      assert.deepEqual([out.folded, out.closed, out.problems], [0, [], []]);
    }
    await new Promise((r) => setTimeout(r, 300)); // inotify's events come asynchronously
  } finally {
    for (const w of watchers) w.close();
  }
  assert.deepEqual(seen, [], 'a fold with nothing to do wrote in the terminals folder');
  const closing = await foldCommandSpool(agentDir, { alive: () => false });
  assert.equal(closing.closed.length, 1, 'a session whose agent is gone is closed without a new record');
  const dir = path.join(agentDir, SPOOL_DIR);
  fs.writeFileSync(path.join(dir, 'sessions.json'), '{"open": [');
  const aside = await foldCommandSpool(agentDir);
  assert.match(aside.problems.join('\n'), /sessions\.json was not a sessions file/);
  assert.equal(fs.readdirSync(dir).filter((f) => f.startsWith('sessions.json.damaged-')).length, 1);
});

test('several folders at once (hooks of parallel commands, the editor, a server): every command once, numbers unique', async () => {
  const agentDir = tmpAgent();
  const writes: Promise<unknown>[] = [];
  for (let i = 0; i < 40; i++) writes.push(writeSpoolRecord(agentDir, base({ session: `s-${i % 3}`, command: `cmd ${i}`, exitCode: i % 5, endedMs: Date.parse('2026-12-01T10:00:00Z') + i })));
  await Promise.all(writes.map((w, i) => w.then(() => (i % 4 === 0 ? foldCommandSpool(agentDir) : undefined))));
  await Promise.all([foldCommandSpool(agentDir), foldCommandSpool(agentDir), foldCommandSpool(agentDir)]);
  const list = await listTerminals(agentDir);
  assert.ok(list.ok);
  assert.equal(list.value.length, 3);
  const seen: string[] = [];
  for (const t of list.value) {
    const idx = await readTerminalIndex(agentDir, t.n);
    assert.ok(idx.ok);
    assert.deepEqual(idx.value.commands.map((c) => c.command), idx.value.commands.map((_, i) => i + 1), `terminal ${t.n}: numbers not 1..n`);
    for (const c of idx.value.commands) {
      assert.equal(c.exitCode, Number(c.commandLine.split(' ')[1]) % 5, `${c.commandLine}: another command's exit code`);
      seen.push(c.commandLine);
    }
  }
  assert.deepEqual(seen.sort(), Array.from({ length: 40 }, (_, i) => `cmd ${i}`).sort());
});

test('a long backlog is folded in passes (the lock released between them), in order, every command once', async () => {
  const agentDir = tmpAgent();
  for (let i = 0; i < 25; i++) await writeSpoolRecord(agentDir, base({ command: `step ${i}`, endedMs: Date.parse('2026-12-01T10:00:00Z') + i * 1000 }));
  const out = await foldCommandSpool(agentDir, { perPass: 7 });
  assert.equal(out.folded, 25);
  const list = await listTerminals(agentDir);
  assert.ok(list.ok);
  const idx = await readTerminalIndex(agentDir, list.value[0].n);
  assert.ok(idx.ok);
  assert.deepEqual(idx.value.commands.map((c) => c.commandLine), Array.from({ length: 25 }, (_, i) => `step ${i}`));
});
