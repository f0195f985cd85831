// GitHub Copilot CLI's set-up (the project's .github/mcp.json, the hooks in
// $COPILOT_HOME/hooks/agent-context.json) and VS Code's Copilot harness's (the same hook file, the
// user-scope $COPILOT_HOME/mcp-config.json), without the runtime itself (the real CLI and the SDK's
// runtime run the written configuration in the copilot-cli and copilot-harness test runs).
import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse } from 'jsonc-parser';
import { copilotCliSetup, editCopilotMcp } from '../../../../src/core/setup/agents/copilotCli';
import { vscodeCopilotSetup } from '../../../../src/core/setup/agents/vscodeCopilot';
import { setUpAgent, undoAgent } from '../../../../src/core/setup/agents/agentSetup';
import { fakeDist } from '../../hooks/hookDist';

const paths = { node: '/usr/bin/node', dist: '/opt/ac' };
// `bash …`, not read in with `.`: VS Code's Copilot Chat runs this file's commands with /bin/sh (copilotRuntime.ts).
const HOOK = { type: 'command', bash: 'AGENT_CONTEXT_NODE=/usr/bin/node bash /opt/ac/agent-hook.sh copilot-cli postToolUse', timeoutSec: 30 };
const tmp = (p: string): string => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), p)));
const read = (f: string): string => fs.readFileSync(f, 'utf8');

describe('Copilot CLI config edits', () => {
  test('a new .github/mcp.json gets our server', () => {
    const m = editCopilotMcp(undefined, 'mcp.json', '/ws', paths);
    assert.ok(m.ok);
    if (m.ok) assert.deepEqual(JSON.parse(m.value.text!), { mcpServers: { 'agent-context': { command: '/usr/bin/node', args: ['/opt/ac/mcp.js', '--root', '/ws', '--allow-run'] } } });
  });

  test('refuses a file it cannot parse (naming its line) and a server named agent-context of the user\'s own', () => {
    const bad = editCopilotMcp('{\n  "mcpServers": {\n    "x": { command: "y" }\n  }\n}\n', '/ws/.github/mcp.json', '/ws', paths);
    assert.equal(bad.ok, false);
    if (!bad.ok) {
      assert.equal(bad.error.line, 3);
      assert.match(bad.error.message, /not valid JSON.*Nothing was changed/);
    }
    assert.equal(editCopilotMcp('{ "mcpServers": { "agent-context": { "command": "x" } } }', 'f', '/ws', paths).ok, false);
  });
});

/** The hook file both Copilot set-ups write, as the runtime reads it. */
const HOOKS_FILE = { version: 1, hooks: { postToolUse: [HOOK], sessionStart: [{ ...HOOK, bash: HOOK.bash.replace('postToolUse', 'sessionStart') }] } };

