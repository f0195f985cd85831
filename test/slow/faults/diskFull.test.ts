// Disk full (ENOSPC) and a read-only .agent/ (EROFS), on a small tmpfs the test mounts itself
// (issue 22): the tool answers with the file and "disk full", nothing half written replaces or
// poses as a good file, and the next call after space returns works.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { invokeTool } from '../../../src/core/tools/invokeTool';
import { readLedger, appendLedger } from '../../../src/core/history/ledger';
import { foldFile } from '../../../src/core/fs/appendFold';
import { mkdirp } from '../../../src/core/fs/fsAtomic';
import { withFileLock } from '../../../src/core/fs/fileLock';
import { fillDisk, mountSmallFs, remount, smallFsAvailable, toolContext } from '../../faultKit';

const can = smallFsAvailable();
const opts = { skip: !can.ok && (can as { why: string }).why };

/** A workspace on its own small file system: `.agent/` with a plan, a memory file and a ledger. */
function smallWorkspace(bytes = 4 * 1024 * 1024): { root: string; agentDir: string; done: () => void } {
  const m = mountSmallFs(bytes);
  const agentDir = path.join(m.dir, '.agent');
  fs.mkdirSync(path.join(agentDir, 'scratch', 'tool_outputs'), { recursive: true });
  fs.writeFileSync(path.join(agentDir, 'plan.yaml'), 'objective: "Ship it"\nsteps:\n  - id: 1\n    description: "Build"\n    status: pending\n');
  return { root: m.dir, agentDir, done: m.done };
}

/** Every file under a folder (relative paths), temp files included. */
function walk(dir: string, base = dir): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(p, base));
    else out.push(path.relative(base, p));
  }
  return out.sort();
}

test('offload of 5 MB with 256 KB free: "disk full" naming the file, nothing left in scratch or temp, works again once space returns', opts, async () => {
  const w = smallWorkspace();
  try {
    const ctx = toolContext(w.root);
    const filler = fillDisk(w.root, 256 * 1024);
    const r = await invokeTool('agentContext_offload', { content: 'log line of a big build\n'.repeat(220_000), name: 'big-log' }, ctx);
    assert.ok(r.isError, r.text);
    assert.match(r.text, /^Error: disk full \(ENOSPC\) writing \.agent\/scratch\/big-log-[0-9A-Z]{26}\.txt: free some space and try again; nothing was saved\./);
    assert.deepEqual(fs.readdirSync(path.join(w.agentDir, 'scratch')), ['tool_outputs']);
    assert.deepEqual(fs.readdirSync(path.join(w.agentDir, '.cache', 'tmp')), []);
    fs.rmSync(filler);
    const again = await invokeTool('agentContext_offload', { content: 'small note', name: 'note' }, ctx);
    assert.ok(!again.isError, again.text);
    assert.match(again.text, /Saved/);
  } finally {
    w.done();
  }
});

test('agentContext_run printing 5 MB with 256 KB free: disk full at once, the command stopped, no output file', opts, async () => {
  const w = smallWorkspace();
  try {
    const ctx = toolContext(w.root);
    const filler = fillDisk(w.root, 256 * 1024);
    const t0 = Date.now();
    const r = await invokeTool('agentContext_run', { command: 'yes "a line of build output that goes on" | head -c 5000000; sleep 20', timeoutSec: 60 }, ctx);
    const ms = Date.now() - t0;
    assert.ok(r.isError, r.text);
    assert.match(r.text, /^Error: disk full \(ENOSPC\) writing \.agent\/scratch\/tool_outputs\/yes-a-line-of-[^ ]*\.txt: free some space and try again\. The command was stopped after [\d.]+ ?m?s \(process group killed\); its output was not saved\./);
    assert.doesNotMatch(r.text, /Cannot call end|timed out/);
    // The command sleeps 20 s after its output: an answer well before that means it was stopped at
    // the failed write, not waited for (the normal case takes about a second; 15 s leaves a loaded
    // machine plenty of room and still fails if the sleep ran to its end).
    assert.ok(ms < 15_000, `answered after ${ms} ms: the command was not stopped at the failed write`);
    assert.deepEqual(walk(path.join(w.agentDir, 'scratch')), []);
    assert.deepEqual(fs.readdirSync(path.join(w.agentDir, '.cache', 'tmp')), []);
    fs.rmSync(filler);
    const ok = await invokeTool('agentContext_run', { command: 'echo fine' }, ctx);
    assert.match(ok.text, /exit 0/);
  } finally {
    w.done();
  }
});

