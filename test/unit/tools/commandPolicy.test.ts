import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { allowListMatch, compoundOperator, runNeedsConfirmation } from '../../../src/core/tools/commandPolicy';

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
