// What every agent's set-up shares (agentSetup.ts runs it for each one): the files holding this
// machine's paths stay out of git, an undo gives the workspace, the home folder and the exclude
// file back as they were, and an exclude line the user had before is theirs (never taken out).
// Run over every agent in AGENT_SETUPS, so an agent added to the list is checked here too.
import { after, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AGENT_SETUPS, setUpAgent, undoAgent } from '../../../../src/core/setup/agents';

const paths = { node: '/usr/bin/node', dist: '/opt/ac' };
const made: string[] = [];
const tmp = (p: string): string => {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), p)));
  made.push(d);
  return d;
};
after(() => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
});

/** Every file under `dir` with its text (the record under .agent/.cache/ aside: it is the set-up's bookkeeping). */
function files(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const abs = path.join(e.parentPath, e.name);
    const rel = path.relative(dir, abs).split(path.sep).join('/');
    if (rel.startsWith('.git/') && rel !== '.git/info/exclude') continue;
    if (rel.startsWith('.agent/.cache/')) continue;
    out.set(rel, fs.readFileSync(abs, 'utf8'));
  }
  return out;
}

/** A git repository with .agent/, and a home folder; the agents' home variables point nowhere else. */
function workspace(): { root: string; home: string; exclude: string } {
  const root = tmp('agent-setup-root-');
  const home = tmp('agent-setup-home-');
  assert.equal(spawnSync('git', ['init', '-q', root]).status, 0);
  fs.mkdirSync(path.join(root, '.agent'));
  return { root, home, exclude: path.join(root, '.git/info/exclude') };
}

/** Every folder under `dir` (git's own and the set-up's bookkeeping under .agent/.cache/ aside). */
function folders(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .filter((rel) => rel !== '.git' && !rel.startsWith('.git/') && rel !== '.agent/.cache' && !rel.startsWith('.agent/.cache/'))
    .sort();
}

const excludeLines = (file: string): string[] => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.startsWith('/')) : []);

