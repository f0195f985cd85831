// The run tool's shell per platform (src/core/platform/runShell.ts), each branch through the
// injected platform; the POSIX one is also run for real here.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { runShell } from '../../../src/core/platform/runShell';

test('Linux and macOS: bash -c in its own process group, stderr merged by the shell in arrival order', () => {
  for (const platform of ['linux', 'darwin', 'freebsd'] as const) {
    const l = runShell('echo out; echo err >&2; echo out2', platform);
    assert.equal(l.file, 'bash', platform);
    assert.equal(l.detached, true, platform);
    assert.equal(l.mergesStderr, true, platform);
  }
  const l = runShell('echo out; echo err >&2; echo out2', 'linux');
  const r = spawnSync(l.file, l.args, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  assert.equal(r.stdout, 'out\nerr\nout2\n', 'stderr arrives in the same pipe, in order');
  assert.equal(r.stderr, '');
});

test('Windows: Windows PowerShell without profile or prompts, both pipes read, no console window, no process group', () => {
  const l = runShell('npm test', 'win32');
  assert.equal(l.name, 'PowerShell');
  assert.equal(l.file, 'powershell.exe');
  assert.deepEqual(l.args, ['-NoLogo', '-NoProfile', '-NonInteractive', '-Command', 'npm test']);
  assert.equal(l.mergesStderr, false);
  assert.equal(l.detached, false, 'detached opens a console window on Windows');
  assert.equal(l.windowsHide, true);
});