test('.agent/ on a read-only file system: run names EROFS, writes fail clearly, reads work', opts, async () => {
  const w = smallWorkspace();
  try {
    fs.rmSync(path.join(w.agentDir, 'scratch'), { recursive: true });
    remount(w.root, 'ro');
    const ctx = toolContext(w.root);
    const run = await invokeTool('agentContext_run', { command: 'echo hi' }, ctx);
    assert.match(run.text, /^Error: read-only file system \(EROFS\) creating \.agent\/scratch\/tool_outputs\/echo-hi-[^ ]*\.txt: the folder is mounted read-only\. The command was not run/);
    assert.doesNotMatch(run.text, /ENOENT/);
    const off = await invokeTool('agentContext_offload', { content: 'x' }, ctx);
    assert.match(off.text, /^Error: read-only file system \(EROFS\)/);
    const plan = await invokeTool('agentContext_plan', { action: 'setStatus', stepId: 1, status: 'completed' }, ctx);
    assert.match(plan.text, /EROFS/);
    const get = await invokeTool('agentContext_plan', { action: 'get' }, ctx);
    assert.match(get.text, /\[1\] pending: Build/);
    assert.match(get.text, /Note: this call was not recorded in the ledger: read-only file system \(EROFS\) writing \.agent\/history\/tools-\d{4}-\d\d\.jsonl/);
    const brief = await invokeTool('agentContext_briefing', {}, ctx);
    assert.match(brief.text, /Ship it/);
  } finally {
    w.done();
  }
});

test('an atomic plan edit on a full disk: the plan is unchanged, the error names it, no temp file is left', opts, async () => {
  const w = smallWorkspace();
  try {
    const ctx = toolContext(w.root);
    const planFile = path.join(w.agentDir, 'plan.yaml');
    // Grow the plan so that its rewrite does not fit, while a ledger line still does.
    fs.appendFileSync(planFile, Array.from({ length: 400 }, (_, i) => `  - id: ${i + 2}\n    description: "Step ${i + 2} of a long plan"\n    status: pending\n`).join(''));
    const before = fs.readFileSync(planFile, 'utf8');
    const filler = fillDisk(w.root, 8 * 1024);
    const r = await invokeTool('agentContext_plan', { action: 'setStatus', stepId: 1, status: 'completed' }, ctx);
    assert.ok(r.isError, r.text);
    assert.match(r.text, /disk full \(ENOSPC\)/);
    assert.match(r.text, /\.agent\/plan\.yaml|\.agent\/\.plan\.yaml/);
    assert.equal(fs.readFileSync(planFile, 'utf8'), before);
    assert.deepEqual(fs.readdirSync(w.agentDir).filter((n) => n.endsWith('.tmp')), []);
    fs.rmSync(filler);
    const ok = await invokeTool('agentContext_plan', { action: 'setStatus', stepId: 1, status: 'completed' }, ctx);
    assert.ok(!ok.isError, ok.text);
  } finally {
    w.done();
  }
});

test('a ledger append on a full disk: the answer says the call was not recorded; a torn last line is skipped and the next line is whole', opts, async () => {
  const w = smallWorkspace();
  try {
    const ctx = toolContext(w.root);
    const filler = fillDisk(w.root, 0);
    const r = await invokeTool('agentContext_plan', { action: 'get' }, ctx);
    assert.ok(!r.isError, r.text);
    assert.match(r.text, /Note: this call was not recorded in the ledger: disk full \(ENOSPC\) writing \.agent\/history\/tools-\d{4}-\d\d\.jsonl/);
    fs.rmSync(filler);
    // A writer killed mid-line (or cut short by the disk) left a torn record.
    const time = new Date().toISOString();
    await appendLedger(w.agentDir, { time, tool: 'agentContext_read', source: 'mcp', input: '{}', rawTokens: 1, returnedTokens: 1, ok: true, text: 'first' });
    const file = path.join(w.agentDir, 'history', `tools-${time.slice(0, 7)}.jsonl`);
    fs.appendFileSync(file, '{"time":"2026-12-01T00:00:00.000Z","tool":"agentContext_gr');
    await invokeTool('agentContext_plan', { action: 'get' }, ctx);
    const l = await readLedger(w.agentDir);
    assert.deepEqual(l.entries.map((e) => e.tool), ['agentContext_read', 'agentContext_plan']);
    assert.equal(l.bad.length, 1);
  } finally {
    w.done();
  }
});

