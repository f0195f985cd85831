import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openTerminalCapture } from '../../../src/core/terminal/terminalCapture';
import { vscodeAgentPostToolUse } from '../../../src/core/hooks/vscodeAgentHook';
import { terminalCatalog } from '../../../src/core/terminal/catalog/terminalCatalog';
import { generateAgentFolder } from '../../../bench/scaleGen';
import { vscodeAgentSetup, vscodeHookCommand, VSCODE_HOOK_FILE } from '../../../src/core/setup/agents/vscodeAgent';
import { setUpAgent, undoAgent } from '../../../src/core/setup/agents';
import { resetProcessState } from '../../../src/core/processState';

async function mirroredBuild(root = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-vscodehook-'))): Promise<string> {
  const cap = await openTerminalCapture(path.join(root, '.agent/terminals'), { name: 'Copilot', shell: '/bin/bash', cwd: root, started: new Date(), shellIntegration: true }, { settleMs: 0 });
  const c = cap.beginCommand({ commandLine: ' bash build.sh', cwd: root, started: new Date() });
  c.write('\x1b]633;C\x07');
  for (let i = 1; i <= 3000; i++) c.write(i === 1500 ? 'ld: error: undefined reference to bucket_refill\r\n' : `[${i}/3000] compiling module_${i}.c ... ok\r\n`);
  c.end(1, new Date());
  await cap.close(new Date());
  return root;
}

const big = 'x'.repeat(20_000);

test('PostToolUse of a large run_in_terminal result: our reference as additional context, error line with its number', async () => {
  const root = await mirroredBuild();
  const out = await vscodeAgentPostToolUse({ hook_event_name: 'PostToolUse', tool_name: 'run_in_terminal', tool_input: { command: 'bash build.sh' }, tool_response: big }, root, { waitMs: 0 }) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
  assert.equal(out.hookSpecificOutput.hookEventName, 'PostToolUse');
  const ctx = out.hookSpecificOutput.additionalContext;
  assert.match(ctx, /L\d+: ld: error: undefined reference to bucket_refill/);
  assert.match(ctx, /exit 1/);
  assert.ok(Buffer.byteLength(ctx) <= 2300, `${Buffer.byteLength(ctx)} bytes`);
});

test('PostToolUse among many older terminals: the same reference, and only the terminals with the newest activity are opened', async () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ac-vscodehook-many-')));
  await generateAgentFolder(root, 0.1, 5, new Date('2026-06-01T12:00:00Z'), { terminals: { terminals: 60, longLived: 50 } });
  await mirroredBuild(root);
  // The extension or an MCP server keeps the catalog; the hook is a new process that finds it.
  resetProcessState();
  assert.ok((await terminalCatalog(path.join(root, '.agent'))).ok);
  resetProcessState();
  const realOpen = fs.promises.open;
  const opened = new Set<number>();
  fs.promises.open = (async (...args: Parameters<typeof realOpen>) => {
    const m = /^(\d+)\.(?:1\.)?(?:txt|index\.jsonl)$/.exec(path.basename(String(args[0])));
    if (m && path.basename(path.dirname(String(args[0]))) === 'terminals') opened.add(Number(m[1]));
    return realOpen(...args);
  }) as typeof realOpen;
  let out: { hookSpecificOutput: { additionalContext: string } };
  try {
    out = await vscodeAgentPostToolUse({ hook_event_name: 'PostToolUse', tool_name: 'run_in_terminal', tool_input: { command: 'bash build.sh' }, tool_response: big }, root, { waitMs: 0 }) as typeof out;
  } finally {
    fs.promises.open = realOpen;
    resetProcessState();
  }
  assert.match(out.hookSpecificOutput.additionalContext, /L\d+: ld: error: undefined reference to bucket_refill/);
  assert.match(out.hookSpecificOutput.additionalContext, /\.agent\/terminals\/61\.txt/);
  assert.ok(opened.has(61), `the build's terminal 61 was read: ${[...opened].join(', ')}`);
  assert.ok(opened.size <= 8, `${opened.size} terminals opened: ${[...opened].sort((a, b) => a - b).join(', ')}`);
  fs.rmSync(root, { recursive: true, force: true });
});

test('PostToolUse does nothing for other tools, small results, or a command the mirror does not hold', async () => {
  const root = await mirroredBuild();
  assert.equal(await vscodeAgentPostToolUse({ tool_name: 'read_file', tool_input: {}, tool_response: big }, root, { waitMs: 0 }), undefined);
  assert.equal(await vscodeAgentPostToolUse({ tool_name: 'run_in_terminal', tool_input: { command: 'bash build.sh' }, tool_response: 'small' }, root, { waitMs: 0 }), undefined);
  assert.equal(await vscodeAgentPostToolUse({ tool_name: 'run_in_terminal', tool_input: { command: 'make' }, tool_response: big }, root, { waitMs: 0 }), undefined);
});

