// Cline CLI's set-up (our server in its user-scope ~/.cline/data/settings/cline_mcp_settings.json),
// without Cline itself (the real CLI runs it in the `cline` test run).
import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { clineHookFile, clineHookText, clineMcpFile, clineSetup } from '../../../../src/core/setup/agents/cline';
import { setUpAgent, undoAgent } from '../../../../src/core/setup/agents/agentSetup';

const paths = { node: '/usr/bin/node', dist: '/opt/ac' };
const tmp = (p: string): string => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), p)));
const read = (f: string): string => fs.readFileSync(f, 'utf8');
/** What `cline mcp add` writes, and what the set-up writes into a new file (byte for byte). */
const NEW_FILE = `{
  "mcpServers": {
    "agent-context": {
      "transport": {
        "type": "stdio",
        "command": "/usr/bin/node",
        "args": [
          "/opt/ac/mcp.js",
          "--allow-run"
        ]
      },
      "timeout": 60
    }
  }
}
`;

describe('Cline set-up and undo', () => {
  const ENV = ['CLINE_DIR', 'CLINE_DATA_DIR', 'CLINE_MCP_SETTINGS_PATH'] as const;
  const saved = ENV.map((k) => process.env[k]);
  before(() => ENV.forEach((k) => delete process.env[k]));
  after(() => ENV.forEach((k, i) => (saved[i] === undefined ? delete process.env[k] : (process.env[k] = saved[i]))));

  test('a new settings file gets our server (no --root: Cline starts it in the folder it works in; a 60 s timeout), nothing in the project; undo removes the file and the folders it made', async () => {
    const root = tmp('cl-root-');
    const home = tmp('cl-home-');
    const file = path.join(home, '.cline/data/settings/cline_mcp_settings.json');
    const r = await setUpAgent(clineSetup, root, home, paths);
    assert.ok(r.ok, r.ok ? '' : r.error.message);
    const hook = clineHookFile(home);
    assert.deepEqual(r.value.changed.sort(), [file, hook].sort());
    assert.equal(read(file), NEW_FILE);
    // Its PostToolUse hook, which records run_commands' commands in the agent-command history.
    assert.equal(read(hook), "# Agent Context: records the commands of Cline's run_commands in .agent/terminals/ (mcp.js --setup cline; --undo cline removes this file).\nAGENT_CONTEXT_NODE=/usr/bin/node . /opt/ac/agent-hook.sh cline PostToolUse\n");
    assert.deepEqual(fs.readdirSync(root).filter((f) => f !== '.agent'), [], 'nothing but .agent/ in the project');
    const u = await undoAgent(clineSetup, root, home);
    assert.ok(u.ok, u.ok ? '' : u.error.message);
    assert.deepEqual(fs.readdirSync(home), []);
  });

  test('keeps the user\'s servers byte for byte; a second run changes nothing; undo gives the file back exactly', async () => {
    const root = tmp('cl-root-');
    const home = tmp('cl-home-');
    const file = clineMcpFile(home);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const mine = '{\n  "mcpServers": {\n    "github": { "transport": { "type": "stdio", "command": "gh-mcp" }, "disabled": true }\n  }\n}\n';
    fs.writeFileSync(file, mine);
    const first = await setUpAgent(clineSetup, root, home, paths);
    assert.ok(first.ok, first.ok ? '' : first.error.message);
    assert.ok(read(file).startsWith('{\n  "mcpServers": {\n    "github": { "transport": { "type": "stdio", "command": "gh-mcp" }, "disabled": true },\n    "agent-context": {'), read(file));
    assert.deepEqual(JSON.parse(read(file)).mcpServers['agent-context'], JSON.parse(NEW_FILE).mcpServers['agent-context']);
    const again = await setUpAgent(clineSetup, root, home, paths);
    assert.ok(again.ok);
    assert.deepEqual(again.value.changed, []);
    assert.ok((await undoAgent(clineSetup, root, home)).ok);
    assert.equal(read(file), mine);
  });

  test('a server of the user\'s own named agent-context (or one with --root) is refused and kept; a file it cannot parse is refused, naming it; nothing written', async () => {
    const home = tmp('cl-home-');
    const file = clineMcpFile(home);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    for (const text of [
      '{"mcpServers":{"agent-context":{"transport":{"type":"stdio","command":"x","args":["y"]}}}}',
      '{"mcpServers":{"agent-context":{"command":"node","args":["/opt/ac/mcp.js","--root","/ws"]}}}',
      '{"mcpServers": [] }',
      '{ "mcpServers": { ',
    ]) {
      fs.writeFileSync(file, text);
      const r = await setUpAgent(clineSetup, tmp('cl-root-'), home, paths);
      assert.equal(r.ok, false, text);
      if (!r.ok) assert.equal(r.error.file, file);
      assert.equal(read(file), text);
      const u = await undoAgent(clineSetup, tmp('cl-root-'), home);
      if (u.ok) assert.equal(read(file), text);
    }
  });

  test('a PostToolUse hook of the user\'s own is left byte for byte (noted: nothing recorded); ours is rewritten and removed by the undo', async () => {
    const root = tmp('cl-root-');
    const home = tmp('cl-home-');
    const hook = clineHookFile(home);
    fs.mkdirSync(path.dirname(hook), { recursive: true });
    fs.writeFileSync(hook, 'echo mine\n');
    const r = await setUpAgent(clineSetup, root, home, paths);
    assert.ok(r.ok, r.ok ? '' : r.error.message);
    assert.equal(read(hook), 'echo mine\n');
    assert.match(r.value.notes.join('\n'), /hook of your own: left as it is/);
    assert.ok((await undoAgent(clineSetup, root, home)).ok);
    assert.equal(read(hook), 'echo mine\n');
    // Ours from an older set-up, its dist path quoted (a space in it).
    fs.writeFileSync(hook, clineHookText({ node: '/old/node', dist: '/old dir/ac' }));
    assert.ok((await setUpAgent(clineSetup, root, home, paths)).ok);
    assert.equal(read(hook), clineHookText(paths));
    assert.ok((await undoAgent(clineSetup, root, home)).ok);
    assert.equal(fs.existsSync(hook), false);
  });

  test('follows Cline\'s own overrides: CLINE_MCP_SETTINGS_PATH, else CLINE_DATA_DIR, else CLINE_DIR', () => {
    const home = '/h';
    assert.equal(clineMcpFile(home), '/h/.cline/data/settings/cline_mcp_settings.json');
    try {
      process.env.CLINE_DIR = '/c';
      assert.equal(clineMcpFile(home), '/c/data/settings/cline_mcp_settings.json');
      process.env.CLINE_DATA_DIR = '/d';
      assert.equal(clineMcpFile(home), '/d/settings/cline_mcp_settings.json');
      process.env.CLINE_MCP_SETTINGS_PATH = '/m.json';
      assert.equal(clineMcpFile(home), '/m.json');
    } finally {
      ENV.forEach((k) => delete process.env[k]);
    }
  });
});
