// Exit codes and command state in the real editor (issue 14 section 3): what VS Code 1.139 delivers
// for each kind of command in bash, and what .agent/terminals/ and the tools make of it.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { EXIT_UNKNOWN } from '../../../src/core/terminal/commandExit';
import { readWithoutMicrotaskRace } from '../../../src/features/terminals/shellExecutionRead';
import { agentApi, invoke } from '../agentViewsHelpers';
import { waitFor } from '../bridge';
import { closeTerminal, commandsOf, infoOf, openTerminal, run, terminalsDir, type OpenTerminal } from '../terminalHelpers';

/** `(cd .agent && false)` as the tools show it: VS Code reads a subshell line from the screen and sometimes reports none. */
const SUBSHELL_LINE = '(?:\\(cd \\.agent && false\\)|\\(command line not reported by VS Code\\))';

/** The `<<< command K ...` closing line of a command in N.txt. */
function footerOf(n: number, lastLine: number | null): string {
  const lines = fs.readFileSync(path.join(terminalsDir(), `${n}.txt`), 'utf8').split('\n');
  return lines[lastLine!];
}

/**
 * Sends a command line that prints `marker` and then sleeps, and resolves once the marker came
 * through read(): the command is then past bash's shell-integration hook. A Ctrl-C sent earlier,
 * within milliseconds of the start, can land in that hook (bash's DEBUG trap) and leave the status
 * missing, the next command without one, or the sleep running on.
 */
async function startSleeping(t: OpenTerminal, marker: string): Promise<void> {
  let sub: vscode.Disposable | undefined;
  const seen = new Promise<void>((resolve) => {
    sub = vscode.window.onDidStartTerminalShellExecution((e) => {
      if (e.terminal !== t.terminal) return;
      void (async () => {
        let data = '';
        for await (const d of readWithoutMicrotaskRace(e.execution)) {
          data += d;
          if (data.includes(`${marker}\r\n`)) return resolve();
        }
      })();
    });
  });
  try {
    t.terminal.sendText(`echo ${marker}; sleep 30`);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`"${marker}" not printed by the command within 20 s`)), 20_000)));
    await Promise.race([seen, late]).finally(() => clearTimeout(timer));
  } finally {
    sub?.dispose();
  }
}

/** Waits until the terminal's newest command is recorded as running (its start reached the capture). */
async function waitRunning(t: OpenTerminal, before: number): Promise<void> {
  await waitFor(async () => {
    const cs = await commandsOf(t.n);
    return cs.length > before && cs[cs.length - 1].status === 'running';
  }, { timeout: 20_000, message: `terminal ${t.n} records a running command` });
}

