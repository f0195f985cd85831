// The set-ups (mcp.js --setup / --undo) against what users' machines really hold: an MCP entry of
// their own under our name, an entry they edited, links (dotfiles managers, a folder linked out of
// the workspace), bytes that are not UTF-8, read-only files, a monorepo package, a committed local
// settings file, a damaged record, a write that fails half-way. Each either works as the user would
// want or stops with the file named, and nothing is left half-done.
import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { claudeCodeSetup } from '../../../../src/core/setup/agents/claudeCode';
import { codexSetup } from '../../../../src/core/setup/agents/codex';
import { geminiSetup } from '../../../../src/core/setup/agents/gemini';
import { AGENT_SETUPS } from '../../../../src/core/setup/agents';
import { recordFile, setUpAgent, undoAgent } from '../../../../src/core/setup/agents/agentSetup';
import { applyFileEdits } from '../../../../src/core/setup/agents/configFiles';
import { mountSmallFs, remount, smallFsAvailable } from '../../../faultKit';

const paths = { node: '/usr/bin/node', dist: '/opt/ac' };
const tmp = (p: string): string => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), p)));
const git = (cwd: string, ...args: string[]): string => spawnSync('git', args, { cwd, encoding: 'utf8' }).stdout;
const can = smallFsAvailable();
const smallFs = { skip: !can.ok && (can as { why: string }).why };
const message = (r: { ok: boolean; error?: { message: string } }): string => (r.ok ? '' : r.error!.message);

describe('set-up: entries of the user\'s own', () => {
  test('a server named agent-context that the set-up did not write is refused, and an undo leaves it (Gemini settings, ~/.claude.json)', async () => {
    const root = tmp('sf-own-');
    const home = tmp('sf-home-');
    const gemini = path.join(root, '.gemini/settings.json');
    fs.mkdirSync(path.dirname(gemini));
    const mine = '{\n  "mcpServers": {\n    "agent-context": {"command": "node", "args": ["/opt/ac/mcp.js", "--root", "."], "trust": true}\n  }\n}\n';
    fs.writeFileSync(gemini, mine);
    const g = await setUpAgent(geminiSetup, root, home, paths);
    assert.equal(g.ok, false);
    assert.match(message(g), /MCP server named "agent-context" that the set-up did not write[\s\S]*Nothing was changed/);
    assert.ok((await undoAgent(geminiSetup, root, home)).ok);
    assert.equal(fs.readFileSync(gemini, 'utf8'), mine);

    const user = JSON.stringify({ projects: { [root]: { mcpServers: { 'agent-context': { type: 'stdio', command: 'node', args: ['/x/mcp.js', '--root', root], env: { TOKEN_FILE: '/run/t' } } } } } }, null, 2);
    fs.writeFileSync(path.join(home, '.claude.json'), user);
    const c = await setUpAgent(claudeCodeSetup, root, home, paths);
    assert.match(message(c), /that the set-up did not write/);
    assert.ok(!fs.existsSync(path.join(root, '.claude')), 'nothing written');
    assert.ok((await undoAgent(claudeCodeSetup, root, home)).ok);
    assert.equal(fs.readFileSync(path.join(home, '.claude.json'), 'utf8'), user);
  });

  test('--allow-run taken out of the entry by the user stays out when the set-up runs again (it never widens what the user narrowed)', async () => {
    for (const setup of [geminiSetup, claudeCodeSetup]) {
      const root = tmp('sf-allow-');
      const home = tmp('sf-home-');
      assert.ok((await setUpAgent(setup, root, home, paths)).ok);
      const file = setup === geminiSetup ? path.join(root, '.gemini/settings.json') : path.join(home, '.claude.json');
      assert.match(fs.readFileSync(file, 'utf8'), /--allow-run/);
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/,\s*"--allow-run"/, ''));
      const again = await setUpAgent(setup, root, home, { node: '/usr/local/bin/node', dist: '/opt/ac2' });
      assert.ok(again.ok, message(again));
      const text = fs.readFileSync(file, 'utf8');
      assert.match(text, /\/opt\/ac2\/mcp\.js/, 'the paths are brought up to date');
      assert.doesNotMatch(text, /--allow-run/, setup.id);
    }
  });
});

