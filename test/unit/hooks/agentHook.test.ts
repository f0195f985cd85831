// The hook entry point (src/hooks/agentHook.sh → dist/agent-hook.sh) as agents run it.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fakeDist } from './shellCapture.test';

const dist = fakeDist();
const tmp = (p: string): string => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), p)));
const GH = 'ghp' + '_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';

function hook(args: string[], input: string, cwd: string, env: Record<string, string> = {}): { stdout: string; status: number | null; ms: number } {
  const t = Date.now();
  const r = spawnSync('bash', [path.join(dist, 'agent-hook.sh'), ...args], { cwd, input, encoding: 'utf8', env: { PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`, HOME: cwd, ...env } });
  return { stdout: r.stdout, status: r.status, ms: Date.now() - t };
}

function workspace(): string {
  const ws = tmp('ac-hook-ws-');
  fs.mkdirSync(path.join(ws, '.agent'));
  return ws;
}

const post = (toolName: string, text: string, command = 'make'): string => JSON.stringify({ sessionId: 's', timestamp: 1, cwd: '/x', toolName, toolArgs: { command, description: 'd' }, toolResult: { resultType: 'success', textResultForLlm: text } });

test('Copilot CLI postToolUse: other tools, clean small outputs and folders without .agent/ are left alone by the shell alone', () => {
  const ws = workspace();
  for (const input of [post('view', GH), post('bash', 'hello\n<shellId: 0 completed with exit code 0>'), JSON.stringify({ toolName: 'run_in_terminal', tool_name: 'run_in_terminal' })]) {
    const r = hook(['copilot-cli', 'postToolUse'], input, ws);
    assert.equal(r.status, 0);
    assert.equal(r.stdout, '', input);
  }
  assert.equal(hook(['copilot-cli', 'postToolUse'], post('bash', `${GH}\n`), tmp('ac-none-')).stdout, '');
});

test('Copilot CLI postToolUse: a secret in a small bash result is masked in a modifiedResult', () => {
  const ws = workspace();
  const r = hook(['copilot-cli', 'postToolUse'], post('bash', `token ${GH}\n<shellId: 0 completed with exit code 0>`), ws);
  const out = JSON.parse(r.stdout) as { modifiedResult: { textResultForLlm: string; resultType: string } };
  assert.equal(out.modifiedResult.resultType, 'success');
  assert.ok(!out.modifiedResult.textResultForLlm.includes(GH));
  assert.match(out.modifiedResult.textResultForLlm, /\[MASKED:github-token\]/);
});

test('Copilot CLI postToolUse: the output Copilot saved for a large result becomes our reference, its unmasked temp file removed', () => {
  const ws = workspace();
  const saved = path.join(tmp('ac-copilot-'), '1-copilot-tool-output-1.txt');
  fs.writeFileSync(saved, Array.from({ length: 20000 }, (_, i) => (i === 9999 ? `error: deep inside ${GH}` : `line ${i + 1} fine`)).join('\n') + '\n');
  const text = `Output too large to read at once (0.2 MB). Saved to: ${saved}\nConsider using tools like grep.\n\nPreview (first 500 chars):\nline 1 fine\n`;
  const r = hook(['copilot-cli', 'postToolUse'], post('bash', text, 'bash build.sh'), ws);
  const out = JSON.parse(r.stdout) as { modifiedResult: { textResultForLlm: string } };
  const ref = out.modifiedResult.textResultForLlm;
  assert.ok(Buffer.byteLength(ref) <= 2048);
  assert.match(ref, /L10000: error: deep inside \[MASKED:github-token\]/);
  assert.match(ref, /Command: bash build\.sh/);
  assert.equal(fs.existsSync(saved), false);
});

test('Claude Code SessionStart: the shell capture goes into $CLAUDE_ENV_FILE; without that file (VS Code\'s agent) nothing happens', () => {
  const ws = workspace();
  const envFile = path.join(ws, 'env.sh');
  const r = hook(['claude-code', 'SessionStart'], '{"hook_event_name":"SessionStart","source":"startup"}', ws, { CLAUDE_ENV_FILE: envFile, CLAUDE_PROJECT_DIR: ws, AGENT_CONTEXT_NODE: "/opt/my node/node" });
  assert.equal(r.status, 0);
  const text = fs.readFileSync(envFile, 'utf8');
  assert.equal(text, `export AGENT_CONTEXT_AGENT=claude-code AGENT_CONTEXT_NODE='/opt/my node/node' AGENT_CONTEXT_ROOT='${ws}'\n. '${path.join(dist, 'agent-context-shell.sh')}'\n`);
  const none = hook(['claude-code', 'SessionStart'], '{}', ws, {});
  assert.equal(none.status, 0);
  assert.equal(none.stdout, '');
});

test('a call it has nothing to do with (another agent\'s hook file, any tool) exits 0 without output', () => {
  const ws = workspace();
  for (const args of [['claude-code', 'PreToolUse'], ['vscode', 'PostToolUse'], []]) {
    const r = hook(args, '{"tool_name":"run_in_terminal"}', ws);
    assert.equal(r.status, 0);
    assert.equal(r.stdout, '');
  }
});
