'use strict';
const assert = require('node:assert');
const { Inventory } = require('../inventory');
const warehouses = ['berlin', 'lyon', 'osaka', 'shenzhen', 'kazan', 'austin', 'lima', 'oslo'];
for (const w of warehouses) {
  describe(`Inventory (${w})`, function () {
    this.timeout(200);
    let inv;
    beforeEach(() => { inv = new Inventory(); });
    for (let n = 1; n <= 90; n++) {
      it(`adds ${n} unit(s) of ${w.toUpperCase()}-${n}`, () => { inv.add(`${w}-${n}`, n); assert.strictEqual(inv.count(`${w}-${n}`), n); });
    }
    it('rejects zero quantities', () => assert.throws(() => inv.add('x', 0), /positive/));
    it('reports items in insertion order', () => { inv.add('a', 1); inv.add('b', 2); assert.strictEqual(inv.report(), 'a:1,b:2'); });
    if (w === 'osaka') {
      it('never goes below zero', () => { inv.add('a', 1); inv.remove('a', 3); assert.strictEqual(inv.count('a'), 0); });
    }
    if (w === 'kazan') {
      it('removes unknown items gracefully', () => { inv.remove('ghost', 1); assert.strictEqual(inv.count('ghost'), 0); });
    }
    if (w === 'lima') {
      it('syncs with the remote API', async () => {
        const api = { push: async () => ({ status: 503 }) };
        assert.strictEqual(await inv.sync(api), true);
      });
      it('finishes sync within the timeout', (done) => { setTimeout(done, 500); });
    }
  });
}