describe('set-up: files as users have them', () => {
  test('a dotfiles link (~/.claude.json → dotfiles/claude.json) stays a link: the set-up and the undo write where it leads', async () => {
    const root = tmp('sf-link-');
    const home = tmp('sf-home-');
    fs.mkdirSync(path.join(home, 'dotfiles'));
    fs.writeFileSync(path.join(home, 'dotfiles/claude.json'), '{"numStartups": 1}\n');
    fs.symlinkSync('dotfiles/claude.json', path.join(home, '.claude.json'));
    assert.ok((await setUpAgent(claudeCodeSetup, root, home, paths)).ok);
    assert.ok(fs.lstatSync(path.join(home, '.claude.json')).isSymbolicLink());
    assert.match(fs.readFileSync(path.join(home, 'dotfiles/claude.json'), 'utf8'), /"agent-context"/);
    assert.ok((await undoAgent(claudeCodeSetup, root, home)).ok);
    assert.ok(fs.lstatSync(path.join(home, '.claude.json')).isSymbolicLink());
    assert.equal(fs.readFileSync(path.join(home, 'dotfiles/claude.json'), 'utf8'), '{"numStartups": 1}\n');
  });

  test('a config folder linked out of the workspace (.gemini → another folder) is refused, and nothing is written there', async () => {
    const root = tmp('sf-out-');
    const home = tmp('sf-home-');
    const out = tmp('sf-elsewhere-');
    fs.symlinkSync(out, path.join(root, '.gemini'));
    const r = await setUpAgent(geminiSetup, root, home, paths);
    assert.match(message(r), /symbolic link \(or inside one\) leading outside the workspace, to .*settings\.json[\s\S]*Nothing was changed/);
    assert.deepEqual(fs.readdirSync(out), []);
    assert.deepEqual(fs.readdirSync(home), []);
  });

  test('bytes that are not UTF-8 are refused, not turned into U+FFFD; a read-only file is refused, not replaced', async () => {
    const root = tmp('sf-bytes-');
    const home = tmp('sf-home-');
    const toml = path.join(root, '.codex/config.toml');
    fs.mkdirSync(path.dirname(toml));
    const latin1 = Buffer.from('# caf\xe9\nmodel = "o3"\n', 'latin1');
    fs.writeFileSync(toml, latin1);
    const r = await setUpAgent(codexSetup, root, home, paths);
    assert.match(message(r), /is not valid UTF-8 text[\s\S]*Nothing was changed/);
    assert.deepEqual(fs.readFileSync(toml), latin1);

    const settings = path.join(root, '.claude/settings.local.json');
    fs.mkdirSync(path.dirname(settings));
    fs.writeFileSync(settings, '{}\n', { mode: 0o444 });
    const ro = await setUpAgent(claudeCodeSetup, root, home, paths);
    assert.match(message(ro), /is read-only \(mode 0444\)/);
    assert.equal(fs.readFileSync(settings, 'utf8'), '{}\n');
    assert.ok(!fs.existsSync(path.join(home, '.claude.json')), 'the other file is not written either');
  });

  test('a package of a monorepo: the exclude lines go to the repository\'s exclude, relative to its top, and the undo takes them out', async () => {
    const top = tmp('sf-mono-');
    const home = tmp('sf-home-');
    spawnSync('git', ['init', '-q', top]);
    const pkg = path.join(top, 'packages/app');
    fs.mkdirSync(pkg, { recursive: true });
    const exclude = fs.readFileSync(path.join(top, '.git/info/exclude'), 'utf8');
    for (const s of AGENT_SETUPS) {
      const r = await setUpAgent(s, pkg, home, paths);
      assert.ok(r.ok, `${s.id}: ${message(r)}`);
    }
    // Only what is meant to be committed shows: .agent/.gitignore (the record under .agent/.cache/ is ignored).
    assert.equal(git(top, 'status', '--porcelain', '--untracked-files=all'), '?? packages/app/.agent/.gitignore\n');
    assert.match(fs.readFileSync(path.join(top, '.git/info/exclude'), 'utf8'), /^\/packages\/app\/\.claude\/settings\.local\.json$/m);
    for (const s of AGENT_SETUPS) assert.ok((await undoAgent(s, pkg, home)).ok, s.id);
    assert.equal(fs.readFileSync(path.join(top, '.git/info/exclude'), 'utf8'), exclude);
  });

  test('Claude Code\'s settings.local.json committed to git is refused (it would get a machine-specific path), as the other agents\' files are', async () => {
    const root = tmp('sf-tracked-');
    const home = tmp('sf-home-');
    spawnSync('git', ['init', '-q', root]);
    fs.mkdirSync(path.join(root, '.claude'));
    fs.writeFileSync(path.join(root, '.claude/settings.local.json'), '{}\n');
    git(root, 'add', '-A');
    const r = await setUpAgent(claudeCodeSetup, root, home, paths);
    assert.match(message(r), /is committed to git[\s\S]*git rm --cached \.claude\/settings\.local\.json/);
    assert.equal(fs.readFileSync(path.join(root, '.claude/settings.local.json'), 'utf8'), '{}\n');
  });
});

