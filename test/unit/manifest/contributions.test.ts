// package.json's contributions as a user meets them: the command palette and the Agent Context
// container's views and welcome content.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from '../../repoRoot';

interface Command { command: string; title: string; category?: string; enablement?: string }
interface MenuEntry { command: string; when?: string }
interface View { id: string; name: string; when?: string; visibility?: string; initialSize?: number }
interface Welcome { view: string; when?: string; contents: string }

const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
const commands: Command[] = pkg.contributes.commands;
const palette: MenuEntry[] = pkg.contributes.menus.commandPalette;
const views: View[] = pkg.contributes.views.agentContext;
const welcome: Welcome[] = pkg.contributes.viewsWelcome;

/** The commands the palette can list: those not hidden with `when: false`. */
function paletteVisible(): Command[] {
  const hidden = new Set(palette.filter((e) => e.when === 'false').map((e) => e.command));
  return commands.filter((c) => !hidden.has(c.command));
}

test('every command is in the one category "Agent Context"', () => {
  const other = commands.filter((c) => c.category !== 'Agent Context').map((c) => `${c.command} (${c.category ?? 'no category'})`);
  assert.deepEqual(other, []);
});

test('no two palette entries read the same (category and title)', () => {
  const seen = new Map<string, string>();
  const dupes: string[] = [];
  for (const c of paletteVisible()) {
    const label = `${c.category ?? ''}: ${c.title}`;
    if (seen.has(label)) dupes.push(`"${label}": ${seen.get(label)} and ${c.command}`);
    else seen.set(label, c.command);
  }
  assert.deepEqual(dupes, []);
});

test('view-specific refresh commands stay out of the palette, and Accept Feature List is offered only with a feature list', () => {
  const visible = new Set(paletteVisible().map((c) => c.command));
  for (const c of commands.filter((x) => x.command.endsWith('.refresh'))) assert.ok(!visible.has(c.command), `${c.command} is hidden from the palette`);
  const accept = palette.find((e) => e.command === 'agentContext.acceptFeatures');
  assert.equal(accept?.when, 'agentContext.hasFeatureList');
});

test('in a folder without .agent/ one view is shown, with the Initialize button; the others wait for .agent/', () => {
  const always = views.filter((v) => !v.when);
  assert.deepEqual(always.map((v) => v.id), ['agentContext.plan']);
  for (const v of views.filter((x) => x.when)) assert.equal(v.when, 'agentContext.hasAgentFolder', `${v.id} is hidden until .agent/ exists`);
  const initialize = welcome.filter((w) => w.contents.includes('(command:agentContext.initialize)'));
  assert.deepEqual(initialize.map((w) => w.view), ['agentContext.plan'], 'one Initialize button');
});

test('Scratch, Skills, Terminals and Memory & Agents each have welcome content for an empty .agent/, and the small view starts collapsed', () => {
  for (const id of ['scratch', 'skills', 'terminals', 'memory']) {
    const w = welcome.filter((x) => x.view === `agentContext.${id}` && x.when === 'agentContext.hasAgentFolder');
    assert.equal(w.length, 1, `agentContext.${id} has one empty-state welcome`);
  }
  assert.equal(views.find((v) => v.id === 'agentContext.memory')?.visibility, 'collapsed', 'Memory & Agents starts collapsed');
  assert.equal(views.find((v) => v.id === 'agentContext.agents'), undefined, 'Agents is a part of Memory & Agents, not a view of its own');
  // The Plan starts taller than every view but Terminals, which starts with the room Memory & Agents
  // takes when it is opened (VS Code takes it from the lowest open view first, and gives it back
  // there): the walkthrough run's sidebar test checks the Plan's rows in the real editor.
  const plan = views.find((v) => v.id === 'agentContext.plan')!;
  for (const v of views.filter((x) => x !== plan && x.id !== 'agentContext.terminals')) assert.ok((plan.initialSize ?? 1) > (v.initialSize ?? 1), `Plan starts taller than ${v.name}`);
});