describe('every agent\'s set-up: git-exclude and undo', () => {
  const saved: Record<string, string | undefined> = {};
  for (const v of ['CODEX_HOME', 'COPILOT_HOME', 'GEMINI_CLI_HOME', 'XDG_CONFIG_HOME']) {
    saved[v] = process.env[v];
    delete process.env[v];
  }
  after(() => {
    for (const [k, v] of Object.entries(saved)) if (v !== undefined) process.env[k] = v;
  });

  for (const agent of AGENT_SETUPS) {
    test(`${agent.id}: what it writes in the workspace stays out of git; the undo gives every file back and takes out only its own exclude lines`, async () => {
      const { root, home, exclude } = workspace();
      const before = { root: files(root), home: files(home), rootFolders: folders(root), homeFolders: folders(home) };
      const excludedBefore = excludeLines(exclude);

      const r = await setUpAgent(agent, root, home, paths);
      assert.ok(r.ok, r.ok ? '' : r.error.message);
      const added = excludeLines(exclude).filter((l) => !excludedBefore.includes(l));
      if (agent.userScopeOnly) {
        // Only the user's own files: nothing in the workspace, so nothing to keep out of git.
        assert.deepEqual(added, []);
        assert.deepEqual(r.value.changed.filter((f) => f.startsWith(`${root}${path.sep}`)), [], `${agent.id} wrote into the workspace`);
        assert.ok(r.value.changed.length > 0);
        const undone = await undoAgent(agent, root, home);
        assert.ok(undone.ok, undone.ok ? '' : undone.error.message);
        assert.deepEqual(files(root), before.root);
        assert.deepEqual(files(home), before.home);
        assert.deepEqual(folders(home), before.homeFolders, 'no empty folder it created is left in the home folder');
        return;
      }
      assert.ok(added.length > 0, `${agent.id} writes machine-specific paths in the workspace: some file must be git-excluded`);
      for (const line of added) assert.ok(fs.existsSync(path.join(root, line)), `${line} is excluded but the set-up did not write it`);
      const status = spawnSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: root, encoding: 'utf8' }).stdout;
      const written = r.value.changed.filter((f) => f.startsWith(`${root}${path.sep}`) && !f.includes(`${path.sep}.git${path.sep}`));
      assert.ok(written.length > 0);
      for (const f of written) assert.ok(!status.includes(path.relative(root, f).split(path.sep).join('/')), `${f} shows in git status:\n${status}`);

      const undone = await undoAgent(agent, root, home);
      assert.ok(undone.ok, undone.ok ? '' : undone.error.message);
      assert.deepEqual(files(root), before.root);
      assert.deepEqual(files(home), before.home);
      // No empty folder the set-up created is left behind (.claude/, .codex/, .github/hooks/, ~/.gemini/…).
      assert.deepEqual(folders(root), before.rootFolders);
      assert.deepEqual(folders(home), before.homeFolders);
      assert.ok((undone.value.removedFolders ?? []).length > 0, 'the undo reports the folders it removed');
    });

    test(`${agent.id}: a folder the set-up created that holds something of the user's stays after the undo`, async () => {
      const { root, home } = workspace();
      const before = new Set([...folders(root).map((f) => path.join(root, f)), ...folders(home).map((f) => path.join(home, f))]);
      const r = await setUpAgent(agent, root, home, paths);
      assert.ok(r.ok, r.ok ? '' : r.error.message);
      const made = [...folders(root).map((f) => path.join(root, f)), ...folders(home).map((f) => path.join(home, f))].filter((d) => !before.has(d));
      assert.ok(made.length > 0, `${agent.id} creates a folder in a fresh workspace or home`);
      const mine = path.join(made[0], 'mine.txt');
      fs.writeFileSync(mine, 'the user\'s');
      const undone = await undoAgent(agent, root, home);
      assert.ok(undone.ok);
      assert.equal(fs.readFileSync(mine, 'utf8'), 'the user\'s');
      assert.ok(!(undone.value.removedFolders ?? []).includes(made[0]));
    });

    test(`${agent.id}: installed under paths with a space (quoted in its commands), the undo still knows its entries and gives every file back`, async () => {
      const { root, home } = workspace();
      const before = { root: files(root), home: files(home) };
      const spaced = { node: '/opt/my tools/node', dist: '/opt/Agent Context/dist' };
      const r = await setUpAgent(agent, root, home, spaced);
      assert.ok(r.ok, r.ok ? '' : r.error.message);
      assert.ok(r.value.changed.length > 0);
      const undone = await undoAgent(agent, root, home);
      assert.ok(undone.ok, undone.ok ? '' : undone.error.message);
      assert.deepEqual(files(root), before.root);
      assert.deepEqual(files(home), before.home);
    });

    // (A set-up of the user's own files alone adds no exclude line: nothing to test there.)
    if (!agent.userScopeOnly) test(`${agent.id}: exclude lines the user already had are theirs: the set-up adds none, the undo keeps them`, async () => {
      // The lines this agent's set-up adds, learnt in a workspace of its own.
      const probe = workspace();
      const r0 = await setUpAgent(agent, probe.root, probe.home, paths);
      assert.ok(r0.ok);
      const lines = excludeLines(probe.exclude);
      assert.ok(lines.length > 0);

      const { root, home, exclude } = workspace();
      const mine = `# mine\n${lines.join('\n')}\n`;
      fs.writeFileSync(exclude, mine);
      const r = await setUpAgent(agent, root, home, paths);
      assert.ok(r.ok, r.ok ? '' : r.error.message);
      assert.equal(fs.readFileSync(exclude, 'utf8'), mine);
      assert.ok(!r.value.changed.includes(exclude));
      const undone = await undoAgent(agent, root, home);
      assert.ok(undone.ok);
      assert.equal(fs.readFileSync(exclude, 'utf8'), mine);
    });
  }
});
