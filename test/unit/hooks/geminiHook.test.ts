// Gemini CLI's AfterTool hook (core/hooks/geminiHook.ts, and dist/agent-hook.sh gemini AfterTool as Gemini runs it).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { splitGeminiShellResult } from '../../../src/core/hooks/agentResults';
import { cleanTmp, fakeDist } from './hookDist';

const dist = fakeDist();
const tmp = cleanTmp;
const GH = 'ghp' + '_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';

function workspace(): string {
  const ws = tmp('ac-gemini-ws-');
  fs.mkdirSync(path.join(ws, '.agent'));
  return ws;
}
const input = (llmContent: string, command = 'make', tool = 'run_shell_command'): string =>
  JSON.stringify({ session_id: 's', cwd: '/x', hook_event_name: 'AfterTool', timestamp: 't', tool_name: tool, tool_input: { command, description: 'd' }, tool_response: { llmContent, returnDisplay: llmContent } });
function hook(stdin: string, cwd: string): { stdout: string; status: number | null } {
  const r = spawnSync('bash', [path.join(dist, 'agent-hook.sh'), 'gemini', 'AfterTool'], { cwd, input: stdin, encoding: 'utf8', env: { PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`, HOME: cwd } });
  return { stdout: r.stdout, status: r.status };
}

test('Gemini shell results split into the output and Gemini\'s own lines', () => {
  assert.deepEqual(splitGeminiShellResult('Output: a\nExit Code: 2\nProcess Group PGID: 7'), { output: 'a', trailer: 'Exit Code: 2', exitCode: 2 });
  assert.deepEqual(splitGeminiShellResult('Output: (empty)\nProcess Group PGID: 7'), { output: '', trailer: '', exitCode: 0 });
  assert.deepEqual(splitGeminiShellResult('<untrusted_context>\nOutput: b\nExit Code: 1\nProcess Group PGID: 7\n</untrusted_context>'), { output: 'b', trailer: 'Exit Code: 1', exitCode: 1 });
  assert.equal(splitGeminiShellResult('Command moved to background (PID: 3).'), undefined);
});

test('Gemini AfterTool: a clean small result, another tool, a folder without .agent/ are left alone by the shell alone', () => {
  const ws = workspace();
  for (const i of [input('Output: hello\nProcess Group PGID: 9'), input(`Output: ${GH}`, 'x', 'read_file')]) {
    const r = hook(i, ws);
    assert.equal(r.status, 0);
    assert.equal(r.stdout, '', i);
  }
  assert.equal(hook(input(`Output: ${GH}`), tmp('ac-none-')).stdout, '');
});

test('Gemini AfterTool: a secret in a small result is masked (the result replaced, the exit code kept)', () => {
  const r = hook(input(`<untrusted_context>\nOutput: token ${GH}\nExit Code: 3\nProcess Group PGID: 9\n</untrusted_context>`), workspace());
  const out = JSON.parse(r.stdout) as { decision: string; reason: string };
  assert.equal(out.decision, 'deny');
  assert.ok(!out.reason.includes(GH));
  assert.equal(out.reason, 'Output: token [MASKED:github-token]\nExit Code: 3');
});

test('Gemini AfterTool: a large result becomes our reference (≤ 2 KB, the error line with its number, exit code), the masked output saved', () => {
  const ws = workspace();
  const lines = Array.from({ length: 20000 }, (_, i) => (i === 9999 ? `error: deep inside ${GH}` : `line ${i + 1} fine`));
  const r = hook(input(`Output: ${lines.join('\n')}\nExit Code: 1\nProcess Group PGID: 9`, 'bash build.sh'), ws);
  const out = JSON.parse(r.stdout) as { decision: string; reason: string };
  assert.ok(Buffer.byteLength(out.reason) <= 2048, out.reason);
  assert.match(out.reason, /L10000: error: deep inside \[MASKED:github-token\]/);
  assert.match(out.reason, /Command: bash build\.sh · exit 1/);
  const saved = /Output saved: (\S+)/.exec(out.reason)![1];
  const text = fs.readFileSync(path.join(ws, saved), 'utf8');
  assert.equal(text.split('\n').length - 1, 20000, 'every line, with the line end Gemini dropped');
  assert.ok(!text.includes(GH));
});

test('Gemini AfterTool: a result in another form (a command cancelled at its timeout, an older Gemini\'s "Command: … Output:") is masked and, when large, offloaded all the same', () => {
  const ws = workspace();
  const cancelled = `<untrusted_context>\nCommand was automatically cancelled because it exceeded the timeout of 5.0 minutes without output. Below is the output before it was cancelled:\nGITHUB_TOKEN=${GH}\nserver listening\n</untrusted_context>`;
  const small = JSON.parse(hook(input(cancelled, 'npm run dev'), ws).stdout) as { decision: string; reason: string };
  assert.equal(small.decision, 'deny');
  assert.ok(!small.reason.includes(GH), small.reason);
  assert.match(small.reason, /^Command was automatically cancelled[\s\S]*GITHUB_TOKEN=\[MASKED:github-token\]\nserver listening$/);
  const lines = Array.from({ length: 20000 }, (_, i) => (i === 19990 ? `error: late ${GH}` : `req ${i} ok`)).join('\n');
  const big = JSON.parse(hook(input(`Command: npm test\nDirectory: (root)\nOutput: ${lines}\nError: (none)\nExit Code: 1`, 'npm test'), ws).stdout) as { reason: string };
  assert.ok(Buffer.byteLength(big.reason) <= 2048, big.reason);
  assert.match(big.reason, /error: late \[MASKED:github-token\]/);
  assert.match(big.reason, /Output saved: \.agent\/scratch\/tool_outputs\//);
});
