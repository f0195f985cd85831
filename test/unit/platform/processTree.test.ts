// Ending a command's process tree per platform (src/core/platform/processTree.ts), each branch
// through the injected platform and system calls; the POSIX one is also run for real here.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { endProcessTree } from '../../../src/core/platform/processTree';

test('POSIX: the signal goes to the process group; Windows: taskkill /T /F on the id; nothing without a pid', () => {
  const calls: string[] = [];
  const kill = (pid: number, sig: NodeJS.Signals): void => void calls.push(`kill ${pid} ${sig}`);
  const run = (file: string, args: string[]): void => void calls.push(`${file} ${args.join(' ')}`);
  endProcessTree(42, 'SIGTERM', { platform: 'linux', kill, run });
  endProcessTree(42, 'SIGKILL', { platform: 'darwin', kill, run });
  endProcessTree(42, 'SIGTERM', { platform: 'win32', kill, run });
  endProcessTree(undefined, 'SIGTERM', { platform: 'linux', kill, run });
  assert.deepEqual(calls, ['kill -42 SIGTERM', 'kill -42 SIGKILL', 'taskkill /pid 42 /T /F']);
});

test('a process already gone is no error', () => {
  const gone = (): void => {
    throw Object.assign(new Error('kill ESRCH'), { code: 'ESRCH' });
  };
  assert.doesNotThrow(() => endProcessTree(42, 'SIGTERM', { platform: 'linux', kill: gone }));
  assert.doesNotThrow(() => endProcessTree(42, 'SIGTERM', { platform: 'win32', run: gone }));
});

// Broken (only bash signalled), the background sleep keeps the pipe open for 10 minutes: the test fails at its deadline.
test('Linux, for real: a command\'s background child ends with it', { skip: process.platform === 'win32' && 'POSIX process groups', timeout: 300_000 }, async () => {
  // bash starts a background sleep and waits; the group's end must take both (the pipe closes only when the child is gone too).
  const child = spawn('bash', ['-c', 'sleep 600 & wait'], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
  await new Promise((r) => child.once('spawn', r));
  const closed = new Promise((r) => child.stdout!.once('close', r));
  const exited = new Promise<NodeJS.Signals | null>((r) => child.once('exit', (_code, signal) => r(signal)));
  endProcessTree(child.pid, 'SIGKILL');
  assert.equal(await exited, 'SIGKILL');
  await closed; // the background sleep held the pipe too: it closes only once the sleep is gone
});
