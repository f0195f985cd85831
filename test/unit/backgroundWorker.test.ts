// Worker threads never keep a process alive by themselves (src/core/backgroundWorker.ts): the MCP
// server outlived its client because the tokenizer's worker, unref()'d before its 'message'
// listener was attached, was referenced again by that listener (Node 20). A process that starts
// such a worker and then has nothing else to do must end on its own.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** Runs `code` in a fresh node; resolves to its exit code, or 'still running' after `ms` (then kills it). */
function runsOut(code: string, ms = 10_000): Promise<number | null | 'still running'> {
  const p = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'ignore', 'inherit'] });
  return new Promise((resolve) => {
    const t = setTimeout(() => {
      p.kill('SIGKILL');
      resolve('still running');
    }, ms);
    p.on('exit', (c) => {
      clearTimeout(t);
      resolve(c);
    });
  });
}

test('a process whose only work left is a background worker that never ends exits by itself', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bg-worker-'));
  const script = path.join(dir, 'forever.js');
  fs.writeFileSync(script, "require('node:worker_threads').parentPort.postMessage('up'); setInterval(() => {}, 1000);");
  const helper = require.resolve('../../src/core/backgroundWorker');
  assert.equal(await runsOut(`require(${JSON.stringify(helper)}).startBackgroundWorker(${JSON.stringify(script)}, {}, () => undefined);`), 0);
});

test('a process that started the tokenizer\'s worker (as the MCP server does at start) and counts nothing exits by itself', async () => {
  const tokens = require.resolve('../../src/core/output/tokens');
  assert.equal(await runsOut(`require(${JSON.stringify(tokens)}).useTokenizerWorker(true);`), 0);
});
