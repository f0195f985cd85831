// Gemini CLI's set-up (its project settings.json: MCP server, the AfterTool hook, the plan folder;
// the Plan Mode policy rule), without Gemini itself (the real CLI runs it in the gemini test run).
import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseTomlFile } from '../../../../src/core/setup/agents/codex';
import { editGeminiSettings, geminiPlanPolicy, geminiPlanPolicyFile, geminiSetup } from '../../../../src/core/setup/agents/gemini';
import { setUpAgent, undoAgent } from '../../../../src/core/setup/agents/agentSetup';

const paths = { node: '/usr/bin/node', dist: '/opt/ac' };
// Read into the `bash -c` Gemini runs each hook command with (`.`), not a second bash.
const HOOK = 'AGENT_CONTEXT_NODE=/usr/bin/node . /opt/ac/agent-hook.sh gemini AfterTool';
const tmp = (p: string): string => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), p)));

function edited(text: string | undefined): string {
  const r = editGeminiSettings(text, 'settings.json', '/ws', paths);
  assert.ok(r.ok, r.ok ? '' : r.error.message);
  return r.value.text!;
}

describe('Gemini settings edits', () => {
  test('a new settings.json gets our server (not trusted: Gemini keeps asking), the AfterTool hook on run_shell_command and the SessionStart briefing; no BeforeTool rewrite', () => {
    const s = JSON.parse(edited(undefined));
    assert.equal(s.mcpServers['agent-context'].trust, undefined);
    assert.deepEqual(s.mcpServers['agent-context'], { command: '/usr/bin/node', args: ['/opt/ac/mcp.js', '--root', '/ws', '--allow-run'] });
    assert.deepEqual(s.hooks, {
      AfterTool: [{ matcher: 'run_shell_command', hooks: [{ name: 'agent-context', type: 'command', command: HOOK }] }],
      SessionStart: [{ hooks: [{ name: 'agent-context-briefing', type: 'command', command: HOOK.replace('AfterTool', 'SessionStart') }] }],
    });
  });

  test('a set-up of the earlier version (AfterTool only) gets the SessionStart entry added, the user\'s own SessionStart hooks kept; the undo takes out only ours', () => {
    const earlier = `{\n  "hooks": {\n    "AfterTool": [{ "matcher": "run_shell_command", "hooks": [{ "name": "agent-context", "type": "command", "command": ${JSON.stringify(HOOK)} }] }],\n    "SessionStart": [{ "hooks": [{ "type": "command", "command": "echo hi" }] }]\n  }\n}\n`;
    const r = editGeminiSettings(earlier, 'settings.json', '/ws', paths);
    assert.ok(r.ok);
    const s = JSON.parse(r.value.text!.replace(/^\s*\/\/.*$/gm, ''));
    assert.equal(s.hooks.SessionStart.length, 2);
    assert.equal(s.hooks.SessionStart[0].hooks[0].command, 'echo hi');
    assert.match(s.hooks.SessionStart[1].hooks[0].command, /agent-hook\.sh gemini SessionStart$/);
    assert.equal(s.hooks.AfterTool.length, 1);
    const undone = editGeminiSettings(r.value.text, 'settings.json', '/ws', undefined, r.value.created);
    assert.ok(undone.ok);
    const u = JSON.parse(undone.value.text!);
    assert.deepEqual(u.hooks.SessionStart, [{ hooks: [{ type: 'command', command: 'echo hi' }] }]);
    assert.deepEqual(u.hooks.AfterTool, []);
  });

  test('an earlier set-up\'s entries (a second `bash` per hook) are replaced by the sourced ones, not added beside them', () => {
    const old = JSON.parse(edited(undefined));
    for (const ev of Object.keys(old.hooks)) old.hooks[ev][0].hooks[0].command = old.hooks[ev][0].hooks[0].command.replace(' . ', ' bash ');
    const s = JSON.parse(edited(JSON.stringify(old, null, 2)));
    assert.deepEqual(s.hooks, JSON.parse(edited(undefined)).hooks);
  });

  test('keeps comments, other keys and hooks byte for byte; running twice changes nothing', () => {
    const mine = '{\n  // my settings\n  "model": { "name": "gemini-2.5-pro" },\n  "hooks": {\n    "AfterTool": [ { "matcher": "write_file", "hooks": [ { "type": "command", "command": "prettier" } ] } ]\n  }\n}\n';
    const once = edited(mine);
    assert.ok(once.startsWith('{\n  // my settings\n  "model": { "name": "gemini-2.5-pro" },\n  "hooks": {\n    "AfterTool": [ { "matcher": "write_file", "hooks": [ { "type": "command", "command": "prettier" } ] }'), once);
    assert.equal(edited(once), once);
  });

  test('refuses a file it cannot parse or whose hooks are not an object, naming the file and line', () => {
    for (const bad of ['{ "a": 1 \n "b": 2 }', '[1]', '{ "hooks": [] }', '{ "hooks": { "AfterTool": {} } }']) {
      const r = editGeminiSettings(bad, '/ws/.gemini/settings.json', '/ws', paths);
      assert.equal(r.ok, false, bad);
      if (!r.ok) assert.match(r.error.message, /Nothing was changed/);
    }
    const r = editGeminiSettings('{ "a": 1 \n "b": 2 }', 'f', '/ws', paths);
    assert.equal(!r.ok && r.error.line, 2);
  });
});

