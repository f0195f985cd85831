import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { formatFileError } from '../../../src/core/result';
import { spawnSync } from 'node:child_process';
import { appendLineAtomic, createExclusive, tempName, writeCacheFile, writeFileAtomic } from '../../../src/core/fs/fsAtomic';

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

test('createExclusive sweeps the temp a killed writer of the same file left (a lock taken by a process killed mid-way)', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-'));
  const dead = spawnSync(process.execPath, ['-e', '']).pid!;
  const left = tempName('.plan.yaml.lock').replace(`.${process.pid}-`, `.${dead}-`);
  const other = tempName('.other.lock').replace(`.${process.pid}-`, `.${dead}-`);
  fs.writeFileSync(path.join(dir, left), '123 host\n');
  fs.writeFileSync(path.join(dir, other), '123 host\n');
  assert.equal(await createExclusive(path.join(dir, '.plan.yaml.lock'), 'x'), true);
  // Its own target's leftover is gone; another target's is that writer's business.
  assert.deepEqual(fs.readdirSync(dir).sort(), [other, '.plan.yaml.lock'].sort());
});

test('appendLineAtomic keeps concurrent lines whole', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-'));
  const f = path.join(dir, 'l.jsonl');
  await Promise.all(Array.from({ length: 50 }, (_, i) => appendLineAtomic(f, JSON.stringify({ i, pad: 'x'.repeat(500) }))));
  const lines = fs.readFileSync(f, 'utf8').trim().split('\n');
  assert.equal(lines.length, 50);
  for (const l of lines) JSON.parse(l);
});

test('a cache file is written into .agent/.cache/, but a .agent/ deleted meanwhile is not created again for it (nested cache names too)', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-cache-home-'));
  const agentDir = path.join(root, '.agent');
  try {
    fs.mkdirSync(agentDir);
    await writeCacheFile(path.join(agentDir, '.cache', 'a.json'), '{}');
    assert.equal(fs.readFileSync(path.join(agentDir, '.cache', 'a.json'), 'utf8'), '{}');
    assert.equal(fs.readFileSync(path.join(agentDir, '.cache', '.gitignore'), 'utf8'), '*\n');
    fs.rmSync(agentDir, { recursive: true });
    await assert.rejects(writeCacheFile(path.join(agentDir, '.cache', 'a.json'), '{}'), /\.agent is gone/);
    await assert.rejects(writeCacheFile(path.join(agentDir, '.cache', 'setup', 'x.json'), '{}'), /\.agent is gone/);
    assert.deepEqual(fs.readdirSync(root), [], 'the deleted .agent/ stays deleted');
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
