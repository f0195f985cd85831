// The agent-command history as each hook path feeds it: the shell capture's fast path (bash, zsh)
// and Node path, the JSON hooks (Copilot CLI / VS Code's Copilot harness, Gemini CLI) and opencode's
// in-process plugin. What a user checks: the command, its exit code, the output the agent read,
// the agent and its session, in `.agent/terminals/`, masked.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ledgerPath } from '../../../src/core/history/ledger';
import { foldCommandSpool } from '../../../src/core/terminal/agentCommands/sessionFold';
import { listTerminals, readTerminalIndex } from '../../../src/core/terminal/terminalIndex';
import type { TerminalCommand, TerminalInfo } from '../../../src/core/terminal/terminalFormat';
import { clineHookText } from '../../../src/core/setup/agents/cline';
import { agentContextPlugin } from '../../../src/hooks/opencodePlugin';
import { cleanTmp, fakeDist } from './hookDist';

const dist = fakeDist();
const tmp = cleanTmp;
const ram = tmp('ac-hist-ram-');
const GH = 'ghp' + '_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
const PATH = `${path.dirname(process.execPath)}:/usr/bin:/bin`;

function workspace(): string {
  const ws = tmp('ac-hist-ws-');
  fs.mkdirSync(path.join(ws, '.agent'));
  return ws;
}