describe('set-up: files it must not rewrite', () => {
  test('a key twice in one object is refused with its line (the parse keeps the last, an edit would land on the first)', async () => {
    const root = tmp('sf-dup-');
    const home = tmp('sf-home-');
    const settings = path.join(root, '.claude/settings.local.json');
    fs.mkdirSync(path.dirname(settings));
    const text = '{\n  "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "x"}]}]},\n  "hooks": {}\n}\n';
    fs.writeFileSync(settings, text);
    const r = await setUpAgent(claudeCodeSetup, root, home, paths);
    assert.equal(r.ok, false);
    assert.equal(r.ok ? 0 : r.error.line, 3);
    assert.match(message(r), /has the key "hooks" twice in one object/);
    assert.equal(fs.readFileSync(settings, 'utf8'), text);
  });

  test('a committed file holding another machine\'s Agent Context entry is not rewritten with this machine\'s paths', async () => {
    const root = tmp('sf-team-');
    const home = tmp('sf-home-');
    spawnSync('git', ['init', '-q', root]);
    assert.ok((await setUpAgent(geminiSetup, root, home, { node: '/Users/alice/node', dist: '/Users/alice/ac' })).ok);
    const settings = path.join(root, '.gemini/settings.json');
    const alice = fs.readFileSync(settings, 'utf8');
    git(root, 'add', '-f', '.gemini/settings.json');
    const r = await setUpAgent(geminiSetup, root, tmp('sf-home-'), paths);
    assert.match(message(r), /is committed to git, and the set-up would write this machine's paths into it[\s\S]*git rm --cached \.gemini\/settings\.json/);
    assert.equal(fs.readFileSync(settings, 'utf8'), alice);
  });
});

describe('set-up: faults on the way', () => {
  test('.agent that is a file: a clear error naming it, nothing written in the workspace or the home folder', async () => {
    const root = tmp('sf-agentfile-');
    const home = tmp('sf-home-');
    fs.writeFileSync(path.join(root, '.agent'), 'x\n');
    const r = await setUpAgent(claudeCodeSetup, root, home, paths);
    assert.equal(r.ok, false);
    assert.match(message(r), /not a folder \(ENOTDIR\)\. Nothing was changed/);
    assert.deepEqual(fs.readdirSync(root), ['.agent']);
    assert.deepEqual(fs.readdirSync(home), []);
  });

  test('a damaged record is named and ignored: the undo still removes what is recognisably ours', async () => {
    const root = tmp('sf-record-');
    const home = tmp('sf-home-');
    assert.ok((await setUpAgent(claudeCodeSetup, root, home, paths)).ok);
    fs.writeFileSync(recordFile(root, 'claude-code'), '{"keys": "x"}\n');
    const u = await undoAgent(claudeCodeSetup, root, home);
    assert.ok(u.ok, message(u));
    assert.ok(u.value.notes.some((n) => /claude-code\.json is not a set-up record/.test(n)), u.value.notes.join('\n'));
    assert.doesNotMatch(fs.readFileSync(path.join(home, '.claude.json'), 'utf8'), /"agent-context"/);
  });

  test('a write that fails half-way (a read-only file system) puts back the files already written', smallFs, async () => {
    const dir = tmp('sf-half-');
    const ro = mountSmallFs(64 * 1024);
    try {
      remount(ro.dir, 'ro');
      const a = path.join(dir, 'a.json');
      fs.writeFileSync(a, '{"a": 1}\n');
      // The third file passes the checks (it does not exist yet) and its write fails with EROFS.
      const r = await applyFileEdits([
        { file: a, before: '{"a": 1}\n', after: '{"a": 2}\n' },
        { file: path.join(dir, 'new/c.json'), before: undefined, after: '{}\n' },
        { file: path.join(ro.dir, 'b.json'), before: undefined, after: '{}\n' },
      ]);
      assert.equal(r.ok, false);
      assert.equal(r.ok ? '' : r.error.file, path.join(ro.dir, 'b.json'));
      assert.match(message(r), /^could not be written: read-only file system \(EROFS\)[\s\S]*The files already written were put back/);
      assert.equal(fs.readFileSync(a, 'utf8'), '{"a": 1}\n');
      assert.deepEqual(fs.readdirSync(dir), ['a.json'], 'the folder made for c.json goes too');
    } finally {
      ro.done();
    }
  });
});

describe('mcp.js --undo', () => {
  const serverJs = require.resolve('../../../../src/mcp/server');
  const undo = (root: string, home: string, agent: string): { status: number | null; out: string } => {
    const r = spawnSync(process.execPath, [serverJs, '--root', root, '--undo', agent], { encoding: 'utf8', env: { ...process.env, HOME: home } });
    return { status: r.status, out: r.stdout + r.stderr };
  };

  test('through another spelling of the folder (a link to it) finds what the set-up added; with nothing to find it says so instead of "removed"', async () => {
    const root = tmp('sf-cli-');
    const home = tmp('sf-home-');
    const link = path.join(tmp('sf-links-'), 'ws');
    fs.symlinkSync(root, link);
    assert.ok((await setUpAgent(claudeCodeSetup, root, home, paths)).ok);
    const r = undo(`${link}/`, home, 'claude-code');
    assert.equal(r.status, 0, r.out);
    assert.match(r.out, /what the set-up added is removed/);
    assert.ok(!fs.existsSync(path.join(root, '.claude/settings.local.json')));
    // ~/.claude.json was made by the set-up (no Claude Code run yet): it goes too.
    assert.ok(!fs.existsSync(path.join(home, '.claude.json')));
    const again = undo(link, home, 'claude-code');
    assert.equal(again.status, 0, again.out);
    assert.match(again.out, /nothing of the set-up was found, so nothing was removed/);
    assert.doesNotMatch(again.out, /is removed/);
  });
});
