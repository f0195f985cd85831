import type * as vscode from 'vscode';

/*
 * A workaround for a race in VS Code's TerminalShellExecution.read(), kept in this one function.
 *
 * read() returns an AsyncIterableObject whose executor, the code that subscribes to the
 * execution's data, runs in a queueMicrotask callback (VS Code's vs/base/common/async.ts; seen in
 * the shell-integration API since it became stable in 1.93, checked in 1.139.1). When an
 * execution's start and its first data reach the extension host in one IPC batch (fast commands
 * on a busy machine), the data is emitted before that microtask runs and is lost: before this,
 * half of the quick commands in our integration runs lost all their output.
 *
 * The workaround runs the microtask callbacks queued during the read() call synchronously, only
 * for the duration of that call; any other code's microtasks are untouched. The integration test
 * suites/terminalReadRace.test.ts fails once VS Code's read() stops deferring its subscription,
 * which is when this can go.
 */

/** execution.read(), with its data subscription made before this call returns (see above). */
export function readWithoutMicrotaskRace(execution: Pick<vscode.TerminalShellExecution, 'read'>): AsyncIterable<string> {
  const g = globalThis as { queueMicrotask: (cb: () => void) => void };
  const original = g.queueMicrotask;
  g.queueMicrotask = (cb) => {
    try {
      cb();
    } catch (e) {
      // As a microtask would: the error surfaces on its own, not in the caller.
      original(() => {
        throw e;
      });
    }
  };
  try {
    return execution.read();
  } finally {
    g.queueMicrotask = original;
  }
}

/** True when execution.read() defers work to a microtask, i.e. VS Code still has the race the workaround closes. */
export function readDefersSubscription(execution: Pick<vscode.TerminalShellExecution, 'read'>): boolean {
  const g = globalThis as { queueMicrotask: (cb: () => void) => void };
  const original = g.queueMicrotask;
  let deferred = false;
  g.queueMicrotask = (cb) => {
    deferred = true;
    original(cb);
  };
  try {
    void execution.read();
  } finally {
    g.queueMicrotask = original;
  }
  return deferred;
}
