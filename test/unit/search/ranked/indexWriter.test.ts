import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readAhead, type Planned } from '../../../../src/core/search/ranked/indexWriter';

// The module object itself (an import's namespace has only getters): its openSync is watched below.
const fsModule = require('node:fs') as { openSync: typeof fs.openSync };

const openFds = (): number => fs.readdirSync('/proc/self/fd').length;

test('read-ahead of the next batch opens only the files within its budget, skips those gone, and closes every one it opened', { skip: process.platform !== 'linux' && 'counts /proc/self/fd' }, async () => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'read-ahead-')));
  try {
    const plans: Planned[] = [];
    for (let i = 0; i < 6; i++) {
      const abs = path.join(dir, `${i}.txt`);
      fs.writeFileSync(abs, 'x'.repeat(1000));
      plans.push({ rel: `scratch/${i}.txt`, abs, st: fs.statSync(abs), keep: 0, fromByte: 0, fromLine: 1 });
    }
    // Deleted since it was planned, and a plan that drops a file (no stat): neither is read.
    fs.rmSync(plans[1].abs);
    plans.splice(2, 0, { rel: 'scratch/gone.txt', abs: path.join(dir, 'gone.txt'), keep: 0, fromByte: 0, fromLine: 1 });
    const before = openFds();
    const real = fsModule.openSync;
    const opened: string[] = [];
    fsModule.openSync = ((...args: Parameters<typeof real>) => {
      opened.push(path.basename(String(args[0])));
      return real(...args);
    }) as typeof real;
    try {
      // 2,500 bytes: files 0, 1 (gone: it counts nothing), 2, 3 (its first 500 bytes) are asked for; 4 and 5 are past the budget.
      readAhead(plans, 2500);
    } finally {
      fsModule.openSync = real;
    }
    assert.deepEqual(opened, ['0.txt', '1.txt', '2.txt', '3.txt']);
    for (let t = 0; t < 100 && openFds() > before; t++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(openFds(), before, 'every file read ahead is closed once its read ends');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
