// The workaround in src/features/terminals/shellExecutionRead.ts exists because VS Code's
// TerminalShellExecution.read() subscribes to the execution's data in a microtask. This suite checks,
// in the real extension host, that VS Code still does so: when it fails, VS Code has changed and the
// workaround (a swap of globalThis.queueMicrotask during read()) can be removed.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { readDefersSubscription, readWithoutMicrotaskRace } from '../../../src/features/terminals/shellExecutionRead';
import { closeTerminal, openTerminal } from '../terminalHelpers';

describe('VS Code terminal read() race (the reason for readWithoutMicrotaskRace)', () => {
  it('read() still defers its data subscription to a microtask, and the workaround still delivers a fast command\'s output', async () => {
    const t = await openTerminal('read-race');
    try {
      const seen = new Promise<{ deferred: boolean; data: string }>((resolve) => {
        const sub = vscode.window.onDidStartTerminalShellExecution((e) => {
          if (e.terminal !== t.terminal) return;
          sub.dispose();
          // Checked on the same execution, before the workaround reads it: read() may be called more than once.
          const deferred = readDefersSubscription(e.execution);
          void (async () => {
            let data = '';
            for await (const d of readWithoutMicrotaskRace(e.execution)) data += d;
            resolve({ deferred, data });
          })();
        });
      });
      t.terminal.sendText('printf "race-%s\\n" done');
      const { deferred, data } = await seen;
      assert.equal(deferred, true, 'VS Code no longer defers read()\'s subscription: remove the queueMicrotask swap in shellExecutionRead.ts');
      assert.match(data, /race-done/);
    } finally {
      await closeTerminal(t);
    }
  });
});