/** Runs `command` as an agent's shell does (the capture through BASH_ENV, as Codex starts it). */
function shell(sh: 'bash' | 'zsh', ws: string, command: string, env: Record<string, string> = {}): { stdout: string; status: number | null } {
  const snippet = path.join(dist, 'agent-context-shell.sh');
  // zsh has no BASH_ENV: the snippet in front of the command, as Claude Code's CLAUDE_ENV_FILE puts it (then `eval '<command>'`).
  const s = sh === 'zsh' ? `. '${snippet}'\n: && eval '${command.replace(/'/g, `'\\''`)}' < /dev/null` : command;
  const r = spawnSync(sh, ['-c', s], { cwd: ws, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { PATH, HOME: ws, AGENT_CONTEXT_ROOT: ws, AGENT_CONTEXT_AGENT: 'codex', AGENT_CONTEXT_RUNTIME_DIR: ram, ...(sh === 'bash' ? { BASH_ENV: snippet } : {}), ...env } });
  return { stdout: r.stdout, status: r.status };
}

function hook(args: string[], input: string, cwd: string, env: Record<string, string> = {}): string {
  return spawnSync('bash', [path.join(dist, 'agent-hook.sh'), ...args], { cwd, input, encoding: 'utf8', env: { PATH, HOME: cwd, ...env } }).stdout;
}

/** The history as a tool reads it, after a fold: every session capture with its commands and their output. */
async function history(ws: string): Promise<{ t: TerminalInfo; commands: (TerminalCommand & { output: string[] })[] }[]> {
  const agentDir = path.join(ws, '.agent');
  const fold = await foldCommandSpool(agentDir);
  assert.deepEqual(fold.problems, []);
  const list = await listTerminals(agentDir);
  assert.ok(list.ok);
  const out = [];
  for (const t of list.value) {
    const idx = await readTerminalIndex(agentDir, t.n);
    assert.ok(idx.ok);
    const lines = fs.readFileSync(path.join(agentDir, t.file), 'utf8').split('\n');
    out.push({ t, commands: idx.value.commands.map((c) => ({ ...c, output: lines.slice(c.firstLine - 1, c.lastLine ?? lines.length) })) });
  }
  return out;
}

/** Every file under .agent/ holds none of these strings. */
function noneOnDisk(ws: string, ...secrets: string[]): void {
  for (const f of fs.readdirSync(path.join(ws, '.agent'), { recursive: true }).map(String)) {
    const p = path.join(ws, '.agent', f);
    if (!fs.statSync(p).isFile()) continue;
    const text = fs.readFileSync(p, 'utf8');
    for (const s of secrets) assert.ok(!text.includes(s), `${f} holds a secret`);
  }
}

for (const sh of ['bash', 'zsh'] as const) {
  test(`${sh}: a small command the shell hands over by itself is recorded: command, exit code, output, folder, duration, agent and session`, async () => {
    const ws = workspace();
    const r = shell(sh, ws, 'echo hello; printf "50%%\\r100%%\\n"; exit 3', { AGENT_CONTEXT_SESSION: 'sess-1' });
    assert.equal(r.status, 3);
    assert.equal(r.stdout, 'hello\n50%\r100%\n', 'what the agent reads changed');
    const h = await history(ws);
    assert.equal(h.length, 1);
    assert.equal(h[0].t.agent, 'codex');
    assert.equal(h[0].t.session, 'sess-1');
    const [c] = h[0].commands;
    assert.equal(c.commandLine, 'echo hello; printf "50%%\\r100%%\\n"; exit 3');
    assert.equal(c.exitCode, 3);
    assert.equal(c.cwd, ws);
    assert.deepEqual(c.output, ['hello', '100%']);
    assert.ok(c.durationMs !== null && c.durationMs >= 0 && c.durationMs < 60_000, `duration ${c.durationMs}`);
  });

  test(`${sh}: a command that goes through Node (a secret, a large output) is recorded as the agent sent it, as the shell's own record has it (not the -c string wrapped around it)`, async () => {
    const ws = workspace();
    shell(sh, ws, `echo "token ${GH}"`, { AGENT_CONTEXT_SESSION: 's' });
    shell(sh, ws, 'seq 1 5000; exit 2', { AGENT_CONTEXT_SESSION: 's' });
    shell(sh, ws, 'echo small', { AGENT_CONTEXT_SESSION: 's' });
    const h = await history(ws);
    assert.deepEqual(h[0].commands.map((c) => c.commandLine), ['echo "token [MASKED:github-token]"', 'seq 1 5000; exit 2', 'echo small']);
  });

  test(`${sh}: without a session id, the agent's process is the session: two commands of one agent share a capture, another agent's process gets its own`, async () => {
    const ws = workspace();
    shell(sh, ws, 'echo one');
    shell(sh, ws, 'echo two');
    // The same commands from another process (another agent session): a shell between them.
    // (`; true`: sh would otherwise exec the last command, keeping the same parent.)
    const inner = sh === 'zsh' ? `. '${path.join(dist, 'agent-context-shell.sh')}'\n: && eval 'echo three' < /dev/null` : 'echo three';
    const r3 = spawnSync('sh', ['-c', '"$0" -c "$1" < /dev/null; true', sh, inner], { cwd: ws, encoding: 'utf8', env: { PATH, HOME: ws, AGENT_CONTEXT_ROOT: ws, AGENT_CONTEXT_AGENT: 'codex', AGENT_CONTEXT_RUNTIME_DIR: ram, BASH_ENV: path.join(dist, 'agent-context-shell.sh') } });
    assert.equal(r3.stdout, 'three\n');
    const h = await history(ws);
    const bySession = h.map((x) => x.commands.map((c) => c.commandLine).join(','));
    assert.deepEqual(bySession.sort(), ['echo one,echo two', 'echo three'].sort());
    assert.ok(h.every((x) => /^pid-\d+-\d+$/.test(x.t.session!)), h.map((x) => x.t.session).join(' '));
  });
}

test('the Node path (a large output, a secret) records what the model read: the reference with the saved file, the masked output', async () => {
  const ws = workspace();
  const big = shell('bash', ws, `seq 1 5000; echo "error: broke at the middle"; seq 1 5000; exit 2`, { AGENT_CONTEXT_SESSION: 's' });
  assert.match(big.stdout, /Output saved/);
  shell('bash', ws, `echo "token ${GH}"`, { AGENT_CONTEXT_SESSION: 's' });
  const h = await history(ws);
  const [a, b] = h[0].commands;
  assert.equal(a.exitCode, 2);
  assert.ok(a.saved && fs.existsSync(path.join(ws, '.agent', a.saved)), `saved: ${a.saved}`);
  assert.equal(a.output.join('\n').trim(), big.stdout.trim(), 'the block is not the reference the model read');
  assert.deepEqual(b.output, ['token [MASKED:github-token]']);
  assert.equal(b.secretsMasked, 1);
  noneOnDisk(ws, GH);
});

