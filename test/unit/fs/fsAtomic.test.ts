import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { formatFileError } from '../../../src/core/result';
import { appendLineAtomic, createExclusive, writeFileAtomic } from '../../../src/core/fs/fsAtomic';

test('formatFileError names file and line', () => {
  assert.equal(formatFileError({ file: '.agent/plan.yaml', line: 3, message: 'bad' }), '.agent/plan.yaml:3: bad');
  assert.equal(formatFileError({ file: 'x', message: 'm' }), 'x: m');
});

test('writeFileAtomic replaces content and leaves no temp file', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-'));
  const f = path.join(dir, 'a.txt');
  await writeFileAtomic(f, 'one');
  await writeFileAtomic(f, 'two');
  assert.equal(fs.readFileSync(f, 'utf8'), 'two');
  assert.deepEqual(fs.readdirSync(dir), ['a.txt']);
});

test('createExclusive refuses an existing file', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-'));
  const f = path.join(dir, '1.txt');
  assert.equal(await createExclusive(f, 'x'), true);
  assert.equal(await createExclusive(f, 'y'), false);
  assert.equal(fs.readFileSync(f, 'utf8'), 'x');
});

test('appendLineAtomic keeps concurrent lines whole', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-'));
  const f = path.join(dir, 'l.jsonl');
  await Promise.all(Array.from({ length: 50 }, (_, i) => appendLineAtomic(f, JSON.stringify({ i, pad: 'x'.repeat(500) }))));
  const lines = fs.readFileSync(f, 'utf8').trim().split('\n');
  assert.equal(lines.length, 50);
  for (const l of lines) JSON.parse(l);
});
