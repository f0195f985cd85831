// Cleanup's retention for terminal captures, on captures the real writer and the real session fold
// made: closed terminals and ended agent sessions older than the limit go to the trash with their
// index and previous generation; open terminals, open sessions, recent captures and the highest
// number stay; the lists and the catalog go on without the removed files. A session whose writer was
// killed between its two closing writes is ended for every reader alike.
import { after, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeSpoolRecord, type SpoolRecord } from '../../../src/core/terminal/agentCommands/commandSpool';
import { foldCommandSpool } from '../../../src/core/terminal/agentCommands/sessionFold';
import { groupByAgent } from '../../../src/core/terminal/agentCommands/sessionGroups';
import { createCaptureWriter } from '../../../src/core/terminal/captureWriter';
import { agentOf, isClosed, terminalCatalog } from '../../../src/core/terminal/catalog/terminalCatalog';
import { openTerminalCapture } from '../../../src/core/terminal/terminalCapture';
import { listTerminals } from '../../../src/core/terminal/terminalIndex';
import { cleanupTerminals, describeTerminalCleanup, describeTerminalCleanups, noTerminalCleanup } from '../../../src/core/terminal/terminalRetention';

const DAY = 24 * 3_600_000;
const NOW = Date.parse('2026-12-06T12:00:00.000Z');

/** A terminal captured by the real writer, with 3 commands; closed unless `open`. */
async function terminal(dir: string, name: string, opts: { open?: boolean; lines?: number; maxFileBytes?: number } = {}): Promise<{ n: number; close: () => Promise<void> }> {
  const t0 = new Date(NOW - 60 * DAY);
  const cap = await openTerminalCapture(dir, { name, shell: '/bin/bash', cwd: '/w', started: t0, shellIntegration: true }, { settleMs: 0, ...(opts.maxFileBytes ? { maxFileBytes: opts.maxFileBytes } : {}) });
  for (let k = 1; k <= 3; k++) {
    const c = cap.beginCommand({ commandLine: `make step${k}`, cwd: '/w', started: t0 });
    for (let i = 0; i < (opts.lines ?? 2); i++) c.write(`${name} step ${k} line ${i}\r\n`);
    c.end(k === 2 ? 1 : 0, t0);
  }
  if (!opts.open) await cap.close(t0);
  else await cap.writer.flush();
  return { n: cap.n, close: () => cap.close(t0) };
}

function age(dir: string, n: number, days: number): void {
  const t = (NOW - days * DAY) / 1000;
  for (const f of [`${n}.txt`, `${n}.index.jsonl`, `${n}.1.txt`]) if (fs.existsSync(path.join(dir, f))) fs.utimesSync(path.join(dir, f), t, t);
}

const rec = (session: string, endedMs: number): SpoolRecord => ({ agent: 'codex', session, startedMs: endedMs - 1000, endedMs, exitCode: 2, cwd: '/w', command: `cargo build # ${session}`, enc: 'raw', output: 'error[E0502]: cannot borrow\n' });

/** Temp folders of this file, removed when its tests end. */
const temps: string[] = [];
const tmp = (prefix: string): string => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  temps.push(d);
  return d;
};
after(() => {
  for (const d of temps) fs.rmSync(d, { recursive: true, force: true });
});