test('a secret in the command or its folder never reaches the spool unmasked, whichever hook recorded the command', async () => {
  const ws = workspace();
  // The shell capture: a small, clean output, the secret in the command line.
  const r = shell('bash', ws, `echo done # ${GH}`, { AGENT_CONTEXT_SESSION: 's' });
  assert.equal(r.stdout, 'done\n');
  // Checked after each hook: the next one's Node path folds the spool (and would hide a raw record).
  noneOnDisk(ws, GH);
  // Copilot's hook, and opencode's plugin, the same.
  hook(['copilot-cli', 'postToolUse'], copilotPost('done\n<shellId: 1 completed with exit code 0>', `echo done # ${GH}`), ws);
  noneOnDisk(ws, GH);
  const hooks = await agentContextPlugin({ node: process.execPath, dist })({ directory: ws });
  const out = { output: 'done\n', metadata: { exit: 0 } };
  await hooks['tool.execute.after']({ tool: 'bash', sessionID: 'oc', callID: 'c', args: { command: `echo done # ${GH}` } }, out);
  noneOnDisk(ws, GH);
  const h = await history(ws);
  const lines = h.flatMap((x) => x.commands.map((c) => c.commandLine));
  assert.equal(lines.length, 3, lines.join('\n'));
  for (const l of lines) assert.equal(l, 'echo done # [MASKED:github-token]');
  noneOnDisk(ws, GH);
});

const copilotPost = (text: string, command: string, over: object = {}): string =>
  JSON.stringify({ sessionId: 'copilot-sess', timestamp: Date.now(), cwd: '/w/project', toolName: 'bash', toolArgs: { command, description: 'd' }, toolResult: { resultType: 'success', textResultForLlm: text }, ...over });

test('Copilot CLI: a small clean result stays as it is (no output from the hook) and is recorded with its exit code, the runtime\'s line taken off', async () => {
  const ws = workspace();
  assert.equal(hook(['copilot-cli', 'postToolUse'], copilotPost('make: *** [all] Error 2\n<shellId: 3 completed with exit code 2>', 'make "all"'), ws), '');
  const h = await history(ws);
  assert.equal(h[0].t.agent, 'copilot-cli');
  assert.equal(h[0].t.session, 'copilot-sess');
  const [c] = h[0].commands;
  assert.equal(c.commandLine, 'make "all"');
  assert.equal(c.cwd, '/w/project');
  assert.equal(c.exitCode, 2);
  assert.deepEqual(c.output, ['make: *** [all] Error 2']);
  assert.equal(c.durationMs, null, 'Copilot reports no start: the duration is unknown, not made up');
});

test('VS Code\'s Copilot harness runs the same hook: its commands are filed under its own name', async () => {
  const ws = workspace();
  hook(['copilot-cli', 'postToolUse'], copilotPost('ok\n<shellId: 1 completed with exit code 0>', 'ls'), ws, { AI_AGENT: 'github_copilot_vscode_agent' });
  const h = await history(ws);
  assert.equal(h[0].t.agent, 'vscode-copilot');
});

test('Copilot CLI: a clean medium output (20 KB, two failures) reaches the model as our reference with both failures and their numbers', async () => {
  const ws = workspace();
  const lines = Array.from({ length: 235 }, (_, i) => (i === 100 ? 'not ok 101 - parser handles empty input' : i === 180 ? 'not ok 181 - timeout in fetch' : `ok ${i + 1} - renders the component tree with props set ${i + 1} and matches its snapshot`));
  const text = `${lines.join('\n')}\n<shellId: 2 completed with exit code 1>`;
  assert.ok(Buffer.byteLength(text) > 12_000);
  const out = JSON.parse(hook(['copilot-cli', 'postToolUse'], copilotPost(text, 'npm test'), ws)) as { modifiedResult: { textResultForLlm: string } };
  const ref = out.modifiedResult.textResultForLlm;
  assert.ok(Buffer.byteLength(ref) <= 4096, `${Buffer.byteLength(ref)} bytes`);
  assert.match(ref, /L101: not ok 101 - parser handles empty input/);
  assert.match(ref, /L181: not ok 181 - timeout in fetch/);
  const h = await history(ws);
  assert.equal(h[0].commands[0].exitCode, 1);
});

