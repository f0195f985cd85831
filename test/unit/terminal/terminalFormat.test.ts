// The one rule for "is this terminal closed, and whose commands does it hold" (closingState) and its
// field-by-field readers (closedBy, agentBy) that the catalog runs over every terminal: they must
// agree in every case, and the readers must not look at N.txt's facts when a closing record speaks.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { agentBy, closedBy, closingState, type ClosingSays } from '../../../src/core/terminal/terminalFormat';

const records: (ClosingSays | undefined)[] = [undefined, {}, { agent: null, session: null }, { agent: 'codex', session: 's1' }, { agent: 'claude-code' }, { agent: '' }];
const headers = [
  { closed: false },
  { closed: true },
  { closed: false, agent: 'gemini', session: 'g1' },
  { closed: true, agent: 'opencode', session: 'o1' },
  { closed: true, agent: '' },
];

test('closedBy and agentBy say what closingState says, for every closing record and header', () => {
  for (const closing of records) {
    for (const info of headers) {
      const rule = closingState(closing, () => info);
      const what = `closing ${JSON.stringify(closing)}, header ${JSON.stringify(info)}`;
      assert.equal(closedBy(closing, { info }), rule.closed, what);
      assert.equal(agentBy(closing, { info }), rule.agent, what);
    }
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
