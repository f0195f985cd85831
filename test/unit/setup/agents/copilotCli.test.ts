// GitHub Copilot CLI's set-up (the project's .github/mcp.json, the postToolUse hook in
// $COPILOT_HOME/settings.json), without Copilot CLI itself (the real CLI runs the written
// configuration in the copilot-cli test run).
import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse } from 'jsonc-parser';
import { copilotCliSetup, editCopilotMcp, editCopilotSettings } from '../../../../src/core/setup/agents/copilotCli';
import { setUpAgent, undoAgent } from '../../../../src/core/setup/agents/agentSetup';

const paths = { node: '/usr/bin/node', dist: '/opt/ac' };
const HOOK = { type: 'command', bash: 'AGENT_CONTEXT_NODE=/usr/bin/node bash /opt/ac/agent-hook.sh copilot-cli postToolUse', timeoutSec: 30 };
const tmp = (p: string): string => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), p)));
const read = (f: string): string => fs.readFileSync(f, 'utf8');

describe('Copilot CLI config edits', () => {
  test('a new .github/mcp.json gets our server; a new settings.json gets the postToolUse hook, no preToolUse (the command is never rewritten)', () => {
    const m = editCopilotMcp(undefined, 'mcp.json', '/ws', paths);
    assert.ok(m.ok);
    if (m.ok) assert.deepEqual(JSON.parse(m.value.text!), { mcpServers: { 'agent-context': { command: '/usr/bin/node', args: ['/opt/ac/mcp.js', '--root', '/ws', '--allow-run'] } } });
    const s = editCopilotSettings(undefined, 'settings.json', paths);
    assert.ok(s.ok);
    if (s.ok) {
      assert.deepEqual(JSON.parse(s.value.text!), { hooks: { postToolUse: [HOOK] } });
      assert.equal(s.value.added, true);
    }
  });

  test('keeps the user\'s settings, comments and hooks byte for byte; running twice changes nothing', () => {
    const mine = '{\n  // mine\n  "model": "claude-sonnet-4.5",\n  "hooks": {\n    "postToolUse": [{ "type": "command", "bash": "audit.sh" }]\n  }\n}\n';
    const once = editCopilotSettings(mine, 'settings.json', paths);
    assert.ok(once.ok);
    if (!once.ok) return;
    assert.ok(once.value.text!.startsWith('{\n  // mine\n  "model": "claude-sonnet-4.5",\n  "hooks": {\n    "postToolUse": [{ "type": "command", "bash": "audit.sh" }'), once.value.text);
    assert.deepEqual(parse(once.value.text!).hooks.postToolUse, [{ type: 'command', bash: 'audit.sh' }, HOOK]);
    const twice = editCopilotSettings(once.value.text, 'settings.json', paths);
    assert.ok(twice.ok && twice.value.text === once.value.text && !twice.value.added);
  });

  test('refuses a file it cannot parse (naming its line) and a server named agent-context of the user\'s own', () => {
    const bad = editCopilotMcp('{\n  "mcpServers": {\n    "x": { command: "y" }\n  }\n}\n', '/ws/.github/mcp.json', '/ws', paths);
    assert.equal(bad.ok, false);
    if (!bad.ok) {
      assert.equal(bad.error.line, 3);
      assert.match(bad.error.message, /not valid JSON.*Nothing was changed/);
    }
    assert.equal(editCopilotMcp('{ "mcpServers": { "agent-context": { "command": "x" } } }', 'f', '/ws', paths).ok, false);
    assert.equal(editCopilotSettings('{ "hooks": { "postToolUse": {} } }', 'f', paths).ok, false);
  });
});

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

    const first = await setUpAgent(copilotCliSetup, root, home, paths);
    assert.ok(first.ok, first.ok ? '' : first.error.message);
    assert.deepEqual(first.value.changed.sort(), [mcp, settings, path.join(root, '.git/info/exclude')].sort());
    assert.match(first.value.notes.join(' '), /trusted/);
    assert.doesNotMatch(spawnSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: root, encoding: 'utf8' }).stdout, /mcp\.json/);
    assert.deepEqual(parse(read(settings)).hooks, { postToolUse: [HOOK], sessionStart: [{ ...HOOK, bash: HOOK.bash.replace('postToolUse', 'sessionStart') }] });
    const second = await setUpAgent(copilotCliSetup, root, home, paths);
    assert.ok(second.ok);
    assert.deepEqual(second.value.changed, []);

    const undone = await undoAgent(copilotCliSetup, root, home);
    assert.ok(undone.ok, undone.ok ? '' : undone.error.message);
    assert.equal(fs.existsSync(mcp), false);
    assert.equal(read(settings), mine);
    assert.equal(read(path.join(root, '.git/info/exclude')), exclude);
  });

  test('the user-scope hook is one for every project: a second project\'s undo leaves it; the first one\'s removes it, saying so', async () => {
    const home = tmp('cp-home-');
    const a = tmp('cp-a-');
    const b = tmp('cp-b-');
    assert.ok((await setUpAgent(copilotCliSetup, a, home, paths)).ok);
    assert.ok((await setUpAgent(copilotCliSetup, b, home, paths)).ok);
    const settings = path.join(home, '.copilot/settings.json');
    assert.equal(parse(read(settings)).hooks.postToolUse.length, 1);
    assert.equal(parse(read(settings)).hooks.sessionStart.length, 1);
    const ub = await undoAgent(copilotCliSetup, b, home);
    assert.ok(ub.ok);
    assert.match(ub.value.notes.join(' '), /Kept the output hook/);
    assert.equal(parse(read(settings)).hooks.postToolUse.length, 1);
    assert.equal(fs.existsSync(path.join(b, '.github/mcp.json')), false);
    const ua = await undoAgent(copilotCliSetup, a, home);
    assert.ok(ua.ok);
    assert.match(ua.value.notes.join(' '), /Removed the output hook/);
    assert.equal(fs.existsSync(settings), false);
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
    assert.equal(fs.existsSync(path.join(home, '.copilot/settings.json')), false);

    const root2 = tmp('cp-root-');
    fs.mkdirSync(path.join(home, '.copilot'), { recursive: true });
    fs.writeFileSync(path.join(home, '.copilot/settings.json'), '{ "model": }\n');
    const b = await setUpAgent(copilotCliSetup, root2, home, paths);
    assert.equal(b.ok, false);
    assert.equal(fs.existsSync(path.join(root2, '.github/mcp.json')), false);
    assert.equal(read(path.join(home, '.copilot/settings.json')), '{ "model": }\n');
  });
});