test('Gemini CLI: a small clean result is recorded with the exit code from its trailer, the wrapper taken off', async () => {
  const ws = workspace();
  const content = '<untrusted_context>\nOutput: cc: error: x.c: No such file\nExit Code: 1\nProcess Group PGID: 7\n</untrusted_context>';
  const input = JSON.stringify({ session_id: 'g-1', cwd: ws, hook_event_name: 'AfterTool', tool_name: 'run_shell_command', tool_input: { command: 'cc x.c' }, tool_response: { llmContent: content, returnDisplay: '' } });
  assert.equal(hook(['gemini', 'AfterTool'], input, ws), '');
  const h = await history(ws);
  assert.equal(h[0].t.agent, 'gemini');
  assert.equal(h[0].t.session, 'g-1');
  assert.deepEqual(h[0].commands.map((c) => [c.commandLine, c.exitCode, c.output.join('|')]), [['cc x.c', 1, 'cc: error: x.c: No such file']]);
});

/** Qwen Code's run_shell_command result text (0.24.4's form) and its hook input. */
const qwenContent = (command: string, output: string, exit: number): string => `Command: ${command}\nDirectory: (root)\nOutput: ${output}\nError: (none)\nExit Code: ${exit}\nSignal: (none)\nProcess Group PGID: 4242`;
const qwenInput = (ws: string, event: 'PostToolUse' | 'PostToolUseFailure', command: string, text: string): string =>
  JSON.stringify({ session_id: 'qw-1', transcript_path: '/t', cwd: ws, hook_event_name: event, timestamp: 't', permission_mode: 'yolo', tool_name: 'run_shell_command', tool_input: { command, is_background: false }, ...(event === 'PostToolUse' ? { tool_response: { llmContent: text, returnDisplay: {} } } : { error: text, is_interrupt: false }), tool_use_id: 'u', duration_ms: 12 });

test('Qwen Code: PostToolUse and PostToolUseFailure record its shell commands (exit code from its result text, its framing taken off) and print nothing', async () => {
  const ws = workspace();
  assert.equal(hook(['qwen-code', 'PostToolUse'], qwenInput(ws, 'PostToolUse', 'echo hi', qwenContent('echo hi', 'hi', 0)), ws), '');
  assert.equal(hook(['qwen-code', 'PostToolUseFailure'], qwenInput(ws, 'PostToolUseFailure', 'bash build.sh fail', qwenContent('bash build.sh fail', 'step 3 of 5: connection refused', 7)), ws), '');
  // Another tool's call is left alone.
  assert.equal(hook(['qwen-code', 'PostToolUse'], JSON.stringify({ session_id: 'qw-1', cwd: ws, tool_name: 'read_file', tool_input: { path: 'x' }, tool_response: { llmContent: 'x' } }), ws), '');
  const h = await history(ws);
  assert.equal(h.length, 1);
  assert.equal(h[0].t.agent, 'qwen-code');
  assert.equal(h[0].t.session, 'qw-1');
  assert.deepEqual(h[0].commands.map((c) => [c.commandLine, c.exitCode, c.output.join('|')]), [['echo hi', 0, 'hi'], ['bash build.sh fail', 7, 'step 3 of 5: connection refused']]);
});