test('a cache (checkpoint) write on a full disk: the summary still answers, the old checkpoint is not replaced by half a file', opts, async () => {
  const w = smallWorkspace();
  try {
    const file = path.join(w.agentDir, 'log.jsonl');
    const cp = path.join(w.agentDir, '.cache', 'test-fold.json');
    const spec = { id: 'test-fold', version: 1, init: () => ({ n: 0 }), line: (s: { n: number }) => void s.n++ };
    fs.writeFileSync(file, 'x\n'.repeat(200_000));
    assert.equal((await foldFile(file, spec, cp).read()).state.n, 200_000);
    const good = fs.readFileSync(cp, 'utf8');
    fs.appendFileSync(file, 'y\n'.repeat(200_000));
    const filler = fillDisk(w.root, 0);
    const r = await foldFile(file, spec, cp).read();
    assert.equal(r.state.n, 400_000);
    assert.equal(fs.readFileSync(cp, 'utf8'), good);
    assert.deepEqual(fs.readdirSync(path.dirname(cp)).filter((n) => n.endsWith('.tmp')), []);
    fs.rmSync(filler);
  } finally {
    w.done();
  }
});

test('a memory write that failed on a full disk leaves no lock: the retry does not wait', opts, async () => {
  const w = smallWorkspace();
  try {
    const ctx = toolContext(w.root);
    await invokeTool('agentContext_memory', { action: 'remember', key: 'style', value: 'tabs' }, ctx);
    const filler = fillDisk(w.root, 0);
    const r = await invokeTool('agentContext_memory', { action: 'remember', key: 'tests', value: 'node:test' }, ctx);
    assert.ok(r.isError, r.text);
    assert.match(r.text, /disk full \(ENOSPC\)/);
    fs.rmSync(filler);
    // No lock left behind is what spares the retry its wait (a left lock was waited on ~9 s).
    assert.deepEqual(walk(w.agentDir).filter((n) => n.endsWith('.lock')), []);
    const again = await invokeTool('agentContext_memory', { action: 'remember', key: 'tests', value: 'node:test' }, ctx);
    assert.ok(!again.isError, again.text);
  } finally {
    w.done();
  }
});

test('a lock left by a killed process of this machine is broken at once; an unreadable fresh one is waited for briefly', async () => {
  const dir = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'ac-lock-'));
  const file = path.join(dir, 'prefs.yaml');
  const lock = path.join(dir, '.prefs.yaml.lock');
  // A pid that exists no more: a child that has exited.
  const { spawnSync } = await import('node:child_process');
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
  fs.writeFileSync(lock, `${dead} ${require('node:os').hostname()}\n`);
  // Dated an hour ahead, the lock never turns stale during the call: the call gets the lock (and does
  // not fail after its 15 s wait) only because the dead holder was recognised. No timing asserted.
  const future = new Date(Date.now() + 3_600_000);
  fs.utimesSync(lock, future, future);
  let ran = false;
  await withFileLock(file, async () => {
    ran = true;
    assert.equal(fs.readFileSync(lock, 'utf8'), `${process.pid} ${require('node:os').hostname()}\n`, 'the lock is ours now');
  });
  assert.ok(ran);
  // An empty lock (an older writer's leftover) is broken after a second of grace, long before the
  // 10 s at which any lock counts as stale. Dated 2 s back: the grace is over, staleness 8 s away;
  // the call must return before the lock would have turned stale (normal: at once; the bound is
  // the rule's own, 8 s away from the normal case).
  const twoSecondsAgo = Date.now() - 2_000;
  fs.writeFileSync(lock, '');
  fs.utimesSync(lock, new Date(twoSecondsAgo), new Date(twoSecondsAgo));
  await withFileLock(file, async () => undefined);
  assert.ok(Date.now() < twoSecondsAgo + 10_000, 'the empty lock was broken by the grace rule, not by the stale timeout');
  assert.equal(fs.existsSync(lock), false);
});

test('mkdir under a read-only folder names EROFS, not ENOENT', opts, async () => {
  const w = smallWorkspace();
  try {
    remount(w.root, 'ro');
    await assert.rejects(mkdirp(path.join(w.agentDir, 'a', 'b', 'c')), (e: NodeJS.ErrnoException) => e.code === 'EROFS');
  } finally {
    w.done();
  }
});

