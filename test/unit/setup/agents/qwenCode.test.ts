// Qwen Code's set-up (its project .qwen/settings.json: the MCP server with alwaysLoadTools, the
// SessionStart briefing), without Qwen itself (the real CLI runs it in the qwen-code test run).
import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { editQwenSettings, qwenCodeSetup } from '../../../../src/core/setup/agents/qwenCode';
import { setUpAgent, undoAgent } from '../../../../src/core/setup/agents/agentSetup';

const paths = { node: '/usr/bin/node', dist: '/opt/ac' };
// Read into the `bash -c` Qwen runs each hook command with (`.`), not a second bash.
const HOOK = 'AGENT_CONTEXT_NODE=/usr/bin/node . /opt/ac/agent-hook.sh qwen-code SessionStart';
const hookOf = (event: string): string => HOOK.replace('SessionStart', event);
const tmp = (p: string): string => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), p)));

function edited(text: string | undefined): string {
  const r = editQwenSettings(text, 'settings.json', '/ws', paths);
  assert.ok(r.ok, r.ok ? '' : r.error.message);
  return r.value.text!;
}

describe('Qwen Code settings edits', () => {
  test('a new settings.json gets our server with alwaysLoadTools (its tools not hidden behind tool_search; not trusted: Qwen keeps asking) and the SessionStart briefing', () => {
    const s = JSON.parse(edited(undefined));
    assert.deepEqual(s.mcpServers['agent-context'], { command: '/usr/bin/node', args: ['/opt/ac/mcp.js', '--root', '/ws', '--allow-run'], alwaysLoadTools: true });
    assert.deepEqual(s.hooks, {
      SessionStart: [{ hooks: [{ type: 'command', command: HOOK }] }],
      // Its shell tool's calls, into the agent-command history (no other tool starts the hook).
      PostToolUse: [{ matcher: 'run_shell_command', hooks: [{ type: 'command', command: hookOf('PostToolUse') }] }],
      PostToolUseFailure: [{ matcher: 'run_shell_command', hooks: [{ type: 'command', command: hookOf('PostToolUseFailure') }] }],
    });
  });

  test('keeps comments, other keys and the user\'s own hooks byte for byte; running twice changes nothing; the undo takes out only ours', () => {
    const mine = '{\n  // my settings\n  "model": { "name": "qwen3-coder-plus" },\n  "hooks": {\n    "SessionStart": [ { "hooks": [ { "type": "command", "command": "echo hi" } ] } ]\n  }\n}\n';
    const once = edited(mine);
    assert.ok(once.startsWith('{\n  // my settings\n  "model": { "name": "qwen3-coder-plus" },\n  "hooks": {\n    "SessionStart": [ { "hooks": [ { "type": "command", "command": "echo hi" } ] }'), once);
    assert.equal(edited(once), once);
    const r = editQwenSettings(mine, 'settings.json', '/ws', paths);
    assert.ok(r.ok);
    assert.deepEqual(r.value.created, ['mcpServers', 'hooks/PostToolUse', 'hooks/PostToolUseFailure']);
    const undone = editQwenSettings(once, 'settings.json', '/ws', undefined, r.value.created);
    assert.ok(undone.ok);
    assert.equal(undone.value.text, mine);
  });

  test('an earlier set-up\'s entries (a second `bash` per hook) are replaced by the sourced ones, not added beside them', () => {
    const old = JSON.parse(edited(undefined));
    for (const ev of Object.keys(old.hooks)) old.hooks[ev][0].hooks[0].command = hookOf(ev).replace(' . ', ' bash ');
    const s = JSON.parse(edited(JSON.stringify(old, null, 2)));
    assert.deepEqual(s.hooks, JSON.parse(edited(undefined)).hooks);
  });

  test('an entry of the user\'s own under our name is neither replaced nor removed; a file it cannot parse is refused, naming the file', () => {
    const theirs = '{ "mcpServers": { "agent-context": { "command": "other" } } }\n';
    const r = editQwenSettings(theirs, '/ws/.qwen/settings.json', '/ws', paths);
    assert.equal(r.ok, false);
    if (!r.ok) assert.match(r.error.message, /did not write/);
    const u = editQwenSettings(theirs, '/ws/.qwen/settings.json', '/ws', undefined, []);
    assert.ok(u.ok);
    assert.equal(u.value.text, theirs);
    for (const bad of ['{ "a": 1 \n "b": 2 }', '[1]', '{ "hooks": [] }', '{ "hooks": { "SessionStart": {} } }', '{ "mcpServers": [] }']) {
      const b = editQwenSettings(bad, '/ws/.qwen/settings.json', '/ws', paths);
      assert.equal(b.ok, false, bad);
      if (!b.ok) assert.equal(b.error.file, '/ws/.qwen/settings.json');
    }
  });
});