test('Qwen Code: a large output or a secret goes through Node: recorded masked, the large one saved whole with a reference, still nothing printed and no ledger line', async () => {
  const ws = workspace();
  const big = Array.from({ length: 3000 }, (_, i) => (i === 1500 ? 'error: linker failed' : `line ${i + 1} fine`)).join('\n');
  // As Qwen cuts a large result (0.24.4: its note, then the start and end of its text).
  const cut = `Tool output was too large and has been truncated.\nThe full output has been saved to: /h/.qwen/tmp/x.output\nTo read the complete output, use the read_file tool with the absolute file path above.\nThe truncated output below shows the beginning and end of the content.\n\nTruncated part of the output:\n${qwenContent('make', big, 2)}`;
  assert.equal(hook(['qwen-code', 'PostToolUseFailure'], qwenInput(ws, 'PostToolUseFailure', 'make', cut), ws), '');
  assert.equal(hook(['qwen-code', 'PostToolUse'], qwenInput(ws, 'PostToolUse', 'env', qwenContent('env', `TOKEN=${GH}`, 0)), ws), '');
  const h = await history(ws);
  const [make, env] = h[0].commands;
  assert.equal(make.exitCode, 2);
  assert.equal(make.commandLine, 'make');
  assert.match(make.output.join('\n'), /L1501: error: linker failed/);
  const saved = /Output saved: (\S+)/.exec(make.output.join('\n'))![1];
  assert.equal(fs.readFileSync(path.join(ws, saved), 'utf8').split('\n').length - 1, 3000);
  assert.match(env.output.join('\n'), /TOKEN=\[MASKED:github-token\]/);
  noneOnDisk(ws, GH);
  assert.equal(fs.existsSync(ledgerPath(path.join(ws, '.agent'))), false, 'no ledger line: the model read Qwen\'s own output');
});

/** Cline's PostToolUse payload (3.0.65's tool_result hook) for one run_commands call. */
const clineInput = (commands: string[], output: { query: string; result: string; success: boolean; error?: string }[]): string =>
  JSON.stringify({ clineVersion: '', hookName: 'tool_result', timestamp: 't', taskId: 'task-9', sessionContext: {}, workspaceRoots: ['/w'], userId: 'u', agent_id: 'a', parent_agent_id: null, iteration: 1, tool_result: { id: 'c1', name: 'run_commands', input: { commands }, output, durationMs: 30, startedAt: '2026-12-06T10:00:00.000Z', endedAt: '2026-12-06T10:00:00.030Z' }, postToolUse: { toolName: 'run_commands', parameters: { commands: JSON.stringify(commands) }, result: JSON.stringify(output), success: output.every((o) => o.success), executionTimeMs: 30 } });

test('Cline: run_commands is recorded command by command (exit code from "[Command exited with code N]"), under its task, and the hook prints nothing', async () => {
  const ws = workspace();
  assert.equal(hook(['cline', 'PostToolUse'], clineInput(['echo hi'], [{ query: 'echo hi', result: 'hi', success: true }]), ws), '');
  assert.equal(hook(['cline', 'PostToolUse'], clineInput(['bash build.sh fail'], [{ query: 'bash build.sh fail', result: '[Command exited with code 7] [stderr] connection refused', success: false, error: 'Command exited with code 7' }]), ws), '');
  // Two commands side by side (Node), one of them failing; another tool is left alone.
  assert.equal(hook(['cline', 'PostToolUse'], clineInput(['ls', 'false'], [{ query: 'ls', result: 'a.txt', success: true }, { query: 'false', result: '[Command exited with code 1]', success: false, error: 'Command exited with code 1' }]), ws), '');
  assert.equal(hook(['cline', 'PostToolUse'], JSON.stringify({ taskId: 'task-9', tool_result: { name: 'read_files', input: {}, output: [{ query: 'x', result: GH, success: true }] } }), ws), '');
  const h = await history(ws);
  assert.equal(h.length, 1);
  assert.equal(h[0].t.agent, 'cline');
  assert.equal(h[0].t.session, 'task-9');
  assert.deepEqual(h[0].commands.map((c) => [c.commandLine, c.exitCode, c.output.join('|')]), [['echo hi', 0, 'hi'], ['bash build.sh fail', 7, '[stderr] connection refused'], ['ls', 0, 'a.txt'], ['false', 1, '']]);
  assert.equal(h[0].commands[0].cwd, ws);
});

