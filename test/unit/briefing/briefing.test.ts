import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { composeBriefing, composeBriefingAsync, BRIEFING_MAX_TOKENS } from '../../../src/core/briefing/composeBriefing';
import { gatherBriefing, BriefingProviders } from '../../../src/core/briefing/briefingSources';
import { countTokens } from '../../../src/core/output/tokens';
import { rememberMemory } from '../../../src/core/memory';
import { appendProgress } from '../../../src/core/plan/progress';
import { writeFinding, setAgentStatus } from '../../../src/core/agents';
import { setPasses } from '../../../src/core/plan/featureList';
import { createCaptureWriter } from '../../../src/core/terminal/captureWriter';

function tmpAgent(): string {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-brief-'));
  fs.mkdirSync(path.join(ws, '.agent'));
  return path.join(ws, '.agent');
}

const PLAN = `# plan
objective: "Ship the memory view"
status: in_progress
steps:
  - id: 1
    description: "Core"
    status: completed
  - id: 2
    description: "Tool wiring"
    status: in_progress
  - id: 3
    description: "Views"
    status: pending
`;

test('briefing of a small folder: current step with its line, progress tail, features, memory, agents', async () => {
  const a = tmpAgent();
  fs.writeFileSync(path.join(a, 'plan.yaml'), PLAN);
  await appendProgress(a, { title: 'Core landed', done: 'memory + agents', next: 'wire the tools' }, { now: new Date('2026-11-29T10:00:00Z') });
  fs.writeFileSync(path.join(a, 'features.json'), JSON.stringify([
    { category: 'ui', description: 'Memory view lists entries', steps: [], passes: false },
    { category: 'ui', description: 'Agents view', steps: [], passes: false },
  ]));
  await setPasses(a, 1, true);
  await rememberMemory(a, 'test-command', 'npm run test:unit');
  await writeFinding(a, 'scout', 'found it');
  await setAgentStatus(a, 'scout', { status: 'working', progress: 0.25 });
  fs.mkdirSync(path.join(a, 'scratch'));
  fs.writeFileSync(path.join(a, 'scratch', 'x.txt'), 'x'.repeat(5000));
  const providers: BriefingProviders = {
    terminals: async () => ({ total: 2, failed: [{ path: '.agent/terminals/2.txt', command: 'npm test', exitCode: 1, startLine: 40, endLine: 95 }] }),
    skills: async () => [{ name: 'release', description: 'How to cut a release', path: '.agent/skills/release/SKILL.md' }],
  };
  const { text, tokens } = composeBriefing(await gatherBriefing(a, { providers }));
  assert.ok(tokens <= BRIEFING_MAX_TOKENS);
  assert.match(text, /Plan \.agent\/plan\.yaml: 1\/3 done, in_progress — Ship the memory view/);
  assert.match(text, /Now: step 2 \[in_progress\] Tool wiring \(\.agent\/plan\.yaml:8\)/);
  assert.match(text, /Then: step 3 Views \(\.agent\/plan\.yaml:11\)/);
  assert.match(text, /Progress \(\.agent\/progress\.md, 1 entry.*\n  2026-11-29T10:00:00Z — Core landed \| Next: wire the tools \(line 3\)/);
  assert.match(text, /Features \.agent\/features\.json: 1\/2 passing\./);
  assert.match(text, /Not passing: #0 Memory view lists entries/);
  assert.match(text, /\.agent\/terminals\/2\.txt lines 40-95: exit 1 `npm test`/);
  assert.match(text, /Scratch \.agent\/scratch\/: 1 file, 4.9 KB/);
  assert.match(text, /release: How to cut a release \(\.agent\/skills\/release\/SKILL\.md\)/);
  assert.match(text, /Memory \.agent\/memory\/preferences\.yaml \(1 key;.*: test-command/);
  assert.match(text, /scout: working 25%, 1 finding$/m);
});

test('skills come from the skill folders by default', async () => {
  const a = tmpAgent();
  fs.mkdirSync(path.join(a, 'skills', 'deploy'), { recursive: true });
  fs.writeFileSync(path.join(a, 'skills', 'deploy', 'SKILL.md'), '---\nname: deploy\ndescription: Deploy to staging\n---\nbody');
  const { text } = composeBriefing(await gatherBriefing(a));
  assert.match(text, /deploy: Deploy to staging \(\.agent\/skills\/deploy\/SKILL\.md\)/);
});

test('terminals come from the terminal index by default: only those whose last command failed, with its lines', async () => {
  const a = tmpAgent();
  const dir = path.join(a, 'terminals');
  const t1 = await createCaptureWriter(dir, { name: 'bash', started: new Date(), shellIntegration: true });
  t1.beginCommand({ commandLine: 'npm test', started: new Date() });
  t1.write('running\nFAIL x\n');
  t1.endCommand(1, 0);
  await t1.close();
  const t2 = await createCaptureWriter(dir, { name: 'zsh', started: new Date(), shellIntegration: true });
  t2.beginCommand({ commandLine: 'false', started: new Date() });
  t2.endCommand(1, 0);
  t2.beginCommand({ commandLine: 'true', started: new Date() });
  t2.endCommand(0, 0);
  await t2.close();
  const input = await gatherBriefing(a);
  assert.equal(input.terminals.total, 2);
  assert.equal(input.terminals.failed.length, 1);
  const f = input.terminals.failed[0];
  assert.equal(f.command, 'npm test');
  const lines = fs.readFileSync(path.join(path.dirname(a), f.path), 'utf8').split('\n');
  // The output's lines, as agentContext_terminal names them: the `>>> npm test` header is the line before.
  assert.equal(lines[f.startLine - 1], 'running');
  assert.match(lines[f.startLine - 2], /npm test/);
  assert.equal(lines[f.endLine - 1], 'FAIL x');
  assert.match(composeBriefing(input).text, /Terminals whose last command failed \(1 of 2\):\n  \.agent\/terminals\/\d+\.txt lines \d+-\d+: exit 1 `npm test`/);
});

test('a tampered feature list shows up as a warning with the difference', async () => {
  const a = tmpAgent();
  fs.writeFileSync(path.join(a, 'features.json'), JSON.stringify([{ category: 'c', description: 'Hard test', steps: [], passes: false }]));
  await gatherBriefing(a); // first sight accepts it
  fs.writeFileSync(path.join(a, 'features.json'), '[]');
  const { text } = composeBriefing(await gatherBriefing(a));
  assert.match(text, /WARNING: changed outside setPasses/);
  assert.match(text, /- removed accepted feature 0: \[c\] "Hard test"/);
});

test('an empty folder still gets a useful briefing, and broken files are named, not fatal', async () => {
  const a = tmpAgent();
  let { text } = composeBriefing(await gatherBriefing(a));
  assert.match(text, /Plan: none\. Create \.agent\/plan\.yaml/);
  fs.writeFileSync(path.join(a, 'plan.yaml'), 'objective: [broken\n');
  fs.mkdirSync(path.join(a, 'memory'));
  fs.writeFileSync(path.join(a, 'memory', 'preferences.yaml'), 'a: [\n');
  fs.writeFileSync(path.join(a, 'features.json'), '{');
  ({ text } = composeBriefing(await gatherBriefing(a)));
  assert.match(text, /Plan \.agent\/plan\.yaml: cannot be read — \.agent\/plan\.yaml:\d+: invalid YAML/);
  assert.match(text, /Memory \.agent\/memory\/preferences\.yaml: cannot be read/);
  assert.match(text, /Features \.agent\/features\.json: cannot be read/);
});

test('briefing stays within 1,500 tokens on a large .agent folder and points to where the rest is', async () => {
  const a = tmpAgent();
  const steps = Array.from({ length: 1000 }, (_, i) =>
    `  - id: s${i + 1}\n    description: "Step ${i + 1}: ${'implement the long-winded part of the feature with care '.repeat(3)}"\n    status: ${i < 400 ? 'completed' : i === 400 ? 'in_progress' : i % 97 === 0 ? 'blocked' : 'pending'}\n`,
  ).join('');
  fs.writeFileSync(path.join(a, 'plan.yaml'), `objective: "${'A very ambitious objective '.repeat(20)}"\nstatus: in_progress\nsteps:\n${steps}`);
  fs.mkdirSync(path.join(a, 'plans'));
  for (let i = 0; i < 5; i++) fs.writeFileSync(path.join(a, 'plans', `p${i}.yaml`), `objective: "side plan ${i}"\nsteps:\n  - id: 1\n    description: "x"\n    status: pending\n`);
  for (let i = 0; i < 60; i++) await appendProgress(a, { title: `Session ${i} ${'did many things '.repeat(8)}`, next: 'continue '.repeat(30) });
  fs.writeFileSync(path.join(a, 'features.json'), JSON.stringify(Array.from({ length: 300 }, (_, i) => ({ category: 'c', description: `Feature ${i} ${'works end to end '.repeat(5)}`, steps: ['a', 'b'], passes: i % 3 === 0 }))));
  await gatherBriefing(a);
  const edited = JSON.parse(fs.readFileSync(path.join(a, 'features.json'), 'utf8'));
  for (let i = 0; i < 40; i++) edited[i].description += ' (reworded)';
  fs.writeFileSync(path.join(a, 'features.json'), JSON.stringify(edited));
  for (let i = 0; i < 100; i++) assert.ok((await rememberMemory(a, `key-${i}-${'k'.repeat(60)}`, `value ${i}`)).ok);
  fs.mkdirSync(path.join(a, 'memory'), { recursive: true });
  for (let i = 0; i < 50; i++) fs.writeFileSync(path.join(a, 'memory', `note${i}.md`), `# Note ${i} ${'title words '.repeat(10)}\n`);
  for (let i = 0; i < 40; i++) await setAgentStatus(a, `agent-${i}`, { status: 'working', progress: i / 40 });
  const providers: BriefingProviders = {
    terminals: async () => ({
      total: 500,
      failed: Array.from({ length: 200 }, (_, i) => ({ path: `.agent/terminals/${i + 1}.txt`, command: `npm run build -- --project ${'x'.repeat(100)}`, exitCode: 2, startLine: i * 10 + 1, endLine: i * 10 + 9 })),
    }),
    skills: async () => Array.from({ length: 300 }, (_, i) => ({ name: `skill-${i}`, description: `Does thing ${i}: ${'useful words '.repeat(15)}`, path: `.agent/skills/skill-${i}/SKILL.md` })),
  };
  const input = await gatherBriefing(a, { providers });
  const { text, tokens } = composeBriefing(input);
  assert.equal(countTokens(text).tokens, tokens);
  // The tool's driver sizes candidates by their lines' counts: the same choice, the exact count when asked.
  for (const cap of [BRIEFING_MAX_TOKENS, 900, 400]) {
    const sync = composeBriefing(input, cap);
    const twice = [await composeBriefingAsync(input, cap), await composeBriefingAsync(input, cap, { exact: false })];
    for (const got of twice) assert.equal(got.text, sync.text, `cap ${cap}`);
    assert.equal(twice[0].tokens, sync.tokens);
    assert.ok(twice[1].tokens >= sync.tokens && sync.tokens <= cap, `cap ${cap}: bound ${twice[1].tokens}, exact ${sync.tokens}`);
  }
  assert.ok(tokens <= BRIEFING_MAX_TOKENS, `briefing is ${tokens} tokens`);
  assert.match(text, /Plan \.agent\/plan\.yaml: 400\/1000 done/);
  assert.match(text, /Now: step s401 \[in_progress\]/);
  assert.match(text, /WARNING: changed outside setPasses/);
  assert.match(text, /\.agent\/terminals\/1\.txt lines 1-9: exit 2/);
  assert.match(text, /more in \.agent\/terminals\//);
  assert.match(text, /Memory \.agent\/memory\/preferences\.yaml \(100 keys/);
  // Every line that shortens a list names where the rest lives.
  for (const line of text.split('\n').filter((l) => l.includes('… ') && l.includes('more'))) assert.match(line, /\.agent\/|tool/, line);
});

test('composeBriefing never exceeds a small cap either', async () => {
  const a = tmpAgent();
  fs.writeFileSync(path.join(a, 'plan.yaml'), PLAN);
  const input = await gatherBriefing(a);
  for (const cap of [400, 150, 60]) {
    const { tokens, text } = composeBriefing(input, cap);
    assert.ok(tokens <= cap, `${tokens} > ${cap}: ${text}`);
  }
});

test('two steps in progress: the briefing names both, then the next pending one', async () => {
  const a = tmpAgent();
  fs.writeFileSync(path.join(a, 'plan.yaml'), `objective: "Ship it"
steps:
  - id: 1
    description: "Core"
    status: completed
  - id: 2
    description: "Docs"
    status: pending
  - id: 3
    description: "Views"
    status: in_progress
  - id: 4
    description: "Wire the note the user left"
    status: in_progress
  - id: 5
    description: "Release"
    status: pending
`);
  const { text } = composeBriefing(await gatherBriefing(a));
  assert.match(text, /Now: step 3 \[in_progress\] Views \(\.agent\/plan\.yaml:9\)/);
  assert.match(text, /Now: step 4 \[in_progress\] Wire the note the user left \(\.agent\/plan\.yaml:12\)/);
  // Pending steps after the first in-progress one follow, and a pending step before it is not lost either.
  assert.match(text, /Then: step 5 Release/);
  assert.match(text, /Then: step 2 Docs|Pending before: step 2 Docs/);
});

test('scratch sizes read as the Scratch view shows them: 420 B, not 1 KB', async () => {
  const a = tmpAgent();
  fs.mkdirSync(path.join(a, 'scratch'));
  fs.writeFileSync(path.join(a, 'scratch', 'x.txt'), 'x'.repeat(420));
  const { text } = composeBriefing(await gatherBriefing(a));
  assert.match(text, /Scratch \.agent\/scratch\/: 1 file, 420 B\./);
});

test('plans in plans/ are summarised once and again only when their file changes: an edit in place, a deletion and a wiped cache all show', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-brief-plans-'));
  const agentDir = path.join(root, '.agent');
  fs.mkdirSync(path.join(agentDir, 'plans'), { recursive: true });
  for (let i = 0; i < 20; i++) {
    const md = i % 2 === 0;
    fs.writeFileSync(path.join(agentDir, 'plans', `p${String(i).padStart(2, '0')}.${md ? 'md' : 'yaml'}`), md ? `# Plan ${i}\n\n- [x] one\n- [ ] two\n` : `objective: "Plan ${i}"\nsteps:\n  - id: 1\n    description: one\n    status: completed\n  - id: 2\n    description: two\n    status: pending\n`);
  }
  const planLines = async (): Promise<string[]> => (await gatherBriefing(agentDir)).plans.map((p) => `${p.path} ${p.done}/${p.total}${p.error ? ' error' : ''}`);
  const first = await planLines();
  assert.equal(first.length, 20);
  assert.ok(first.every((l) => l.endsWith(' 1/2')));
  assert.ok(fs.existsSync(path.join(agentDir, '.cache', 'briefing-plans.json')));
  const yaml = path.join(agentDir, 'plans', 'p03.yaml');
  fs.writeFileSync(yaml, fs.readFileSync(yaml, 'utf8').replace('status: pending', 'status: completed'));
  fs.rmSync(path.join(agentDir, 'plans', 'p04.md'));
  fs.writeFileSync(path.join(agentDir, 'plans', 'p05.yaml'), 'objective: [unclosed\n');
  const second = await planLines();
  assert.equal(second.length, 19);
  assert.ok(second.includes('.agent/plans/p03.yaml 2/2'));
  assert.ok(second.includes('.agent/plans/p05.yaml 0/0 error'));
  assert.ok(!second.some((l) => l.startsWith('.agent/plans/p04.md')));
  fs.writeFileSync(path.join(agentDir, '.cache', 'briefing-plans.json'), '{"format":"agent-context-digests","name":"briefing-plans","v":1,"entries":[["plans/p03.yaml",[0,0,0,0,0],{"plan":7}]]}');
  assert.deepEqual(await planLines(), second);
});

test('with many plans in plans/, the briefing shows plan.yaml and then the plans worked on last, not the first by name', async () => {
  const agentDir = tmpAgent();
  fs.writeFileSync(path.join(agentDir, 'plan.yaml'), PLAN);
  fs.mkdirSync(path.join(agentDir, 'plans'));
  const t0 = Date.now() / 1000 - 10_000;
  const write = (name: string, text: string, age: number): void => {
    const f = path.join(agentDir, 'plans', name);
    fs.writeFileSync(f, text);
    fs.utimesSync(f, t0 - age, t0 - age);
  };
  // Names in the opposite order of their activity: a-* oldest.
  for (let i = 0; i < 6; i++) write(`${String.fromCharCode(97 + i)}-plan.md`, `# Plan ${String.fromCharCode(97 + i)}\n\n- [ ] open step\n`, (6 - i) * 100);
  write('0-outline.md', '# Just notes\n\nSome text.\n', 0); // no checklist: after every checklist
  const input = await gatherBriefing(agentDir);
  assert.deepEqual(input.plans.map((p) => p.path), [
    '.agent/plan.yaml',
    ...['f', 'e', 'd', 'c', 'b', 'a'].map((c) => `.agent/plans/${c}-plan.md`),
    '.agent/plans/0-outline.md',
  ]);
  const { text } = composeBriefing(input);
  assert.match(text, /Plan \.agent\/plans\/f-plan\.md: 0\/1 done — Plan f/);
  assert.doesNotMatch(text, /Plan \.agent\/plans\/a-plan\.md/);
});

test('kept between calls, the plan order, the failing features and the skill list still follow every change: a plan worked on, a feature set passing, a skill edited', async () => {
  const agentDir = tmpAgent();
  const root = path.dirname(agentDir);
  fs.mkdirSync(path.join(agentDir, 'plans'));
  const t0 = Date.now() / 1000 - 10_000;
  for (let i = 0; i < 4; i++) {
    const f = path.join(agentDir, 'plans', `${i}.md`);
    fs.writeFileSync(f, `# Plan ${i}\n\n- [ ] open step\n`);
    fs.utimesSync(f, t0 + i, t0 + i);
  }
  fs.writeFileSync(path.join(agentDir, 'features.json'), JSON.stringify([0, 1, 2].map((i) => ({ category: 'c', description: `feature ${i}`, steps: [], passes: false })), null, 2));
  const skill = path.join(root, '.github', 'skills', 'deploy', 'SKILL.md');
  fs.mkdirSync(path.dirname(skill), { recursive: true });
  fs.writeFileSync(skill, '---\nname: deploy\ndescription: Ship it\n---\nbody\n');
  const look = async () => {
    const b = await gatherBriefing(agentDir);
    return { plans: b.plans.map((p) => p.path.replace('.agent/plans/', '')), failing: b.features?.failing.map((f) => f.index), skills: b.skills.map((s) => `${s.name}: ${s.description}`) };
  };
  const first = await look();
  assert.deepEqual(first, { plans: ['3.md', '2.md', '1.md', '0.md'], failing: [0, 1, 2], skills: ['deploy: Ship it'] });
  assert.deepEqual(await look(), first, 'nothing changed: the same answer');
  // Plan 0 worked on last; feature 1 passes; the skill's description edited in place.
  fs.writeFileSync(path.join(agentDir, 'plans', '0.md'), '# Plan 0\n\n- [x] open step\n');
  const r = await setPasses(agentDir, 1, true);
  assert.ok(r.ok);
  fs.writeFileSync(skill, '---\nname: deploy\ndescription: Ship it now\n---\nbody\n');
  assert.deepEqual(await look(), { plans: ['0.md', '3.md', '2.md', '1.md'], failing: [0, 2], skills: ['deploy: Ship it now'] });
});