describe('Gemini plan folder', () => {
  test('general.plan.directory → .agent/plans when the user has none, inside their own general/plan objects; theirs is kept, with a note', () => {
    assert.equal(JSON.parse(edited(undefined)).general.plan.directory, '.agent/plans');
    const mine = '{\n  "general": {\n    "vimMode": true,\n    "plan": { "modelRouting": false }\n  }\n}\n';
    const once = JSON.parse(edited(mine));
    assert.deepEqual(once.general, { vimMode: true, plan: { modelRouting: false, directory: '.agent/plans' } });
    const theirs = editGeminiSettings('{ "general": { "plan": { "directory": "docs/plans" } } }', 'f', '/ws', paths);
    assert.ok(theirs.ok);
    if (theirs.ok) {
      assert.equal(JSON.parse(theirs.value.text!).general.plan.directory, 'docs/plans');
      assert.match(theirs.value.notes.join(' '), /Kept your general\.plan\.directory \(docs\/plans\)/);
    }
    assert.equal(editGeminiSettings('{ "general": { "plan": true } }', 'f', '/ws', paths).ok, false);
  });

  test('the Plan Mode rule allows write_file/replace of <root>/.agent/plans/<name>.md in plan mode only, nothing else', () => {
    const root = '/home/u/my proj (1)';
    const t = parseTomlFile(geminiPlanPolicy(root), 'p.toml');
    assert.ok(t.ok, t.ok ? '' : t.error.message);
    const rules = (t.ok ? t.value.rule : []) as { toolName: string[]; decision: string; modes: string[]; argsPattern: string }[];
    assert.equal(rules.length, 1);
    assert.deepEqual([rules[0].toolName, rules[0].decision, rules[0].modes], [['write_file', 'replace'], 'allow', ['plan']]);
    // Gemini matches the pattern against the arguments as JSON, each key between NUL characters.
    const re = new RegExp(rules[0].argsPattern);
    const args = (file: string): string => `\0${JSON.stringify('file_path')}:${JSON.stringify(file)}\0`;
    assert.ok(re.test(args(`${root}/.agent/plans/rate-limiting.md`)));
    for (const no of [`${root}/src/x.md`, `${root}/.agent/plans/../x.md`, `${root}/.agent/plans/x.ts`, '/other/.agent/plans/x.md', `${root}x/.agent/plans/x.md`]) assert.equal(re.test(args(no)), false, no);
  });
});