test('Clean Up moves old captures of closed terminals and ended agent sessions to the trash with their index and previous file; open ones, recent ones and the highest number stay', async () => {
  const agentDir = path.join(tmp('ac-termret-'), '.agent');
  const dir = path.join(agentDir, 'terminals');
  const data = tmp('ac-termret-trash-');
  const closedOld = await terminal(dir, 'closed old');
  const rotated = await terminal(dir, 'rotated', { lines: 1000, maxFileBytes: 64 * 1024 });
  assert.ok(fs.existsSync(path.join(dir, `${rotated.n}.1.txt`)), 'the writer rotated it');
  const openHere = await terminal(dir, 'open here', { open: true });
  const crashed = await terminal(dir, 'left by a crashed window', { open: true });
  const recent = await terminal(dir, 'closed recently');
  // Two Codex sessions through the real spool and fold: the first ended (idle), the second still open.
  await writeSpoolRecord(agentDir, rec('ended', NOW - 50 * DAY));
  await foldCommandSpool(agentDir, { now: NOW - 50 * DAY + 3_600_000 });
  await writeSpoolRecord(agentDir, rec('running', NOW - 40 * DAY));
  await foldCommandSpool(agentDir, { now: NOW - 40 * DAY + 1000 });
  const sessions = await listTerminals(agentDir);
  assert.ok(sessions.ok);
  const ended = sessions.value.find((t) => t.session === 'ended')!;
  const running = sessions.value.find((t) => t.session === 'running')!;
  assert.deepEqual([ended.closed, running.closed], [true, false]);
  const highest = await terminal(dir, 'newest, closed');
  for (const n of [closedOld.n, rotated.n, openHere.n, crashed.n, ended.n, running.n, highest.n]) age(dir, n, 45);
  age(dir, recent.n, 10);
  const openFiles = [path.join(dir, `${openHere.n}.txt`), path.join(dir, `${openHere.n}.index.jsonl`)];

  // Without the editor's list of open terminals, a terminal without its closing note stays.
  const blind = await cleanupTerminals({ agentDir, maxAgeDays: 30, now: NOW, dryRun: true });
  assert.ok(blind.ok);
  assert.deepEqual(blind.value.removed.map((i) => i.n).sort((a, b) => a - b), [closedOld.n, rotated.n, ended.n].sort((a, b) => a - b));

  const dry = await cleanupTerminals({ agentDir, maxAgeDays: 30, now: NOW, openFiles, dryRun: true, trash: { xdgDataHome: data } });
  assert.ok(dry.ok);
  const gone = [closedOld.n, rotated.n, crashed.n, ended.n].sort((a, b) => a - b);
  assert.deepEqual(dry.value.removed.map((i) => i.n).sort((a, b) => a - b), gone);
  assert.equal(dry.value.keptOpen, 2, 'the terminal open here and the running session');
  assert.equal(dry.value.removed.find((i) => i.n === ended.n)?.agent, 'codex');
  assert.deepEqual(dry.value.removed.find((i) => i.n === rotated.n)?.files.map((f) => path.basename(f)), [`${rotated.n}.txt`, `${rotated.n}.index.jsonl`, `${rotated.n}.1.txt`]);
  assert.match(describeTerminalCleanup(dry.value), /^would move 4 closed terminal captures \([\d.]+ KB\) older than 30 days to the trash$/);
  assert.ok(fs.existsSync(path.join(dir, `${closedOld.n}.txt`)), 'a dry run moves nothing');

  const real = await cleanupTerminals({ agentDir, maxAgeDays: 30, now: NOW, openFiles, trash: { xdgDataHome: data } });
  assert.ok(real.ok);
  assert.deepEqual(real.value.removed.map((i) => i.n).sort((a, b) => a - b), gone);
  assert.deepEqual(real.value.failed, []);
  assert.match(describeTerminalCleanup(real.value), /^moved 4 closed terminal captures/);
  const left = fs.readdirSync(dir).filter((f) => f !== 'spool').sort();
  const keep = [openHere.n, recent.n, running.n, highest.n];
  assert.deepEqual(left, keep.flatMap((n) => [`${n}.index.jsonl`, `${n}.txt`]).sort(), 'each removed capture went whole, nothing else');
  const trashed = fs.readdirSync(path.join(data, 'Trash/files')).sort();
  assert.deepEqual(trashed, [...gone.flatMap((n) => [`${n}.index.jsonl`, `${n}.txt`]), `${rotated.n}.1.txt`].sort(), 'in the trash, restorable');

  // The lists and the catalog answer without the removed captures, and numbering goes on after the highest.
  const after = await listTerminals(agentDir);
  assert.ok(after.ok);
  assert.deepEqual(after.value.map((t) => t.n).sort((a, b) => a - b), keep.sort((a, b) => a - b));
  const catalog = await terminalCatalog(agentDir);
  assert.ok(catalog.ok);
  assert.deepEqual(catalog.value.map((t) => t.info.n).sort((a, b) => a - b), keep.sort((a, b) => a - b));
  const next = await createCaptureWriter(dir, { name: 'next', started: new Date(NOW), shellIntegration: true });
  assert.equal(next.n, highest.n + 1, 'no number handed out twice');
  await next.close();
  await openHere.close();
  await crashed.close();

  // Off: 0 keeps everything.
  const off = await cleanupTerminals({ agentDir, maxAgeDays: 0, now: NOW + 400 * DAY, openFiles: [] });
  assert.ok(off.ok);
  assert.deepEqual(off.value.removed, []);
});

