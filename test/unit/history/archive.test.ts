import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { archiveText, listHistory } from '../../../src/core/history/archive';

function tmpAgent(): string {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-hist-'));
  fs.mkdirSync(path.join(ws, '.agent'));
  return path.join(ws, '.agent');
}

test('archiveText writes a new session file with the text byte for byte', async () => {
  const a = tmpAgent();
  const text = 'User: hi\r\nAgent: héllo ✓\n\n```\ncode\n```';
  const r = await archiveText(a, text, { title: 'chat', source: 'command' });
  assert.ok(r.ok);
  assert.match(r.value.path, /^\.agent\/history\/session-[0-9A-HJKMNP-TV-Z]{26}\.md$/);
  const body = fs.readFileSync(path.join(path.dirname(a), r.value.path), 'utf8');
  assert.ok(body.endsWith(text));
  assert.match(body, /^---\narchived: \d{4}-.*Z\ntitle: "chat"\nsource: "command"\n---\n/);
});

test('history is never rewritten: archiving twice makes two files and leaves the first identical', async () => {
  const a = tmpAgent();
  const r1 = await archiveText(a, 'first');
  assert.ok(r1.ok);
  const p1 = path.join(path.dirname(a), r1.value.path);
  const before = fs.readFileSync(p1);
  const st1 = fs.statSync(p1);
  const rs = await Promise.all(Array.from({ length: 20 }, (_, i) => archiveText(a, `text ${i}`)));
  assert.ok(rs.every((r) => r.ok));
  const files = await listHistory(a);
  assert.equal(files.length, 21);
  assert.equal(new Set(files.map((f) => f.name)).size, 21);
  assert.deepEqual(fs.readFileSync(p1), before);
  assert.equal(fs.statSync(p1).mtimeMs, st1.mtimeMs);
});

test('archiveText refuses empty text and a symlinked history folder', async () => {
  const a = tmpAgent();
  assert.ok(!(await archiveText(a, '')).ok);
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-out-'));
  fs.symlinkSync(outside, path.join(a, 'history'));
  const r = await archiveText(a, 'x');
  assert.ok(!r.ok);
  assert.deepEqual(fs.readdirSync(outside), []);
});

test('ledger-style records appended by two processes at once never interleave', async () => {
  const a = tmpAgent();
  const mod = require.resolve('../../../src/core/history/archive');
  const N = 300;
  const script = `
    const m = require(${JSON.stringify(mod)});
    const [dir, tag, n] = process.argv.slice(1);
    (async () => {
      for (let i = 0; i < Number(n); i++) await m.appendHistoryRecord(dir, 'tools.jsonl', { tag, i, pad: 'y'.repeat(2000 + i) });
    })().catch((e) => { console.error(e); process.exit(1); });`;
  const run = (tag: string) =>
    new Promise<number>((resolve) => {
      spawn(process.execPath, ['-e', script, a, tag, String(N)], { stdio: 'inherit' }).on('exit', (c) => resolve(c ?? 1));
    });
  assert.deepEqual(await Promise.all([run('A'), run('B')]), [0, 0]);
  const lines = fs.readFileSync(path.join(a, 'history', 'tools.jsonl'), 'utf8').trimEnd().split('\n');
  assert.equal(lines.length, 2 * N);
  const recs = lines.map((l) => JSON.parse(l) as { tag: string; i: number; pad: string });
  for (const tag of ['A', 'B']) {
    const mine = recs.filter((r) => r.tag === tag);
    assert.deepEqual(mine.map((r) => r.i), Array.from({ length: N }, (_, i) => i));
    assert.ok(mine.every((r) => r.pad.length === 2000 + r.i));
  }
});