describe('Gemini set-up and undo', () => {
  // Gemini's home comes from GEMINI_CLI_HOME when set: the tests' own home instead.
  const saved = process.env.GEMINI_CLI_HOME;
  before(() => delete process.env.GEMINI_CLI_HOME);
  after(() => {
    if (saved !== undefined) process.env.GEMINI_CLI_HOME = saved;
  });

  test('writes settings.json once and git-excludes it; undo gives back the file and the exclude byte for byte', async () => {
    const root = tmp('gm-root-');
    const home = tmp('gm-home-');
    spawnSync('git', ['init', '-q', root]);
    fs.mkdirSync(path.join(root, '.gemini'));
    const file = path.join(root, '.gemini/settings.json');
    const mine = '{\n  // mine\n  "general": { "vimMode": true }\n}\n';
    fs.writeFileSync(file, mine);
    const exclude = fs.readFileSync(path.join(root, '.git/info/exclude'), 'utf8');
    const first = await setUpAgent(geminiSetup, root, home, paths);
    assert.ok(first.ok, first.ok ? '' : first.error.message);
    const policy = geminiPlanPolicyFile(root, home);
    assert.deepEqual(first.value.changed.sort(), [file, path.join(root, '.git/info/exclude'), policy].sort());
    assert.ok(policy.startsWith(path.join(home, '.gemini/policies/')), policy);
    assert.equal(fs.readFileSync(policy, 'utf8'), geminiPlanPolicy(root));
    const second = await setUpAgent(geminiSetup, root, home, paths);
    assert.ok(second.ok);
    assert.deepEqual(second.value.changed, []);
    const undone = await undoAgent(geminiSetup, root, home);
    assert.ok(undone.ok, undone.ok ? '' : undone.error.message);
    assert.equal(fs.readFileSync(file, 'utf8'), mine);
    assert.equal(fs.readFileSync(path.join(root, '.git/info/exclude'), 'utf8'), exclude);
    assert.equal(fs.existsSync(policy), false);
  });

  test('a plan directory of the user\'s own stays through set-up and undo, and gets no Plan Mode rule; .agent/plans of their own keeps its value after the undo', async () => {
    const root = tmp('gm-root-');
    const home = tmp('gm-home-');
    fs.mkdirSync(path.join(root, '.gemini'));
    const file = path.join(root, '.gemini/settings.json');
    fs.writeFileSync(file, '{ "general": { "plan": { "directory": "docs/plans" } } }\n');
    assert.ok((await setUpAgent(geminiSetup, root, home, paths)).ok);
    assert.equal(fs.existsSync(geminiPlanPolicyFile(root, home)), false);
    assert.ok((await undoAgent(geminiSetup, root, home)).ok);
    assert.equal(fs.readFileSync(file, 'utf8'), '{ "general": { "plan": { "directory": "docs/plans" } } }\n');

    fs.writeFileSync(file, '{ "general": { "plan": { "directory": ".agent/plans" } } }\n');
    assert.ok((await setUpAgent(geminiSetup, root, home, paths)).ok);
    assert.ok(fs.existsSync(geminiPlanPolicyFile(root, home)));
    assert.ok((await undoAgent(geminiSetup, root, home)).ok);
    assert.equal(fs.readFileSync(file, 'utf8'), '{ "general": { "plan": { "directory": ".agent/plans" } } }\n');
    assert.equal(fs.existsSync(geminiPlanPolicyFile(root, home)), false);
  });

  test('a settings.json the set-up created is removed by the undo; a committed one is refused with the entries to add', async () => {
    const root = tmp('gm-root-');
    const home = tmp('gm-home-');
    assert.ok((await setUpAgent(geminiSetup, root, home, paths)).ok);
    assert.ok(fs.existsSync(path.join(root, '.gemini/settings.json')));
    assert.ok((await undoAgent(geminiSetup, root, home)).ok);
    assert.equal(fs.existsSync(path.join(root, '.gemini/settings.json')), false);

    const r2 = tmp('gm-root-');
    spawnSync('git', ['init', '-q', r2]);
    fs.mkdirSync(path.join(r2, '.gemini'));
    fs.writeFileSync(path.join(r2, '.gemini/settings.json'), '{}\n');
    spawnSync('git', ['add', '.gemini/settings.json'], { cwd: r2 });
    const r = await setUpAgent(geminiSetup, r2, home, paths);
    assert.equal(r.ok, false);
    if (!r.ok) assert.match(r.error.message, /committed to git[\s\S]*agent-hook\.sh gemini AfterTool/);
    assert.equal(fs.readFileSync(path.join(r2, '.gemini/settings.json'), 'utf8'), '{}\n');
  });
});
