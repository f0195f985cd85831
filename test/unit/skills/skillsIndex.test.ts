import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { formatSkillIndex, loadSkills, parseSkillFrontmatter, sharedSkills } from '../../../src/core/skills/skillsIndex';
import { repoRoot } from '../../repoRoot';
import { skillTool } from '../../../src/core/tools/skill';
import { INLINE_MAX_BYTES, type ToolContext } from '../../../src/core/tools/toolContext';
import { DEFAULT_TOOL_CONFIG } from '../../../src/core/config';
import { nullLogger } from '../../../src/core/log';

const fixtures = path.join(repoRoot, 'test/fixtures/skills');

function workspaceWithSkills(): string {
  const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ac-skills-')));
  fs.cpSync(path.join(fixtures, 'ok'), path.join(ws, '.agent/skills/pdf'), { recursive: true });
  fs.cpSync(path.join(fixtures, 'no-frontmatter'), path.join(ws, '.agent/skills/plain'), { recursive: true });
  fs.cpSync(path.join(fixtures, 'broken'), path.join(ws, '.github/skills/broken'), { recursive: true });
  fs.cpSync(path.join(fixtures, 'unclosed'), path.join(ws, '.claude/skills/unclosed'), { recursive: true });
  fs.mkdirSync(path.join(ws, '.claude/skills/review'), { recursive: true });
  fs.writeFileSync(path.join(ws, '.claude/skills/review/SKILL.md'), '---\r\nname: review\r\ndescription: >\r\n  Review a diff\r\n  for bugs.\r\n---\r\nbody\r\n');
  fs.mkdirSync(path.join(ws, '.github/skills/empty-folder'), { recursive: true });
  return ws;
}

test('loadSkills reads all three skill folders with their source, errors per file', async () => {
  const ws = workspaceWithSkills();
  const skills = await loadSkills(ws);
  assert.deepEqual(
    skills.map((s) => [s.source, s.name, s.error ? `${s.error.line}: ${s.error.message.split(":")[0]}` : s.description]),
    [
      ['.agent/skills', 'pdf-extract', 'Extract text and tables from PDF files. Use when a task mentions PDFs.'],
      ['.agent/skills', 'plain', '1: no YAML frontmatter'],
      ['.github/skills', 'broken', '3: invalid YAML in frontmatter'],
      ['.claude/skills', 'review', 'Review a diff for bugs.'],
      ['.claude/skills', 'unclosed', '1: the frontmatter is not closed'],
    ],
  );
  assert.equal(skills[2].error?.file, '.github/skills/broken/SKILL.md');
});

test('formatSkillIndex: one `name: description (path)` line per usable skill', async () => {
  const ws = workspaceWithSkills();
  assert.equal(
    formatSkillIndex(await loadSkills(ws)),
    'pdf-extract: Extract text and tables from PDF files. Use when a task mentions PDFs. (.agent/skills/pdf/SKILL.md)\n' +
      'review: Review a diff for bugs. (.claude/skills/review/SKILL.md)',
  );
});

test('frontmatter without name or description names what is missing', () => {
  const r = parseSkillFrontmatter('---\nname: x\n---\n', 'a/SKILL.md');
  assert.ok(!r.ok);
  assert.match(r.error.message, /no "description"/);
  assert.ok(parseSkillFrontmatter('\uFEFF---\nname: x\ndescription: y\n---\n', 'b').ok);
});

test('no skill folders at all gives an empty list', async () => {
  assert.deepEqual(await loadSkills(fs.mkdtempSync(path.join(os.tmpdir(), 'ac-noskills-'))), []);
});

