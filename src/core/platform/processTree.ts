/**
 * Ending a command and everything it started, per platform (one module per platform concern; the
 * platform and the system calls are injectable, so every branch is unit-tested here, on Linux):
 * - POSIX: a signal to the process group (the command was started `detached`, as its group leader:
 *   runShell.ts), so background children go too.
 * - Windows (not tested on Windows yet): `taskkill /T /F` on the process id (/T: its child
 *   processes; /F: console programs ignore a polite request). No signal choice there: a "TERM" ends
 *   the tree at once, as a "KILL" does.
 */
import { spawn } from 'node:child_process';

/** The system calls used (tests replace them). */
export interface TreeCalls {
  platform: NodeJS.Platform;
  kill: (pid: number, signal: NodeJS.Signals) => void;
  run: (file: string, args: string[]) => void;
}

const SYSTEM: TreeCalls = {
  platform: process.platform,
  kill: (pid, signal) => process.kill(pid, signal),
  run: (file, args) => {
    const child = spawn(file, args, { stdio: 'ignore', windowsHide: true });
    child.on('error', () => undefined); // no taskkill: nothing more can be done
    child.unref();
  },
};

/** Ends process `pid` and its descendants with `signal` (where signals exist); a process already gone is no error. */
export function endProcessTree(pid: number | undefined, signal: NodeJS.Signals, calls: Partial<TreeCalls> = {}): void {
  if (!pid) return;
  const c = { ...SYSTEM, ...calls };
  try {
    if (c.platform === 'win32') c.run('taskkill', ['/pid', String(pid), '/T', '/F']);
    else c.kill(-pid, signal);
  } catch {
    // already gone
  }
}
