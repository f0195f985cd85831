// opencode's set-up (our MCP server in the project's opencode.json / opencode.jsonc, the plugin file
// .opencode/plugins/agent-context.js), without opencode itself (the real CLI runs the written
// configuration in the opencode test run).
import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse } from 'jsonc-parser';
import { editOpencodeConfig, opencodeSetup, OPENCODE_PLUGIN } from '../../../../src/core/setup/agents/opencode';
import { kiloSetup } from '../../../../src/core/setup/agents/kilo';
import { setUpAgent, undoAgent } from '../../../../src/core/setup/agents/agentSetup';

const paths = { node: '/usr/bin/node', dist: '/opt/ac' };
const SERVER = { type: 'local', command: ['/usr/bin/node', '/opt/ac/mcp.js', '--root', '/ws'], enabled: true };
const tmp = (p: string): string => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), p)));
const read = (f: string): string => fs.readFileSync(f, 'utf8');
const git = (cwd: string, ...args: string[]): string => spawnSync('git', args, { cwd, encoding: 'utf8' }).stdout;

describe('opencode config edits', () => {
  test('a new opencode.json gets our server, without --allow-run (opencode\'s bash rules do not reach MCP tools)', () => {
    const r = editOpencodeConfig(undefined, 'opencode.json', '/ws', paths);
    assert.ok(r.ok);
    if (r.ok) assert.deepEqual(JSON.parse(r.value.text!), { mcp: { 'agent-context': SERVER } });
  });

  test('keeps the user\'s comments, keys and formatting byte for byte; running twice changes nothing; undo gives the text back', () => {
    const mine = '{\n  // my model\n  "$schema": "https://opencode.ai/config.json",\n  "model": "anthropic/claude-sonnet-4-5", /* trailing */\n  "permission": { "bash": { "*": "ask", "git status": "allow" } },\n  "mcp": {\n    "db": { "type": "local", "command": ["db-mcp"] }, // mine\n  },\n}\n';
    const once = editOpencodeConfig(mine, 'opencode.jsonc', '/ws', paths);
    assert.ok(once.ok);
    if (!once.ok) return;
    const text = once.value.text!;
    assert.ok(text.startsWith('{\n  // my model\n  "$schema": "https://opencode.ai/config.json",\n  "model": "anthropic/claude-sonnet-4-5", /* trailing */\n  "permission": { "bash": { "*": "ask", "git status": "allow" } },\n  "mcp": {\n    "db": { "type": "local", "command": ["db-mcp"] }'), text);
    // A comment after the last entry's trailing comma stays, after ours (jsonc-parser inserts before that comma).
    assert.match(text, /\}, \/\/ mine\n  \},\n\}\n$/);
    assert.deepEqual(parse(text).mcp, { db: { type: 'local', command: ['db-mcp'] }, 'agent-context': SERVER });
    assert.deepEqual(parse(text).permission, { bash: { '*': 'ask', 'git status': 'allow' } });
    const twice = editOpencodeConfig(text, 'opencode.jsonc', '/ws', paths);
    assert.ok(twice.ok && twice.value.text === text);
    const undone = editOpencodeConfig(text, 'opencode.jsonc', '/ws', undefined);
    assert.ok(undone.ok);
    if (undone.ok) assert.equal(undone.value.text, mine);
  });

  test('refuses a file it cannot parse (naming its line), an "mcp" that is not an object, and a server named agent-context of the user\'s own', () => {
    const bad = editOpencodeConfig('{\n  "model": "x",\n  "mcp": { "a": }\n}\n', '/ws/opencode.json', '/ws', paths);
    assert.equal(bad.ok, false);
    if (!bad.ok) {
      assert.equal(bad.error.line, 3);
      assert.match(bad.error.message, /not valid JSON with comments.*Nothing was changed/);
    }
    const notObject = editOpencodeConfig('{ "mcp": [] }', 'f', '/ws', paths);
    assert.equal(notObject.ok, false);
    const theirs = editOpencodeConfig('{ "mcp": { "agent-context": { "type": "remote", "url": "https://x" } } }', 'f', '/ws', paths);
    assert.equal(theirs.ok, false);
    if (!theirs.ok) assert.match(theirs.error.message, /of its own/);
  });
});