test('a terminals folder that leads outside .agent/ is not cleaned; a missing one is nothing to do', async () => {
  const ws = tmp('ac-termret-link-');
  const agentDir = path.join(ws, '.agent');
  fs.mkdirSync(agentDir);
  const none = await cleanupTerminals({ agentDir, maxAgeDays: 30, now: NOW, openFiles: [] });
  assert.ok(none.ok);
  assert.deepEqual(none.value.removed, []);
  const outside = tmp('ac-termret-outside-');
  for (const n of [1, 2]) fs.writeFileSync(path.join(outside, `${n}.txt`), `# Agent Context terminal capture\n# terminal: x\n# number: ${n}\n# terminal closed at 2026-01-01T00:00:00.000Z\n`);
  fs.utimesSync(path.join(outside, '1.txt'), (NOW - 90 * DAY) / 1000, (NOW - 90 * DAY) / 1000);
  fs.symlinkSync(outside, path.join(agentDir, 'terminals'));
  const r = await cleanupTerminals({ agentDir, maxAgeDays: 30, now: NOW, openFiles: [] });
  assert.equal(r.ok, false);
  assert.match(!r.ok ? r.error.message : '', /resolves outside \.agent/);
  assert.ok(fs.existsSync(path.join(outside, '1.txt')));
});

test('a multi-root Clean Up names each folder retention in force, not the first folder\'s for all', () => {
  const item = (n: number, bytes: number) => ({ n, name: 'bash', files: [`${n}.txt`], bytes, lastWriteMs: 0 });
  const month = { ...noTerminalCleanup(false, 30), removed: [item(1, 1024)] };
  const alsoMonth = { ...noTerminalCleanup(false, 30), removed: [item(2, 1024)] };
  const week = { ...noTerminalCleanup(false, 7), removed: [item(3, 2048)] };
  assert.deepEqual(describeTerminalCleanups([month, week, alsoMonth, noTerminalCleanup(false, 90)]), [
    'moved 2 closed terminal captures (2.0 KB) older than 30 days to the trash',
    'moved 1 closed terminal capture (2.0 KB) older than 7 days to the trash',
  ]);
  assert.deepEqual(describeTerminalCleanups([noTerminalCleanup(true, 30), noTerminalCleanup(true, 7)]), [], 'nothing done, nothing said');
});

test('an agent session whose writer was killed between its closing record and N.txt\'s note counts as ended everywhere: the catalog, the Terminals view\'s groups, the listing\'s filter and Clean Up', async () => {
  const agentDir = path.join(tmp('ac-termret-kill-'), '.agent');
  const dir = path.join(agentDir, 'terminals');
  // The real fold writes and then closes the session (idle): closing record, then N.txt's note.
  await writeSpoolRecord(agentDir, rec('killed', NOW - 50 * DAY));
  await foldCommandSpool(agentDir, { now: NOW - 50 * DAY + 60_000 });
  await foldCommandSpool(agentDir, { now: NOW - 50 * DAY + 3_600_000 }); // idle: closed
  await terminal(dir, 'newest, closed');
  const listed = await listTerminals(agentDir);
  assert.ok(listed.ok);
  const s = listed.value.find((t) => t.session === 'killed')!;
  const txt = path.join(dir, `${s.n}.txt`);
  const lines = fs.readFileSync(txt, 'utf8').split('\n');
  assert.match(lines.at(-2)!, /^# terminal closed at /);
  assert.match(fs.readFileSync(path.join(dir, `${s.n}.index.jsonl`), 'utf8').trimEnd().split('\n').at(-1)!, /^\{"v":1,"closed":/);
  // A kill between the two writes: the index's closing record is there, N.txt's note is not.
  fs.writeFileSync(txt, lines.slice(0, -2).join('\n') + '\n');
  age(dir, s.n, 45);

  const cat = await terminalCatalog(agentDir);
  assert.ok(cat.ok);
  const t = cat.value.find((x) => x.n === s.n)!;
  assert.deepEqual([t.info.closed, t.info.agent, t.info.session, isClosed(t), agentOf(t)], [true, 'codex', 'killed', true, 'codex'], 'the info the view and the briefing read agrees with the listing\'s rule');
  const { agents } = groupByAgent(cat.value);
  assert.deepEqual(agents.map((a) => [a.agent, a.sessions.length, a.open]), [['codex', 1, 0]], 'the Terminals view shows it ended');

  const dry = await cleanupTerminals({ agentDir, maxAgeDays: 30, now: NOW, openFiles: [], dryRun: true });
  assert.ok(dry.ok);
  assert.deepEqual(dry.value.removed.map((i) => [i.n, i.agent]), [[s.n, 'codex']], 'Clean Up takes it as ended, not as a session its hook may still write');
  assert.equal(dry.value.keptOpen, 0);
});