test('Cline: a secret in a small output is recorded masked, through Node', async () => {
  const ws = workspace();
  assert.equal(hook(['cline', 'PostToolUse'], clineInput(['env'], [{ query: 'env', result: `TOKEN=${GH}`, success: true }]), ws), '');
  const h = await history(ws);
  assert.match(h[0].commands[0].output.join('\n'), /TOKEN=\[MASKED:github-token\]/);
  noneOnDisk(ws, GH);
});

test('Cline: the hook file the set-up writes, run as Cline runs it (bash <file>, the payload on stdin), records through the shell and through Node, also from a dist folder whose path needs quoting', async () => {
  const ws = workspace();
  const spaced = path.join(tmp('ac-hist-dist-'), 'agent context');
  fs.cpSync(dist, spaced, { recursive: true });
  const file = path.join(tmp('ac-hist-hooks-'), 'PostToolUse');
  fs.writeFileSync(file, clineHookText({ node: process.execPath, dist: spaced }));
  const run = (input: string): string => spawnSync('bash', [file], { cwd: ws, input, encoding: 'utf8', env: { PATH: '/usr/bin:/bin', HOME: ws } }).stdout;
  assert.equal(run(clineInput(['echo hi'], [{ query: 'echo hi', result: 'hi', success: true }])), '');
  // A secret candidate goes to Node: the Node the file names (PATH has none).
  assert.equal(run(clineInput(['env'], [{ query: 'env', result: `TOKEN=${GH}`, success: true }])), '');
  const h = await history(ws);
  assert.deepEqual(h[0].commands.map((c) => [c.commandLine, c.exitCode, c.output.join('|')]), [['echo hi', 0, 'hi'], ['env', 0, 'TOKEN=[MASKED:github-token]']]);
  noneOnDisk(ws, GH);
});

test('opencode: the plugin records a small result in process, with its duration; a secret goes through Node, masked', async () => {
  const ws = workspace();
  const hooks = await agentContextPlugin({ node: process.execPath, dist })({ directory: ws });
  await hooks['tool.execute.before']({ tool: 'bash', sessionID: 'oc-1', callID: 'c1' });
  const small = { output: 'built 3 files\n', metadata: { exit: 0 } };
  await hooks['tool.execute.after']({ tool: 'bash', sessionID: 'oc-1', callID: 'c1', args: { command: 'make' } }, small);
  assert.equal(small.output, 'built 3 files\n');
  const secret = { output: `key ${GH}\n`, metadata: { exit: 0 } };
  await hooks['tool.execute.after']({ tool: 'bash', sessionID: 'oc-1', callID: 'c2', args: { command: 'cat key' } }, secret);
  assert.match(secret.output, /\[MASKED:github-token\]/);
  const h = await history(ws);
  assert.equal(h[0].t.agent, 'opencode');
  assert.deepEqual(h[0].commands.map((c) => [c.commandLine, c.exitCode, c.output.join('|')]), [
    ['make', 0, 'built 3 files'],
    ['cat key', 0, 'key [MASKED:github-token]'],
  ]);
  assert.ok(h[0].commands[0].durationMs !== null);
  noneOnDisk(ws, GH);
});

test('Kilo Code (the same plugin, agent kilo): both paths record under kilo, in Kilo\'s session', async () => {
  const ws = workspace();
  const hooks = await agentContextPlugin({ node: process.execPath, dist, agent: 'kilo' })({ directory: ws });
  await hooks['tool.execute.after']({ tool: 'bash', sessionID: 'ki-1', callID: 'c1', args: { command: 'make' } }, { output: 'built\n', metadata: { exit: 0 } });
  const secret = { output: `key ${GH}\n`, metadata: { exit: 2 } };
  await hooks['tool.execute.after']({ tool: 'bash', sessionID: 'ki-1', callID: 'c2', args: { command: 'cat key' } }, secret);
  assert.match(secret.output, /\[MASKED:github-token\]/);
  const h = await history(ws);
  assert.deepEqual(h.map((x) => [x.t.agent, x.t.session]), [['kilo', 'ki-1']]);
  assert.deepEqual(h[0].commands.map((c) => [c.commandLine, c.exitCode]), [['make', 0], ['cat key', 2]]);
});
