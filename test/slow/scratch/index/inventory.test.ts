// The whole-folder listing at the size of a long-lived scratch folder (10,000 files).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { scanScratch } from '../../../../src/core/scratch/index/inventory';

function tmp(prefix: string): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

test('scanScratch handles 10,000 files', async () => {
  const ws = tmp('ac-10k-');
  const scratch = path.join(ws, '.agent/scratch');
  for (let d = 0; d < 10; d++) {
    fs.mkdirSync(path.join(scratch, `d${d}`), { recursive: true });
    for (let i = 0; i < 1000; i++) fs.writeFileSync(path.join(scratch, `d${d}`, `${i}.txt`), 'abcd');
  }
  const inv = await scanScratch(path.join(ws, '.agent'));
  assert.equal(inv.files.length, 10_000);
  assert.equal(inv.totalBytes, 40_000);
  assert.equal(inv.dirs.length, 10);
  fs.rmSync(ws, { recursive: true, force: true });
});
