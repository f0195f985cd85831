// The long-lived shell that starts ripgrep for agentContext_glob (src/core/search/shellSpawner.ts):
// the program sees exactly the arguments and folder it was given, its output arrives whole and in
// order, and the shell neither leaks into nor outlives the process that uses it.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { streamLines } from '../../../src/core/search/shellSpawner';

const posix = process.platform === 'win32' ? 'the shell is POSIX only (Windows spawns directly)' : false;

async function collect(cmd: string, args: string[], cwd: string, opts?: { viaShell?: boolean }): Promise<{ code: number | null; lines: string[] }> {
  const lines: string[] = [];
  const run = streamLines(cmd, args, cwd, (ls) => lines.push(...ls), opts);
  return { code: await run.done, lines };
}

/** Whether process `pid` still runs (a zombie does not: who reaps it is up to init). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (process.platform !== 'linux') return true;
  try {
    return !/^\d+ \(.*\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Waits (generously: a loaded machine) until `pid` has gone; whether it went. */
function gone(pid: number): boolean {
  const deadline = Date.now() + 20_000;
  let alive = running(pid);
  while (alive && Date.now() < deadline) {
    spawnSync('sleep', ['0.05']);
    alive = running(pid);
  }
  return !alive;
}

const tricky = ["it's", 'two words', '$(touch pwned)', '`touch pwned2`', '*', '"quoted"', '\\back', ';', '&&', '-e', ''];

test('arguments, folder and exit code reach the program unchanged, through the shell and directly alike', { skip: posix }, async () => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ac-shell-')));
  for (const viaShell of [true, false]) {
    const r = await collect('/bin/sh', ['-c', 'pwd; for a in "$@"; do printf "<%s>\\n" "$a"; done; exit 3', 'sh', ...tricky], dir, { viaShell });
    assert.equal(r.code, 3, `viaShell ${viaShell}`);
    assert.deepEqual(r.lines.filter(Boolean), [dir, ...tricky.map((a) => `<${a}>`)], `viaShell ${viaShell}`);
  }
  assert.deepEqual(fs.readdirSync(dir), [], 'nothing in the arguments was run');
  // A relative folder is relative to this process (as spawn() has it), even one that looks like an option.
  fs.mkdirSync(path.join(dir, '-P'));
  const prev = process.cwd();
  process.chdir(dir);
  try {
    for (const viaShell of [true, false]) assert.deepEqual((await collect('/bin/sh', ['-c', 'pwd'], '-P', { viaShell })).lines.filter(Boolean), [path.join(dir, '-P')]);
  } finally {
    process.chdir(prev);
  }
  fs.rmdirSync(path.join(dir, '-P'));
  const missing = await collect('/bin/sh', ['-c', 'echo hi'], path.join(dir, 'nope'));
  assert.ok(missing.code !== 0 && missing.code !== 1, `a missing folder is a failure, not "no match" (got ${missing.code})`);
  assert.deepEqual(missing.lines.filter(Boolean), []);
});

test('the program runs under one long-lived shell, not as a child of this process; a second call meanwhile is spawned directly', { skip: posix }, async () => {
  const ppid = async (): Promise<number> => Number((await collect('/bin/sh', ['-c', 'echo $PPID'], os.tmpdir())).lines.find(Boolean));
  const first = await ppid();
  assert.notEqual(first, process.pid);
  assert.equal(await ppid(), first, 'the same shell serves the next call');
  // Two at once: the first goes to the shell, the second is spawned directly; both complete.
  const a: string[] = [];
  const b: string[] = [];
  const ra = streamLines('/bin/sh', ['-c', 'sleep 0.2; echo $PPID; echo a'], os.tmpdir(), (ls) => a.push(...ls));
  const rb = streamLines('/bin/sh', ['-c', 'echo $PPID; echo b'], os.tmpdir(), (ls) => b.push(...ls));
  assert.deepEqual(await Promise.all([ra.done, rb.done]), [0, 0]);
  assert.deepEqual(a.filter(Boolean), [String(first), 'a']);
  assert.deepEqual(b.filter(Boolean), [String(process.pid), 'b']);
  // An argument the shell cannot carry on one line goes directly, unchanged.
  const nl = await collect('/bin/sh', ['-c', 'printf "%s|" "$1"', 'sh', 'two\nlines'], os.tmpdir());
  assert.deepEqual(nl, { code: 0, lines: ['two', 'lines|'] });
});

test('large output arrives whole and in order, a last line without a newline included', { skip: posix }, async () => {
  const n = 200_000;
  const r = await collect('/bin/sh', ['-c', `i=0; while [ $i -lt ${n} ]; do echo "line-$i"; i=$((i+1)); done; printf tail`], os.tmpdir());
  assert.equal(r.code, 0);
  const got = r.lines.filter(Boolean);
  assert.equal(got.length, n + 1);
  for (let i = 0; i < n; i += 9973) assert.equal(got[i], `line-${i}`);
  assert.equal(got[n], 'tail');
});

test('kill stops the program (no exit code: it did not run to its end), and the next call still works', { skip: posix }, async () => {
  const run = streamLines('/bin/sh', ['-c', 'echo started; sleep 20'], os.tmpdir(), () => undefined);
  setTimeout(() => run.kill(), 100);
  assert.equal(await run.done, null);
  assert.deepEqual(await collect('/bin/sh', ['-c', 'echo again'], os.tmpdir()), { code: 0, lines: ['again', ''] });
});

test('kill ends what the program started too (the shell\'s process group), not only the shell', { skip: posix }, async () => {
  let child = 0;
  const run = streamLines('/bin/sh', ['-c', 'sleep 60 & echo $!; wait'], os.tmpdir(), (ls) => {
    if (!child && ls[0]) {
      child = Number(ls[0]);
      run.kill();
    }
  });
  assert.equal(await run.done, null);
  assert.ok(child > 0, 'the program printed its child\'s pid');
  assert.ok(gone(child), `sleep ${child}, started by the program, still running after kill`);
});

test('an idle shell does not keep the process alive, and goes away with it', { skip: posix }, () => {
  const mod = require.resolve('../../../src/core/search/shellSpawner');
  const script = `
    const { streamLines } = require(${JSON.stringify(mod)});
    const out = [];
    streamLines('/bin/sh', ['-c', 'echo $PPID'], '/', (ls) => out.push(...ls)).done.then((code) => console.log(code, out.filter(Boolean)[0]));`;
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 10_000 });
  assert.equal(r.status, 0, `exited by itself (signal ${r.signal}): ${r.stderr}`);
  const [code, shellPid] = r.stdout.trim().split(' ').map(Number);
  assert.equal(code, 0);
  // The shell read end-of-file on its stdin and exited.
  assert.ok(gone(shellPid), `shell ${shellPid} still running`);
});

test('without a usable shell the program is spawned directly, with the same answer', { skip: posix }, async () => {
  const run = async (): Promise<{ code: number | null; lines: string[] }> => {
    const lines: string[] = [];
    const r = streamLines('/bin/sh', ['-c', 'echo $PPID; echo ok; exit 2'], os.tmpdir(), (ls) => lines.push(...ls), { shellPath: '/nonexistent/sh' });
    return { code: await r.done, lines: lines.filter(Boolean) };
  };
  for (let i = 0; i < 2; i++) assert.deepEqual(await run(), { code: 2, lines: [String(process.pid), 'ok'] });
});
