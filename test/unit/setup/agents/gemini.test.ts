// Gemini CLI's set-up (its project settings.json: MCP server and the AfterTool hook), without Gemini itself.
import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { editGeminiSettings, geminiSetup } from '../../../../src/core/setup/agents/gemini';
import { setUpAgent, undoAgent } from '../../../../src/core/setup/agents/agentSetup';

const paths = { node: '/usr/bin/node', dist: '/opt/ac' };
const HOOK = 'AGENT_CONTEXT_NODE=/usr/bin/node bash /opt/ac/agent-hook.sh gemini AfterTool';
const tmp = (p: string): string => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), p)));

function edited(text: string | undefined): string {
  const r = editGeminiSettings(text, 'settings.json', '/ws', paths);
  assert.ok(r.ok, r.ok ? '' : r.error.message);
  return r.value.text!;
}

describe('Gemini settings edits', () => {
  test('a new settings.json gets our server (not trusted: Gemini keeps asking) and the AfterTool hook on run_shell_command; no BeforeTool rewrite', () => {
    const s = JSON.parse(edited(undefined));
    assert.equal(s.mcpServers['agent-context'].trust, undefined);
    assert.deepEqual(s.mcpServers['agent-context'], { command: '/usr/bin/node', args: ['/opt/ac/mcp.js', '--root', '/ws', '--allow-run'] });
    assert.deepEqual(s.hooks, { AfterTool: [{ matcher: 'run_shell_command', hooks: [{ name: 'agent-context', type: 'command', command: HOOK }] }] });
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

describe('Gemini set-up and undo', () => {
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
    assert.equal(first.value.changed.length, 2);
    const second = await setUpAgent(geminiSetup, root, home, paths);
    assert.ok(second.ok);
    assert.deepEqual(second.value.changed, []);
    const undone = await undoAgent(geminiSetup, root, home);
    assert.ok(undone.ok, undone.ok ? '' : undone.error.message);
    assert.equal(fs.readFileSync(file, 'utf8'), mine);
    assert.equal(fs.readFileSync(path.join(root, '.git/info/exclude'), 'utf8'), exclude);
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
