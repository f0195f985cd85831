// The newest entries of progress.md without parsing the whole log, checked against the whole parse.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseProgress, progressPath } from '../../../src/core/plan/progress';
import { readProgressTail } from '../../../src/core/plan/progress';

function tmpAgent(): string {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-scale-'));
  fs.mkdirSync(path.join(ws, '.agent'));
  return path.join(ws, '.agent');
}

function progressText(n: number, from = 0): string {
  const out: string[] = [];
  for (let i = from; i < from + n; i++) out.push(`## 2026-11-${String(1 + (i % 28)).padStart(2, '0')}T10:00:00Z — Entry ${i}\n\nDid thing ${i}.\nSecond line ## not a heading.\n\nNext: thing ${i + 1}\n\n`);
  return out.join('');
}

test('the end of progress.md matches the whole parse (titles, text, line numbers) and the total follows appends, truncation and replacement', async () => {
  const a = tmpAgent();
  const file = progressPath(a);
  fs.writeFileSync(file, '# Progress\n\n' + progressText(3000));
  const whole = parseProgress(fs.readFileSync(file, 'utf8'));
  let t = await readProgressTail(a, 5);
  assert.equal(t.total, 3000);
  assert.deepEqual(t.entries, whole.slice(-5));
  fs.appendFileSync(file, progressText(2, 3000));
  t = await readProgressTail(a, 5);
  assert.equal(t.total, 3002);
  assert.deepEqual(t.entries, parseProgress(fs.readFileSync(file, 'utf8')).slice(-5));
  fs.writeFileSync(file, '# Progress\n\n' + progressText(4)); // truncated and rewritten by hand
  t = await readProgressTail(a, 5);
  assert.equal(t.total, 4);
  assert.deepEqual(t.entries, parseProgress(fs.readFileSync(file, 'utf8')));
  const other = file + '.new';
  fs.writeFileSync(other, '# Progress\n\n' + progressText(9, 100));
  fs.renameSync(other, file); // replaced (another inode), possibly larger
  t = await readProgressTail(a, 3);
  assert.equal(t.total, 9);
  assert.equal(t.entries[2].title, 'Entry 108');
  fs.rmSync(file);
  assert.deepEqual(await readProgressTail(a, 3), { entries: [], total: 0 });
});

test('the progress tally is kept in .agent/.cache: a new process reads only what was appended since, and a rewritten log is tallied again', async () => {
  const a = tmpAgent();
  const file = progressPath(a);
  fs.writeFileSync(file, '# Progress\n\n' + progressText(3000)); // ~330 KB: over the fold's 256 KB checkpoint step
  assert.equal((await readProgressTail(a, 5)).total, 3000);
  const cp = path.join(a, '.cache', 'progress-tally.json');
  const saved = JSON.parse(fs.readFileSync(cp, 'utf8')) as { offset: number; state: { headings: number } };
  assert.equal(saved.offset, fs.statSync(file).size);
  assert.equal(saved.state.headings, 3000);
  // Another process (node on the compiled module): it starts from the checkpoint. Proven by a
  // checkpoint that claims 7 more headings than the file has: the child reports them, plus the 2 appended.
  fs.writeFileSync(cp, JSON.stringify({ ...saved, state: { headings: 3007 } }));
  fs.appendFileSync(file, progressText(2, 3000));
  const child = (): { total: number; entries: { title: string }[] } => JSON.parse(execFileSync(process.execPath, ['-e', `require(${JSON.stringify(require.resolve('../../../src/core/plan/progress'))}).readProgressTail(${JSON.stringify(a)}, 2).then((r) => process.stdout.write(JSON.stringify(r)))`], { encoding: 'utf8' }));
  const fromCheckpoint = child();
  assert.equal(fromCheckpoint.total, 3009);
  assert.deepEqual(fromCheckpoint.entries.map((e) => e.title), ['Entry 3000', 'Entry 3001']);
  // The log rewritten in place at the same length or longer (the bytes before the checkpoint's offset differ): tallied from the start.
  fs.writeFileSync(file, '# Progress (rewritten)\n\n' + progressText(3100));
  assert.equal(child().total, 3100);
});
