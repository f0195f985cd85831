// Codex CLI's set-up (its project config.toml: MCP server and the shell capture's environment),
// without Codex itself (the real CLI runs the written configuration in the codex test run).
import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { codexSetup, codexTrusts, editCodexConfig, parseTomlFile } from '../../../../src/core/setup/agents/codex';
import { setUpAgent, undoAgent, type SetupRecord } from '../../../../src/core/setup/agents/agentSetup';

const paths = { node: '/usr/bin/node', dist: '/opt/ac' };
type Cfg = { model?: string; mcp_servers: Record<string, unknown>; shell_environment_policy: { inherit?: string; set?: Record<string, string> } };

/** The parsed TOML as plain objects (smol-toml's tables have no prototype). */
function parse(text: string): unknown {
  const r = parseTomlFile(text, 'config.toml');
  assert.ok(r.ok, r.ok ? '' : r.error.message);
  return JSON.parse(JSON.stringify(r.value));
}
const tmp = (p: string): string => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), p)));

function edited(text: string | undefined): { text: string; notes: string[] } {
  const r = editCodexConfig(text, '/ws/.codex/config.toml', '/ws', paths);
  assert.ok(r.ok, r.ok ? '' : r.error.message);
  return { text: r.value.text!, notes: r.value.notes };
}

describe('Codex config.toml edits', () => {
  test('a new config.toml gets our MCP server, BASH_ENV for the shell tool and the SessionStart briefing hook, nothing else', () => {
    const c = parse(edited(undefined).text) as Cfg & { hooks: unknown };
    assert.deepEqual(c.mcp_servers['agent-context'], { command: '/usr/bin/node', args: ['/opt/ac/mcp.js', '--root', '/ws', '--allow-run'] });
    assert.deepEqual(c.shell_environment_policy, { set: { BASH_ENV: '/opt/ac/agent-context-shell.sh', AGENT_CONTEXT_AGENT: 'codex', AGENT_CONTEXT_NODE: '/usr/bin/node', AGENT_CONTEXT_ROOT: '/ws' } });
    assert.deepEqual(c.hooks, { SessionStart: [{ hooks: [{ type: 'command', command: 'AGENT_CONTEXT_NODE=/usr/bin/node bash /opt/ac/agent-hook.sh codex SessionStart' }] }] });
    assert.deepEqual(Object.keys(c).sort(), ['hooks', 'mcp_servers', 'shell_environment_policy']);
    // Never an answer to Codex's approval on the agent's behalf, and no tool hook.
    assert.doesNotMatch(edited(undefined).text, /permissionDecision|approval|PreToolUse|PostToolUse/);
  });

  test('a hooks table the block cannot extend (inline) keeps the rest of the set-up and says how to add the briefing hook by hand', () => {
    const mine = 'hooks = { Stop = [] }\n';
    const r = editCodexConfig(mine, 'config.toml', '/ws', paths);
    assert.ok(r.ok, r.ok ? '' : r.error.message);
    const c = parse(r.value.text!) as Cfg & { hooks: unknown };
    assert.deepEqual(c.hooks, { Stop: [] });
    assert.equal(c.shell_environment_policy.set?.BASH_ENV, '/opt/ac/agent-context-shell.sh');
    assert.match(r.value.notes.join(' '), /SessionStart hook running .*agent-hook\.sh codex SessionStart by hand/);
  });

  test('keeps the user\'s keys, tables and comments byte for byte; running twice changes nothing', () => {
    const mine = '# my project settings\nmodel = "o4"  # fast\n\n[shell_environment_policy]\ninherit = "core"\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\n';
    const once = edited(mine).text;
    assert.ok(once.startsWith(mine), once);
    const c = parse(once) as Cfg;
    assert.equal(c.model, 'o4');
    assert.equal(c.shell_environment_policy.inherit, 'core');
    assert.equal(c.shell_environment_policy.set?.BASH_ENV, '/opt/ac/agent-context-shell.sh');
    assert.deepEqual(c.mcp_servers.docs, { command: 'docs-mcp' });
    assert.equal(edited(once).text, once);
  });

  test('a CRLF config.toml gets CRLF lines, and removing the block gives the file back byte for byte (its last line with or without a line end)', () => {
    for (const mine of ['# mine\r\nmodel = "o4"\r\n', '# mine\r\nmodel = "o4"']) {
      const r = editCodexConfig(mine, 'config.toml', '/ws', paths);
      assert.ok(r.ok, r.ok ? '' : r.error.message);
      const out = r.value.text!;
      assert.ok(out.startsWith(mine), JSON.stringify(out.slice(0, 40)));
      assert.doesNotMatch(out, /[^\r]\n/, 'no bare LF in a CRLF file');
      assert.equal((parse(out) as Cfg).model, 'o4');
      const record: SetupRecord = { excluded: [], keys: r.value.eolAdded ? ['config.toml#eol-added'] : [], created: [] };
      // Running again changes nothing; removing gives the user's file back.
      const again = editCodexConfig(out, 'config.toml', '/ws', paths, record);
      assert.ok(again.ok);
      assert.equal(again.value.text, out);
      const undone = editCodexConfig(out, 'config.toml', '/ws', undefined, record);
      assert.ok(undone.ok);
      assert.equal(undone.value.text, mine);
    }
  });

  test('the user\'s own shell_environment_policy.set is left alone: the hook is left out, with the lines to add; the server still goes in', () => {
    for (const mine of ['[shell_environment_policy]\nset = { PATH_EXTRA = "x" }\n', '[shell_environment_policy.set]\nFOO = "1"\n', 'shell_environment_policy = { inherit = "all" }\n']) {
      const r = edited(mine);
      assert.ok(r.text.startsWith(mine));
      const c = parse(r.text) as Cfg;
      assert.equal(c.shell_environment_policy.set?.BASH_ENV, undefined, mine);
      assert.ok(c.mcp_servers['agent-context'], mine);
      assert.match(r.notes.join(' '), /BASH_ENV = "\/opt\/ac\/agent-context-shell\.sh"/);
    }
  });

  test('refuses a file that is not TOML, naming its line, and a server of the user\'s own named agent-context', () => {
    const bad = editCodexConfig('model = "o4"\n[tools\nx = 1\n', '/ws/.codex/config.toml', '/ws', paths);
    assert.equal(bad.ok, false);
    if (!bad.ok) {
      assert.equal(bad.error.file, '/ws/.codex/config.toml');
      assert.equal(bad.error.line, 2);
      assert.match(bad.error.message, /not valid TOML.*Nothing was changed/);
    }
    const theirs = editCodexConfig('[mcp_servers.agent-context]\ncommand = "x"\n', 'f', '/ws', paths);
    assert.equal(theirs.ok, false);
  });

  test('trust is read from the user config, never written', () => {
    assert.equal(codexTrusts({ projects: { '/ws': { trust_level: 'trusted' } } }, '/ws/sub'), true);
    assert.equal(codexTrusts({ projects: { '/ws': { trust_level: 'untrusted' } } }, '/ws'), false);
    assert.equal(codexTrusts({}, '/ws'), false);
  });
});

