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

test("a new window takes today's totals from the checkpoint and reads only what came after; a checkpoint that no longer holds is not used", async () => {
  const a = tmpAgent();
  const file = ledgerPath(a);
  const checkpoint = path.join(a, '.cache', 'ledger-today.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const now = new Date(2026, 10, 29, 15, 0, 0);
  const lines: string[] = [];
  for (let d = 30; d >= 1; d--) for (let i = 0; i < 300; i++) lines.push(JSON.stringify(entry(new Date(now.getTime() - d * 86_400_000 + i * 1000), 1000, 10)));
  for (let i = 0; i < 2000; i++) lines.push(JSON.stringify(entry(new Date(2026, 10, 29, 8, 0, 0, i * 500), 200 + (i % 7), 5)));
  fs.writeFileSync(file, lines.join('\n') + '\n');
  const whole = () => summarizeLedger(fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => { try { return JSON.parse(l) as LedgerEntry; } catch { return undefined; } }).filter((e): e is LedgerEntry => !!e), now).today;
  const first = new LedgerToday(() => file, checkpoint);
  assert.deepEqual((await first.poll(now)).today, whole());
  const todayBytes = first.lastReadBytes;
  assert.ok(fs.existsSync(checkpoint), 'the first poll leaves a checkpoint');
  // Another process appends; a new window starts.
  for (let i = 0; i < 3; i++) fs.appendFileSync(file, JSON.stringify(entry(new Date(2026, 10, 29, 14, 0, i), 5000, 100)) + '\n');
  const second = new LedgerToday(() => file, checkpoint);
  assert.deepEqual((await second.poll(now)).today, whole());
  assert.ok(second.lastReadBytes < 2000, `the new window read ${second.lastReadBytes} bytes (today's part is ${todayBytes})`);
  // The bytes before the checkpoint's offset changed in place (same file, same size): not used.
  const { offset } = JSON.parse(fs.readFileSync(checkpoint, 'utf8')) as { offset: number };
  const fd = fs.openSync(file, 'r+');
  fs.writeSync(fd, '9', offset - 12);
  fs.closeSync(fd);
  const third = new LedgerToday(() => file, checkpoint);
  assert.deepEqual((await third.poll(now)).today, whole());
  assert.ok(third.lastReadBytes >= todayBytes, 'read from the end again');
  // A damaged checkpoint, and another day: read from the end, right totals.
  fs.writeFileSync(checkpoint, '{"v":1,"file":');
  assert.deepEqual((await new LedgerToday(() => file, checkpoint).poll(now)).today, whole());
  const tomorrow = new Date(2026, 10, 30, 9, 0, 0);
  assert.equal((await new LedgerToday(() => file, checkpoint).poll(tomorrow)).today.calls, 0);
});
