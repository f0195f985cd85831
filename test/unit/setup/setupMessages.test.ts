import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { describeSetup, listWords, shownPath, type SetupMessageInput } from '../../../src/core/setup/setupMessages';

const root = '/w/rate-limiter';
const home = '/home/u';
const base = (o: Partial<SetupMessageInput>): SetupMessageInput => ({
  undo: false,
  label: 'Claude Code',
  binary: 'claude',
  homeFolder: '.claude',
  found: true,
  folderName: 'rate-limiter',
  root,
  home,
  outcome: { changed: [], unchanged: [], notes: [] },
  settings: [],
  off: [],
  ...o,
});

test('paths as the user knows them: from the folder, ~/ for home, else whole; lists read as words', () => {
  assert.equal(shownPath('/w/rate-limiter/.claude/settings.local.json', root, home), '.claude/settings.local.json');
  assert.equal(shownPath('/home/u/.claude.json', root, home), '~/.claude.json');
  assert.equal(shownPath('/elsewhere/.git/info/exclude', root, home), '/elsewhere/.git/info/exclude');
  assert.equal(listWords(['a']), 'a');
  assert.equal(listWords(['a', 'b']), 'a and b');
  assert.equal(listWords(['a', 'b', 'c']), 'a, b and c');
});

test('a set-up names every file it created or changed, in one or two sentences; the log has the full paths', () => {
  const m = describeSetup(base({
    outcome: {
      changed: ['/w/rate-limiter/.claude/settings.local.json', '/home/u/.claude.json', '/w/rate-limiter/.git/info/exclude'],
      created: ['/w/rate-limiter/.claude/settings.local.json'],
      deleted: [],
      unchanged: [],
      notes: ['Kept your plansDirectory (plans) in /w/rate-limiter/.claude/settings.local.json.'],
    },
  }));
  assert.equal(m.text, 'Set up Claude Code in rate-limiter: created .claude/settings.local.json; changed ~/.claude.json and .git/info/exclude. Restart Claude Code to pick it up.');
  assert.equal(m.warning, false);
  assert.ok(m.log.includes('  created /w/rate-limiter/.claude/settings.local.json'));
  assert.ok(m.log.includes('  changed /home/u/.claude.json'));
  assert.ok(m.log.some((l) => l.startsWith('  note: Kept your plansDirectory')), 'notes go to the log, not the notification');
  assert.doesNotMatch(m.text, /plansDirectory/);
});

test('VS Code\'s agent: the user setting it added is named, in the set-up and in the undo', () => {
  const settings = [{ setting: 'chat.agentSkillsLocations', key: '.agent/skills', added: true }];
  const hook = '/w/rate-limiter/.github/hooks/agent-context-vscode.json';
  const set = describeSetup(base({ label: 'VS Code\'s agent (Copilot Chat)', inEditor: true, outcome: { changed: [hook], created: [hook], unchanged: [], notes: [] }, settings }));
  assert.equal(set.text, 'Set up VS Code\'s agent (Copilot Chat) in rate-limiter: created .github/hooks/agent-context-vscode.json; added .agent/skills to your user setting chat.agentSkillsLocations.');
  assert.ok(set.log.includes('  user setting chat.agentSkillsLocations: added ".agent/skills"'));
  const undo = describeSetup(base({
    undo: true,
    label: 'VS Code\'s agent (Copilot Chat)',
    inEditor: true,
    outcome: { changed: [hook], deleted: [hook], unchanged: [], removedFolders: ['/w/rate-limiter/.github/hooks', '/w/rate-limiter/.github'], notes: [] },
    settings: [{ ...settings[0], added: false }],
  }));
  assert.equal(undo.text, 'Undid the set-up of VS Code\'s agent (Copilot Chat) in rate-limiter: removed .github/hooks/agent-context-vscode.json; removed the empty folders .github/hooks/ and .github/; removed .agent/skills from your user setting chat.agentSkillsLocations.');
  const off = describeSetup(base({ label: 'VS Code\'s agent (Copilot Chat)', inEditor: true, outcome: { changed: [hook], created: [hook], unchanged: [], notes: [] }, off: ['VS Code\'s agent runs no hooks while chat.useHooks is off'] }));
  assert.match(off.text, /\. It will not be used yet: VS Code's agent runs no hooks while chat\.useHooks is off\.$/);
  assert.equal(off.warning, true);
});

test('an agent not installed: said plainly, with what was written anyway; no "restart"', () => {
  const m = describeSetup(base({ label: 'Codex CLI', binary: 'codex', homeFolder: '.codex', found: false, outcome: { changed: ['/w/rate-limiter/.codex/config.toml'], created: ['/w/rate-limiter/.codex/config.toml'], unchanged: [], notes: [] } }));
  assert.equal(m.text, 'Codex CLI was not found on this machine (no codex on PATH, no ~/.codex), so its set-up for rate-limiter was written anyway: created .codex/config.toml. It takes effect once Codex CLI is installed.');
  assert.doesNotMatch(m.text, /Restart|\/w\//, 'no restart, no absolute path of the workspace');
});

test('nothing to do: already set up, or nothing to undo', () => {
  assert.equal(describeSetup(base({ outcome: { changed: [], unchanged: ['/home/u/.claude.json'], notes: [] } })).text, 'Claude Code was already set up in rate-limiter; nothing was changed.');
  assert.equal(describeSetup(base({ undo: true, outcome: { changed: [], unchanged: [], notes: [] } })).text, 'Claude Code was not set up in rate-limiter; nothing was changed.');
});
