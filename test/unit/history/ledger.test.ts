import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { appendLedger, formatLedgerSummary, ledgerFiles, ledgerPath, ledgerReport, ledgerSummary, readLedger, summarizeLedger, type LedgerEntry } from '../../../src/core/history/ledger';

const entry = (tool: string, time: string, raw: number, ret: number): LedgerEntry => ({
  time, tool, source: 'vscode', input: '{}', rawTokens: raw, returnedTokens: ret, ok: true, text: 'x',
});

test('totals per tool and per day, and today\'s tokens kept out (raw − returned)', () => {
  const now = new Date(2026, 10, 29, 15, 0, 0);
  const today = new Date(2026, 10, 29, 9, 0, 0).toISOString();
  const yesterday = new Date(2026, 10, 28, 9, 0, 0).toISOString();
  const s = summarizeLedger([entry('agentContext_run', today, 50_000, 500), entry('agentContext_read', today, 300, 300), entry('agentContext_run', yesterday, 10_000, 400)], now);
  assert.equal(s.today.savedTokens, 49_500);
  assert.equal(s.today.calls, 2);
  assert.equal(s.byTool.get('agentContext_run')!.savedTokens, 59_100);
  assert.equal(s.byDay.size, 2);
  const md = formatLedgerSummary(summarizeLedger([entry('agentContext_run', today, 50_000, 500)], now));
  assert.match(md, /\| agentContext_run \| 1 \| 50,000 \| 500 \| 49,500 \| 99% \|/);
  assert.match(md, /\| 2026-11-29 \| 1 \| 49,500 \| █+ \|/);
  // One call reads "1 call", not "1 calls" (the report as a user opened it).
  assert.match(md, /Today: \*\*49,500 tokens\*\* kept out \(1 call\)\. All time: 49,500 tokens over 1 call\./);
  assert.match(formatLedgerSummary(summarizeLedger([entry('a', today, 2, 1), entry('b', today, 3, 1)], now)), /\(2 calls\)\. All time: 3 tokens over 2 calls\./);
});

test('the ledger summary counts whole lines only (a half-written last line later) and survives truncation', async () => {
  const agentDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-')), '.agent');
  const f = { summary: () => ledgerSummary(agentDir) };
  assert.equal((await f.summary()).total.calls, 0);
  await appendLedger(agentDir, entry('a', new Date().toISOString(), 10, 1));
  assert.equal((await f.summary()).today.calls, 1);
  fs.appendFileSync(ledgerPath(agentDir), JSON.stringify(entry('b', new Date().toISOString(), 5, 1)).slice(0, 20));
  assert.equal((await f.summary()).total.calls, 1, 'a partial line is not counted yet');
  fs.writeFileSync(ledgerPath(agentDir), JSON.stringify(entry('c', new Date().toISOString(), 7, 2)) + '\n');
  const after = await f.summary();
  assert.deepEqual([...after.byTool.keys()], ['c']);
  assert.equal(after.today.savedTokens, 5);
});

test('readLedger reports bad lines by number and keeps the good ones', async () => {
  const agentDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-')), '.agent');
  await appendLedger(agentDir, entry('a', new Date().toISOString(), 10, 1));
  fs.appendFileSync(ledgerPath(agentDir), '{not json\n');
  await appendLedger(agentDir, entry('b', new Date().toISOString(), 10, 1));
  const r = await readLedger(agentDir);
  assert.deepEqual(r.entries.map((e) => e.tool), ['a', 'b']);
  assert.deepEqual(r.badLines, [2]);
  const md = await ledgerReport(agentDir);
  assert.match(md, /1 unreadable line in \.agent\/history\/ was skipped \(first: tools-\d{4}-\d\d\.jsonl line 2\)/);
});

test('calls go to one file per month; a legacy tools.jsonl is still counted and never rewritten', async () => {
  const agentDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-')), '.agent');
  const legacy = path.join(agentDir, 'history', 'tools.jsonl');
  fs.mkdirSync(path.dirname(legacy), { recursive: true });
  fs.writeFileSync(legacy, JSON.stringify(entry('old', '2026-09-15T10:00:00.000Z', 100, 10)) + '\n');
  const before = fs.readFileSync(legacy);
  await appendLedger(agentDir, entry('oct', '2026-10-31T23:59:59.000Z', 50, 5));
  await appendLedger(agentDir, entry('nov', '2026-11-01T00:00:01.000Z', 20, 2));
  assert.deepEqual(fs.readdirSync(path.dirname(legacy)).sort(), ['tools-2026-10.jsonl', 'tools-2026-11.jsonl', 'tools.jsonl']);
  assert.deepEqual((await ledgerFiles(agentDir)).map((f) => path.basename(f)), ['tools.jsonl', 'tools-2026-10.jsonl', 'tools-2026-11.jsonl']);
  assert.deepEqual(fs.readFileSync(legacy), before);
  const s = await ledgerSummary(agentDir, new Date('2026-11-01T12:00:00.000Z'));
  assert.equal(s.total.calls, 3);
  assert.equal(s.total.savedTokens, 90 + 45 + 18);
  assert.deepEqual([...s.byTool.keys()].sort(), ['nov', 'oct', 'old']);
  // The same totals as summing every entry.
  const all = summarizeLedger((await readLedger(agentDir)).entries, new Date('2026-11-01T12:00:00.000Z'));
  assert.deepEqual(s.total, all.total);
  assert.deepEqual(s.today, all.today);
  assert.deepEqual(new Map([...s.byDay].sort()), new Map([...all.byDay].sort()));
});

test('ledger totals stay right while two processes append and a reader polls', async () => {
  const agentDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-')), '.agent');
  const mod = require.resolve('../../../src/core/history/ledger');
  const N = 200;
  const script = `
    const m = require(${JSON.stringify(mod)});
    const [dir, tag, n] = process.argv.slice(1);
    (async () => {
      for (let i = 0; i < Number(n); i++) await m.appendLedger(dir, { time: new Date().toISOString(), tool: tag, source: 'mcp', input: '{}', rawTokens: 10 + i, returnedTokens: 1, ok: true, text: 'y'.repeat(i * 7) });
    })().catch((e) => { console.error(e); process.exit(1); });`;
  const run = (tag: string) => new Promise<number>((resolve) => spawn(process.execPath, ['-e', script, agentDir, tag, String(N)], { stdio: 'inherit' }).on('exit', (c) => resolve(c ?? 1)));
  const f = { summary: () => ledgerSummary(agentDir) };
  const writers = Promise.all([run('A'), run('B')]);
  let done = false;
  void writers.then(() => (done = true));
  while (!done) {
    await f.summary();
    await new Promise((r) => setTimeout(r, 3));
  }
  assert.deepEqual(await writers, [0, 0]);
  const s = await f.summary();
  const all = summarizeLedger((await readLedger(agentDir)).entries);
  assert.deepEqual(s.total, all.total);
  assert.equal(s.byTool.get('A')!.calls, N);
  assert.equal(s.byTool.get('B')!.calls, N);
});