describe('Qwen Code set-up and undo', () => {
  test('writes settings.json once and git-excludes it; undo gives back the file and the exclude byte for byte', async () => {
    const root = tmp('qw-root-');
    const home = tmp('qw-home-');
    spawnSync('git', ['init', '-q', root]);
    fs.mkdirSync(path.join(root, '.qwen'));
    const file = path.join(root, '.qwen/settings.json');
    const mine = '{\n  // mine\n  "general": { "vimMode": true }\n}\n';
    fs.writeFileSync(file, mine);
    const exclude = fs.readFileSync(path.join(root, '.git/info/exclude'), 'utf8');
    const first = await setUpAgent(qwenCodeSetup, root, home, paths);
    assert.ok(first.ok, first.ok ? '' : first.error.message);
    assert.deepEqual(first.value.changed.sort(), [file, path.join(root, '.git/info/exclude')].sort());
    assert.match(fs.readFileSync(path.join(root, '.git/info/exclude'), 'utf8'), /^\/?\.qwen\/settings\.json$/m);
    const second = await setUpAgent(qwenCodeSetup, root, home, paths);
    assert.ok(second.ok);
    assert.deepEqual(second.value.changed, []);
    const undone = await undoAgent(qwenCodeSetup, root, home);
    assert.ok(undone.ok, undone.ok ? '' : undone.error.message);
    assert.equal(fs.readFileSync(file, 'utf8'), mine);
    assert.equal(fs.readFileSync(path.join(root, '.git/info/exclude'), 'utf8'), exclude);
  });

  test('a settings.json the set-up created is removed by the undo; a committed one is refused with the entries to add', async () => {
    const root = tmp('qw-root-');
    const home = tmp('qw-home-');
    assert.ok((await setUpAgent(qwenCodeSetup, root, home, paths)).ok);
    assert.ok(fs.existsSync(path.join(root, '.qwen/settings.json')));
    assert.ok((await undoAgent(qwenCodeSetup, root, home)).ok);
    assert.equal(fs.existsSync(path.join(root, '.qwen/settings.json')), false);

    const r2 = tmp('qw-root-');
    spawnSync('git', ['init', '-q', r2]);
    fs.mkdirSync(path.join(r2, '.qwen'));
    fs.writeFileSync(path.join(r2, '.qwen/settings.json'), '{}\n');
    spawnSync('git', ['add', '.qwen/settings.json'], { cwd: r2 });
    const r = await setUpAgent(qwenCodeSetup, r2, home, paths);
    assert.equal(r.ok, false);
    if (!r.ok) assert.match(r.error.message, /committed to git[\s\S]*"alwaysLoadTools": true[\s\S]*agent-hook\.sh qwen-code SessionStart/);
    assert.equal(fs.readFileSync(path.join(r2, '.qwen/settings.json'), 'utf8'), '{}\n');
  });
  test('a created settings.json that Qwen stamped with its "$version" is removed by the undo (folder too); one the user added to after keeps their key and the stamp', async () => {
    // What Qwen 0.24.4 does to the file on its first start (seen in the qwen-code run): it appends
    // `"$version": 4` to the object, keeping the rest of the text.
    const stamp = (file: string): void => fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/\n\}\n$/, ',\n  "$version": 4\n}\n'));
    const root = tmp('qw-root-');
    const home = tmp('qw-home-');
    const file = path.join(root, '.qwen/settings.json');
    assert.ok((await setUpAgent(qwenCodeSetup, root, home, paths)).ok);
    stamp(file);
    assert.match(fs.readFileSync(file, 'utf8'), /"\$version": 4\n\}\n$/);
    assert.ok((await undoAgent(qwenCodeSetup, root, home)).ok);
    assert.equal(fs.existsSync(path.join(root, '.qwen')), false);

    assert.ok((await setUpAgent(qwenCodeSetup, root, home, paths)).ok);
    stamp(file);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^\{\n/, '{\n  "general": { "vimMode": true },\n'));
    assert.ok((await undoAgent(qwenCodeSetup, root, home)).ok);
    assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')), { general: { vimMode: true }, $version: 4 });
  });
});
