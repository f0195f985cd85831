// Today's totals of the tool ledger read from its end only, checked against the whole-file summary.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ledgerPath, localDay, summarizeLedger, type LedgerEntry } from '../../../src/core/history/ledger';
import { LedgerToday } from '../../../src/core/history/ledgerToday';

function tmpAgent(): string {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-scale-'));
  fs.mkdirSync(path.join(ws, '.agent'));
  return path.join(ws, '.agent');
}

const entry = (time: Date, raw: number, ret: number, tool = 'agentContext_run'): LedgerEntry => ({
  time: time.toISOString(), tool, source: 'mcp', input: '{}', rawTokens: raw, returnedTokens: ret, ok: true, text: 'ü'.repeat(50),
});

test("today's ledger totals equal the whole-file summary, read only from today's end of a long ledger, and follow another writer", async () => {
  const a = tmpAgent();
  const file = ledgerPath(a);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const now = new Date(2026, 10, 29, 15, 0, 0);
  const lines: string[] = [];
  // 60 days of history, 500 calls a day, then 40 calls today.
  for (let d = 60; d >= 1; d--) for (let i = 0; i < 500; i++) lines.push(JSON.stringify(entry(new Date(now.getTime() - d * 86_400_000 + i * 1000), 1000, 10)));
  for (let i = 0; i < 40; i++) lines.push(JSON.stringify(entry(new Date(2026, 10, 29, 9, 0, i), 100 + i, 5)));
  fs.writeFileSync(file, lines.join('\n') + '\n');
  const expected = summarizeLedger(lines.map((l) => JSON.parse(l) as LedgerEntry), now).today;
  const f = new LedgerToday(() => file);
  const r = await f.poll(now);
  assert.deepEqual(r.today, expected);
  assert.equal(r.day, localDay(now));
  assert.ok(f.lastReadBytes < fs.statSync(file).size / 10, `read ${f.lastReadBytes} of ${fs.statSync(file).size} bytes`);
  // Another process appends one call and half of the next line.
  const more = JSON.stringify(entry(new Date(2026, 10, 29, 14, 0, 0), 5000, 100));
  fs.appendFileSync(file, more + '\n' + more.slice(0, 25));
  const r2 = await f.poll(now);
  assert.equal(r2.today.calls, 41);
  assert.equal(r2.today.savedTokens, expected.savedTokens + 4900);
  assert.ok(f.lastReadBytes < 1000, 'only the appended bytes are read');
  fs.appendFileSync(file, more.slice(25) + '\n');
  assert.equal((await f.poll(now)).today.calls, 42, 'the completed line counts once');
  // Truncated (a user cleared it): start over.
  fs.writeFileSync(file, JSON.stringify(entry(new Date(2026, 10, 29, 10, 0, 0), 30, 10)) + '\n');
  assert.deepEqual((await f.poll(now)).today, { calls: 1, rawTokens: 30, returnedTokens: 10, savedTokens: 20 });
  // The next day: nothing yet.
  assert.equal((await f.poll(new Date(2026, 10, 30, 0, 5, 0))).today.calls, 0);
  fs.rmSync(file);
  assert.deepEqual(await f.poll(now), { day: localDay(now), today: { calls: 0, rawTokens: 0, returnedTokens: 0, savedTokens: 0 }, hasEntries: false });
});

test('a ledger larger than one read chunk with no trailing newline and bad lines still counts right', async () => {
  const a = tmpAgent();
  const file = ledgerPath(a);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const now = new Date(2026, 10, 29, 23, 0, 0);
  const lines: string[] = [];
  for (let i = 0; i < 6000; i++) lines.push(i % 997 === 0 ? '{not json' : JSON.stringify(entry(new Date(2026, 10, 29, 0, 0, 0, i * 10), 300, 100)));
  fs.writeFileSync(file, lines.join('\n')); // the last line has no newline yet
  const good = lines.slice(0, -1).filter((l) => l.startsWith('{"'));
  const r = await new LedgerToday(() => file).poll(now);
  assert.equal(r.today.calls, good.length);
  assert.equal(r.today.savedTokens, good.length * 200);
});
