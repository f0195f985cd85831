// The shell capture (src/hooks/shellCapture.sh → dist/agent-context-shell.sh) in real bash and zsh,
// started the two ways agents start it: sourced at the top of the `-c` string (Claude Code's
// CLAUDE_ENV_FILE) and through BASH_ENV (Codex, Gemini CLI, opencode). Node's part is the compiled
// hook program (out/src/hooks/main.js).
import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ledgerPath } from '../../../src/core/history/ledger';
import { cleanTmp, fakeDist } from './hookDist';
import { mountSmallFs, smallFsAvailable } from '../../faultKit';

const canMount = smallFsAvailable();
const smallFs = { skip: !canMount.ok && (canMount as { why: string }).why };

const tmp = cleanTmp;

/**
 * zsh comes with the Debian packages scripts/ensure-deps.sh installs first; `npm test` runs that
 * install beside the unit tests, so on a new machine zsh may still be on its way: wait for it.
 */
function waitForShell(name: string): void {
  const until = Date.now() + 180_000;
  while (spawnSync('sh', ['-c', `command -v ${name}`]).status !== 0) {
    if (Date.now() > until) throw new Error(`${name} is not installed: scripts/ensure-deps.sh installs it (Debian package ${name})`);
    spawnSync('sleep', ['2']);
  }
}
waitForShell('zsh');

const dist = fakeDist();
const ram = tmp('ac-ram-');

function workspace(): string {
  const ws = tmp('ac-ws-');
  fs.mkdirSync(path.join(ws, '.agent'));
  return ws;
}

/** Runs `command` as an agent's shell does, with the capture in front of it. */
function run(shell: 'bash' | 'zsh', ws: string, command: string, how: 'env-file' | 'bash-env' = 'env-file', env: Record<string, string> = {}, cwd = ws): { stdout: string; stderr: string; status: number | null } {
  const snippet = path.join(dist, 'agent-context-shell.sh');
  const s = how === 'env-file' ? `. '${snippet}'\n: && eval '${command.replace(/'/g, `'\\''`)}' < /dev/null` : command;
  // stdin /dev/null as the agents give it: a socket on stdin (Node's default pipes) makes bash
  // behave as a remote shell, which reads ~/.bashrc instead of BASH_ENV.
  const r = spawnSync(shell, ['-c', s], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`,
      HOME: ws,
      AGENT_CONTEXT_ROOT: ws,
      AGENT_CONTEXT_AGENT: 'test-agent',
      AGENT_CONTEXT_RUNTIME_DIR: ram,
      ...(how === 'bash-env' ? { BASH_ENV: snippet } : {}),
      ...env,
    },
  });
  return { stdout: r.stdout, stderr: r.stderr, status: r.status };
}

const saved = (ws: string): string[] => {
  const d = path.join(ws, '.agent/scratch/tool_outputs');
  return fs.existsSync(d) ? fs.readdirSync(d) : [];
};
/** Captures in the RAM folder that still hold output (an emptied one, kept for the next command of that shell's pid, holds none). */
const leftInRam = (): string[] => fs.readdirSync(ram, { recursive: true }).map(String).filter((f) => f.includes('cap.') && fs.statSync(path.join(ram, f)).size > 0);

const GH = 'ghp' + '_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
const AWS = 'aws_secret_access_key = ' + 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const STRIPE = 'sk' + '_live_' + '4eC39HqLyjWDarjtT1zdp7dc';
const BUILD = 'for i in $(seq 1 3000); do echo "step $i ok"; done; echo "error: first"; echo "FATAL: second"; for i in $(seq 1 3000); do echo "step $i ok"; done; exit 2';