describe('Codex set-up and undo', () => {
  test('writes .codex/config.toml once and git-excludes it; undo gives back the file and the exclude byte for byte (no final newline kept as it was)', async () => {
    const root = tmp('cx-root-');
    const home = tmp('cx-home-');
    spawnSync('git', ['init', '-q', root]);
    fs.mkdirSync(path.join(root, '.agent'));
    fs.mkdirSync(path.join(root, '.codex'));
    const file = path.join(root, '.codex/config.toml');
    const mine = '# mine\nmodel = "o4"';
    fs.writeFileSync(file, mine);
    const exclude = fs.readFileSync(path.join(root, '.git/info/exclude'), 'utf8');

    const first = await setUpAgent(codexSetup, root, home, paths);
    assert.ok(first.ok, first.ok ? '' : first.error.message);
    assert.deepEqual(first.value.changed.sort(), [file, path.join(root, '.git/info/exclude')].sort());
    assert.match(first.value.notes.join(' '), /only in a project it trusts/);
    const status = spawnSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: root, encoding: 'utf8' }).stdout;
    assert.doesNotMatch(status, /config\.toml/);
    const second = await setUpAgent(codexSetup, root, home, paths);
    assert.ok(second.ok);
    assert.deepEqual(second.value.changed, []);

    const undone = await undoAgent(codexSetup, root, home);
    assert.ok(undone.ok, undone.ok ? '' : undone.error.message);
    assert.equal(fs.readFileSync(file, 'utf8'), mine);
    assert.equal(fs.readFileSync(path.join(root, '.git/info/exclude'), 'utf8'), exclude);
  });

  test('a config.toml the set-up created is removed by the undo; no note about trust once Codex trusts the folder', async () => {
    const root = tmp('cx-root-');
    const home = tmp('cx-home-');
    fs.mkdirSync(path.join(home, '.codex'));
    fs.writeFileSync(path.join(home, '.codex/config.toml'), `[projects.${JSON.stringify(root)}]\ntrust_level = "trusted"\n`);
    const r = await setUpAgent(codexSetup, root, home, paths);
    assert.ok(r.ok, r.ok ? '' : r.error.message);
    assert.doesNotMatch(r.value.notes.join(' '), /trusts/);
    assert.ok(fs.existsSync(path.join(root, '.codex/config.toml')));
    const u = await undoAgent(codexSetup, root, home);
    assert.ok(u.ok);
    assert.equal(fs.existsSync(path.join(root, '.codex/config.toml')), false);
  });

  test('a config.toml committed to git is refused (machine-specific paths), with the lines to add by hand; a broken one is left as it is', async () => {
    const root = tmp('cx-root-');
    const home = tmp('cx-home-');
    spawnSync('git', ['init', '-q', root]);
    fs.mkdirSync(path.join(root, '.codex'));
    fs.writeFileSync(path.join(root, '.codex/config.toml'), 'model = "o4"\n');
    spawnSync('git', ['add', '.codex/config.toml'], { cwd: root });
    const r = await setUpAgent(codexSetup, root, home, paths);
    assert.equal(r.ok, false);
    if (!r.ok) assert.match(r.error.message, /committed to git[\s\S]*\[mcp_servers\.agent-context\]/);
    assert.equal(fs.readFileSync(path.join(root, '.codex/config.toml'), 'utf8'), 'model = "o4"\n');

    const root2 = tmp('cx-root-');
    fs.mkdirSync(path.join(root2, '.codex'));
    fs.writeFileSync(path.join(root2, '.codex/config.toml'), 'model = \n');
    const b = await setUpAgent(codexSetup, root2, home, paths);
    assert.equal(b.ok, false);
    assert.equal(fs.readFileSync(path.join(root2, '.codex/config.toml'), 'utf8'), 'model = \n');
  });
});
