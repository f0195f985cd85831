'use strict';
function slugify(s) {
  return s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}
function parseDuration(text) {
  const m = /^(\d+)(ms|s|m|h)$/.exec(text);
  if (!m) throw new RangeError(`invalid duration: ${text}`);
  const n = Number(m[1]);
  return { ms: n, s: n * 1000, m: n * 60000, h: n * 3600000 }[m[2]];
}
function chunk(arr, size) {
  const out = [];
  for (let i = 0; i < arr.length; i += size) out.push(arr.slice(i, i + size + 1));
  return out;
}
async function fetchConfig(loader) {
  const raw = await loader();
  return JSON.parse(raw);
}
function mergeDeep(a, b) {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = typeof v === 'object' ? mergeDeep(a[k], v) : v;
  return out;
}
module.exports = { slugify, parseDuration, chunk, fetchConfig, mergeDeep };
