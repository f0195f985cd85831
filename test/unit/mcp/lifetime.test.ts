// The server's lifetime (src/mcp/lifetime.ts) on its own: what becomes of the calls in flight when
// the input ends (a grace to finish, then cancelled), on a stop (cancelled at once), and when a call
// ignores its cancellation (the exit comes anyway). The real process is test/unit/mcp/shutdown.test.ts.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { ServerLifetime } from '../../../src/mcp/lifetime';

function rig(graceMs = 200, settleMs = 300): { life: ServerLifetime; events: string[]; exited: Promise<number> } {
  const events: string[] = [];
  let exit: (code: number) => void = () => undefined;
  const exited = new Promise<number>((r) => (exit = r));
  const life = new ServerLifetime({
    graceMs,
    settleMs,
    close: async () => void events.push('closed'),
    exit: (code) => {
      events.push(`exit ${code}`);
      exit(code);
    },
    log: () => undefined,
  });
  return { life, events, exited };
}

/** A call that ends after `ms`, or when its signal aborts (unless `deaf`). */
function call(life: ServerLifetime, events: string[], name: string, ms: number, deaf = false): Promise<string> {
  const signal = life.signalFor(new AbortController().signal);
  return life.track(() => new Promise<string>((resolve) => {
    const cancel = (): void => {
      clearTimeout(t);
      events.push(`${name} cancelled`);
      resolve('cancelled');
    };
    const t = setTimeout(() => {
      signal.removeEventListener('abort', cancel);
      events.push(`${name} done`);
      resolve('done');
    }, ms);
    if (!deaf) signal.addEventListener('abort', cancel);
  }));
}

test('end of input: a call that finishes within the grace finishes; then the server closes and exits 0', async () => {
  const { life, events, exited } = rig(5000);
  const p = call(life, events, 'quick', 20);
  life.endOfInput();
  assert.equal(await p, 'done');
  assert.equal(await exited, 0);
  assert.deepEqual(events, ['quick done', 'closed', 'exit 0']);
});

test('end of input: a call longer than the grace is cancelled after it, and the exit waits for it to end', async () => {
  const { life, events, exited } = rig(50, 5000);
  const p = call(life, events, 'long', 60_000);
  life.endOfInput();
  assert.equal(await p, 'cancelled');
  assert.equal(await exited, 0);
  assert.deepEqual(events, ['long cancelled', 'closed', 'exit 0']);
});

test('a stop signal cancels the calls at once and exits 128 + its number; a second one exits without waiting', async () => {
  const a = rig(60_000, 60_000);
  const p = call(a.life, a.events, 'run', 60_000);
  a.life.signal('SIGTERM');
  assert.equal(await p, 'cancelled');
  assert.equal(await a.exited, 143);
  const b = rig(60_000, 60_000);
  void call(b.life, b.events, 'deaf', 60_000, true);
  b.life.signal('SIGINT');
  b.life.signal('SIGINT');
  assert.equal(await b.exited, 130);
  assert.deepEqual(b.events, ['exit 130']);
});

test('a call that ignores its cancellation does not hold the exit past the settle time', async () => {
  const { life, events, exited } = rig(10, 50);
  void call(life, events, 'deaf', 60_000, true);
  life.endOfInput();
  assert.equal(await exited, 0);
  assert.deepEqual(events, ['closed', 'exit 0']);
});

test('a call that ends by itself before any stop is no longer counted', async () => {
  const { life, events, exited } = rig(60_000, 60_000);
  await call(life, events, 'earlier', 5);
  life.stopNow(0, 'output closed');
  assert.equal(await exited, 0);
  assert.deepEqual(events, ['earlier done', 'closed', 'exit 0']);
});
