// "Set Up Claude Code" (settings edits) and the Bash hook program, without Claude Code itself
// (the real CLI drives the hook in the claude-code test run: test/realClient/).
import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { editClaudeSettings, editClaudeUserConfig, setUpClaudeCode } from '../../../../src/core/setup/agents/claudeCode';
import { postToolUse, preToolUse } from '../../../../src/core/hooks/bashHook';
import { ledgerPath } from '../../../../src/core/history/ledger';

const paths = { node: '/usr/bin/node', hookJs: '/opt/ac/claude-hook.js', mcpJs: '/opt/ac/mcp.js' };
const tmp = (p: string): string => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), p)));
const hookJs = require.resolve('../../../../src/hooks/main');

function edited(text: string | undefined): string {
  const r = editClaudeSettings(text, 'settings.local.json', paths);
  assert.ok(r.ok, r.ok ? '' : r.error.message);
  return r.value.text;
}

describe('Claude Code settings edits', () => {
  test('a new settings.local.json gets both Bash hooks and plansDirectory', () => {
    const s = JSON.parse(edited(undefined));
    assert.equal(s.plansDirectory, '.agent/plans');
    for (const ev of ['PreToolUse', 'PostToolUse']) {
      assert.deepEqual(s.hooks[ev], [{ matcher: 'Bash', hooks: [{ type: 'command', command: '/usr/bin/node /opt/ac/claude-hook.js' }] }]);
    }
  });

  test('keeps every other key, the key order, other hooks and the 4-space indent; running twice changes nothing', () => {
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
    const s = JSON.parse(once);
    assert.deepEqual(Object.keys(s), ['permissions', 'hooks', 'model', 'plansDirectory']);
    assert.deepEqual(s.permissions, { allow: ['Bash(npm test:*)'] });
    assert.equal(s.hooks.PostToolUse.length, 2);
    assert.equal(s.hooks.PostToolUse[0].matcher, 'Edit');
    assert.match(once, /\n {4}"permissions": \{\n {8}"allow"/);
    assert.ok(once.endsWith('}\n'));
    const again = editClaudeSettings(once, 'settings.local.json', paths);
    assert.ok(again.ok);
    assert.equal(again.value.changed, false);
    assert.equal(again.value.text, once);
  });

  test('an entry of ours with an old path is replaced in place, not duplicated', () => {
    const old = JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'node /old/claude-hook.js' }] }, { matcher: 'Bash', hooks: [{ type: 'command', command: 'audit.sh' }] }] } }, null, 2);
    const s = JSON.parse(edited(old));
    assert.equal(s.hooks.PreToolUse.length, 2);
    assert.equal(s.hooks.PreToolUse[0].hooks[0].command, '/usr/bin/node /opt/ac/claude-hook.js');
    assert.equal(s.hooks.PreToolUse[1].hooks[0].command, 'audit.sh');
  });

  test('refuses a file it cannot parse (comments, trailing comma) or whose hooks are not an object, naming the file', () => {
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
    const c = JSON.parse(r.value.text);
    assert.equal(c.numStartups, 3);
    assert.deepEqual(c.projects['/other'], { mcpServers: { x: { command: 'x' } } });
    assert.deepEqual(c.projects['/ws'].allowedTools, []);
    assert.deepEqual(c.projects['/ws'].mcpServers['agent-context'], { type: 'stdio', command: '/usr/bin/node', args: ['/opt/ac/mcp.js', '--root', '/ws', '--allow-run'], env: {} });
  });

  test('setUpClaudeCode: writes both files once, keeps ~/.claude.json private, excludes settings.local.json from git; nothing written when a file is broken', async () => {
    const root = tmp('cc-root-');
    const home = tmp('cc-home-');
    spawnSync('git', ['init', '-q', root]);
    fs.writeFileSync(path.join(home, '.claude.json'), '{\n  "numStartups": 1\n}\n', { mode: 0o600 });
    const first = await setUpClaudeCode(root, home, paths);
    assert.ok(first.ok);
    assert.equal(first.value.changed.length, 2);
    assert.equal(fs.statSync(path.join(home, '.claude.json')).mode & 0o777, 0o600);
    assert.ok(fs.statSync(path.join(root, '.agent/plans')).isDirectory());
    assert.ok(fs.existsSync(path.join(root, '.agent/.gitignore')), '.agent/ created by the setup gets its .gitignore');
    const status = spawnSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: root, encoding: 'utf8' }).stdout;
    assert.doesNotMatch(status, /settings\.local\.json/);
    const second = await setUpClaudeCode(root, home, paths);
    assert.ok(second.ok);
    assert.deepEqual(second.value.changed, []);

    const settings = path.join(root, '.claude/settings.local.json');
    fs.writeFileSync(settings, '{ "a": 1, }');
    const userBefore = fs.readFileSync(path.join(home, '.claude.json'), 'utf8');
    const third = await setUpClaudeCode(root, tmp('cc-home2-'), paths);
    assert.equal(third.ok, false);
    assert.equal(fs.readFileSync(settings, 'utf8'), '{ "a": 1, }');
    assert.equal(fs.readFileSync(path.join(home, '.claude.json'), 'utf8'), userBefore);
  });
});

