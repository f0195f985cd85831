// Claude Code's set-up (settings edits, local-scope MCP server, undo), without Claude Code itself
// (the real CLI runs the written configuration in the claude-code test runs: test/realClient/).
import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { editClaudeSettings, editClaudeUserConfig, claudeCodeSetup } from '../../../../src/core/setup/agents/claudeCode';
import { setUpAgent, undoAgent } from '../../../../src/core/setup/agents/agentSetup';

const paths = { node: '/usr/bin/node', dist: '/opt/ac' };
const HOOK = 'AGENT_CONTEXT_NODE=/usr/bin/node bash /opt/ac/agent-hook.sh claude-code SessionStart';
const tmp = (p: string): string => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), p)));

function edited(text: string | undefined): string {
  const r = editClaudeSettings(text, 'settings.local.json', paths);
  assert.ok(r.ok, r.ok ? '' : r.error.message);
  return r.value.text!;
}

describe('Claude Code settings edits', () => {
  test('a new settings.local.json gets the SessionStart hook and plansDirectory, and no Bash hook', () => {
    const s = JSON.parse(edited(undefined));
    assert.equal(s.plansDirectory, '.agent/plans');
    assert.deepEqual(s.hooks, { SessionStart: [{ hooks: [{ type: 'command', command: HOOK }] }] });
  });

  test('keeps every other key, their order, other hooks and the 4-space indent byte for byte; running twice changes nothing', () => {
    const before = `{
    "permissions": {
        "allow": ["Bash(npm test:*)"]
    },
    "hooks": {
        "PostToolUse": [
            { "matcher": "Edit", "hooks": [{ "type": "command", "command": "prettier --write" }] }
        ]
    },
    "model": "opus"
}
`;
    const once = edited(before);
    assert.ok(once.startsWith(`{
    "permissions": {
        "allow": ["Bash(npm test:*)"]
    },
    "hooks": {
        "PostToolUse": [
            { "matcher": "Edit", "hooks": [{ "type": "command", "command": "prettier --write" }] }
        ],`), once);
    const s = JSON.parse(once);
    assert.deepEqual(Object.keys(s), ['permissions', 'hooks', 'model', 'plansDirectory']);
    assert.equal(edited(once), once);
  });

  test('the earlier hook (PreToolUse/PostToolUse → claude-hook.js, which rewrote commands) is removed; the user\'s own entries stay', () => {
    const old = JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'node /old/claude-hook.js' }] }, { matcher: 'Bash', hooks: [{ type: 'command', command: 'audit.sh' }] }], PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'node /old/claude-hook.js' }] }] } }, null, 2);
    const s = JSON.parse(edited(old));
    assert.deepEqual(s.hooks.PreToolUse, [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'audit.sh' }] }]);
    assert.equal(s.hooks.PostToolUse, undefined);
    assert.equal(s.hooks.SessionStart.length, 1);
  });

  test('keeps the user\'s own plansDirectory and says so', () => {
    const r = editClaudeSettings('{ "plansDirectory": "docs/plans" }', 'f', paths);
    assert.ok(r.ok);
    assert.equal(JSON.parse(r.value.text!).plansDirectory, 'docs/plans');
    assert.match(r.value.notes.join(' '), /Kept your plansDirectory/);
  });

  test('refuses a file it cannot parse (comments, trailing comma) or whose hooks are not an object, naming the file and line', () => {
    for (const bad of ['{ // mine\n "a": 1 }', '{ "a": 1, }', '[1]', '{ "hooks": [] }', '{ "hooks": { "PreToolUse": {} } }']) {
      const r = editClaudeSettings(bad, '/ws/.claude/settings.local.json', paths);
      assert.equal(r.ok, false, bad);
      if (!r.ok) {
        assert.equal(r.error.file, '/ws/.claude/settings.local.json');
        assert.match(r.error.message, /Nothing was changed/);
      }
    }
  });

  test('~/.claude.json: our server at local scope for this project, other projects and keys untouched', () => {
    const before = JSON.stringify({ numStartups: 3, projects: { '/other': { mcpServers: { x: { command: 'x' } } }, '/ws': { allowedTools: [] } } }, null, 2);
    const r = editClaudeUserConfig(before, '~/.claude.json', '/ws', paths);
    assert.ok(r.ok);
    const c = JSON.parse(r.value.text!);
    assert.equal(c.numStartups, 3);
    assert.deepEqual(c.projects['/other'], { mcpServers: { x: { command: 'x' } } });
    assert.deepEqual(c.projects['/ws'].allowedTools, []);
    assert.deepEqual(c.projects['/ws'].mcpServers['agent-context'], { type: 'stdio', command: '/usr/bin/node', args: ['/opt/ac/mcp.js', '--root', '/ws', '--allow-run'], env: {} });
    assert.deepEqual(r.value.created, ['projects', '/ws', 'mcpServers']);
  });
});

describe('Claude Code set-up and undo', () => {
  test('writes both files once, keeps ~/.claude.json private, git-excludes settings.local.json; undo gives back every file byte for byte', async () => {
    const root = tmp('cc-root-');
    const home = tmp('cc-home-');
    spawnSync('git', ['init', '-q', root]);
    fs.mkdirSync(path.join(root, '.agent'));
    const user = '{\n  "numStartups": 1,\n  "projects": {\n    "/elsewhere": {}\n  }\n}\n';
    fs.writeFileSync(path.join(home, '.claude.json'), user, { mode: 0o600 });
    const settings = path.join(root, '.claude/settings.local.json');
    fs.mkdirSync(path.dirname(settings));
    const mine = '{\n  "model": "opus",\n  "hooks": {\n    "Stop": [ { "hooks": [ { "type": "command", "command": "say done" } ] } ]\n  }\n}\n';
    fs.writeFileSync(settings, mine);
    const exclude = fs.readFileSync(path.join(root, '.git/info/exclude'), 'utf8');

    const first = await setUpAgent(claudeCodeSetup, root, home, paths);
    assert.ok(first.ok, first.ok ? '' : first.error.message);
    assert.equal(first.value.changed.length, 3);
    assert.equal(fs.statSync(path.join(home, '.claude.json')).mode & 0o777, 0o600);
    const status = spawnSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: root, encoding: 'utf8' }).stdout;
    assert.doesNotMatch(status, /settings\.local\.json/);
    const second = await setUpAgent(claudeCodeSetup, root, home, paths);
    assert.ok(second.ok);
    assert.deepEqual(second.value.changed, []);

    const undone = await undoAgent(claudeCodeSetup, root, home);
    assert.ok(undone.ok, undone.ok ? '' : undone.error.message);
    assert.equal(fs.readFileSync(settings, 'utf8'), mine);
    assert.equal(fs.readFileSync(path.join(home, '.claude.json'), 'utf8'), user);
    assert.equal(fs.readFileSync(path.join(root, '.git/info/exclude'), 'utf8'), exclude);
  });

  test('nothing is written when a file is broken', async () => {
    const root = tmp('cc-root-');
    const home = tmp('cc-home-');
    fs.mkdirSync(path.join(root, '.claude'));
    fs.writeFileSync(path.join(root, '.claude/settings.local.json'), '{ "a": 1, }');
    fs.writeFileSync(path.join(home, '.claude.json'), '{}\n');
    const r = await setUpAgent(claudeCodeSetup, root, home, paths);
    assert.equal(r.ok, false);
    assert.equal(fs.readFileSync(path.join(root, '.claude/settings.local.json'), 'utf8'), '{ "a": 1, }');
    assert.equal(fs.readFileSync(path.join(home, '.claude.json'), 'utf8'), '{}\n');
  });
});