for (const shell of ['bash', 'zsh'] as const) {
  describe(`shell capture in ${shell}`, () => {
    test('a small output reaches the model exactly as it was (stderr merged in order, no newline added), the exit code is kept, nothing is kept anywhere', () => {
      const ws = workspace();
      const r = run(shell, ws, 'echo hello; echo oops >&2; printf "no newline"; exit 3');
      assert.equal(r.status, 3);
      assert.equal(r.stdout, 'hello\noops\nno newline');
      assert.deepEqual(saved(ws), []);
      assert.deepEqual(leftInRam(), []);
    });

    test('a large failing output becomes the reference: exit code, every error line with its number, the output saved masked', () => {
      const ws = workspace();
      const r = run(shell, ws, `${BUILD.replace('echo "error: first"', `echo "error: first ${GH}"`)}`);
      assert.equal(r.status, 2);
      assert.ok(Buffer.byteLength(r.stdout) <= 2048, `${Buffer.byteLength(r.stdout)} bytes:\n${r.stdout}`);
      assert.match(r.stdout, /exit 2/);
      assert.match(r.stdout, /L3001: error: first \[MASKED:github-token\]/);
      assert.match(r.stdout, /L3002: FATAL: second/);
      const files = saved(ws);
      assert.equal(files.length, 1);
      const text = fs.readFileSync(path.join(ws, '.agent/scratch/tool_outputs', files[0]), 'utf8');
      assert.equal(text.split('\n').length - 1, 6002);
      assert.ok(!text.includes(GH));
      assert.match(fs.readFileSync(ledgerPath(path.join(ws, '.agent')), 'utf8'), /"source":"test-agent"/);
      assert.deepEqual(leftInRam(), []);
    });

    test('a large coloured output with a progress bar is saved as a terminal shows it: the reference and the file carry no escapes or redraws', () => {
      const ws = workspace();
      const r = run(shell, ws, `for i in $(seq 1 300); do printf '\\r\\033[32m%d%%\\033[0m' $i; done; echo; for i in $(seq 1 3000); do printf '\\033[2mstep %d ok\\033[0m\\n' $i; done; printf '\\033[31merror\\033[0m: bad\\n'; exit 1`);
      assert.equal(r.status, 1);
      assert.match(r.stdout, /L3002: error: bad\n/);
      assert.ok(!r.stdout.includes('\x1b'), r.stdout);
      const text = fs.readFileSync(path.join(ws, '.agent/scratch/tool_outputs', saved(ws)[0]), 'utf8');
      assert.ok(text.startsWith('300%\nstep 1 ok\nstep 2 ok\n'), text.slice(0, 80));
      assert.ok(!text.includes('\x1b') && !text.includes('\r'));
      assert.equal(text.split('\n').length - 1, 3002);
    });

    test('an & in quotes or a comment (a URL\'s query, sed\'s &) keeps the capture on: the secret after it is masked', () => {
      const ws = workspace();
      const r = run(shell, ws, `echo "a=1&b=2"; sed 's/x/[&]/' <<< x; echo "${GH}" # a & b`);
      assert.equal(r.status, 0);
      assert.equal(r.stdout, 'a=1&b=2\n[x]\n[MASKED:github-token]\n');
    });

    test('a command that writes to /dev/stderr or /dev/stdout by name keeps every line, in order', () => {
      const ws = workspace();
      const small = run(shell, ws, 'echo step1 done; echo "warning: something" > /dev/stderr; echo step3');
      assert.equal(small.stdout, 'step1 done\nwarning: something\nstep3\n');
      const big = run(shell, ws, 'seq 1 3000; echo "error: in the middle" > /dev/stderr; seq 3001 6000; exit 2');
      assert.equal(big.status, 2);
      assert.match(big.stdout, /L3001: error: in the middle/);
    });

    test('a shell-hook.conf that is not two numbers is not run: a command substitution in it does nothing, the output is still masked', () => {
      const ws = workspace();
      fs.writeFileSync(path.join(ws, '.agent/config.yaml'), 'x: 1\n');
      const old = new Date(Date.now() - 3600_000);
      fs.utimesSync(path.join(ws, '.agent/config.yaml'), old, old);
      fs.mkdirSync(path.join(ws, '.agent/.cache'));
      const pwned = path.join(ws, 'pwned');
      fs.writeFileSync(path.join(ws, '.agent/.cache/shell-hook.conf'), `a[$(touch\${IFS}${pwned})] 1\n`);
      const r = run(shell, ws, `echo hello; echo "${GH}"`);
      assert.equal(r.stdout, 'hello\n[MASKED:github-token]\n');
      assert.equal(fs.existsSync(pwned), false);
    });

    test('a large output that cannot be saved (.agent/scratch is a file; disk full alike) still gives its exit code, error lines and end, masked, and says why it was not kept', () => {
      const ws = workspace();
      fs.writeFileSync(path.join(ws, '.agent/scratch'), 'not a folder\n');
      const r = run(shell, ws, `${BUILD.replace('echo "error: first"', `echo "error: first ${GH}"`)}`);
      assert.equal(r.status, 2);
      assert.match(r.stdout, /^Output NOT saved: a path component is not a folder \(ENOTDIR\)/);
      assert.match(r.stdout, /exit 2/);
      assert.match(r.stdout, /L3001: error: first \[MASKED:github-token\]/);
      assert.match(r.stdout, /L3002: FATAL: second/);
      assert.doesNotMatch(r.stdout, /Next: read lines/);
    });

    test('secrets in a small output are masked (GitHub token, AWS secret key, Stripe live key: 0 of 3 reach the model), nothing written under .agent/', () => {
      const ws = workspace();
      const r = run(shell, ws, `echo "${GH}"; echo "${AWS}"; echo "${STRIPE}"`);
      assert.equal(r.status, 0);
      for (const s of [GH, 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', STRIPE]) assert.ok(!r.stdout.includes(s), r.stdout);
      assert.equal((r.stdout.match(/\[MASKED:/g) ?? []).length, 3, r.stdout);
      const all = fs.readdirSync(path.join(ws, '.agent'), { recursive: true }).map(String);
      for (const f of all) {
        const p = path.join(ws, '.agent', f);
        if (fs.statSync(p).isFile()) assert.ok(!fs.readFileSync(p, 'utf8').includes(GH), p);
      }
      assert.deepEqual(leftInRam(), []);
    });

    test('the command keeps its own EXIT trap, cd and exit; stdin reaches it', () => {
      const ws = workspace();
      fs.mkdirSync(path.join(ws, 'sub'));
      const a = run(shell, ws, 'trap "echo trapped" EXIT; echo body; exit 4');
      assert.equal(a.status, 4);
      assert.equal(a.stdout, 'body\ntrapped\n');
      fs.writeFileSync(path.join(ws, 'in.txt'), 'from stdin\n');
      const stdin = fs.openSync(path.join(ws, 'in.txt'), 'r');
      const b = spawnSync(shell, ['-c', `. '${path.join(dist, 'agent-context-shell.sh')}'\ncat; cd sub && pwd`], { cwd: ws, stdio: [stdin, 'pipe', 'pipe'], encoding: 'utf8', env: { PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`, HOME: ws, AGENT_CONTEXT_ROOT: ws, AGENT_CONTEXT_RUNTIME_DIR: ram } });
      fs.closeSync(stdin);
      assert.equal(b.stdout, `from stdin\n${path.join(ws, 'sub')}\n`);
    });

    test('left alone: a command that starts something in the background, a shell inside our own run, no .agent/ folder', () => {
      const ws = workspace();
      const big = 'seq 1 5000';
      assert.equal(run(shell, ws, `${big} & wait`).stdout.split('\n').length, 5001);
      assert.equal(run(shell, ws, big, 'env-file', { AGENT_CONTEXT_CAPTURE: 'off' }).stdout.split('\n').length, 5001);
      const none = tmp('ac-none-');
      assert.equal(run(shell, none, big, 'env-file', { AGENT_CONTEXT_ROOT: '' }).stdout.split('\n').length, 5001);
      assert.match(run(shell, ws, `${big} 2>&1 && echo ok`).stdout, /Output saved/);
    });
  });
}

describe('shell capture through BASH_ENV (Codex, Gemini CLI, opencode)', () => {
  test('a RAM folder that fills up while the command runs (Docker\'s 64 MB /dev/shm): the answer says the output may be cut and why the command may have failed', smallFs, () => {
    const ws = workspace();
    const small = mountSmallFs(64 * 1024);
    try {
      const r = run('bash', ws, 'seq 1 30000; echo "error: at the end"', 'bash-env', { AGENT_CONTEXT_RUNTIME_DIR: small.dir });
      assert.match(r.stdout, /\(Agent Context: the RAM folder that held this command's output, .*, filled up: the output may be cut, and the command may have failed for that alone/);
      // With room, no such line.
      const fine = run('bash', ws, 'seq 1 30000', 'bash-env');
      assert.doesNotMatch(fine.stdout, /filled up/);
    } finally {
      small.done();
    }
  });

  test('a login shell (Codex runs `bash -lc`) keeps its profile\'s functions, and -e / -o pipefail hold for the command as without the capture', () => {
    const ws = workspace();
    fs.writeFileSync(path.join(ws, '.bash_profile'), 'myfunc() { echo from-profile; }\n');
    const env = { PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`, HOME: ws, AGENT_CONTEXT_ROOT: ws, AGENT_CONTEXT_RUNTIME_DIR: ram, BASH_ENV: path.join(dist, 'agent-context-shell.sh') };
    const login = spawnSync('bash', ['-lc', 'myfunc; echo "$0"'], { cwd: ws, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env });
    assert.equal(login.stdout, 'from-profile\nbash\n', login.stderr);
    const strict = spawnSync('bash', ['-e', '-o', 'pipefail', '-c', `false | true; echo "should not print ${GH}"`], { cwd: ws, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env });
    assert.equal(strict.status, 1);
    assert.equal(strict.stdout, '');
  });

  test('the agent\'s `bash -c` is captured once: the shells the command starts are not', () => {
    const ws = workspace();
    fs.writeFileSync(path.join(ws, 'inner.sh'), '#!/bin/bash\nseq 1 4000\nbash -c "echo nested-ok"\n', { mode: 0o755 });
    const r = run('bash', ws, './inner.sh; exit 5', 'bash-env');
    assert.equal(r.status, 5);
    assert.match(r.stdout, /Output saved/);
    const text = fs.readFileSync(path.join(ws, '.agent/scratch/tool_outputs', saved(ws)[0]), 'utf8');
    assert.match(text, /\n4000\nnested-ok\n$/);
    assert.equal(run('bash', ws, 'echo small', 'bash-env').stdout, 'small\n');
  });

  test('without a RAM-backed folder (macOS has none) the output streams through the masker: the exit code is kept, and the reference gives it', () => {
    for (const [shell, how] of [['bash', 'bash-env'], ['zsh', 'env-file']] as const) {
      const ws = workspace();
      const small = run(shell, ws, `echo "${GH}"; printf 'no newline'; exit 6`, how, { AGENT_CONTEXT_RUNTIME_DIR: 'none' });
      assert.equal(small.status, 6, shell);
      assert.equal(small.stdout, '[MASKED:github-token]\nno newline');
      const large = run(shell, ws, BUILD, how, { AGENT_CONTEXT_RUNTIME_DIR: 'none' });
      assert.equal(large.status, 2, shell);
      assert.match(large.stdout, /L3001: error: first/);
      assert.match(large.stdout, /· exit 2/, shell);
      assert.doesNotMatch(large.stdout, /not reported/);
      const file = fs.readFileSync(path.join(ws, '.agent/scratch/tool_outputs', saved(ws)[0]), 'utf8');
      assert.equal(file.split('\n').length - 1, 6002, 'the saved output ends with the command\'s own last line');
      assert.ok(!file.includes('agent-context-exit'));
    }
  });

  test('the user\'s own masking rules (.agent/config.yaml) always take the Node path, and apply', () => {
    const ws = workspace();
    fs.writeFileSync(path.join(ws, '.agent/config.yaml'), 'terminals:\n  secretPatterns:\n    - "internal-[0-9]{6}"\n');
    const r = run('bash', ws, 'echo "id internal-123456 here"', 'bash-env');
    assert.equal(r.stdout, 'id [MASKED:custom] here\n');
    // The fast path's answer is kept for next time: not fast (user rules).
    assert.equal(fs.readFileSync(path.join(ws, '.agent/.cache/shell-hook.conf'), 'utf8'), `2000 0\n1 ${ws}\n`);
  });

  test('a workspace under a keyword folder (~/Desktop/proj): Node clears its path once, then small clean commands start no Node, in bash and zsh; a keyword folder below it, a secret, a moved workspace go through Node', () => {
    // A Node that counts its starts.
    const bin = tmp('ac-kw-node-');
    const log = path.join(bin, 'starts');
    const wrapper = path.join(bin, 'node');
    fs.writeFileSync(wrapper, `#!/bin/sh\necho >> '${log}'\nexec '${process.execPath}' "$@"\n`, { mode: 0o755 });
    const starts = (): number => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').length : 0);
    for (const shell of ['bash', 'zsh'] as const) {
      const how = shell === 'bash' ? 'bash-env' : 'env-file';
      const desk = path.join(tmp('ac-kw-'), 'Desktop');
      const ws = path.join(desk, 'proj');
      fs.mkdirSync(path.join(ws, '.agent'), { recursive: true });
      fs.mkdirSync(path.join(ws, 'src'));
      fs.mkdirSync(path.join(ws, 'api-keys'));
      fs.rmSync(log, { force: true });
      const go = (command: string, cwd = ws, root = ws): string => run(shell, root, command, how, { AGENT_CONTEXT_NODE: wrapper }, cwd).stdout;
      assert.equal(go('echo first'), 'first\n');
      assert.equal(starts(), 1, `${shell}: no verdict yet, so Node looks (the folder holds "sk")`);
      assert.equal(fs.readFileSync(path.join(ws, '.agent/.cache/shell-hook.conf'), 'utf8').split('\n')[1], `1 ${ws}`);
      assert.equal(go('echo second'), 'second\n');
      assert.equal(go('echo third', path.join(ws, 'src')), 'third\n');
      assert.equal(starts(), 1, `${shell}: small clean commands in the workspace and below it start no Node`);
      const spool = path.join(ws, '.agent/terminals/spool');
      const recs = fs.readdirSync(spool).map((f) => fs.readFileSync(path.join(spool, f), 'utf8'));
      assert.ok(recs.some((r) => r.includes(`\ncwd ${path.join(ws, 'src')}\n`) && r.includes('\nthird\n')), `${shell}: the shell recorded the command with its folder`);
      assert.equal(go('echo fourth', path.join(ws, 'api-keys')), 'fourth\n');
      assert.equal(starts(), 2, `${shell}: a keyword in the folder below the workspace sends the command to Node`);
      assert.equal(go(`echo "${GH}"`), '[MASKED:github-token]\n');
      assert.equal(starts(), 3, `${shell}: a secret goes to Node, masked`);
      const moved = path.join(desk, 'proj-moved');
      fs.renameSync(ws, moved);
      assert.equal(go('echo fifth', moved, moved), 'fifth\n');
      assert.equal(starts(), 4, `${shell}: the verdict was for the old path, so Node looks again`);
      assert.equal(go('echo sixth', moved, moved), 'sixth\n');
      assert.equal(starts(), 4, `${shell}: and clears the new path`);
    }
  });

  test('a capture left by a killed shell is removed by the next command that starts Node; the capture Node read is removed', () => {
    const ws = workspace();
    const dir = path.join(ram, `agent-context-${process.getuid?.() ?? 0}`);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    // A pid no process has (above the kernel's pid_max).
    fs.writeFileSync(path.join(dir, 'cap.99999999'), 'secret left behind');
    // The fast path starts no Node (a wrapper that records its start stands in for it). It may still
    // remove the dead capture: one call in 64 sweeps with a shell loop and one rm, by design.
    const started = path.join(ws, 'node-started');
    const wrapper = path.join(ws, 'node-wrapper.sh');
    fs.writeFileSync(wrapper, `#!/bin/sh\n: > '${started}'\nexec '${process.execPath}' "$@"\n`, { mode: 0o755 });
    const fast = run('bash', ws, 'echo x', 'bash-env', { AGENT_CONTEXT_NODE: wrapper });
    assert.equal(fast.stdout, 'x\n');
    assert.equal(fs.existsSync(started), false, 'the fast path starts no Node');
    fs.writeFileSync(path.join(dir, 'cap.99999999'), 'secret left behind');
    run('bash', ws, `echo "${GH}"`, 'bash-env', { AGENT_CONTEXT_NODE: wrapper });
    assert.equal(fs.existsSync(started), true, 'a secret takes the Node path');
    assert.deepEqual(fs.readdirSync(dir).filter((f) => f === 'cap.99999999' || fs.statSync(path.join(dir, f)).size > 0), []);
  });

  test('the command sees the shell\'s own $0 and arguments, so its messages read as without the capture', () => {
    const ws = workspace();
    for (const shell of ['bash', 'zsh'] as const) {
      const how = shell === 'bash' ? 'bash-env' : 'env-file';
      const command = 'no-such-command-here; echo "$0"';
      const plain = run(shell, ws, command, how, { AGENT_CONTEXT_CAPTURE: 'off' });
      const r = run(shell, ws, command, how);
      assert.match(plain.stderr, /no-such-command-here/);
      assert.equal(r.stdout, plain.stderr + plain.stdout, shell);
    }
  });
});