describe('Copilot CLI set-up and undo', () => {
  // Copilot's home comes from COPILOT_HOME when set: the tests' own home instead.
  const saved = process.env.COPILOT_HOME;
  before(() => delete process.env.COPILOT_HOME);
  after(() => {
    if (saved !== undefined) process.env.COPILOT_HOME = saved;
  });

  test('writes .github/mcp.json (git-excluded) and the user-scope hooks (output, briefing) once; undo gives every file back byte for byte', async () => {
    const root = tmp('cp-root-');
    const home = tmp('cp-home-');
    spawnSync('git', ['init', '-q', root]);
    fs.mkdirSync(path.join(home, '.copilot'));
    const settings = path.join(home, '.copilot/settings.json');
    const mine = '{\n  "model": "gpt-5"\n}';
    fs.writeFileSync(settings, mine);
    const exclude = read(path.join(root, '.git/info/exclude'));
    const mcp = path.join(root, '.github/mcp.json');

    const hooks = path.join(home, '.copilot/hooks/agent-context.json');
    const first = await setUpAgent(copilotCliSetup, root, home, paths);
    assert.ok(first.ok, first.ok ? '' : first.error.message);
    assert.deepEqual(first.value.changed.sort(), [mcp, hooks, path.join(root, '.git/info/exclude')].sort());
    assert.match(first.value.notes.join(' '), /trusted/);
    assert.doesNotMatch(spawnSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: root, encoding: 'utf8' }).stdout, /mcp\.json/);
    assert.deepEqual(JSON.parse(read(hooks)), HOOKS_FILE);
    assert.equal(read(settings), mine, 'the user\'s settings.json was touched');
    const second = await setUpAgent(copilotCliSetup, root, home, paths);
    assert.ok(second.ok);
    assert.deepEqual(second.value.changed, []);

    const undone = await undoAgent(copilotCliSetup, root, home);
    assert.ok(undone.ok, undone.ok ? '' : undone.error.message);
    assert.equal(fs.existsSync(mcp), false);
    assert.equal(fs.existsSync(hooks), false);
    assert.equal(read(settings), mine);
    assert.equal(read(path.join(root, '.git/info/exclude')), exclude);
  });

  test('an earlier set-up\'s hook entries in settings.json are taken out (Copilot CLI would run both), the user\'s own kept byte for byte', async () => {
    const root = tmp('cp-root-');
    const home = tmp('cp-home-');
    fs.mkdirSync(path.join(home, '.copilot'));
    const settings = path.join(home, '.copilot/settings.json');
    const old = `{\n  // mine\n  "model": "gpt-5",\n  "hooks": {\n    "postToolUse": [{ "type": "command", "bash": "audit.sh" }, ${JSON.stringify(HOOK)}],\n    "sessionStart": [${JSON.stringify({ ...HOOK, bash: HOOK.bash.replace('postToolUse', 'sessionStart') })}]\n  }\n}\n`;
    fs.writeFileSync(settings, old);
    const r = await setUpAgent(copilotCliSetup, root, home, paths);
    assert.ok(r.ok, r.ok ? '' : r.error.message);
    assert.match(r.value.notes.join(' '), /Took the hook entries of an earlier set-up out of .*settings\.json/);
    const now = read(settings);
    assert.ok(now.startsWith('{\n  // mine\n  "model": "gpt-5",\n  "hooks": {\n    "postToolUse": [{ "type": "command", "bash": "audit.sh" }'), now);
    assert.deepEqual(parse(now).hooks, { postToolUse: [{ type: 'command', bash: 'audit.sh' }] });
    assert.deepEqual(JSON.parse(read(path.join(home, '.copilot/hooks/agent-context.json'))), HOOKS_FILE);
  });

  test('a hook file of an earlier set-up (its entries read in with `.`, which /bin/sh cannot run) is brought back to `bash` entries', async () => {
    const root = tmp('cp-root-');
    const home = tmp('cp-home-');
    const hooks = path.join(home, '.copilot/hooks/agent-context.json');
    fs.mkdirSync(path.dirname(hooks), { recursive: true });
    const old = JSON.parse(JSON.stringify(HOOKS_FILE).replaceAll(' bash /opt/ac/', ' . /opt/ac/'));
    fs.writeFileSync(hooks, JSON.stringify(old, null, 2));
    assert.ok((await setUpAgent(copilotCliSetup, root, home, paths)).ok);
    assert.deepEqual(JSON.parse(read(hooks)), HOOKS_FILE);
  });

  test('the user-scope hook file is one for every project: a second project\'s undo leaves it; the first one\'s removes it, saying so', async () => {
    const home = tmp('cp-home-');
    const a = tmp('cp-a-');
    const b = tmp('cp-b-');
    assert.ok((await setUpAgent(copilotCliSetup, a, home, paths)).ok);
    assert.ok((await setUpAgent(copilotCliSetup, b, home, paths)).ok);
    const hooks = path.join(home, '.copilot/hooks/agent-context.json');
    assert.deepEqual(JSON.parse(read(hooks)), HOOKS_FILE);
    const ub = await undoAgent(copilotCliSetup, b, home);
    assert.ok(ub.ok);
    assert.match(ub.value.notes.join(' '), /Kept .*agent-context\.json: this set-up did not create it/);
    assert.deepEqual(JSON.parse(read(hooks)), HOOKS_FILE);
    assert.equal(fs.existsSync(path.join(b, '.github/mcp.json')), false);
    const ua = await undoAgent(copilotCliSetup, a, home);
    assert.ok(ua.ok);
    assert.match(ua.value.notes.join(' '), /Removed .*agent-context\.json/);
    assert.equal(fs.existsSync(hooks), false);
  });

  test('a file of that name that is not ours is refused, never overwritten', async () => {
    const home = tmp('cp-home-');
    fs.mkdirSync(path.join(home, '.copilot/hooks'), { recursive: true });
    const hooks = path.join(home, '.copilot/hooks/agent-context.json');
    fs.writeFileSync(hooks, '{"version":1,"hooks":{"postToolUse":[{"type":"command","bash":"mine.sh"}]}}');
    const r = await setUpAgent(copilotCliSetup, tmp('cp-root-'), home, paths);
    assert.equal(r.ok, false);
    if (!r.ok) assert.match(r.error.message, /not Agent Context's hook file/);
    assert.equal(read(hooks), '{"version":1,"hooks":{"postToolUse":[{"type":"command","bash":"mine.sh"}]}}');
  });

  test('a committed .github/mcp.json is refused with the entry to add by hand; a broken settings.json stops the set-up before anything is written', async () => {
    const root = tmp('cp-root-');
    const home = tmp('cp-home-');
    spawnSync('git', ['init', '-q', root]);
    fs.mkdirSync(path.join(root, '.github'));
    fs.writeFileSync(path.join(root, '.github/mcp.json'), '{ "mcpServers": {} }\n');
    spawnSync('git', ['add', '.github/mcp.json'], { cwd: root });
    const r = await setUpAgent(copilotCliSetup, root, home, paths);
    assert.equal(r.ok, false);
    if (!r.ok) assert.match(r.error.message, /committed to git[\s\S]*mcp-config\.json[\s\S]*"agent-context"/);
    assert.equal(read(path.join(root, '.github/mcp.json')), '{ "mcpServers": {} }\n');
    assert.equal(fs.existsSync(path.join(home, '.copilot/hooks/agent-context.json')), false);

    const root2 = tmp('cp-root-');
    fs.mkdirSync(path.join(home, '.copilot'), { recursive: true });
    fs.writeFileSync(path.join(home, '.copilot/settings.json'), '{ "model": }\n');
    const b = await setUpAgent(copilotCliSetup, root2, home, paths);
    assert.equal(b.ok, false);
    assert.equal(fs.existsSync(path.join(root2, '.github/mcp.json')), false);
    assert.equal(read(path.join(home, '.copilot/settings.json')), '{ "model": }\n');
  });
});

