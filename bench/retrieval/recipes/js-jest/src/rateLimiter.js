class RateLimiter {
  constructor(limit, windowMs) {
    this.limit = limit;
    this.windowMs = windowMs;
    this.hits = new Map();
  }
  allow(key, now = Date.now()) {
    const list = (this.hits.get(key) || []).filter((t) => now - t < this.windowMs);
    if (list.length > this.limit) return false;
    list.push(now);
    this.hits.set(key, list);
    return true;
  }
}
module.exports = { RateLimiter };
