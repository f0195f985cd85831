import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { WALKTHROUGH_SIGNALS, detectWalkthroughSignals, pathCompletesSignal, walkthroughContextKey } from '../../../src/core/setup/walkthroughSignals';
import { repoRoot } from '../../repoRoot';

const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));

test('each signal appears in the files it watches for, and temp files do not count', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-walk-'));
  assert.deepEqual(detectWalkthroughSignals(root), []);
  fs.mkdirSync(path.join(root, '.agent/terminals'), { recursive: true });
  fs.writeFileSync(path.join(root, '.agent/terminals/.1.txt.123.tmp'), '');
  assert.deepEqual(detectWalkthroughSignals(root), ['agentFolder']);
  fs.writeFileSync(path.join(root, '.agent/terminals/1.txt'), 'x');
  fs.mkdirSync(path.join(root, '.agent/human/notes'), { recursive: true });
  fs.writeFileSync(path.join(root, '.agent/human/notes/01A.md'), 'x');
  assert.deepEqual(detectWalkthroughSignals(root), ['agentFolder', 'terminalCaptured', 'noted']);
  assert.equal(pathCompletesSignal('.agent/terminals/12.txt', 'terminalCaptured'), true);
  assert.equal(pathCompletesSignal('.agent/terminals/12.index.jsonl', 'terminalCaptured'), false);
  assert.equal(pathCompletesSignal('.agent/scratch/terminals/1.txt', 'terminalCaptured'), false);
  assert.equal(pathCompletesSignal('.agent/history/tools.jsonl', 'toolUsed'), true);
  assert.equal(pathCompletesSignal('.agent/history/tools-2026-11.jsonl', 'toolUsed'), true);
  assert.equal(pathCompletesSignal('.agent/history/features.accepted.jsonl', 'toolUsed'), false);
});

test('every onContext completion event of the walkthrough is a key the glue sets, and every step completes on something', () => {
  const keys = new Set(WALKTHROUGH_SIGNALS.map((s) => walkthroughContextKey(s.key)));
  const [walk] = pkg.contributes.walkthroughs;
  const commands = new Set((pkg.contributes.commands as { command: string }[]).map((c) => c.command));
  assert.equal(walk.title, 'Get started with Agent Context');
  for (const step of walk.steps as { id: string; completionEvents: string[]; media: { svg?: string; image?: string } }[]) {
    assert.ok(step.completionEvents.length > 0, `step ${step.id} has a completion event`);
    for (const ev of step.completionEvents) {
      if (ev.startsWith('onContext:')) assert.ok(keys.has(ev.slice('onContext:'.length)), `${step.id}: ${ev} is set by the glue`);
      if (ev.startsWith('onCommand:')) assert.ok(commands.has(ev.slice('onCommand:'.length)), `${step.id}: ${ev} is a contributed command`);
    }
    const media = step.media.svg ?? step.media.image;
    assert.ok(media && fs.existsSync(path.join(repoRoot, media)), `${step.id}: media ${media} exists`);
  }
});
