import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { allowListMatch, compoundOperator, runNeedsConfirmation } from '../../../src/core/tools/commandPolicy';
import { escapeMarkdown } from '../../../src/core/output/text';

test('compound commands are recognised whatever the operator', () => {
  for (const [cmd, op] of [
    ['a; b', ';'], ['a && b', '&&'], ['a || b', '||'], ['a | b', '|'], ['echo $(id)', '$('], ['echo `id`', '`'],
    ['a > f', '>'], ['a >> f', '>>'], ['a < f', '<'], ['sleep 1 &', '&'], ['a\nb', 'a line break'],
  ]) assert.equal(compoundOperator(cmd), op, cmd);
  assert.equal(compoundOperator('npm test -- --grep foo'), undefined);
});

test('the allow-list must match the whole command; * is the only wildcard; compound never matches', () => {
  const list = ['npm test', 'git status*', 'echo *'];
  assert.equal(allowListMatch('npm test', list), 'npm test');
  assert.equal(allowListMatch('npm  test', list), 'npm test');
  assert.equal(allowListMatch('npm test --watch', list), undefined);
  assert.equal(allowListMatch('git status --short', list), 'git status*');
  assert.equal(allowListMatch('echo hi && rm -rf x', list), undefined);
  assert.equal(allowListMatch('echo hi; rm -rf x', list), undefined);
  assert.equal(allowListMatch('npm.test', ['npm.test']), 'npm.test');
  assert.equal(allowListMatch('npmXtest', ['npm.test']), undefined, 'a dot is a dot');
  assert.match(runNeedsConfirmation('echo a && echo b', list)!, /contains &&/);
  assert.match(runNeedsConfirmation('rm x', list)!, /not on the allow-list/);
  assert.equal(runNeedsConfirmation('echo a', list), undefined);
});

test('escapeMarkdown keeps spaces as spaces (MarkdownString.appendText turns them into &nbsp;, so the chat cannot wrap)', () => {
  const s = escapeMarkdown('in the workspace root. Output goes to .agent/scratch/tool_outputs/. Asking because it is not on the allow-list (agentContext.run.allowList).');
  assert.doesNotMatch(s, /&nbsp;|\u00a0/);
  assert.match(s, /^in the workspace root\\\. Output goes to \\\.agent\/scratch\/tool\\_outputs\/\\\. Asking because/);
  assert.equal(escapeMarkdown('a*b_c[d](e) `f` #g'), 'a\\*b\\_c\\[d\\]\\(e\\) \\`f\\` \\#g');
});

test('chat.tools.terminal.autoApprove rules (user settings) are an allow-list too, and a denying rule wins', () => {
  const rules = { 'npm test': true, '/^make( |$)/': true, 'npm test -- --update-snapshots': false, rm: { approve: false }, git: null };
  assert.equal(runNeedsConfirmation('npm test', [], rules), undefined);
  assert.equal(runNeedsConfirmation('npm test --grep x', [], rules), undefined, 'a prefix rule covers arguments');
  assert.equal(runNeedsConfirmation('make all', [], rules), undefined, 'a /regex/ rule');
  assert.match(runNeedsConfirmation('npm test -- --update-snapshots', [], rules) ?? '', /rule "npm test -- --update-snapshots" denies it/);
  assert.match(runNeedsConfirmation('rm -rf build', ['rm *'], rules) ?? '', /rule "rm" denies it/, 'deny wins over our own allow-list');
  assert.match(runNeedsConfirmation('npm testing', [], rules) ?? '', /not on the allow-list/, 'a prefix ends at a space');
  assert.match(runNeedsConfirmation('git status', [], rules) ?? '', /not on the allow-list/, 'null: no rule');
  assert.match(runNeedsConfirmation('npm test && rm x', ['*'], rules) ?? '', /contains &&/, 'compound commands always ask');
  assert.equal(runNeedsConfirmation('echo hi', ['echo *'], undefined), undefined);
  assert.match(runNeedsConfirmation('make', [], { '/[/': true }) ?? '', /not on the allow-list/, 'a broken regex matches nothing');
});