describe('opencode set-up and undo', () => {
  test('writes opencode.json and the plugin (both git-excluded), idempotent; undo gives every file back byte for byte', async () => {
    const root = tmp('oc-root-');
    git(root, 'init', '-q');
    const exclude = read(path.join(root, '.git/info/exclude'));
    const config = path.join(root, 'opencode.json');
    const plugin = path.join(root, OPENCODE_PLUGIN);

    const first = await setUpAgent(opencodeSetup, root, tmp('oc-home-'), paths);
    assert.ok(first.ok, first.ok ? '' : first.error.message);
    assert.deepEqual(first.value.changed.sort(), [config, plugin, path.join(root, '.git/info/exclude')].sort());
    assert.deepEqual(JSON.parse(read(config)), { $schema: 'https://opencode.ai/config.json', mcp: { 'agent-context': { ...SERVER, command: ['/usr/bin/node', '/opt/ac/mcp.js', '--root', root] } } });
    const pluginText = read(plugin);
    assert.match(pluginText, /import \{ agentContextPlugin \} from "file:\/\/\/opt\/ac\/opencode-plugin\.mjs"/);
    assert.match(pluginText, /agentContextPlugin\(\{ node: "\/usr\/bin\/node", dist: "\/opt\/ac" \}\)/);
    assert.doesNotMatch(git(root, 'status', '--porcelain', '--untracked-files=all'), /^\?\? (?:opencode\.json|\.opencode\/)/m, 'neither file shows up for a commit');
    assert.match(first.value.notes.join(' '), /--allow-run/);

    const second = await setUpAgent(opencodeSetup, root, tmp('oc-home-'), paths);
    assert.ok(second.ok);
    assert.deepEqual(second.value.changed, []);

    const undone = await undoAgent(opencodeSetup, root, tmp('oc-home-'));
    assert.ok(undone.ok, undone.ok ? '' : undone.error.message);
    assert.equal(fs.existsSync(config), false);
    assert.equal(fs.existsSync(plugin), false);
    assert.equal(read(path.join(root, '.git/info/exclude')), exclude);
  });

  test('edits an existing opencode.jsonc (not opencode.json), keeps its comments; undo restores it byte for byte', async () => {
    const root = tmp('oc-root-');
    const mine = '// project settings\n{\n\t"theme": "opencode" // dark\n}\n';
    fs.writeFileSync(path.join(root, 'opencode.jsonc'), mine);
    const r = await setUpAgent(opencodeSetup, root, tmp('oc-home-'), paths);
    assert.ok(r.ok, r.ok ? '' : r.error.message);
    assert.equal(fs.existsSync(path.join(root, 'opencode.json')), false);
    const text = read(path.join(root, 'opencode.jsonc'));
    assert.ok(text.startsWith('// project settings\n{\n\t"theme": "opencode",'), text);
    assert.match(text, /\/\/ dark\n/);
    assert.equal(parse(text).mcp['agent-context'].type, 'local');
    const u = await undoAgent(opencodeSetup, root, tmp('oc-home-'));
    assert.ok(u.ok);
    assert.equal(read(path.join(root, 'opencode.jsonc')), mine);
  });

  test('a committed opencode.json is refused with the entry to add by hand; an unparseable one, or a plugin of the user\'s own at our name, stops the set-up before anything is written', async () => {
    const root = tmp('oc-root-');
    git(root, 'init', '-q');
    fs.writeFileSync(path.join(root, 'opencode.json'), '{ "model": "x/y" }\n');
    git(root, 'add', 'opencode.json');
    const r = await setUpAgent(opencodeSetup, root, tmp('oc-home-'), paths);
    assert.equal(r.ok, false);
    if (!r.ok) assert.match(r.error.message, /committed to git[\s\S]*"agent-context"[\s\S]*mcp\.js/);
    assert.equal(read(path.join(root, 'opencode.json')), '{ "model": "x/y" }\n');
    assert.equal(fs.existsSync(path.join(root, OPENCODE_PLUGIN)), false);

    const root2 = tmp('oc-root-');
    fs.writeFileSync(path.join(root2, 'opencode.json'), '{ "model": }\n');
    const b = await setUpAgent(opencodeSetup, root2, tmp('oc-home-'), paths);
    assert.equal(b.ok, false);
    if (!b.ok) assert.match(b.error.message, /not valid JSON with comments/);
    assert.equal(read(path.join(root2, 'opencode.json')), '{ "model": }\n');
    assert.equal(fs.existsSync(path.join(root2, OPENCODE_PLUGIN)), false);

    const root3 = tmp('oc-root-');
    fs.mkdirSync(path.join(root3, '.opencode/plugins'), { recursive: true });
    fs.writeFileSync(path.join(root3, OPENCODE_PLUGIN), 'export const Mine = async () => ({});\n');
    const c = await setUpAgent(opencodeSetup, root3, tmp('oc-home-'), paths);
    assert.equal(c.ok, false);
    assert.equal(fs.existsSync(path.join(root3, 'opencode.json')), false);
    const u = await undoAgent(opencodeSetup, root3, tmp('oc-home-'));
    assert.ok(u.ok);
    assert.equal(read(path.join(root3, OPENCODE_PLUGIN)), 'export const Mine = async () => ({});\n', 'an undo leaves a plugin that is not ours');
  });
});