describe('VS Code\'s Copilot harness set-up and undo', () => {
  const saved = process.env.COPILOT_HOME;
  before(() => delete process.env.COPILOT_HOME);
  after(() => {
    if (saved !== undefined) process.env.COPILOT_HOME = saved;
  });

  test('writes the user-scope hook file and our server in mcp-config.json (no --root: the folder the agent works in), keeping the user\'s servers byte for byte; idempotent; undo gives the files back exactly', async () => {
    const root = tmp('vc-root-');
    const home = tmp('vc-home-');
    fs.mkdirSync(path.join(home, '.copilot'));
    const mcp = path.join(home, '.copilot/mcp-config.json');
    const mine = '{\n  "mcpServers": {\n    "github": { "type": "http", "url": "https://example.invalid/mcp" }\n  }\n}\n';
    fs.writeFileSync(mcp, mine);
    const hooks = path.join(home, '.copilot/hooks/agent-context.json');
    const first = await setUpAgent(vscodeCopilotSetup, root, home, paths);
    assert.ok(first.ok, first.ok ? '' : first.error.message);
    assert.deepEqual(first.value.changed.sort(), [hooks, mcp].sort());
    assert.equal(fs.existsSync(path.join(root, '.github')), false, 'nothing is written into the project');
    assert.deepEqual(JSON.parse(read(hooks)), HOOKS_FILE);
    const servers = parse(read(mcp)).mcpServers;
    assert.deepEqual(servers.github, { type: 'http', url: 'https://example.invalid/mcp' });
    assert.deepEqual(servers['agent-context'], { type: 'local', command: '/usr/bin/node', args: ['/opt/ac/mcp.js', '--allow-run'], tools: ['*'] });
    assert.ok(read(mcp).startsWith('{\n  "mcpServers": {\n    "github": { "type": "http", "url": "https://example.invalid/mcp" }'), read(mcp));
    const again = await setUpAgent(vscodeCopilotSetup, root, home, paths);
    assert.ok(again.ok);
    assert.deepEqual(again.value.changed, []);
    const undone = await undoAgent(vscodeCopilotSetup, root, home);
    assert.ok(undone.ok, undone.ok ? '' : undone.error.message);
    assert.equal(read(mcp), mine);
    assert.equal(fs.existsSync(hooks), false);
  });

  test('with Copilot CLI set up too, both share the one hook file (never two hooks per call); each undo removes only what it added', async () => {
    const root = tmp('vc-root-');
    const home = tmp('vc-home-');
    assert.ok((await setUpAgent(copilotCliSetup, root, home, paths)).ok);
    const hooks = path.join(home, '.copilot/hooks/agent-context.json');
    const harness = await setUpAgent(vscodeCopilotSetup, root, home, paths);
    assert.ok(harness.ok);
    assert.ok(!harness.value.changed.includes(hooks), 'the shared hook file was rewritten');
    assert.deepEqual(fs.readdirSync(path.join(home, '.copilot/hooks')), ['agent-context.json']);
    const u = await undoAgent(vscodeCopilotSetup, root, home);
    assert.ok(u.ok);
    assert.ok(fs.existsSync(hooks), 'the harness undo removed the hook file the CLI set-up created');
    // mcp-config.json was the harness set-up's own: it goes with the undo.
    assert.equal(fs.existsSync(path.join(home, '.copilot/mcp-config.json')), false);
  });

  test('a server of the user\'s own named agent-context is refused, nothing written', async () => {
    const home = tmp('vc-home-');
    fs.mkdirSync(path.join(home, '.copilot'));
    const mcp = path.join(home, '.copilot/mcp-config.json');
    fs.writeFileSync(mcp, '{"mcpServers":{"agent-context":{"type":"local","command":"x","args":["y"]}}}');
    const r = await setUpAgent(vscodeCopilotSetup, tmp('vc-root-'), home, paths);
    assert.equal(r.ok, false);
    assert.equal(fs.existsSync(path.join(home, '.copilot/hooks/agent-context.json')), false);
  });
});

