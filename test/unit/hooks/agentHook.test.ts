// The hook entry point (src/hooks/agentHook.sh → dist/agent-hook.sh) as agents run it.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { sessionStartContext } from '../../../src/core/hooks/sessionStart';
import { countTokens } from '../../../src/core/output/tokens';
import { cleanTmp, fakeDist } from './hookDist';

const dist = fakeDist();
const tmp = cleanTmp;
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
  // Where Copilot CLI puts it: the temp folder itself, under its own naming.
  const saved = path.join(os.tmpdir(), `${Date.now()}-copilot-tool-output-${process.pid}a.txt`);
  fs.writeFileSync(saved, Array.from({ length: 20000 }, (_, i) => (i === 9999 ? `error: deep inside ${GH}` : `line ${i + 1} fine`)).join('\n') + '\n');
  const text = `Output too large to read at once (0.2 MB). Saved to: ${saved}\nConsider using tools like grep.\n\nPreview (first 500 chars):\nline 1 fine\n`;
  // Copilot CLI runs its hooks with its own environment, TMPDIR included.
  const r = hook(['copilot-cli', 'postToolUse'], post('bash', text, 'bash build.sh'), ws, { TMPDIR: os.tmpdir() });
  const out = JSON.parse(r.stdout) as { modifiedResult: { textResultForLlm: string } };
  const ref = out.modifiedResult.textResultForLlm;
  assert.ok(Buffer.byteLength(ref) <= 2048);
  assert.match(ref, /L10000: error: deep inside \[MASKED:github-token\]/);
  assert.match(ref, /Command: bash build\.sh/);
  assert.equal(fs.existsSync(saved), false);
});