describe('Terminal exit codes', function () {
  this.timeout(180_000);
  let t: OpenTerminal;

  before(async () => {
    await agentApi();
    t = await openTerminal('exit');
  });
  after(async () => {
    if (t) await closeTerminal(t);
  });

  it('VS Code gives the status only in the end event: read() stops before the shell\'s 633;D sequence', async () => {
    // The capture relies on this (commandExit.ts): if read() ever carries "ESC]633;D;<status>", the
    // status of a command whose end event has none could be parsed from the data instead.
    const seen = new Promise<{ data: string; exitCode: number | undefined }>((resolve) => {
      let data = '';
      const subs = [
        vscode.window.onDidStartTerminalShellExecution((e) => {
          if (e.terminal !== t.terminal) return;
          void (async () => {
            for await (const d of readWithoutMicrotaskRace(e.execution)) data += d;
          })();
        }),
        vscode.window.onDidEndTerminalShellExecution((e) => {
          if (e.terminal !== t.terminal) return;
          for (const s of subs) s.dispose();
          // let the stream deliver what it still holds
          setTimeout(() => resolve({ data, exitCode: e.exitCode }), 500);
        }),
      ];
    });
    const { cmd } = await run(t, 'echo visible; false');
    const s = await seen;
    assert.equal(s.exitCode, 1);
    assert.ok(s.data.startsWith('\x1b]633;C\x07'), JSON.stringify(s.data));
    assert.ok(s.data.includes('visible'), JSON.stringify(s.data));
    assert.ok(!s.data.includes('\x1b]633;D'), `read() now carries the command-finished sequence: ${JSON.stringify(s.data)}`);
    assert.equal(cmd.exitCode, 1);
  });

  it('records false and grep -q with no match as exit 1', async () => {
    assert.equal((await run(t, 'false')).cmd.exitCode, 1);
    // Not this terminal's own N.txt: its header line would contain the pattern.
    const { cmd } = await run(t, 'grep -q no-such-text-here /etc/hostname');
    assert.equal(cmd.exitCode, 1);
    assert.match(footerOf(t.n, cmd.lastLine), /^<<< command \d+ \| exit 1 \|/);
  });

  it('records a line that starts with a subshell as exit ? with the reason: bash reports no status for it', async () => {
    const { cmd, output } = await run(t, '(exit 3)', { type: true });
    assert.equal(cmd.exitCode, null);
    assert.equal(cmd.exitUnknown, EXIT_UNKNOWN.noStatus);
    assert.deepEqual(output, []);
    assert.match(footerOf(t.n, cmd.lastLine), /^<<< command \d+ \| exit \? \(no status from the shell\) \| [0-9.]+s \| secrets masked 0$/);
    const index = fs.readFileSync(path.join(terminalsDir(), `${t.n}.index.jsonl`), 'utf8').trim().split('\n');
    const rec = JSON.parse(index[index.length - 1]) as { exitCode: unknown; exitUnknown: unknown };
    assert.equal(rec.exitCode, null);
    assert.equal(rec.exitUnknown, 'no status from the shell');
  });

  it('loses the output of a subshell line too (printed before the start marker), and says exit ?', async () => {
    const { cmd, output } = await run(t, '(echo hi-from-subshell; exit 3)');
    assert.equal(cmd.exitCode, null);
    assert.equal(cmd.exitUnknown, EXIT_UNKNOWN.noStatus);
    assert.deepEqual(output, [], 'VS Code now delivers a subshell line\'s output: update docs/terminal-format.md and noStatusHint');
  });

  it('records (cd dir && false) as exit ?, and true && (cd dir && false) as exit 1 with its output', async () => {
    const a = await run(t, '(cd .agent && false)');
    assert.equal(a.cmd.exitCode, null);
    assert.equal(a.cmd.exitUnknown, EXIT_UNKNOWN.noStatus);
    const b = await run(t, 'true && (cd .agent && echo in-sub && false)');
    assert.equal(b.cmd.exitCode, 1);
    assert.deepEqual(b.output, ['in-sub']);
  });

  it('records subshells inside pipelines with the pipeline\'s status', async () => {
    assert.equal((await run(t, '(exit 3) | cat')).cmd.exitCode, 0);
    assert.equal((await run(t, 'true | (exit 3)')).cmd.exitCode, 3);
  });

  it('records bash -c, a function, and a set -e script with their exit codes', async () => {
    assert.equal((await run(t, "bash -c 'exit 4'")).cmd.exitCode, 4);
    // A function definition is not a command bash reports on either.
    const def = await run(t, 'fail5() { return 5; }');
    assert.equal(def.cmd.exitUnknown, EXIT_UNKNOWN.noStatus);
    assert.equal((await run(t, 'fail5')).cmd.exitCode, 5);
    const e = await run(t, "bash -c 'set -e; false; echo no'");
    assert.equal(e.cmd.exitCode, 1);
    assert.deepEqual(e.output, []);
  });

  it('records Ctrl-C on a running sleep as exit 130', async () => {
    const before = (await commandsOf(t.n)).length;
    await startSleeping(t, 'sleeping');
    await waitRunning(t, before);
    t.terminal.sendText('\x03', false);
    const cmd = await waitFor(async () => {
      const cs = await commandsOf(t.n);
      return cs.length > before && cs[cs.length - 1].status === 'done' ? cs[cs.length - 1] : undefined;
    }, { timeout: 20_000, message: 'the sleep recorded as done after Ctrl-C' });
    assert.equal(cmd.exitCode, 130);
    assert.ok(cmd.durationMs! < 25_000, `ended by Ctrl-C, not after 30 s (${cmd.durationMs} ms)`);
  });

  it('records two commands sent back to back, each with its own exit code', async () => {
    const before = (await commandsOf(t.n)).length;
    // What VS Code itself reports for each: with the second line typed ahead it now and then gives the
    // first no exit code (its own gutter still marks it failed); capture must record what it was told,
    // each status on its own command.
    const reported: (number | undefined)[] = [];
    const listen = vscode.window.onDidEndTerminalShellExecution((e) => {
      if (e.terminal === t.terminal) reported.push(e.exitCode);
    });
    try {
      t.terminal.sendText('false');
      t.terminal.sendText('true');
      const cs = await waitFor(async () => {
        const all = await commandsOf(t.n);
        return all.length >= before + 2 && all.slice(before).every((c) => c.status === 'done') && reported.length >= 2 ? all.slice(before) : undefined;
      }, { timeout: 20_000, message: 'both commands recorded as done' });
      assert.equal(reported[1], 0, 'VS Code reports the second command');
      assert.ok(reported[0] === 1 || reported[0] === undefined, `VS Code reports the first as 1 or without a code: ${reported[0]}`);
      assert.deepEqual(cs.map((c) => c.exitCode ?? c.exitUnknown), [reported[0] ?? EXIT_UNKNOWN.noStatus, 0]);
      // VS Code sometimes reads the first command line from the screen with the typed-ahead one: "false\ntrue".
      assert.match(cs[0].commandLine, /^false(\\ntrue)?$/);
      assert.equal(cs[1].commandLine, 'true');
    } finally {
      listen.dispose();
    }
  });

  it('records a command that prints for 30 s and then fails, with all its lines and exit 1', async () => {
    const { cmd, output } = await run(t, 'for i in $(seq 1 30); do echo tick $i; sleep 1; done; false', { timeout: 90_000 });
    assert.equal(cmd.exitCode, 1);
    assert.deepEqual(output, Array.from({ length: 30 }, (_, i) => `tick ${i + 1}`));
    assert.ok(cmd.durationMs! >= 29_000, `${cmd.durationMs} ms`);
  });

  it('lastFailed finds the last failure and names later commands whose exit is unknown', async () => {
    const failed = await run(t, 'echo about to fail; false');
    assert.equal(failed.cmd.exitCode, 1);
    const unknown = await run(t, '(cd .agent && false)');
    assert.equal(unknown.cmd.exitCode, null);
    const text = await invoke('agentContext_terminal', { terminal: t.n, command: 'lastFailed' });
    assert.match(text, new RegExp(`Terminal ${t.n} command #${failed.cmd.command}\\b`));
    assert.match(text, /exit 1/);
    // VS Code reads such a line's command line from the screen: sometimes it has none.
    assert.match(text, new RegExp(`#${unknown.cmd.command} \`${SUBSHELL_LINE}\` exit \\? \\(no status from the shell\\)`));
    assert.match(text, /true && \( … \)/);
  });

  it('the briefing lists a terminal whose last command has no exit status, and one interrupted with Ctrl-C', async () => {
    const u = await openTerminal('exit-brief');
    try {
      await run(u, '(cd .agent && false)');
      const brief = await invoke('agentContext_briefing', {});
      assert.match(brief, new RegExp(`\\.agent/terminals/${u.n}\\.txt lines \\d+-\\d+: exit \\? \\(no status from the shell\\) \`${SUBSHELL_LINE}\``), brief);
      const before = (await commandsOf(u.n)).length;
      await startSleeping(u, 'sleeping');
      await waitRunning(u, before);
      u.terminal.sendText('\x03', false);
      await waitFor(async () => (await commandsOf(u.n))[before]?.status === 'done', { timeout: 20_000, message: 'sleep recorded as done' });
      const brief2 = await invoke('agentContext_briefing', {});
      assert.match(brief2, new RegExp(`\\.agent/terminals/${u.n}\\.txt lines \\d+-\\d+: exit 130 \`echo sleeping; sleep 30\``), brief2);
    } finally {
      await closeTerminal(u);
    }
  });

  it('ends a command still running when its terminal is closed, with the reason', async () => {
    const c = await openTerminal('exit-close');
    const before = (await commandsOf(c.n)).length;
    // The capture stops waiting at once because VS Code sends no end event for it (until() in
    // captureManager.ts): this checks that the editor still behaves so.
    const ends: (number | undefined)[] = [];
    const sub = vscode.window.onDidEndTerminalShellExecution((e) => {
      if (e.terminal === c.terminal) ends.push(e.exitCode);
    });
    await startSleeping(c, 'started');
    await waitRunning(c, before);
    c.terminal.dispose();
    const info = await waitFor(async () => {
      const i = await infoOf(c.name);
      return i?.closed ? i : undefined;
    }, { timeout: 20_000, message: 'file finalised after close' });
    const cmd = (await commandsOf(info.n))[before];
    assert.equal(cmd.status, 'done');
    assert.equal(cmd.exitCode, null);
    assert.equal(cmd.exitUnknown, EXIT_UNKNOWN.terminalClosed);
    assert.ok(cmd.durationMs! < 25_000);
    const text = fs.readFileSync(path.join(terminalsDir(), `${info.n}.txt`), 'utf8');
    assert.match(text, /\nstarted\n<<< command \d+ \| exit \? \(terminal closed while it ran\) \| [0-9.]+s \| secrets masked 0\n# terminal closed at \S+\n$/);
    await new Promise((r) => setTimeout(r, 1000));
    sub.dispose();
    assert.deepEqual(ends, [], 'VS Code now ends an execution whose terminal closes: until() in captureManager.ts may be unnecessary');
  });

  it('ends a running command with the reason when capture is turned off (the path deactivation takes too)', async () => {
    const c = await openTerminal('exit-off');
    const config = vscode.workspace.getConfiguration('agentContext.terminals');
    try {
      const before = (await commandsOf(c.n)).length;
      await startSleeping(c, 'serving');
      await waitRunning(c, before);
      await config.update('capture', false, vscode.ConfigurationTarget.Global);
      const info = await waitFor(async () => {
        const i = await infoOf(c.name);
        return i?.closed ? i : undefined;
      }, { timeout: 20_000, message: 'file finalised when capture is turned off' });
      const cmd = (await commandsOf(info.n))[before];
      assert.equal(cmd.status, 'done');
      assert.equal(cmd.exitUnknown, EXIT_UNKNOWN.captureStopped('capture turned off in settings'));
      const text = fs.readFileSync(path.join(terminalsDir(), `${info.n}.txt`), 'utf8');
      assert.match(text, /\n<<< command \d+ \| exit \? \(capture stopped while it ran: capture turned off in settings\) \| [^\n]+\n# capture turned off in settings\n# terminal closed at \S+\n$/);
    } finally {
      await config.update('capture', undefined, vscode.ConfigurationTarget.Global);
      c.terminal.sendText('\x03', false);
      c.terminal.dispose();
    }
  });
});
