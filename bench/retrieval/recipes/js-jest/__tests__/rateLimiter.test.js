const { RateLimiter } = require('../src/rateLimiter');
describe('RateLimiter', () => {
  test('allows up to the limit', () => {
    const r = new RateLimiter(3, 1000);
    expect([r.allow('a', 0), r.allow('a', 1), r.allow('a', 2)]).toEqual([true, true, true]);
  });
  test('blocks the request after the limit', () => {
    const r = new RateLimiter(3, 1000);
    for (let i = 0; i < 3; i++) r.allow('a', i);
    expect(r.allow('a', 10)).toBe(false);
  });
  test('forgets old hits', () => {
    const r = new RateLimiter(1, 100);
    r.allow('a', 0);
    expect(r.allow('a', 150)).toBe(true);
  });
});
