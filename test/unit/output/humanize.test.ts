import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { countLabel, formatAge, formatBytes, formatLocalTime, groupDigits, plural } from '../../../src/core/output/humanize';

test('sizes under 1 KB read in bytes; larger ones in KB/MB/GB with one decimal', () => {
  assert.equal(formatBytes(0), '0 B');
  assert.equal(formatBytes(420), '420 B');
  assert.equal(formatBytes(1023), '1023 B');
  assert.equal(formatBytes(5000), '4.9 KB');
  assert.equal(formatBytes(3 * 1024 * 1024), '3.0 MB');
  assert.equal(formatBytes(2 * 1024 ** 3), '2.0 GB');
  assert.equal(countLabel(1, 420), '1 file · 420 B');
  assert.equal(countLabel(10_003, 40_000, ', '), '10,003 files, 39.1 KB');
});

test('a count agrees with its noun: "1 call", "2 calls", "1 entry", "0 entries", digits grouped', () => {
  assert.equal(plural(1, 'call'), '1 call');
  assert.equal(plural(2, 'call'), '2 calls');
  assert.equal(plural(0, 'file'), '0 files');
  assert.equal(plural(1, 'entry', 'entries'), '1 entry');
  assert.equal(plural(0, 'entry', 'entries'), '0 entries');
  assert.equal(plural(12_345, 'tool call'), '12,345 tool calls');
});

test('ages cannot be misread: "1 min ago", not "1m"; under a minute is "just now"', () => {
  assert.equal(formatAge(0), 'just now');
  assert.equal(formatAge(59_999), 'just now');
  assert.equal(formatAge(60_000), '1 min ago');
  assert.equal(formatAge(59 * 60_000 + 59_000), '59 min ago');
  assert.equal(formatAge(3 * 3600_000), '3 h ago');
  assert.equal(formatAge(2 * 86_400_000 + 5), '2 d ago');
  assert.equal(formatAge(-5000), 'just now'); // a clock a little ahead is not "in the future"
});

test('times in tooltips are local, not raw UTC ISO; a bare date stays as written', () => {
  const iso = '2026-11-29T10:00:00.000Z';
  assert.equal(formatLocalTime(iso), new Date(iso).toLocaleString());
  assert.doesNotMatch(formatLocalTime(iso), /T10:00:00/);
  assert.equal(formatLocalTime('2026-11-29'), '2026-11-29');
  assert.equal(formatLocalTime('soon'), 'soon');
  // The same text as toLocaleString() across the year (daylight saving), as numbers and Dates too.
  for (let i = 0; i < 60; i++) {
    const ms = Date.UTC(2026, 0, 1) + i * 6.1 * 86_400_000 + i * 3_600_017;
    assert.equal(formatLocalTime(new Date(ms).toISOString()), new Date(ms).toLocaleString());
    assert.equal(formatLocalTime(ms), new Date(ms).toLocaleString());
    assert.equal(formatLocalTime(new Date(ms)), new Date(ms).toLocaleString());
  }
});

test('local times read as toLocaleString() does in another zone and locale', () => {
  const script = `const { formatLocalTime } = require(${JSON.stringify(require.resolve('../../../src/core/output/humanize'))});
for (const ms of [Date.UTC(2026, 2, 29, 0, 30), Date.UTC(2026, 9, 25, 0, 30), Date.UTC(2026, 6, 4, 23, 59, 59)]) if (formatLocalTime(ms) !== new Date(ms).toLocaleString()) { console.log(formatLocalTime(ms), '!==', new Date(ms).toLocaleString()); process.exit(1); }`;
  for (const env of [{ TZ: 'Europe/Berlin', LANG: 'de_DE.UTF-8', LC_ALL: 'de_DE.UTF-8' }, { TZ: 'Asia/Kolkata', LANG: 'en_IN.UTF-8', LC_ALL: 'en_IN.UTF-8' }]) {
    const r = spawnSync(process.execPath, ['-e', script], { env: { ...process.env, ...env }, encoding: 'utf8' });
    assert.equal(r.status, 0, `${env.TZ}: ${r.stdout}${r.stderr}`);
  }
});

test('counts read with thousands separators exactly as toLocaleString("en-US") writes them', () => {
  const samples = [0, 1, 12, 999, 1000, 1001, 9999, 10_003, 100_000, 999_999, 1_000_000, 1_234_567_890, Number.MAX_SAFE_INTEGER, -1, -999, -1000, -1_234_567, 0.5, 1234.5678, -0.25, NaN, Infinity, -Infinity];
  for (let k = 1; k < 1e15; k = k * 7 + 3) samples.push(k, -k);
  for (const n of samples) assert.equal(groupDigits(n), n.toLocaleString('en-US'), String(n));
  assert.equal(countLabel(10_003, 40_000), '10,003 files · 39.1 KB');
});
