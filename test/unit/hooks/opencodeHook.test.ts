// opencode's hook: the plugin's tool.execute.after (src/hooks/opencodePlugin.ts, in process as
// opencode runs it) and the hook program it starts (core/hooks/opencodeHook.ts through agent-hook.js).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { opencodeToolAfter, splitOpencodeShellResult } from '../../../src/core/hooks/opencodeHook';
import { agentContextPlugin } from '../../../src/hooks/opencodePlugin';
import { cleanTmp, fakeDist } from './hookDist';

const dist = fakeDist();
const tmp = cleanTmp;
const GH = 'ghp' + '_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';

function workspace(): string {
  const ws = tmp('ac-opencode-ws-');
  fs.mkdirSync(path.join(ws, '.agent'));
  return ws;
}

/** A large bash result as opencode 1.18.33 hands it over: the last lines, and the whole output in a file of its own. */
function truncated(lines: string[], exit: number): { output: string; metadata: Record<string, unknown>; file: string } {
  const file = path.join(tmp('ac-opencode-out-'), 'tool_1');
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  const tail = lines.slice(-2000).join('\n');
  return { output: `...output truncated...\n\nFull output saved to: ${file}\n\n${tail}`, metadata: { output: tail.slice(-30000), exit, truncated: true, outputPath: file }, file };
}

/** Runs the plugin's hook as opencode does; returns the output object after it. */
async function after(ws: string, tool: string, command: string, output: { output: string; metadata: Record<string, unknown> }, node = process.execPath): Promise<{ output: string; metadata: Record<string, unknown> }> {
  const hooks = await agentContextPlugin({ node, dist })({ directory: ws });
  const o = { output: output.output, metadata: { ...output.metadata } };
  await hooks['tool.execute.after']({ tool, args: { command, description: 'd' } }, o);
  return o;
}

test('opencode bash results split into the output and its <shell_metadata> trailer', () => {
  assert.deepEqual(splitOpencodeShellResult('a\nb\n'), { output: 'a\nb\n', trailer: '' });
  assert.deepEqual(splitOpencodeShellResult('(no output)'), { output: '', trailer: '' });
  assert.deepEqual(splitOpencodeShellResult('x\n\n<shell_metadata>\nshell tool terminated command after exceeding timeout 10 ms.\n</shell_metadata>'), { output: 'x', trailer: '\n\n<shell_metadata>\nshell tool terminated command after exceeding timeout 10 ms.\n</shell_metadata>' });
});

test('plugin: a clean small output, another tool, a folder without .agent/ are left alone in process (no Node started)', async () => {
  const ws = workspace();
  // A Node that does not exist: starting it would replace the output with an error.
  const noNode = '/nonexistent/node';
  assert.equal((await after(ws, 'bash', 'echo hi', { output: 'hi\n', metadata: { exit: 0, truncated: false } }, noNode)).output, 'hi\n');
  assert.equal((await after(ws, 'read', 'x', { output: `token ${GH}\n`, metadata: {} }, noNode)).output, `token ${GH}\n`);
  assert.equal((await after(tmp('ac-none-'), 'bash', 'x', { output: `token ${GH}\n`, metadata: { exit: 0, truncated: false } }, noNode)).output, `token ${GH}\n`);
});

test('plugin: in a workspace under a keyword folder (~/Desktop/proj) the first small result goes to the hook program, which clears the path; the next ones stay in process', async () => {
  const ws = path.join(tmp('ac-opencode-kw-'), 'Desktop', 'proj');
  fs.mkdirSync(path.join(ws, '.agent'), { recursive: true });
  const noNode = '/nonexistent/node';
  const small = { output: 'hi\n', metadata: { exit: 0, truncated: false } };
  assert.match((await after(ws, 'bash', 'echo hi', small, noNode)).output, /could not process/, 'with no verdict yet the folder\'s "sk" sends it to Node');
  assert.equal((await after(ws, 'bash', 'echo hi', small)).output, 'hi\n');
  assert.equal((await after(ws, 'bash', 'echo hi', small, noNode)).output, 'hi\n', 'cleared: no Node');
  assert.equal((await after(ws, 'bash', 'echo hi', { output: `token ${GH}\n`, metadata: { exit: 0, truncated: false } })).output, 'token [MASKED:github-token]\n');
});

test('plugin: a secret in a small output is masked through the hook program; the rest of the output is kept', async () => {
  const o = await after(workspace(), 'bash', 'env', { output: `HOME=/h\nGITHUB_TOKEN=${GH}\n`, metadata: { exit: 0, truncated: false } });
  assert.equal(o.output, 'HOME=/h\nGITHUB_TOKEN=[MASKED:github-token]\n');
});

test('plugin: a large output becomes our reference (≤ 2 KB, the error line with its number, exit code); the masked output saved, opencode\'s unmasked copy removed', async () => {
  const ws = workspace();
  const lines = Array.from({ length: 20000 }, (_, i) => (i === 9999 ? `error: deep inside ${GH}` : `line ${i + 1} fine`));
  const t = truncated(lines, 2);
  const o = await after(ws, 'bash', 'bash build.sh', t);
  assert.ok(Buffer.byteLength(o.output) <= 2048, o.output);
  assert.match(o.output, /L10000: error: deep inside \[MASKED:github-token\]/);
  assert.match(o.output, /Command: bash build\.sh · exit 2/);
  const saved = /Output saved: (\S+)/.exec(o.output)![1];
  const text = fs.readFileSync(path.join(ws, saved), 'utf8');
  assert.equal(text.split('\n').length - 1, 20000);
  assert.ok(!text.includes(GH));
  assert.equal(fs.existsSync(t.file), false, 'opencode\'s unmasked copy is gone');
  assert.equal(o.metadata.outputPath, path.join(ws, saved), 'opencode\'s "full output" link shows ours');
});

test('hook program: a medium output opencode did not cut, but too large to read inline, is offloaded; the timeout trailer stays', async () => {
  const ws = workspace();
  const body = Array.from({ length: 1500 }, (_, i) => `row ${i + 1} of a table with some width to it`).join('\n');
  const r = await opencodeToolAfter({ tool: 'bash', args: { command: 'cat table' }, output: { output: `${body}\n\n<shell_metadata>\nUser aborted the command\n</shell_metadata>`, metadata: { exit: null, truncated: false } } }, ws);
  assert.ok(r);
  assert.match(r.output, /^Output saved: \.agent\/scratch\/tool_outputs\//);
  assert.match(r.output, /\n\n<shell_metadata>\nUser aborted the command\n<\/shell_metadata>$/);
  assert.equal(r.saved, /Output saved: (\S+)/.exec(r.output)![1]);
});