test('grep whose full list does not fit on the disk: the matches, the head and the reason', opts, async () => {
  const w = smallWorkspace();
  try {
    const ctx = toolContext(w.root);
    fs.writeFileSync(path.join(w.root, 'big.log'), Array.from({ length: 3000 }, (_, i) => `line ${i} ERROR something failed here`).join('\n'));
    const filler = fillDisk(w.root, 0);
    const r = await invokeTool('agentContext_grep', { pattern: 'ERROR', path: 'big.log' }, ctx);
    assert.match(r.text, /^3,000 matches in 1 file/);
    assert.match(r.text, /The full list could not be saved: disk full \(ENOSPC\) writing \.agent\/scratch\/tool_outputs\/grep-error-[^ ]*\.grep\.txt/);
    assert.deepEqual(walk(path.join(w.agentDir, 'scratch')), []);
    fs.rmSync(filler);
  } finally {
    w.done();
  }
});

test('terminal capture on a full disk: pauses once, marks the loss with [capture paused: disk full], resumes when space returns; the index stays true', opts, async () => {
  const { openTerminalCapture } = await import('../../../src/core/terminal/terminalCapture.js');
  const { readTerminalIndex } = await import('../../../src/core/terminal/terminalIndex.js');
  const w = smallWorkspace(2 * 1024 * 1024);
  try {
    const events: { resumed: boolean; lostLines: number }[] = [];
    const cap = await openTerminalCapture(path.join(w.agentDir, 'terminals'), { name: 'bash', started: new Date(), shellIntegration: true }, {
      settleMs: 0, flushMs: 5, resumeRetryMs: 50, onDiskFull: (e) => events.push({ resumed: e.resumed, lostLines: e.lostLines }),
    });
    const run = async (k: number, lines: number, exit: number): Promise<void> => {
      const c = cap.beginCommand({ commandLine: `build ${k}`, cwd: '/w', started: new Date() });
      c.write('\x1b]633;C\x07');
      for (let i = 0; i < lines; i++) c.write(`command ${k} output line ${i}\r\n`);
      c.end(exit, new Date());
      await cap.writer.flush();
    };
    await run(1, 100, 0);
    const filler = fillDisk(w.root, 0);
    await run(2, 2000, 1); // begins before the disk is noticed full, ends in the pause
    await run(3, 500, 0); // wholly inside the pause
    const c4 = cap.beginCommand({ commandLine: 'server', cwd: '/w', started: new Date() });
    c4.write('\x1b]633;C\x07');
    for (let i = 0; i < 300; i++) c4.write(`server line ${i}\r\n`);
    await cap.writer.flush();
    assert.deepEqual(events.map((e) => e.resumed), [false], 'one notice for the whole pause, not one per chunk');
    fs.rmSync(filler);
    for (let i = 0; i < 100 && !events.some((e) => e.resumed); i++) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(events.map((e) => e.resumed), [false, true]);
    for (let i = 0; i < 5; i++) c4.write(`server line after ${i}\r\n`);
    c4.end(0, new Date());
    await run(5, 3, 2);
    await cap.close();
    const file = path.join(w.agentDir, 'terminals', '1.txt');
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    const marks = lines.filter((l) => l.startsWith('[capture paused: disk full] '));
    assert.equal(marks.length, 1);
    assert.match(marks[0], /^\[capture paused: disk full\] [\d,]+ lines? of output lost from .* to .*; capture resumed$/);
    const idx = await readTerminalIndex(w.agentDir, 1);
    assert.ok(idx.ok);
    assert.deepEqual(idx.value.problems, []);
    assert.deepEqual(idx.value.commands.map((c) => c.command), [1, 2, 3, 4, 5]);
    for (const c of idx.value.commands) {
      assert.match(lines[c.headerLine - 1], new RegExp(`^>>> command ${c.command}[ |]`), `header of ${c.command}`);
      assert.match(lines[c.lastLine!], new RegExp(`^<<< command ${c.command} \\| exit ${c.exitCode}`), `footer of ${c.command}`);
    }
    assert.deepEqual(idx.value.commands.map((c) => c.diskFull), [false, true, true, true, false]);
    assert.deepEqual(idx.value.commands.map((c) => c.exitCode), [1, 2, 3, 4, 5].map((k) => (k === 2 ? 1 : k === 5 ? 2 : 0)));
    const c4done = idx.value.commands[3];
    assert.deepEqual(lines.slice(c4done.lastLine! - 5, c4done.lastLine!), [0, 1, 2, 3, 4].map((i) => `server line after ${i}`));
    // Its `>>>` line was lost in the pause: a new one follows the mark and says so.
    assert.ok(lines.indexOf(marks[0]) < c4done.headerLine - 1);
    assert.match(lines[c4done.headerLine - 1], /^>>> command 4 \(its output before this line was lost: disk full\) \|/);
    // Command 2 began before the pause: the mark is the last line of its range.
    const c2 = idx.value.commands[1];
    assert.match(lines[c2.lastLine! - 1], /^\[capture paused: disk full\]/);
    assert.equal(lines[idx.value.commands[0].lastLine! - 1], 'command 1 output line 99');
  } finally {
    w.done();
  }
});