test('the hook file: valid JSON in Copilot\'s hook format, no path in it, idempotent; a foreign file is refused; undo removes only ours, and the folders it created', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-vscodesetup-'));
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-vscodesetup-home-'));
  const paths = { node: 'node', dist: '/opt/ac' };
  const first = await setUpAgent(vscodeAgentSetup, root, home, paths);
  assert.ok(first.ok);
  assert.deepEqual(first.value.created, [path.join(root, VSCODE_HOOK_FILE)]);
  // The editor adds .agent/skills to the user's chat.agentSkillsLocations (core names it; the editor applies it).
  assert.deepEqual(first.value.settings, [{ setting: 'chat.agentSkillsLocations', key: '.agent/skills', value: true }]);
  const text = fs.readFileSync(path.join(root, VSCODE_HOOK_FILE), 'utf8');
  const parsed = JSON.parse(text);
  assert.equal(parsed.version, 1);
  assert.equal(parsed.hooks.PostToolUse[0].type, 'command');
  assert.doesNotMatch(text, new RegExp(root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  assert.doesNotMatch(text, /"\/|\s\/(tmp|root|home|usr|opt)\//);
  const again = await setUpAgent(vscodeAgentSetup, root, home, paths);
  assert.ok(again.ok);
  assert.deepEqual(again.value.changed, []);
  const undone = await undoAgent(vscodeAgentSetup, root, home);
  assert.ok(undone.ok);
  assert.deepEqual(undone.value.deleted, [path.join(root, VSCODE_HOOK_FILE)]);
  assert.deepEqual(undone.value.settings, [{ setting: 'chat.agentSkillsLocations', key: '.agent/skills', value: undefined }]);
  assert.equal(fs.existsSync(path.join(root, VSCODE_HOOK_FILE)), false);
  assert.equal(fs.existsSync(path.join(root, '.github')), false, 'the empty .github/hooks/ and .github/ it created are gone');
  fs.mkdirSync(path.join(root, '.github/hooks'), { recursive: true });
  fs.writeFileSync(path.join(root, VSCODE_HOOK_FILE), '{"version":1,"hooks":{}}\n');
  const refused = await setUpAgent(vscodeAgentSetup, root, home, paths);
  assert.ok(!refused.ok);
  assert.match(refused.error.message, /not Agent Context's hook file/);
  assert.equal(fs.readFileSync(path.join(root, VSCODE_HOOK_FILE), 'utf8'), '{"version":1,"hooks":{}}\n');
  const left = await undoAgent(vscodeAgentSetup, root, home);
  assert.ok(left.ok);
  assert.match(left.value.notes.join(' '), /not Agent Context's hook file; left as it is/);
  assert.equal(fs.readFileSync(path.join(root, VSCODE_HOOK_FILE), 'utf8'), '{"version":1,"hooks":{}}\n');
});

test('the hook\'s shell gate: other tools and small results pass without starting Node, and it never fails', () => {
  const gate = vscodeHookCommand();
  // A Node that would fail loudly if started.
  const env = { PATH: process.env.PATH ?? '', AGENT_CONTEXT_HOOK_JS: '/nonexistent/hook.js', AGENT_CONTEXT_HOOK_NODE: '/bin/false-node-must-not-run' };
  for (const input of [
    JSON.stringify({ hook_event_name: 'PostToolUse', tool_name: 'read_file', tool_input: {}, tool_response: 'x'.repeat(20_000) }),
    JSON.stringify({ hook_event_name: 'PostToolUse', tool_name: 'run_in_terminal', tool_input: { command: 'ls' }, tool_response: 'a\nb' }),
  ]) {
    const r = spawnSync('sh', ['-c', gate], { input, env, encoding: 'utf8' });
    assert.equal(r.status, 0);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, '');
  }
  // Without Agent Context (no variables) nothing runs either.
  const none = spawnSync('sh', ['-c', gate], { input: JSON.stringify({ tool_name: 'run_in_terminal', tool_response: 'x'.repeat(20_000) }), env: { PATH: process.env.PATH ?? '' }, encoding: 'utf8' });
  assert.equal(none.status, 0);
  assert.equal(none.stdout, '');
  // A large run_in_terminal result does reach the program (here a missing one: still exit 0).
  const large = spawnSync('sh', ['-c', gate], { input: JSON.stringify({ tool_name: 'run_in_terminal', tool_response: 'x'.repeat(20_000) }), env, encoding: 'utf8' });
  assert.equal(large.status, 0);
  assert.match(large.stderr, /false-node-must-not-run/);
});
