'use strict';
class Inventory {
  constructor() { this.items = new Map(); }
  add(sku, qty) { if (qty <= 0) throw new Error('qty must be positive'); this.items.set(sku, (this.items.get(sku) || 0) + qty); }
  remove(sku, qty) { const have = this.items.get(sku); this.items.set(sku, have - qty); }
  count(sku) { return this.items.get(sku) || 0; }
  report() { return [...this.items].map(([s, q]) => `${s}:${q}`).join(','); }
  async sync(api) { const r = await api.push(this.report()); return r.body.accepted; }
}
module.exports = { Inventory };