test('an agent command folded on a full disk: nothing torn is left in its capture, the record stays in the spool, and once space returns it is recorded once, whole, at the lines its index names', opts, async () => {
  const { writeSpoolRecord } = await import('../../../src/core/terminal/agentCommands/commandSpool.js');
  const { foldCommandSpool } = await import('../../../src/core/terminal/agentCommands/sessionFold.js');
  const { readTerminalIndex } = await import('../../../src/core/terminal/terminalIndex.js');
  const w = smallWorkspace(2 * 1024 * 1024);
  try {
    const record = (k: number, lines: number, exitCode: number) => ({
      agent: 'codex', session: 'disk-full', startedMs: Date.now() + k, endedMs: Date.now() + k + 5, exitCode, cwd: '/w', command: `make step-${k}`, enc: 'raw' as const,
      output: Array.from({ length: lines }, (_, i) => `step ${k} output line ${i}`).join('\n'),
    });
    await writeSpoolRecord(w.agentDir, record(1, 10, 0));
    await foldCommandSpool(w.agentDir);
    const spool = path.join(w.agentDir, 'terminals', 'spool');
    const capture = fs.readdirSync(path.join(w.agentDir, 'terminals')).find((f) => /^\d+\.txt$/.test(f))!;
    const file = path.join(w.agentDir, 'terminals', capture);
    const before = fs.readFileSync(file, 'utf8');
    // A 300 KB output spooled, then the disk fills with 64 KB left: its fold's append cannot be whole.
    await writeSpoolRecord(w.agentDir, record(2, 12_000, 2));
    const filler = fillDisk(w.root, 64 * 1024);
    const failed = await foldCommandSpool(w.agentDir).then(() => undefined, (e: Error) => e);
    assert.ok(failed, 'the fold says it could not write');
    assert.match(failed.message, /ENOSPC|disk full/);
    assert.equal(fs.readFileSync(file, 'utf8'), before, 'the capture is as it was: no torn block');
    assert.equal(fs.readdirSync(spool).filter((f) => f.endsWith('.rec')).length, 1, 'the record waits in the spool');
    fs.rmSync(filler);
    await writeSpoolRecord(w.agentDir, record(3, 3, 0));
    await foldCommandSpool(w.agentDir);
    assert.deepEqual(fs.readdirSync(spool).filter((f) => f.endsWith('.rec')), []);
    const text = fs.readFileSync(file, 'utf8');
    const lines = text.split('\n');
    assert.equal(text.match(/^>>> command \d+/gm)?.length, 3, 'three commands, each once');
    const idx = await readTerminalIndex(w.agentDir, Number(capture.replace('.txt', '')));
    assert.ok(idx.ok);
    assert.deepEqual(idx.value.problems, []);
    assert.deepEqual(idx.value.commands.map((c) => [c.command, c.commandLine, c.exitCode]), [[1, 'make step-1', 0], [2, 'make step-2', 2], [3, 'make step-3', 0]]);
    for (const c of idx.value.commands) assert.match(lines[c.headerLine - 1], new RegExp(`^>>> command ${c.command}[ |]`), `header of ${c.command} at the line its index names`);
    const two = idx.value.commands[1];
    assert.equal(lines[two.headerLine], 'step 2 output line 0');
    assert.ok(lines.includes('step 2 output line 11999'), 'its output whole');
  } finally {
    w.done();
  }
});
