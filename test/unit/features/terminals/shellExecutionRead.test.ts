// The workaround for VS Code's read() race, against a stand-in with the same shape: an iterable whose
// data subscription is made in a queueMicrotask callback, and data emitted synchronously right
// after read() returns (as when the start and the first data arrive in one IPC batch).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { readDefersSubscription, readWithoutMicrotaskRace } from '../../../../src/features/terminals/shellExecutionRead';

function raceyExecution(): { read(): AsyncIterable<string>; emit(s: string): void; end(): void } {
  const listeners: ((s: string | undefined) => void)[] = [];
  return {
    read() {
      const chunks: (string | undefined)[] = [];
      let wake: (() => void) | undefined;
      // Subscribes later, as VS Code's AsyncIterableObject does.
      queueMicrotask(() => listeners.push((s) => {
        chunks.push(s);
        wake?.();
      }));
      return (async function* () {
        for (;;) {
          while (chunks.length === 0) await new Promise<void>((r) => (wake = r));
          const c = chunks.shift();
          if (c === undefined) return;
          yield c;
        }
      })();
    },
    emit: (s) => listeners.forEach((l) => l(s)),
    end: () => listeners.forEach((l) => l(undefined)),
  };
}

async function collect(it: AsyncIterable<string>): Promise<string> {
  let s = '';
  for await (const c of it) s += c;
  return s;
}

test('plain read() loses data emitted in the same turn; the workaround keeps it and restores queueMicrotask', async () => {
  const plain = raceyExecution();
  const lost = plain.read();
  plain.emit('lost');
  await Promise.resolve();
  plain.end();
  assert.equal(await collect(lost), '', 'the stand-in reproduces the race');

  const original = globalThis.queueMicrotask;
  const ex = raceyExecution();
  const kept = readWithoutMicrotaskRace(ex);
  assert.equal(globalThis.queueMicrotask, original);
  ex.emit('kept');
  ex.end();
  assert.equal(await collect(kept), 'kept');
});

test('readDefersSubscription tells a deferring read() from one that subscribes at once', () => {
  assert.equal(readDefersSubscription(raceyExecution()), true);
  assert.equal(readDefersSubscription({ read: () => (async function* () {})() }), false);
});
