import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { classifyAgentPath, describeInitialize, hasAgentFolder, initializeAgentFolder } from '../../../src/core/workspace/agentLayout';
import { isPlanPath } from '../../../src/core/plan/planFiles';
import { parsePlan } from '../../../src/core/plan/planDocument';
import { isInside } from '../../../src/core/workspace/relativePaths';

test('initializeAgentFolder creates the layout, a valid commented plan, README and .gitignore', async () => {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-init-'));
  const r = await initializeAgentFolder(ws);
  assert.ok(r.ok);
  const agent = path.join(ws, '.agent');
  for (const d of ['scratch', 'scratch/tool_outputs', 'terminals', 'skills', 'memory', 'agents', 'history']) {
    assert.ok(fs.statSync(path.join(agent, d)).isDirectory(), d);
  }
  const plan = fs.readFileSync(path.join(agent, 'plan.yaml'), 'utf8');
  assert.match(plan, /^# /);
  assert.ok(parsePlan(plan, 'plan.yaml').ok);
  assert.match(fs.readFileSync(path.join(agent, 'README.md'), 'utf8'), /scratch\//);
  assert.deepEqual(fs.readFileSync(path.join(agent, '.gitignore'), 'utf8').trim().split('\n').slice(0, 3), ['scratch/', 'terminals/', 'history/']);
  assert.equal(r.value.created.length, 3);
  assert.equal(describeInitialize(r.value, 'app'), 'Created .agent/ in app with an example plan (plan.yaml), README.md and .gitignore.');
  const again = await initializeAgentFolder(ws);
  assert.ok(again.ok);
  assert.equal(describeInitialize(again.value, 'app'), '.agent/ in app already has plan.yaml, README.md and .gitignore; nothing was changed.');
});

test('initializeAgentFolder never overwrites existing files', async () => {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-init2-'));
  fs.mkdirSync(path.join(ws, '.agent'));
  fs.writeFileSync(path.join(ws, '.agent/plan.yaml'), 'objective: mine\n');
  const r = await initializeAgentFolder(ws);
  assert.ok(r.ok);
  assert.equal(fs.readFileSync(path.join(ws, '.agent/plan.yaml'), 'utf8'), 'objective: mine\n');
  assert.deepEqual(r.value.kept, [path.join(ws, '.agent/plan.yaml')]);
  // The message says what was created and what was kept, not "created … with an example plan".
  assert.equal(describeInitialize(r.value, 'app'), 'Added README.md and .gitignore to the existing .agent/ in app; kept the existing plan.yaml unchanged.');
  fs.writeFileSync(path.join(ws, 'file'), '');
  const bad = await initializeAgentFolder(path.join(ws, 'file'));
  assert.ok(!bad.ok);
});

test('hasAgentFolder: only a root whose .agent is a folder (not a file, not missing)', async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-has-agent-'));
  try {
    const [none, folder, file] = ['none', 'folder', 'file'].map((n) => path.join(tmp, n));
    for (const d of [none, folder, file]) fs.mkdirSync(d);
    fs.mkdirSync(path.join(folder, '.agent'));
    fs.writeFileSync(path.join(file, '.agent'), 'not a folder');
    assert.deepEqual(await Promise.all([none, folder, file].map(hasAgentFolder)), [false, true, false]);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test('isInside is not fooled by names starting with dots or by ..', () => {
  assert.ok(isInside('/w', '/w/..foo'));
  assert.ok(!isInside('/w', '/w/../x'));
  assert.ok(!isInside('/w', '/wx'));
});

test('classifyAgentPath routes changes to the views that show them, and ignores appends to terminal mirrors', () => {
  const root = '/ws';
  const c = (rel: string) => classifyAgentPath(root, path.join(root, rel), isPlanPath);
  assert.deepEqual(c('.agent'), ['agent']);
  assert.deepEqual(c('.agent/plan.yaml'), ['plan']);
  assert.deepEqual(c('.agent/plans/b.yaml'), ['plan']);
  assert.deepEqual(c('.agent/scratch/current_plan.yaml'), ['plan', 'scratch']);
  assert.deepEqual(c('.agent/scratch/a/b.txt'), ['scratch']);
  assert.deepEqual(c('.agent/pins.json'), ['scratch']);
  assert.deepEqual(c('.agent/skills/x/SKILL.md'), ['skills']);
  assert.deepEqual(c('.claude/skills/x/SKILL.md'), ['skills']);
  assert.deepEqual(c('.agent/terminals/1.txt'), [], 'an append to a mirror refreshes nothing');
  assert.deepEqual(classifyAgentPath(root, path.join(root, '.agent/terminals/2.txt'), isPlanPath, 'created'), ['terminals']);
  assert.deepEqual(classifyAgentPath(root, path.join(root, '.agent/terminals/2.txt'), isPlanPath, 'deleted'), ['terminals']);
  assert.deepEqual(c('.agent/terminals'), ['agent']);
  // Our lock and temp files anywhere under .agent/ are no change (the fold's lock in the agent-command spool refreshed the Terminals view, whose fold took it again).
  for (const kind of ['created', 'deleted'] as const) {
    for (const f of ['.agent/terminals/spool/.sessions.json.lock', '.agent/terminals/spool/.sessions.json.lock.123-abcdef.1765000000000.0.tmp', '.agent/terminals/spool/.sessions.json.123-abcdef.1765000000000.4.tmp', '.agent/.plan.yaml.lock', '.agent/memory/.notes.md.77-0a0b0c.1765000000000.2.tmp']) {
      assert.deepEqual(classifyAgentPath(root, path.join(root, f), isPlanPath, kind), [], `${kind} ${f}`);
    }
  }
  assert.deepEqual(classifyAgentPath(root, path.join(root, '.agent/terminals/spool/01KZ-codex.rec'), isPlanPath, 'created'), ['terminals'], 'a new agent command still refreshes the Terminals view');
  // Lock and temp files of a plan edit do not count as a change of everything.
  assert.deepEqual(c('.agent/.plan.yaml.lock'), []);
  assert.deepEqual(c('.agent/.plan.yaml.1234-a1b2c3.1764633600000.0.tmp'), []);
  assert.deepEqual(c('.agent/config.yaml'), ['agent']);
  // Our caches: neither the folder appearing nor a cache written is a change any view shows.
  assert.deepEqual(c('.agent/.cache'), []);
  assert.deepEqual(c('.agent/.cache/scratch-index.tsv'), []);
  assert.deepEqual(c('.agent/memory/preferences.yaml'), ['memory']);
  assert.deepEqual(c('.agent/agents/a1/status.json'), ['agents']);
  assert.deepEqual(c('.agent/human/notes/n1.md'), ['notes']);
  assert.deepEqual(c('.agent/history/tools-2026-12.jsonl'), ['history']);
  // Shown in the Plan view only: an appended progress entry must not make the Scratch view re-scan.
  assert.deepEqual(c('.agent/progress.md'), ['plan']);
  assert.deepEqual(c('.agent/features.json'), ['plan']);
});

test('classifyAgentPath: skill folders appearing count, other workspace paths do not', () => {
  const c = (rel: string) => classifyAgentPath('/ws', path.join('/ws', rel), isPlanPath);
  assert.deepEqual(c('.claude'), ['skills']);
  assert.deepEqual(c('.github/skills'), ['skills']);
  assert.deepEqual(c('src/skills/x.ts'), []);
  assert.deepEqual(c('src/index.ts'), []);
  assert.deepEqual(c('.agent/README.md'), ['agent']);
});
