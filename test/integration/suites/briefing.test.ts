import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ui, waitFor } from '../bridge';
import { countTokens } from '../../../src/core/output/tokens';
import { invoke, waitForPaneRow, waitForTree, wsRoot } from '../agentViewsHelpers';

const agent = (p: string) => path.join(wsRoot(), '.agent', p);
const FEATURES = [
  { category: 'api', description: 'Every public endpoint is rate limited', steps: ['call 101 times', 'see 429'], passes: false },
  { category: 'api', description: 'Limits are configurable', steps: ['set limit', 'observe'], passes: false },
];

describe('Briefing, progress, features and history', () => {
  const created: string[] = [];
  after(async () => {
    for (const f of ['progress.md', 'features.json', 'history/features.accepted.jsonl', ...created]) fs.rmSync(agent(f), { force: true });
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await ui.press('Escape');
  });

  it('agentContext_briefing orients in one call within 1,500 tokens, with paths', async () => {
    const t = await invoke('agentContext_briefing', {});
    assert.ok(countTokens(t).tokens <= 1500, `${countTokens(t).tokens} tokens`);
    assert.match(t, /^# Briefing \(\.agent\/\)/);
    assert.match(t, /Plan \.agent\/plan\.yaml: 1\/4 done, in_progress — Add rate limiting to the public API/);
    assert.match(t, /Now: step \S+ \[in_progress\] Choose a limiter \(token bucket vs sliding window\) \(\.agent\/plan\.yaml:\d+\)/);
    assert.match(t, /Skills \(\d+; load one with the skill tool\):/);
    assert.match(t, /Scratch \.agent\/scratch\/: \d+ files/);
  });

  it('the Show Briefing command opens the same briefing', async () => {
    await ui.runCommand('Agent Context: Show Briefing');
    const doc = await waitFor(() => {
      const d = vscode.window.activeTextEditor?.document;
      return d && d.getText().startsWith('# Briefing (.agent/)') ? d : undefined;
    }, { message: 'a briefing document is open' });
    assert.equal(doc.languageId, 'markdown');
    assert.match(doc.getText(), /Add rate limiting to the public API/);
    assert.equal(doc.isDirty, false, 'read-only: closing it never asks to save');
  });

  it('logProgress and setPasses show up in the Plan view: recent progress and the passing count', async () => {
    const logged = await invoke('agentContext_plan', { action: 'logProgress', description: 'Chose token bucket', notes: 'Compared both limiters', next: 'Implement the middleware' });
    assert.match(logged, /^Logged to \.agent\/progress\.md:\d+ — .* — Chose token bucket\nNext: Implement the middleware$/);
    fs.writeFileSync(agent('features.json'), JSON.stringify(FEATURES, null, 2) + '\n');
    assert.match(await invoke('agentContext_plan', { action: 'setPasses', feature: 1, passes: true }), /Feature 1 "Limits are configurable" passes: true\. 1\/2 passing/);
    const progress = await waitForTree('agentContext.plan', (n) => n.find((x) => x.label === 'Recent progress' && x.children.some((c) => c.label === 'Chose token bucket')), 'Recent progress node');
    assert.match(progress.description ?? '', /of \d+ · \.agent\/progress\.md/);
    const features = await waitForTree('agentContext.plan', (n) => n.find((x) => x.label === 'Features' && x.description === '1/2 passing'), 'Features 1/2 passing');
    assert.deepEqual(features.children.map((c) => [c.label, c.description]), [
      ['Every public endpoint is rate limited', 'not passing · api'],
      ['Limits are configurable', 'passes · api'],
    ]);
    const rows = await waitForPaneRow('Plan', '1/2 passing', 20_000, true);
    assert.ok(rows.some((r) => r.includes('Features') && r.includes('1/2 passing')), rows.join(' | '));
    const brief = await invoke('agentContext_briefing', {});
    assert.match(brief, /Chose token bucket \| Next: Implement the middleware/);
    assert.match(brief, /Features \.agent\/features\.json: 1\/2 passing\./);
  });

  it('a rewording on disk is flagged with the difference, tools refuse, and Accept Feature List clears it', async () => {
    const edited = FEATURES.map((f, i) => ({ ...f, passes: i === 1 }));
    edited[0] = { ...edited[0], description: 'Most public endpoints are rate limited' };
    fs.writeFileSync(agent('features.json'), JSON.stringify(edited, null, 2) + '\n');
    const warned = await waitForTree('agentContext.plan', (n) => n.find((x) => x.label === 'Features' && x.contextValue === 'featuresTampered'), 'Features flagged as changed');
    assert.equal(warned.description, '1/2 passing · ⚠ changed outside setPasses');
    assert.equal(warned.children[0].label, '~ reworded feature 0: "Every public endpoint is rate limited" → "Most public endpoints are rate limited"');
    const refused = await invoke('agentContext_plan', { action: 'setPasses', feature: 0, passes: true });
    assert.match(refused, /^Error: .*Accept Feature List/);
    assert.equal(JSON.parse(fs.readFileSync(agent('features.json'), 'utf8'))[0].passes, false);
    const accepting = vscode.commands.executeCommand<boolean>('agentContext.acceptFeatures');
    const d = await ui.dialog('Accept');
    assert.match(d.detail ?? '', /reworded feature 0/);
    assert.equal(await accepting, true);
    await waitForTree('agentContext.plan', (n) => n.find((x) => x.label === 'Features' && x.contextValue === 'features'), 'warning cleared after accepting');
    assert.match(await invoke('agentContext_plan', { action: 'setPasses', feature: 0, passes: true }), /2\/2 passing/);
  });

  it('Archive Text to History archives the active editor as a new, never rewritten session file', async () => {
    const doc = await vscode.workspace.openTextDocument({ content: 'User: how do we limit?\nAgent: token bucket.\n' });
    await vscode.window.showTextDocument(doc);
    // Append-only: it asks first, showing the size and the first line; Cancel archives nothing.
    const sessions = () => (fs.existsSync(agent('history')) ? fs.readdirSync(agent('history')).length : 0);
    const before = sessions();
    const cancelled = vscode.commands.executeCommand<string>('agentContext.archiveToHistory');
    const asked = await ui.dialog('Cancel');
    assert.match(asked.message, /^Archive 44 B \(2 lines\) from Untitled-\d+ into \S+'s \.agent\/history\/\?$/);
    assert.match(asked.detail, /It starts with: "User: how do we limit\?"/);
    assert.equal(await cancelled, undefined);
    assert.equal(sessions(), before);
    const archiving = vscode.commands.executeCommand<string>('agentContext.archiveToHistory');
    await ui.dialog('Archive');
    const rel = await archiving;
    assert.match(rel ?? '', /^\.agent\/history\/session-[0-9A-Z]{26}\.md$/);
    created.push(rel!.replace(/^\.agent\//, ''));
    const abs = path.join(wsRoot(), rel!);
    const first = fs.readFileSync(abs, 'utf8');
    assert.ok(first.endsWith('User: how do we limit?\nAgent: token bucket.\n'));
    const archivingAgain = vscode.commands.executeCommand<string>('agentContext.archiveToHistory');
    await ui.dialog('Archive');
    const again = await archivingAgain;
    assert.notEqual(again, rel);
    created.push(again!.replace(/^\.agent\//, ''));
    assert.equal(fs.readFileSync(abs, 'utf8'), first);
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });
});