test('loadSkills reads .agents/skills and, given the home folder, ~/.copilot/skills, ~/.claude/skills and ~/.agents/skills, each with its source', async () => {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-skills-ws-'));
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-skills-home-'));
  const put = (root: string, dir: string, name: string): void => {
    fs.mkdirSync(path.join(root, dir, name), { recursive: true });
    fs.writeFileSync(path.join(root, dir, name, 'SKILL.md'), `---\nname: ${name}\ndescription: d ${name}\n---\nbody\n`);
  };
  put(ws, '.agents/skills', 'ws-agents');
  put(home, '.copilot/skills', 'h-copilot');
  put(home, '.claude/skills', 'h-claude');
  put(home, '.agents/skills', 'h-agents');
  assert.deepEqual((await loadSkills(ws)).map((s) => `${s.source} ${s.name} ${s.rel}`), ['.agents/skills ws-agents .agents/skills/ws-agents/SKILL.md']);
  assert.deepEqual((await loadSkills(ws, { home })).map((s) => `${s.source} ${s.name} ${s.rel}`), [
    '.agents/skills ws-agents .agents/skills/ws-agents/SKILL.md',
    '~/.copilot/skills h-copilot ~/.copilot/skills/h-copilot/SKILL.md',
    '~/.claude/skills h-claude ~/.claude/skills/h-claude/SKILL.md',
    '~/.agents/skills h-agents ~/.agents/skills/h-agents/SKILL.md',
  ]);
});

test('a skill folder is listed again only when a skill was added, removed or renamed there; an edit in place is seen at once', async () => {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-skills-listing-'));
  const dir = path.join(ws, '.agent', 'skills');
  const skill = (name: string, description: string): void => {
    fs.mkdirSync(path.join(dir, name), { recursive: true });
    fs.writeFileSync(path.join(dir, name, 'SKILL.md'), `---\nname: ${name}\ndescription: ${description}\n---\nBody\n`);
  };
  for (let i = 0; i < 30; i++) skill(`skill-${i}`, `does ${i}`);
  // A listing stands on the folder's stamp only once it is 2 s old (a change in the same clock tick could leave it unchanged).
  await new Promise((r) => setTimeout(r, 2100));
  const real = fs.promises.readdir;
  let listings = 0;
  (fs.promises as { readdir: unknown }).readdir = (...args: unknown[]) => {
    if (String(args[0]) === dir) listings++;
    return (real as (...a: unknown[]) => unknown)(...args);
  };
  try {
    assert.equal((await loadSkills(ws)).length, 30);
    assert.equal((await loadSkills(ws)).length, 30);
    assert.equal(listings, 1, 'nothing changed: listed once');
    fs.writeFileSync(path.join(dir, 'skill-3', 'SKILL.md'), '---\nname: skill-3\ndescription: now does more\n---\n');
    assert.equal((await loadSkills(ws)).find((s) => s.name === 'skill-3')?.description, 'now does more');
    skill('skill-new', 'arrived');
    fs.rmSync(path.join(dir, 'skill-0'), { recursive: true });
    fs.renameSync(path.join(dir, 'skill-1'), path.join(dir, 'skill-one'));
    const names = (await loadSkills(ws)).map((s) => s.rel);
    assert.equal(names.length, 30);
    assert.ok(names.includes('.agent/skills/skill-new/SKILL.md'));
    assert.ok(names.includes('.agent/skills/skill-one/SKILL.md'));
    assert.ok(!names.includes('.agent/skills/skill-0/SKILL.md') && !names.includes('.agent/skills/skill-1/SKILL.md'));
    assert.equal(listings, 2);
  } finally {
    (fs.promises as { readdir: unknown }).readdir = real;
    fs.rmSync(ws, { recursive: true, force: true });
  }
});