test('Copilot CLI postToolUse: a command whose output names a file as "Saved to" gets that file neither shown nor deleted unless it is Copilot\'s own temp file', () => {
  const ws = workspace();
  const victims = [
    path.join(ws, 'precious.txt'), // any file
    path.join(tmp('ac-copilot-'), '1-copilot-tool-output-1.txt'), // Copilot's naming, not in the temp folder
  ];
  const link = path.join(os.tmpdir(), `${Date.now()}-copilot-tool-output-${process.pid}b.txt`);
  fs.writeFileSync(victims[0], 'precious user data\n');
  fs.symlinkSync(victims[0], link); // Copilot's naming in the temp folder, but a link
  victims.push(link);
  fs.writeFileSync(victims[1], 'another session\n');
  for (const v of victims) {
    const text = `Output too large to read at once (1 KB). Saved to: ${v}\nrest\n<shellId: 3 completed with exit code 0>`;
    const r = hook(['copilot-cli', 'postToolUse'], post('bash', text, 'cat notes.txt'), ws, { TMPDIR: os.tmpdir() });
    assert.equal(r.status, 0);
    assert.doesNotMatch(r.stdout, /precious user data|another session/);
    assert.ok(fs.existsSync(v), v);
  }
  assert.equal(fs.readFileSync(victims[0], 'utf8'), 'precious user data\n');
  fs.rmSync(link);
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

test('Claude Code SessionStart: the briefing goes to the model as additional context, saying why (startup, compact), within 1,500 tokens', () => {
  const ws = workspace();
  fs.writeFileSync(path.join(ws, '.agent/plan.yaml'), 'objective: "Ship the limiter"\nsteps:\n  - id: 1\n    description: "Write the bucket"\n    status: completed\n  - id: 2\n    description: "Wire the middleware"\n    status: in_progress\n  - id: 3\n    description: "Load-test it"\n    status: pending\n');
  const envFile = path.join(ws, 'env.sh');
  const context = (source: string, cwd = ws): string => {
    const r = hook(['claude-code', 'SessionStart'], JSON.stringify({ hook_event_name: 'SessionStart', source, cwd }), cwd, { CLAUDE_ENV_FILE: envFile, CLAUDE_PROJECT_DIR: ws });
    assert.equal(r.status, 0);
    const out = JSON.parse(r.stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
    assert.equal(out.hookSpecificOutput.hookEventName, 'SessionStart');
    return out.hookSpecificOutput.additionalContext;
  };
  const start = context('startup');
  assert.match(start, /^Agent Context put this briefing here at the start of this session/);
  assert.match(start, /Plan \.agent\/plan\.yaml: 1\/3 done .* Ship the limiter/);
  assert.match(start, /Now: step 2 \[in_progress\] Wire the middleware \(\.agent\/plan\.yaml:\d+\)/);
  assert.ok(countTokens(start).tokens <= 1500);
  assert.match(context('compact'), /^Agent Context put this briefing here right after the conversation was compacted/);
  // Codex's SessionStart has the same shape (run from the session's folder, no CLAUDE_ENV_FILE).
  const codex = hook(['codex', 'SessionStart'], JSON.stringify({ hook_event_name: 'SessionStart', source: 'compact', cwd: ws }), ws);
  assert.match((JSON.parse(codex.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext, /right after the conversation was compacted[\s\S]*Now: step 2 \[in_progress\] Wire the middleware/);
  // A project without .agent/: the capture is set up, nothing is said to the model.
  const bare = tmp('ac-bare-');
  const r = hook(['claude-code', 'SessionStart'], '{"source":"startup"}', bare, { CLAUDE_ENV_FILE: path.join(bare, 'env.sh'), CLAUDE_PROJECT_DIR: bare });
  assert.equal(r.status, 0);
  assert.equal(r.stdout, '');
});

test('a secret in the plan reaches neither the SessionStart briefing nor a mirrored Copilot CLI plan', () => {
  const ws = workspace();
  const token = 'ghp_' + 'aKQeHtmOrgMiOt9oYwg0btBdaSuEkmieNzzV';
  fs.writeFileSync(path.join(ws, '.agent/plan.yaml'), `objective: "Ship"\nsteps:\n  - id: 1\n    description: "Push with ${token}"\n    status: in_progress\n`);
  const r = hook(['claude-code', 'SessionStart'], JSON.stringify({ hook_event_name: 'SessionStart', source: 'startup', cwd: ws }), ws, { CLAUDE_ENV_FILE: path.join(ws, 'env.sh'), CLAUDE_PROJECT_DIR: ws });
  assert.equal(r.status, 0);
  const context = (JSON.parse(r.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
  assert.ok(!context.includes(token), context);
  assert.match(context, /Now: step 1 \[in_progress\] Push with \[MASKED:github-token\]/);
  const session = path.join(tmp('ac-copilot-home-'), 'session-state', 'sess-2');
  fs.mkdirSync(session, { recursive: true });
  const plan = path.join(session, 'plan.md');
  fs.writeFileSync(plan, `# Plan\n\n1. Push with ${token}\n`);
  assert.equal(hook(['copilot-cli', 'postToolUse'], fileTool('create', { path: plan, file_text: `# Plan\n\n1. Push with ${token}\n` }), ws).status, 0);
  const mirror = fs.readFileSync(path.join(ws, '.agent/plans/copilot-cli-sess-2.md'), 'utf8');
  assert.ok(mirror.endsWith('1. Push with [MASKED:github-token]\n'), mirror);
});

test('Claude Code SessionStart: a briefing of a huge plan is still cut to 1,500 tokens in all', async () => {
  const ws = workspace();
  const steps = Array.from({ length: 400 }, (_, i) => `  - id: ${i + 1}\n    description: "${'Refactor the module and its many tests carefully '.repeat(3)}${i + 1}"\n    status: ${i < 50 ? 'in_progress' : 'pending'}\n`).join('');
  fs.writeFileSync(path.join(ws, '.agent/plan.yaml'), `objective: "${'A very long objective '.repeat(40)}"\nsteps:\n${steps}`);
  const { text, tokens } = await sessionStartContext(ws, 'compact');
  assert.ok(tokens <= 1500, `${tokens} tokens`);
  assert.equal(countTokens(text).tokens, tokens);
  assert.match(text, /Now: step 1 /);
});

test('Gemini CLI SessionStart: the briefing as additional context where a .agent/ folder is found, nothing elsewhere', () => {
  const ws = workspace();
  fs.writeFileSync(path.join(ws, '.agent/plan.yaml'), 'objective: "Ship the limiter"\nsteps:\n  - id: 1\n    description: "Wire the middleware"\n    status: in_progress\n');
  const r = hook(['gemini', 'SessionStart'], JSON.stringify({ hook_event_name: 'SessionStart', source: 'resume', cwd: ws }), ws);
  const out = JSON.parse(r.stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
  assert.equal(out.hookSpecificOutput.hookEventName, 'SessionStart');
  assert.match(out.hookSpecificOutput.additionalContext, /^Agent Context put this briefing here as this session was resumed/);
  assert.match(out.hookSpecificOutput.additionalContext, /Now: step 1 \[in_progress\] Wire the middleware \(\.agent\/plan\.yaml:\d+\)/);
  const bare = tmp('ac-bare-');
  assert.equal(hook(['gemini', 'SessionStart'], '{"source":"startup"}', bare).stdout, '');
});

test('Qwen Code SessionStart: the briefing for the workspace in QWEN_PROJECT_DIR, not Qwen\'s own state folder in QWEN_CODE_PROJECT_DIR', () => {
  const ws = workspace();
  fs.writeFileSync(path.join(ws, '.agent/plan.yaml'), 'objective: "Ship the limiter"\nsteps:\n  - id: 1\n    description: "Wire the middleware"\n    status: in_progress\n');
  // The variables Qwen Code 0.24.4 sets for a hook (seen in the qwen-code run): the workspace, and
  // its per-project state folder under ~/.qwen/projects/, which holds no .agent/.
  const state = tmp('ac-qwen-state-');
  const env = { QWEN_PROJECT_DIR: ws, QWEN_CODE_PROJECT_DIR: state };
  const r = hook(['qwen-code', 'SessionStart'], JSON.stringify({ session_id: 's', hook_event_name: 'SessionStart', source: 'startup', cwd: ws }), state, env);
  assert.equal(r.status, 0);
  const out = JSON.parse(r.stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
  assert.equal(out.hookSpecificOutput.hookEventName, 'SessionStart');
  assert.match(out.hookSpecificOutput.additionalContext, /Now: step 1 \[in_progress\] Wire the middleware \(\.agent\/plan\.yaml:\d+\)/);
  assert.equal(hook(['qwen-code', 'SessionStart'], '{"source":"startup"}', state, { QWEN_PROJECT_DIR: tmp('ac-bare-') }).stdout, '');
});

test('Copilot CLI sessionStart: the briefing as additionalContext (its source "new" is a start)', () => {
  const ws = workspace();
  fs.writeFileSync(path.join(ws, '.agent/plan.yaml'), 'objective: "Ship the limiter"\nsteps:\n  - id: 1\n    description: "Wire the middleware"\n    status: in_progress\n');
  const r = hook(['copilot-cli', 'sessionStart'], JSON.stringify({ sessionId: 's', timestamp: 1, cwd: ws, source: 'new', initialPrompt: 'go' }), ws);
  const out = JSON.parse(r.stdout) as { additionalContext: string };
  assert.match(out.additionalContext, /^Agent Context put this briefing here at the start of this session/);
  assert.match(out.additionalContext, /Now: step 1 \[in_progress\] Wire the middleware/);
  assert.equal(hook(['copilot-cli', 'sessionStart'], '{"source":"new"}', tmp('ac-bare-')).stdout, '');
});

test('Copilot CLI in a workspace under a keyword folder (~/Desktop/proj): its session start clears the path, then small clean results start no Node; a keyword folder below it does', () => {
  const ws = path.join(tmp('ac-hook-kw-'), 'Desktop', 'proj');
  fs.mkdirSync(path.join(ws, '.agent'), { recursive: true });
  const bin = tmp('ac-hook-kw-node-');
  const log = path.join(bin, 'starts');
  const wrapper = path.join(bin, 'node');
  fs.writeFileSync(wrapper, `#!/bin/sh\necho >> '${log}'\nexec '${process.execPath}' "$@"\n`, { mode: 0o755 });
  const starts = (): number => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').length : 0);
  const env = { AGENT_CONTEXT_NODE: wrapper };
  const bash = (cwd: string): string => JSON.stringify({ sessionId: 's', timestamp: 1, cwd, toolName: 'bash', toolArgs: { command: 'make', description: 'd' }, toolResult: { resultType: 'success', textResultForLlm: 'built\n<shellId: 0 completed with exit code 0>' } });
  assert.equal(hook(['copilot-cli', 'postToolUse'], bash(ws), ws, env).stdout, '');
  assert.equal(starts(), 1, 'no verdict yet: Node looks');
  fs.rmSync(path.join(ws, '.agent/.cache'), { recursive: true });
  hook(['copilot-cli', 'sessionStart'], JSON.stringify({ sessionId: 's', timestamp: 1, cwd: ws, source: 'new', initialPrompt: 'go' }), ws, env);
  assert.equal(starts(), 2);
  assert.equal(fs.readFileSync(path.join(ws, '.agent/.cache/shell-hook.conf'), 'utf8').split('\n')[1], `1 ${ws}`);
  for (const cwd of [ws, path.join(ws, 'src')]) assert.equal(hook(['copilot-cli', 'postToolUse'], bash(cwd), ws, env).stdout, '');
  assert.equal(starts(), 2, 'small clean results in the workspace and below it: the shell alone');
  assert.equal(hook(['copilot-cli', 'postToolUse'], bash(path.join(ws, 'api-keys')), ws, env).stdout, '');
  assert.equal(starts(), 3, 'a keyword below the workspace: Node');
});

const fileTool = (toolName: string, args: Record<string, string>): string => JSON.stringify({ sessionId: 'sess-1', timestamp: 1, cwd: '/x', toolName, toolArgs: args, toolResult: { resultType: 'success', textResultForLlm: 'Created file' } });

test('Copilot CLI postToolUse: a create, then an edit, of its session plan.md is mirrored into .agent/plans/', () => {
  const ws = workspace();
  const session = path.join(tmp('ac-copilot-home-'), 'session-state', 'sess-1');
  fs.mkdirSync(session, { recursive: true });
  const plan = path.join(session, 'plan.md');
  const mirror = path.join(ws, '.agent/plans/copilot-cli-sess-1.md');
  fs.writeFileSync(plan, '# Plan\n\n1. Read the code\n2. Add the limiter\n');
  const r = hook(['copilot-cli', 'postToolUse'], fileTool('create', { path: plan, file_text: '# Plan\n\n1. Read the code\n2. Add the limiter\n' }), ws);
  assert.equal(r.status, 0);
  assert.equal(r.stdout, '', 'the tool result is left as it is');
  const first = fs.readFileSync(mirror, 'utf8');
  assert.match(first, /^<!-- Mirrored by Agent Context from GitHub Copilot CLI's plan \(session-state\/sess-1\/plan\.md/);
  assert.ok(first.endsWith('# Plan\n\n1. Read the code\n2. Add the limiter\n'), first);
  fs.writeFileSync(plan, '# Plan\n\n1. Read the code\n2. Add the limiter, revised\n3. Test it\n');
  hook(['copilot-cli', 'postToolUse'], fileTool('edit', { old_str: '2. Add the limiter', new_str: '2. Add the limiter, revised\n3. Test it', path: plan }), ws);
  assert.ok(fs.readFileSync(mirror, 'utf8').endsWith('2. Add the limiter, revised\n3. Test it\n'));
});

test('Copilot CLI postToolUse: other file tool calls and a view of plan.md end in the shell (no Node start)', () => {
  const ws = workspace();
  const session = path.join(tmp('ac-copilot-home-'), 'session-state', 'sess-1');
  fs.mkdirSync(session, { recursive: true });
  const plan = path.join(session, 'plan.md');
  fs.writeFileSync(plan, '# Plan\n');
  // A "node" that only says it was started.
  const marker = path.join(tmp('ac-marker-'), 'started');
  const fakeNode = path.join(path.dirname(marker), 'node');
  fs.writeFileSync(fakeNode, `#!/bin/sh\ntouch '${marker}'\n`, { mode: 0o755 });
  for (const input of [
    fileTool('create', { path: path.join(ws, 'src/plan.md'), file_text: 'x' }),
    fileTool('edit', { path: path.join(ws, 'README.md'), old_str: 'a', new_str: 'b' }),
    fileTool('view', { path: plan }),
    fileTool('create', { path: path.join(session, 'notes.md'), file_text: 'x' }),
  ]) {
    const r = hook(['copilot-cli', 'postToolUse'], input, ws, { AGENT_CONTEXT_NODE: fakeNode });
    assert.equal(r.status, 0);
    assert.equal(r.stdout, '');
    assert.ok(!fs.existsSync(marker), `Node started for ${input}`);
  }
  // The same fake node is started for a write of the plan (the check can fail).
  hook(['copilot-cli', 'postToolUse'], fileTool('edit', { path: plan, old_str: 'a', new_str: 'b' }), ws, { AGENT_CONTEXT_NODE: fakeNode });
  assert.ok(fs.existsSync(marker));
  assert.ok(!fs.existsSync(path.join(ws, '.agent/plans')), 'nothing mirrored by the fake node');
});

/** The hook run as the runtime runs it (its input through a pipe), with the read calls that bash made (Linux's /proc/<pid>/io). */
function hookReads(args: string[], input: string, cwd: string, env: Record<string, string> = {}): { stdout: string; status: number | null; reads: number } {
  const script = `trap 'while read -r k v; do [ "$k" = syscr: ] && echo "$v" >&2; done </proc/$$/io' EXIT; . "$0" "$@"`;
  const r = spawnSync('bash', ['-c', script, path.join(dist, 'agent-hook.sh'), ...args], { cwd, input, encoding: 'utf8', env: { PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`, HOME: cwd, ...env } });
  return { stdout: r.stdout, status: r.status, reads: Number(r.stderr.trim().split('\n').pop()) };
}

test('Copilot CLI postToolUse: a large result of another tool (a 200 KB view) is not read a byte at a time, and ends in the shell', () => {
  const ws = workspace();
  const marker = path.join(tmp('ac-marker-'), 'started');
  const fakeNode = path.join(path.dirname(marker), 'node');
  fs.writeFileSync(fakeNode, `#!/bin/sh\ntouch '${marker}'\n`, { mode: 0o755 });
  const big = JSON.stringify({ sessionId: 's', timestamp: 1, cwd: ws, toolName: 'view', toolArgs: { path: path.join(ws, 'big.log') }, toolResult: { resultType: 'success', textResultForLlm: 'fine line\n'.repeat(20_000) } });
  const r = hookReads(['copilot-cli', 'postToolUse'], big, ws, { AGENT_CONTEXT_NODE: fakeNode });
  assert.equal(r.status, 0);
  assert.equal(r.stdout, '');
  assert.ok(!fs.existsSync(marker), 'no Node start');
  // Byte by byte it was 200,000 reads (~2 us each: 0.4 s of the runtime's wait on every such call).
  assert.ok(r.reads < 1000, `${r.reads} read calls`);
});

test('Copilot CLI postToolUse: inputs over 8 KB still reach Node whole: a 12 KB clean bash result becomes our reference, a large edit of plan.md whose path comes last is mirrored', () => {
  const ws = workspace();
  const lines = Array.from({ length: 600 }, (_, i) => (i === 300 ? 'not ok 301 - total is wrong' : `ok ${i + 1} - fine`));
  const r = hookReads(['copilot-cli', 'postToolUse'], post('bash', `${lines.join('\n')}\n<shellId: 0 completed with exit code 1>`, 'npm test'), ws);
  const ref = (JSON.parse(r.stdout) as { modifiedResult: { textResultForLlm: string } }).modifiedResult.textResultForLlm;
  assert.ok(Buffer.byteLength(ref) <= 4096, ref);
  assert.match(ref, /L301: not ok 301 - total is wrong/);
  assert.ok(r.reads < 1000, `${r.reads} read calls`);
  const session = path.join(tmp('ac-copilot-home-'), 'session-state', 'sess-1');
  fs.mkdirSync(session, { recursive: true });
  const plan = path.join(session, 'plan.md');
  fs.writeFileSync(plan, `# Plan\n\n1. ${'long step '.repeat(1500)}\n`);
  hookReads(['copilot-cli', 'postToolUse'], fileTool('edit', { old_str: 'x'.repeat(10_000), new_str: 'long step', path: plan }), ws);
  assert.ok(fs.readFileSync(path.join(ws, '.agent/plans/copilot-cli-sess-1.md'), 'utf8').includes('1. long step long step'));
});

test('a call it has nothing to do with (another agent\'s hook file, any tool) exits 0 without output', () => {
  const ws = workspace();
  for (const args of [['claude-code', 'PreToolUse'], ['vscode', 'PostToolUse'], []]) {
    const r = hook(args, '{"tool_name":"run_in_terminal"}', ws);
    assert.equal(r.status, 0);
    assert.equal(r.stdout, '');
  }
});
