import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ALT_SCREEN_MARKER } from '../../../src/core/terminal/screen/terminalRenderer';
import { agentApi } from '../agentViewsHelpers';
import { ui, waitFor } from '../bridge';
import { closeTerminal, commandsOf, infoOf, openTerminal, outputOf, run, terminalsDir, type OpenTerminal } from '../terminalHelpers';

// One real terminal for the whole block (opening one per test would cost seconds each): the tests run
// in order and the last ones check what the earlier ones ran, so grep this block whole (docs/TESTING.md).
describe('Terminal capture', function () {
  this.timeout(120_000);
  let t: OpenTerminal;

  before(async () => {
    await agentApi();
    t = await openTerminal('main');
  });
  after(async () => {
    if (t) await closeTerminal(t);
  });

  it('writes a header saying which terminal it is and that shell integration is active', async () => {
    const head = fs.readFileSync(path.join(terminalsDir(), `${t.n}.txt`), 'utf8').split('\n');
    assert.equal(head[0], '# Agent Context terminal capture');
    assert.equal(head[1], `# terminal: ${t.name}`);
    assert.equal(head[2], `# number: ${t.n}`);
    // Active at creation, or (on a slow machine, after the 10 s wait) recorded when it came on.
    const text = head.join('\n');
    assert.ok(head[6] === '# shell integration: active' || /\n# shell integration became active at \S+\n/.test(text), head.slice(0, 10).join('\n'));
  });

  it('records printf "a\\rb\\n" typed into the terminal as b', async () => {
    const { cmd, output } = await run(t, 'printf "a\\rb\\n"', { type: true });
    assert.equal(cmd.outputMissing, null, 'VS Code delivered the data (readWithoutMicrotaskRace subscribes in time)');
    assert.deepEqual(output, ['b']);
    assert.equal(cmd.commandLine, 'printf "a\\rb\\n"');
    assert.equal(cmd.exitCode, 0);
    const lines = fs.readFileSync(path.join(terminalsDir(), `${t.n}.txt`), 'utf8').split('\n');
    assert.match(lines[cmd.headerLine - 1], /^>>> command \d+ \| started \S+ \| cwd .+ \| \$ printf "a\\rb\\n"$/);
    assert.match(lines[cmd.lastLine!], /^<<< command \d+ \| exit 0 \| [0-9.]+s \| secrets masked 0$/);
  });

  it('keeps only the final state of a 100-step \\r progress bar', async () => {
    const { output } = await run(t, 'for i in $(seq 1 100); do printf "\\rprogress %3d%%" $i; sleep 0.005; done; echo');
    assert.deepEqual(output, ['progress 100%']);
  });

  it('keeps the final frame of a multi-line display redrawn with cursor-up', async () => {
    const { output } = await run(t, "for f in 1 2 3; do [ $f -gt 1 ] && printf '\\033[3A'; printf 'job A %s/3\\njob B %s/3\\njob C %s/3\\n' $f $f $f; sleep 0.05; done; echo end");
    assert.deepEqual(output, ['job A 3/3', 'job B 3/3', 'job C 3/3', 'end']);
  });

  it('keeps a line three times the terminal width on one line', async () => {
    const { output } = await run(t, 'c=$(tput cols); echo "cols=$c"; printf "%*s\\n" $((c * 3)) "" | tr " " x');
    const cols = Number(/^cols=(\d+)$/.exec(output[0])![1]);
    assert.ok(cols > 10);
    assert.equal(output.length, 2);
    assert.equal(output[1], 'x'.repeat(cols * 3));
  });

  it('replaces less (alternate screen) with one marker line', async () => {
    const file = path.join(terminalsDir(), '..', 'scratch', 'less-input.txt');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, 'alpha\nbeta\ngamma\n');
    t.terminal.show();
    const before = (await commandsOf(t.n)).length;
    t.terminal.sendText(`less ${file}`);
    await waitFor(async () => (await commandsOf(t.n)).length > before, { message: 'less started' });
    await waitFor(async () => (await ui.texts('.terminal-wrapper.active .xterm-rows')).join('\n').includes('(END)'), { timeout: 20_000, message: 'less shows (END)' });
    t.terminal.sendText('q', false);
    const cmd = await waitFor(async () => {
      const cs = await commandsOf(t.n);
      return cs.length > before && cs[cs.length - 1].status === 'done' ? cs[cs.length - 1] : undefined;
    }, { timeout: 20_000, message: 'less recorded as done' });
    assert.deepEqual(outputOf(cmd), [ALT_SCREEN_MARKER]);
    fs.rmSync(file);
  });

  it('records coloured output without escape sequences', async () => {
    const { output } = await run(t, "printf '\\033[31mred\\033[0m \\033[1;32mgreen\\033[0m\\n'; echo 'a match here' | grep --color=always match");
    assert.deepEqual(output, ['red green', 'a match here']);
    assert.ok(!fs.readFileSync(path.join(terminalsDir(), `${t.n}.txt`), 'utf8').includes('\x1b'));
  });

  it('records all 100,000 lines of seq 1 100000 in order', async () => {
    const { output } = await run(t, 'seq 1 100000', { timeout: 90_000 });
    assert.equal(output.length, 100000);
    for (let i = 0; i < output.length; i++) if (output[i] !== String(i + 1)) assert.fail(`line ${i + 1} is ${JSON.stringify(output[i])}`);
  });

  it('keeps CJK, emoji and combining characters intact', async () => {
    const { output } = await run(t, "printf '日本語 中文 한국어\\n👍🏽 👨‍👩‍👧 ok\\ne\\xcc\\x81 n\\xcc\\x83\\n'");
    assert.deepEqual(output, ['日本語 中文 한국어', '👍🏽 👨‍👩‍👧 ok', 'e\u0301 n\u0303']);
  });

  it('records the exit code of a failing subshell', async () => {
    const { cmd, output } = await run(t, 'echo before; (exit 3)');
    assert.equal(cmd.exitCode, 3);
    assert.deepEqual(output, ['before']);
    const lines = fs.readFileSync(path.join(terminalsDir(), `${t.n}.txt`), 'utf8').split('\n');
    assert.match(lines[cmd.lastLine!], /^<<< command \d+ \| exit 3 \|/);
  });

  it('masks a printed fake GitHub token and AWS key before they reach disk', async () => {
    const token = 'ghp' + '_' + 'Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9Oo8';
    const akid = 'AKIA' + 'Z7TESTFAKEKEY123';
    const { cmd, output } = await run(t, `echo "token ${token}"; echo "key ${akid}"`);
    assert.deepEqual(output, ['token [MASKED:github-token]', 'key [MASKED:aws-access-key-id]']);
    assert.equal(cmd.secretsMasked, 4); // twice in the command line, twice in the output
    for (const f of fs.readdirSync(terminalsDir())) {
      const text = fs.readFileSync(path.join(terminalsDir(), f), 'utf8');
      assert.ok(!text.includes(token) && !text.includes(akid), `${f} contains a secret`);
    }
  });

  it("masks by the workspace's .gitleaks.toml and by name context, in output and command line", async () => {
    const ws = vscode.workspace.workspaceFolders![0].uri.fsPath;
    const cfg = path.join(ws, '.gitleaks.toml');
    fs.writeFileSync(cfg, '[[rules]]\nid = "acme-deploy-key"\nregex = \'\'\'acme_dk_[0-9a-f]{16}\'\'\'\nkeywords = ["acme_dk_"]\n');
    try {
      // The file watcher reloads the rules: probe with a throwaway key until a command shows them
      // applied (a probe before the reload reaches disk unmasked), then test with fresh values.
      await waitFor(async () => {
        const x = await run(t, `echo "probe acme_dk_${'0'.repeat(16)}"`);
        return x.output[0] === 'probe [MASKED:acme-deploy-key]' ? x : undefined;
      }, { timeout: 30_000, interval: 500, message: 'the .gitleaks.toml rule to apply' });
      const key = 'acme_dk_' + '7f3a9c2e5b1d8f4a';
      const pw = 'Fk9' + '-pq2Lm7x'; // no '!': bash would expand history inside double quotes
      const r = await run(t, `echo "deploy ${key}"; echo "DB_PASSWORD=${pw}"`);
      assert.deepEqual(r.output, ['deploy [MASKED:acme-deploy-key]', 'DB_PASSWORD=[MASKED:password]']);
      for (const f of fs.readdirSync(terminalsDir())) {
        const text = fs.readFileSync(path.join(terminalsDir(), f), 'utf8');
        assert.ok(!text.includes(key) && !text.includes(pw), `${f} contains a secret`);
      }
    } finally {
      fs.rmSync(cfg, { force: true });
    }
  });

  it('points every index range at the right lines', async () => {
    const cmds = await commandsOf(t.n);
    const lines = fs.readFileSync(path.join(terminalsDir(), `${t.n}.txt`), 'utf8').split('\n');
    assert.ok(cmds.length >= 8);
    for (const c of cmds) {
      assert.match(lines[c.headerLine - 1], new RegExp(`^>>> command ${c.command} \\|`));
      assert.equal(c.firstLine, c.headerLine + 1);
      assert.match(lines[c.lastLine!], new RegExp(`^<<< command ${c.command} \\|`));
    }
  });

  it('shows the terminal and its commands, newest first, in the Terminals view', async () => {
    const api = await agentApi();
    const node = await waitFor(async () => {
      const nodes = await api.treeSnapshot('agentContext.terminals');
      const n = nodes.find((x) => x.label === `${t.name} (${t.n})`);
      return n && n.children.length >= 8 ? n : undefined;
    }, { message: 'Terminals view lists the terminal with its commands' });
    assert.match(node.description ?? '', /live/);
    // The hover tooltip (made on hover by resolveTreeItem): the file, the shell, live, the last command.
    assert.match(node.tooltip ?? '', new RegExp(`^\\*\\*${t.name}\\*\\* — \\.agent/terminals/${t.n}\\.txt\nshell \\S+ · started .+ · live`));
    assert.match(node.tooltip ?? '', /last: `echo "deploy \[MASKED:acme-deploy-key\]"/);
    assert.equal(node.icon, 'pass'); // its last command, the .gitleaks.toml echo, exited 0
    const labels = node.children.map((c) => c.label);
    assert.ok(labels[0]?.startsWith('echo "deploy [MASKED:acme-deploy-key]"; echo "DB_PASSWORD='), `newest command first, masked: ${labels[0]}`);
    assert.ok(labels.some((l) => l.startsWith('echo "token [MASKED:github-token]"; echo "key [MASKED:')), `the GitHub/AWS echo listed, masked: ${labels.join(' | ')}`);
    assert.ok(labels.indexOf('echo before; (exit 3)') < labels.indexOf('printf "a\\rb\\n"'), 'newest first');
    const failed = node.children.find((c) => c.label === 'echo before; (exit 3)')!;
    assert.equal(failed.icon, 'error');
    assert.match(failed.description ?? '', /^exit 3/);
    assert.equal(failed.command, 'agentContext.terminals.openAtLine');
    await ui.openViewContainer('Agent Context');
    await waitFor(async () => (await ui.texts('.pane:has(.pane-header[aria-label^="Terminals"]) .monaco-list-row')).some((r) => r.includes(`${t.name} (${t.n})`)), { message: 'Terminals pane shows the terminal row' });
  });
});

describe('Terminal capture across terminals', function () {
  this.timeout(240_000);

  it('writes two terminals running at once to separate files', async () => {
    const [a, b] = await Promise.all([openTerminal('left'), openTerminal('right')]);
    assert.notEqual(a.n, b.n);
    const [ra, rb] = await Promise.all([
      run(a, 'for i in 1 2 3 4 5; do echo left-$i; sleep 0.1; done'),
      run(b, 'for i in 1 2 3 4 5; do echo right-$i; sleep 0.1; done'),
    ]);
    assert.deepEqual(ra.output, ['left-1', 'left-2', 'left-3', 'left-4', 'left-5']);
    assert.deepEqual(rb.output, ['right-1', 'right-2', 'right-3', 'right-4', 'right-5']);
    await Promise.all([closeTerminal(a), closeTerminal(b)]);
  });

  it('finalises the file when the terminal closes', async () => {
    const c = await openTerminal('closing');
    await run(c, 'echo last words');
    c.terminal.dispose();
    const info = await waitFor(async () => {
      const i = await infoOf(c.name);
      return i?.closed ? i : undefined;
    }, { message: 'file ends with the closed note' });
    assert.match(fs.readFileSync(path.join(terminalsDir(), `${info.n}.txt`), 'utf8'), /\n<<< command \d+ \| exit 0 [^\n]*\n# terminal closed at \S+\n$/);
    const api = await agentApi();
    const node = await waitFor(async () => (await api.treeSnapshot('agentContext.terminals')).find((x) => x.label === `${c.name} (${c.n})` && /closed/.test(x.description ?? '')), { message: 'view marks the terminal closed' });
    assert.ok(node);
  });

  it('does not clobber files from an earlier session (reload) and numbers after them', async () => {
    const names = fs.readdirSync(terminalsDir());
    const highest = Math.max(0, ...names.map((n) => Number(/^(\d+)/.exec(n)?.[1] ?? 0)));
    const earlier = path.join(terminalsDir(), `${highest + 3}.txt`);
    const earlierText = '# Agent Context terminal capture\n# terminal: from an earlier window\n# number: ' + (highest + 3) + '\n';
    fs.writeFileSync(earlier, earlierText);
    const d = await openTerminal('after-reload');
    assert.ok(d.n > highest + 3, `new terminal got ${d.n}, not after ${highest + 3}`);
    await run(d, 'echo fresh');
    assert.equal(fs.readFileSync(earlier, 'utf8'), earlierText);
    await closeTerminal(d);
    fs.rmSync(earlier);
  });

  it('gives a terminal without shell integration a file that says so, and the view marks it', async () => {
    const name = `cap-noint-${process.pid}`;
    // dash gets no shell integration from VS Code
    const terminal = vscode.window.createTerminal({ name, shellPath: '/bin/sh', cwd: vscode.workspace.workspaceFolders![0].uri });
    try {
      const info = await waitFor(() => infoOf(name), { timeout: 30_000, message: `capture file for ${name}` });
      assert.equal(info.shellIntegration, false);
      const head = fs.readFileSync(path.join(terminalsDir(), `${info.n}.txt`), 'utf8').split('\n');
      assert.match(head[6], /^# shell integration: not active/);
      const api = await agentApi();
      const node = await waitFor(async () => (await api.treeSnapshot('agentContext.terminals')).find((x) => x.label === `${name} (${info.n})`), { message: 'view lists the terminal' });
      assert.equal(node.icon, 'warning');
      assert.match(node.description ?? '', /no shell integration/);
    } finally {
      terminal.dispose();
    }
  });

  it('records about 20 MB through the real terminal completely', async () => {
    const config = vscode.workspace.getConfiguration('agentContext.terminals');
    await config.update('maxFileMB', 64, vscode.ConfigurationTarget.Global);
    try {
      const big = await openTerminal('big');
      const n = 2_600_000; // 1..2600000 with newlines is about 19.9 MB
      const { cmd, output } = await run(big, `seq 1 ${n}`, { timeout: 220_000 });
      assert.equal(cmd.exitCode, 0);
      assert.equal(output.length, n);
      for (let i = 0; i < n; i += 1) if (output[i] !== String(i + 1)) assert.fail(`line ${i + 1} of the output is ${JSON.stringify(output[i])}`);
      await closeTerminal(big);
    } finally {
      await config.update('maxFileMB', undefined, vscode.ConfigurationTarget.Global);
    }
  });
});