/** Runs a PreToolUse-wrapped command in bash the way Claude Code does (eval in a shell). */
function runWrapped(root: string, command: string): { stdout: string; status: number | null; pwd: string } {
  const out = preToolUse({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command, description: 'x' } }, root, { node: process.execPath, script: hookJs }) as { hookSpecificOutput: { updatedInput: { command: string; description: string } } };
  assert.equal(out.hookSpecificOutput.updatedInput.description, 'x');
  const wrapped = out.hookSpecificOutput.updatedInput.command;
  const pwdFile = path.join(root, '.pwd');
  const r = spawnSync('bash', ['-c', `cd ${JSON.stringify(root)}; eval "$1" < /dev/null && pwd -P >| ${JSON.stringify(pwdFile)}`, 'bash', wrapped], { encoding: 'utf8' });
  return { stdout: r.stdout, status: r.status, pwd: fs.existsSync(pwdFile) ? fs.readFileSync(pwdFile, 'utf8').trim() : '' };
}

describe('Claude Code Bash hook', () => {
  test('a noisy failing build: the reference with every error line and its number, the exit code kept, the output saved masked', () => {
    const root = tmp('hook-');
    const build = `for i in $(seq 1 3000); do echo "step $i ok"; done; echo "error: first"; echo "token=ghp_${'a'.repeat(36)}"; echo "FATAL: second"; for i in $(seq 1 3000); do echo "step $i ok"; done; exit 2`;
    const r = runWrapped(root, build);
    assert.equal(r.status, 2);
    assert.ok(Buffer.byteLength(r.stdout) <= 2048, `${Buffer.byteLength(r.stdout)} bytes`);
    assert.match(r.stdout, /exit 2/);
    assert.match(r.stdout, /L3001: error: first/);
    assert.match(r.stdout, /L3003: FATAL: second/);
    const saved = /Output saved: (\S+)/.exec(r.stdout)![1];
    const text = fs.readFileSync(path.join(root, saved), 'utf8');
    assert.equal(text.split('\n').length - 1, 6003);
    assert.doesNotMatch(text, /ghp_a{36}/);
    const ledger = fs.readFileSync(ledgerPath(path.join(root, '.agent')), 'utf8');
    assert.match(ledger, /"tool":"Bash","source":"claude-code"/);
    assert.ok(fs.existsSync(path.join(root, '.agent/.gitignore')));
  });

  test('small output passes through as it was, nothing kept; exit inside the command still reports; cd sticks', () => {
    const root = tmp('hook-');
    fs.mkdirSync(path.join(root, 'sub'));
    const a = runWrapped(root, 'echo hello; echo oops >&2; exit 3');
    assert.equal(a.status, 3);
    assert.equal(a.stdout, 'hello\noops\n');
    assert.deepEqual(fs.readdirSync(path.join(root, '.agent/scratch/tool_outputs')), []);
    const b = runWrapped(root, 'cd sub && echo in');
    assert.equal(b.stdout, 'in\n');
    assert.equal(b.pwd, path.join(root, 'sub'));
  });

  test('leaves background commands, other tools and already wrapped commands alone', () => {
    const root = tmp('hook-');
    const program = { node: process.execPath, script: hookJs };
    assert.equal(preToolUse({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'sleep 9', run_in_background: true } }, root, program), undefined);
    assert.equal(preToolUse({ hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { file_path: 'x' } }, root, program), undefined);
    const once = preToolUse({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' } }, root, program) as { hookSpecificOutput: { updatedInput: { command: string } } };
    assert.equal(preToolUse({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: once.hookSpecificOutput.updatedInput.command } }, root, program), undefined);
  });

  test('PostToolUse: a large result Claude Code persisted is replaced by the reference in Bash output shape; a small one passes', async () => {
    const root = tmp('hook-');
    const persisted = path.join(root, 'persisted.txt');
    fs.writeFileSync(persisted, Array.from({ length: 20000 }, (_, i) => (i === 9999 ? 'error: deep inside' : `line ${i + 1} fine`)).join('\n') + '\n');
    const out = (await postToolUse({ hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'make', run_in_background: true }, tool_response: { stdout: 'line 1 fine\n', stderr: '', interrupted: false, persistedOutputPath: persisted } }, root)) as { hookSpecificOutput: { hookEventName: string; updatedToolOutput: Record<string, unknown> } };
    assert.equal(out.hookSpecificOutput.hookEventName, 'PostToolUse');
    const o = out.hookSpecificOutput.updatedToolOutput;
    assert.deepEqual(Object.keys(o).sort(), ['interrupted', 'isImage', 'noOutputExpected', 'stderr', 'stdout']);
    assert.match(String(o.stdout), /L10000: error: deep inside/);
    assert.ok(Buffer.byteLength(String(o.stdout)) <= 2048);
    assert.equal(await postToolUse({ hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_response: { stdout: 'a\nb', stderr: '', interrupted: false } }, root), undefined);
  });
});
