import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { appendProgress, parseProgress, readProgress, progressPath } from '../../../src/core/plan/progress';

function tmpAgent(): string {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-prog-'));
  fs.mkdirSync(path.join(ws, '.agent'));
  return path.join(ws, '.agent');
}

test('appendProgress writes dated entries that parse back with done and next', async () => {
  const a = tmpAgent();
  const r1 = await appendProgress(a, { title: 'Set up parser', done: 'Parses plan.yaml.\nHandles CRLF.', next: 'Write the view' }, { now: new Date('2026-11-29T10:00:00.123Z') });
  assert.ok(r1.ok);
  assert.equal(r1.value.path, '.agent/progress.md');
  await appendProgress(a, { title: 'View done' }, { now: new Date('2026-11-29T11:00:00Z') });
  const text = fs.readFileSync(progressPath(a), 'utf8');
  assert.equal(
    text,
    '# Progress\n\n## 2026-11-29T10:00:00Z — Set up parser\n\nParses plan.yaml.\nHandles CRLF.\n\nNext: Write the view\n\n## 2026-11-29T11:00:00Z — View done\n',
  );
  const e = await readProgress(a);
  assert.deepEqual(e.map((x) => [x.date, x.title, x.done, x.next]), [
    ['2026-11-29T10:00:00Z', 'Set up parser', 'Parses plan.yaml.\nHandles CRLF.', 'Write the view'],
    ['2026-11-29T11:00:00Z', 'View done', '', undefined],
  ]);
});

test('earlier text is never rewritten; a file without a final newline is continued cleanly', async () => {
  const a = tmpAgent();
  fs.writeFileSync(progressPath(a), '# Log\n\n## 2026-11-01 - by hand\nstuff\n**Next:** more');
  await appendProgress(a, { title: 'tool entry', next: 'x' }, { now: new Date('2026-11-02T00:00:00Z') });
  const text = fs.readFileSync(progressPath(a), 'utf8');
  assert.ok(text.startsWith('# Log\n\n## 2026-11-01 - by hand\nstuff\n**Next:** more\n\n## 2026-11-02'));
  const e = parseProgress(text);
  assert.deepEqual(e.map((x) => [x.date, x.title, x.done, x.next, x.line]), [
    ['2026-11-01', 'by hand', 'stuff', 'more', 3],
    ['2026-11-02T00:00:00Z', 'tool entry', '', 'x', 7],
  ]);
});

test('appendProgress refuses an empty title and keeps headings in the body from splitting the entry', async () => {
  const a = tmpAgent();
  assert.ok(!(await appendProgress(a, { title: '  ' })).ok);
  assert.equal(fs.existsSync(progressPath(a)), false);
  await appendProgress(a, { title: 't', done: '## 2026-01-01 — not an entry' });
  assert.equal((await readProgress(a)).length, 1);
});