test('the Copilot hook file\'s command runs under /bin/sh (VS Code\'s Copilot Chat) and bash (Copilot CLI) alike: it exits 0 and reads all of a large input', async () => {
  const dist = fakeDist();
  const cwd = tmp('cp-sh-');
  const root = tmp('cp-root-');
  const home = tmp('cp-home-');
  assert.ok((await setUpAgent(copilotCliSetup, root, home, { node: process.execPath, dist })).ok);
  const file = JSON.parse(read(path.join(home, '.copilot/hooks/agent-context.json'))) as { hooks: Record<string, { bash: string }[]> };
  const command = file.hooks.postToolUse[0].bash;
  // Another tool's call with a 200 KB result: the hook must read all of it (the editor writes it whole) and end quietly.
  const input = JSON.stringify({ sessionId: 's', toolName: 'view', toolArgs: { path: '/x' }, toolResult: { resultType: 'success', textResultForLlm: 'x'.repeat(200_000) } });
  for (const shell of ['/bin/sh', 'bash']) {
    const r = spawnSync(shell, ['-c', command], { cwd, input, encoding: 'utf8', env: { PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`, HOME: home } });
    assert.equal(r.error, undefined, `${shell}: ${r.error?.message}`); // EPIPE: it ended before reading its input
    assert.equal(r.status, 0, `${shell}: ${r.stderr}`);
    assert.equal(r.stderr, '', shell);
  }
});
