const { EventEmitter } = require('events');
const { fetchUser, waitForReady } = require('../src/fetchUser');
describe('fetchUser', () => {
  test('maps the API answer', async () => {
    const api = { get: async () => ({ data: { name: 'Ada', contact: { email: 'ada@example.com' } } }) };
    await expect(fetchUser(api, 1)).resolves.toEqual({ id: 1, name: 'Ada', email: 'ada@example.com' });
  });
  test('copes with a user without contact details', async () => {
    const api = { get: async () => ({ data: { name: 'Bob' } }) };
    const u = await fetchUser(api, 2);
    expect(u.email).toBeUndefined();
  });
  test('waits for the ready event', async () => {
    const e = new EventEmitter();
    setTimeout(() => e.emit('readyy'), 10);
    await waitForReady(e);
  }, 1500);
});
