// The one rule for "is this terminal closed, and whose commands does it hold" (closingState) and its
// field-by-field readers (closedBy, agentBy) that the catalog runs over every terminal: each case's
// answer, and N.txt's facts never looked at when a closing record speaks.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { agentBy, closedBy, closingState, type ClosingSays } from '../../../src/core/terminal/terminalFormat';


test('the closing rule, case by case: a record wins over N.txt and says closed; without one N.txt says; closingState gives the same with the session', () => {
  const vim = { closed: false, agent: 'gemini', session: 'g1' };
  const cases: [ClosingSays | undefined, { closed: boolean; agent?: string; session?: string }, { closed: boolean; agent?: string; session?: string }][] = [
    [undefined, { closed: false }, { closed: false }],
    [undefined, { closed: true }, { closed: true }],
    [undefined, vim, vim],
    [undefined, { closed: true, agent: '' }, { closed: true }],
    [{ agent: null, session: null }, vim, { closed: true }],
    [{}, vim, { closed: true }],
    [{ agent: '' }, vim, { closed: true }],
    [{ agent: 'codex', session: 's1' }, { closed: false }, { closed: true, agent: 'codex', session: 's1' }],
    [{ agent: 'claude-code' }, vim, { closed: true, agent: 'claude-code', session: 'unknown' }],
  ];
  for (const [closing, info, want] of cases) {
    const what = `closing ${JSON.stringify(closing)}, header ${JSON.stringify(info)}`;
    assert.deepEqual(closingState(closing, () => info), want, what);
    assert.equal(closedBy(closing, { info }), want.closed, what);
    assert.equal(agentBy(closing, { info }), want.agent, what);
  }
});

test('with a closing record, N.txt\'s facts are not looked at (a lazy catalog would read N.txt for them)', () => {
  const unread = {
    get info(): never {
      throw new Error('N.txt read');
    },
  };
  assert.equal(closedBy({ agent: 'codex', session: 's' }, unread), true);
  assert.equal(agentBy({ agent: 'codex', session: 's' }, unread), 'codex');
  assert.equal(agentBy({ agent: null }, unread), undefined);
  assert.throws(() => agentBy(undefined, unread), /N\.txt read/);
});