describe('Kilo Code set-up (the opencode family)', () => {
  test('writes kilo.json and .kilo/plugins/agent-context.js naming the agent (both git-excluded); an opencode set-up beside it is left alone; undo gives every file back', async () => {
    const root = tmp('ki-root-');
    git(root, 'init', '-q');
    const exclude = read(path.join(root, '.git/info/exclude'));
    const home = tmp('ki-home-');
    assert.ok((await setUpAgent(opencodeSetup, root, home, paths)).ok);
    const opencodeFiles = [read(path.join(root, 'opencode.json')), read(path.join(root, OPENCODE_PLUGIN))];
    const r = await setUpAgent(kiloSetup, root, home, paths);
    assert.ok(r.ok, r.ok ? '' : r.error.message);
    const config = path.join(root, 'kilo.json');
    const plugin = path.join(root, '.kilo/plugins/agent-context.js');
    assert.deepEqual(JSON.parse(read(config)), { $schema: 'https://app.kilo.ai/config.json', mcp: { 'agent-context': { ...SERVER, command: ['/usr/bin/node', '/opt/ac/mcp.js', '--root', root] } } });
    assert.match(read(plugin), /^\/\/ Agent Context \(mcp\.js --setup kilo; `--undo kilo` removes this file\):/);
    assert.match(read(plugin), /agentContextPlugin\(\{ node: "\/usr\/bin\/node", dist: "\/opt\/ac", agent: "kilo" \}\)/);
    assert.doesNotMatch(git(root, 'status', '--porcelain', '--untracked-files=all'), /kilo/, 'neither file shows up for a commit');
    assert.match(r.value.notes.join(' '), /\.kilo\/plans/);
    assert.equal(kiloSetup.label, 'Kilo Code');

    const u = await undoAgent(kiloSetup, root, home);
    assert.ok(u.ok, u.ok ? '' : u.error.message);
    assert.equal(fs.existsSync(config), false);
    assert.equal(fs.existsSync(plugin), false);
    assert.deepEqual([read(path.join(root, 'opencode.json')), read(path.join(root, OPENCODE_PLUGIN))], opencodeFiles, 'opencode\'s set-up untouched');
    assert.ok((await undoAgent(opencodeSetup, root, home)).ok);
    assert.equal(read(path.join(root, '.git/info/exclude')), exclude);
  });
});
