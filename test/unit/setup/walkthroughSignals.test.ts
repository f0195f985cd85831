import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { WALKTHROUGH_SIGNALS, detectWalkthroughSignals, pathCompletesSignal, walkthroughCompletionEvents } from '../../../src/core/setup/walkthroughSignals';
import { repoRoot } from '../../repoRoot';

const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));

test('each signal appears in the files it watches for, and temp files do not count', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-walk-'));
  assert.deepEqual(detectWalkthroughSignals(root), []);
  fs.mkdirSync(path.join(root, '.agent/terminals'), { recursive: true });
  fs.writeFileSync(path.join(root, '.agent/terminals/.1.txt.123.tmp'), '');
  assert.deepEqual(detectWalkthroughSignals(root), ['agentFolder']);
  // An open terminal's N.txt is not yet a captured command; its index gets the first command.
  fs.writeFileSync(path.join(root, '.agent/terminals/1.txt'), 'x');
  assert.deepEqual(detectWalkthroughSignals(root), ['agentFolder']);
  fs.writeFileSync(path.join(root, '.agent/terminals/1.index.jsonl'), '{}\n');
  fs.mkdirSync(path.join(root, '.agent/human/notes'), { recursive: true });
  fs.writeFileSync(path.join(root, '.agent/human/notes/01A.md'), 'x');
  assert.deepEqual(detectWalkthroughSignals(root), ['agentFolder', 'terminalCaptured', 'noted']);
  assert.equal(pathCompletesSignal('.agent/terminals/12.index.jsonl', 'terminalCaptured'), true);
  assert.equal(pathCompletesSignal('.agent/terminals/12.txt', 'terminalCaptured'), false);
  assert.equal(pathCompletesSignal('.agent/scratch/terminals/1.index.jsonl', 'terminalCaptured'), false);
  assert.equal(pathCompletesSignal('.agent/scratch/x', 'cleanedUp'), false, 'no file completes the cleanup: the command reports it');
  assert.equal(pathCompletesSignal('.agent/history/tools.jsonl', 'toolUsed'), true);
  assert.equal(pathCompletesSignal('.agent/history/tools-2026-11.jsonl', 'toolUsed'), true);
  assert.equal(pathCompletesSignal('.agent/history/features.accepted.jsonl', 'toolUsed'), false);
});

test('every step completes only on its signal (no onCommand: a command that failed must not check a step)', () => {
  const [walk] = pkg.contributes.walkthroughs;
  assert.equal(walk.title, 'Get started with Agent Context');
  const used = new Set<string>();
  for (const step of walk.steps as { id: string; description: string; completionEvents: string[]; media: { svg?: string; image?: string } }[]) {
    const signal = WALKTHROUGH_SIGNALS.find((s) => JSON.stringify(walkthroughCompletionEvents(s.key)) === JSON.stringify(step.completionEvents));
    assert.ok(signal, `step ${step.id}: completionEvents ${JSON.stringify(step.completionEvents)} wait for one signal's context key`);
    assert.equal(signal.step, step.id, `step ${step.id} is the step its signal names (walkthroughStepId marks it done or not)`);
    used.add(signal.key);
    assert.ok(!step.description.includes('`'), `step ${step.id}: no literal backticks (the walkthrough page does not render Markdown code)`);
    const media = step.media.svg ?? step.media.image;
    assert.ok(media && fs.existsSync(path.join(repoRoot, media)), `${step.id}: media ${media} exists`);
  }
  assert.deepEqual([...used].sort(), WALKTHROUGH_SIGNALS.map((s) => s.key).sort(), 'every signal completes a step');
  assert.ok(walk.description.length <= 70, `the walkthrough subtitle fits its line (${walk.description.length} characters)`);
  // A folder without .agent/ has no other reason to start the extension: opening the walkthrough does.
  assert.ok(pkg.activationEvents.includes(`onWalkthrough:${walk.id}`), 'activated when the walkthrough opens');
});
