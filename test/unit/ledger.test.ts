import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { appendLedger, formatLedgerReport, LedgerFollower, ledgerPath, readLedger, summarizeLedger, type LedgerEntry } from '../../src/core/ledger';

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
  const md = formatLedgerReport([entry('agentContext_run', today, 50_000, 500)], now);
  assert.match(md, /\| agentContext_run \| 1 \| 50,000 \| 500 \| 49,500 \| 99% \|/);
  assert.match(md, /\| 2026-11-29 \| 1 \| 49,500 \| █+ \|/);
});

test('the follower reads only appended lines, keeps a half-written last line for later, and survives truncation', async () => {
  const agentDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-')), '.agent');
  const f = new LedgerFollower(agentDir);
  assert.equal((await f.poll()).length, 0);
  await appendLedger(agentDir, entry('a', new Date().toISOString(), 10, 1));
  assert.equal((await f.poll()).length, 1);
  fs.appendFileSync(ledgerPath(agentDir), JSON.stringify(entry('b', new Date().toISOString(), 5, 1)).slice(0, 20));
  assert.equal((await f.poll()).length, 1, 'a partial line is not counted yet');
  fs.writeFileSync(ledgerPath(agentDir), JSON.stringify(entry('c', new Date().toISOString(), 7, 2)) + '\n');
  const after = await f.poll();
  assert.deepEqual(after.map((e) => e.tool), ['c']);
});

test('readLedger reports bad lines by number and keeps the good ones', async () => {
  const agentDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-')), '.agent');
  await appendLedger(agentDir, entry('a', new Date().toISOString(), 10, 1));
  fs.appendFileSync(ledgerPath(agentDir), '{not json\n');
  await appendLedger(agentDir, entry('b', new Date().toISOString(), 10, 1));
  const r = await readLedger(agentDir);
  assert.deepEqual(r.entries.map((e) => e.tool), ['a', 'b']);
  assert.deepEqual(r.badLines, [2]);
});