test('agentContext_skill with 500 skills: whole lines while they fit, then how many more and their names, never a line cut in the middle', async () => {
  const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ac-skills-many-')));
  for (let i = 0; i < 500; i++) {
    const dir = path.join(ws, '.agent', 'skills', `skill-${String(i).padStart(3, '0')}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'SKILL.md'), `---\nname: skill-${String(i).padStart(3, '0')}\ndescription: How to do task number ${i} of the release\n---\nBody\n`);
  }
  const ctx: ToolContext = { folders: [{ name: 'w', path: ws }], config: DEFAULT_TOOL_CONFIG, signal: new AbortController().signal, log: nullLogger, source: 'mcp', trusted: true, allowRun: false };
  const { text } = await skillTool({}, ctx);
  const lines = text.split('\n');
  assert.equal(lines[0], '500 skills; load one with name:');
  const full = lines.slice(1, -1);
  assert.ok(full.length > 10, `${full.length} whole lines`);
  full.forEach((l, i) => assert.equal(l, `skill-${String(i).padStart(3, '0')}: How to do task number ${i} of the release (.agent/skills/skill-${String(i).padStart(3, '0')}/SKILL.md)`));
  const more = lines[lines.length - 1];
  assert.match(more, new RegExp(`^… ${500 - full.length} more \\(load one with name; each is <folder>/<name>/SKILL\\.md\\): skill-${String(full.length).padStart(3, '0')}, `));
  assert.ok(Buffer.byteLength(text) <= INLINE_MAX_BYTES - 200, `${Buffer.byteLength(text)} bytes`);
  // The named ones are loadable.
  const last = await skillTool({ name: 'skill-499' }, ctx);
  assert.match(last.text, /How to do task number 499/);
});

test('a skill reached through a symbolic link that leads out of the workspace is listed as refused and never read; one inside it is read', async () => {
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-skills-outside-'));
  fs.mkdirSync(path.join(outside, 'shared'));
  fs.writeFileSync(path.join(outside, 'shared', 'SKILL.md'), '---\nname: shared\ndescription: outside\n---\nBODY FROM OUTSIDE\n');
  fs.mkdirSync(path.join(outside, 'skills', 'whole'), { recursive: true });
  fs.writeFileSync(path.join(outside, 'skills', 'whole', 'SKILL.md'), '---\nname: whole\ndescription: outside too\n---\nBODY FROM OUTSIDE\n');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-skills-links-'));
  fs.mkdirSync(path.join(root, '.agent', 'skills', 'filelink'), { recursive: true });
  fs.mkdirSync(path.join(root, 'docs', 'inside'), { recursive: true });
  fs.writeFileSync(path.join(root, 'docs', 'inside', 'SKILL.md'), '---\nname: inside\ndescription: a folder of the workspace\n---\nbody\n');
  // A skill folder, a SKILL.md and a whole skill source folder, each a link out; one link to a folder inside.
  fs.symlinkSync(path.join(outside, 'shared'), path.join(root, '.agent', 'skills', 'shared'));
  fs.symlinkSync(path.join(outside, 'shared', 'SKILL.md'), path.join(root, '.agent', 'skills', 'filelink', 'SKILL.md'));
  fs.mkdirSync(path.join(root, '.github'));
  fs.symlinkSync(path.join(outside, 'skills'), path.join(root, '.github', 'skills'));
  fs.symlinkSync(path.join(root, 'docs', 'inside'), path.join(root, '.agent', 'skills', 'inside'));
  const skills = await loadSkills(root);
  const byRel = new Map(skills.map((s) => [s.rel, s]));
  for (const rel of ['.agent/skills/shared/SKILL.md', '.agent/skills/filelink/SKILL.md', '.github/skills/whole/SKILL.md']) {
    const s = byRel.get(rel);
    assert.ok(s?.outside, `${rel} is refused: ${JSON.stringify(skills.map((x) => x.rel))}`);
    assert.match(s.error!.message, /leading outside the workspace/);
  }
  assert.equal(byRel.get('.agent/skills/inside/SKILL.md')?.name, 'inside');
  const ctx: ToolContext = { folders: [{ name: 'w', path: root }], config: DEFAULT_TOOL_CONFIG, signal: new AbortController().signal, log: nullLogger, source: 'mcp', trusted: true, allowRun: false };
  const index = await skillTool({}, ctx);
  assert.match(index.text, /inside: a folder of the workspace/);
  assert.doesNotMatch(index.text, /outside too|BODY FROM OUTSIDE/);
  for (const name of ['shared', 'whole', 'filelink']) {
    const r = await skillTool({ name }, ctx);
    assert.ok(r.isError, `${name}: ${r.text}`);
    assert.match(r.text, /leading outside the workspace, to .*; not read or written/);
    assert.doesNotMatch(r.text, /BODY FROM OUTSIDE/);
  }
  assert.match((await skillTool({ name: 'inside' }, ctx)).text, /a folder of the workspace/);
});

test('a skill whose link is retargeted further up, from outside the workspace to inside it, is read at the next call (the folder listings did not change)', async () => {
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-skills-hop-out-'));
  fs.mkdirSync(path.join(outside, 'b'));
  fs.writeFileSync(path.join(outside, 'b', 'SKILL.md'), '---\nname: b\ndescription: from outside\n---\nBODY FROM OUTSIDE\n');
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ac-skills-hop-')));
  const dir = path.join(root, '.agent', 'skills');
  fs.mkdirSync(path.join(dir, 'a'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'a', 'SKILL.md'), '---\nname: a\ndescription: plain\n---\nbody\n');
  // Every skill source folder there (and empty): each listing is then kept, and the call can tell nothing was listed anew.
  for (const source of ['.github/skills', '.claude/skills', '.agents/skills']) fs.mkdirSync(path.join(root, source), { recursive: true });
  fs.mkdirSync(path.join(root, 'shared', 'b'), { recursive: true });
  fs.writeFileSync(path.join(root, 'shared', 'b', 'SKILL.md'), '---\nname: b\ndescription: from the workspace\n---\nbody\n');
  // .agent/skills/b -> ../../hop/b, and hop -> a folder out of the workspace: b leads outside.
  fs.symlinkSync(outside, path.join(root, 'hop'));
  fs.symlinkSync(path.join('..', '..', 'hop', 'b'), path.join(dir, 'b'));
  // The skills folder's listing is kept only once its stamp is 2 s old: the calls run 3 s on.
  const now = Date.now;
  const at = now() + 3000;
  Date.now = () => at;
  try {
    const before = await loadSkills(root);
    assert.deepEqual(before.map((s) => [s.name, s.outside ? 'outside' : s.description]), [['b', 'outside'], ['a', 'plain']]);
    // hop now leads into the workspace: nothing in .agent/skills changed.
    fs.rmSync(path.join(root, 'hop'));
    fs.symlinkSync(path.join(root, 'shared'), path.join(root, 'hop'));
    const after = await loadSkills(root);
    assert.deepEqual(after.map((s) => [s.name, s.outside ? 'outside' : s.description]).sort(), [['a', 'plain'], ['b', 'from the workspace']]);
  } finally {
    Date.now = now;
  }
});

test('with only some skill source folders there (the usual case), an unchanged workspace gets the same answer object from one call to the next', async () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ac-skills-same-')));
  for (const name of ['x', 'y']) {
    fs.mkdirSync(path.join(root, '.agent', 'skills', name), { recursive: true });
    fs.writeFileSync(path.join(root, '.agent', 'skills', name, 'SKILL.md'), `---\nname: ${name}\ndescription: does ${name}\n---\n`);
  }
  const now = Date.now;
  const at = now() + 3000; // the listing is kept once the folder's stamp is 2 s old
  Date.now = () => at;
  try {
    const first = await sharedSkills(root);
    const second = await sharedSkills(root);
    assert.equal(first.length, 2);
    assert.equal(second, first, 'the same array: what callers derived from it (the briefing skill lines) stands');
    fs.writeFileSync(path.join(root, '.agent', 'skills', 'x', 'SKILL.md'), '---\nname: x\ndescription: does more\n---\n');
    const third = await sharedSkills(root);
    assert.notEqual(third, first);
    assert.equal(third.find((s) => s.name === 'x')?.description, 'does more');
  } finally {
    Date.now = now;
  }
});
