// The server ends with its client (issue 45): the stdio binding's shutdown is that the client closes
// the server's stdin, and a client that dies closes it too. Before, the server kept running after
// its input ended (still alive 40 s later: the tokenizer worker held it), so every agent session
// left an orphan. Here the real server process (tsc build) is ended the three ways a client ends it:
// its input closed, its client killed with SIGKILL, SIGTERM. Each time it must be gone within 5 s
// (the bound: a functional limit, not a benchmark), a command running in a call must be
// ended with its process group, and the tool ledger must be whole: every line one JSON object, the
// interrupted call's line among them.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { waitFor } from '../../integration/bridge';
import { goneWithin, ledgerEntries, processesWith, resultText, serverJs, startRaw, toolCall, MODERN_META, type Message, type RawServer } from './rawServer';

/** The bound for the server to be gone after its input ends or it is told to stop. */
const EXIT_BOUND_MS = 5000;

function workspace(): string {
  const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-shutdown-')));
  fs.mkdirSync(path.join(ws, '.agent'));
  fs.writeFileSync(path.join(ws, 'notes.md'), 'hello\n');
  return ws;
}

/** A command unique to this test run that sleeps long, so it is still running when the server is ended. */
function sleeper(tag: string): { command: string; marker: string } {
  const marker = `${tag}-${process.pid}-${Date.now()}`;
  // Two processes in the command's group: both must end.
  return { command: `sleep 47.${process.pid % 1000} & sleep 48.${process.pid % 1000}; echo ${marker}`, marker };
}

/**
 * Starts agentContext_run of `command` and waits until its sleeps run. A call answered first: its
 * ledger line counts tokens on the tokenizer's worker, so the worker has loaded its tables, and the
 * interrupted call's line is not waiting on them (on a machine loaded to 13 on 2 cores they take
 * seconds; a server stopped that early may exit without that line: lifetime.ts SETTLE_MS).
 */
async function runInFlight(s: RawServer, command: string, meta?: Record<string, unknown>): Promise<{ answer: Promise<Message> }> {
  assert.match(resultText(await s.request('tools/call', toolCall('agentContext_glob', { pattern: '*.md' }, meta))), /notes\.md/);
  const answer = s.request('tools/call', toolCall('agentContext_run', { command, timeoutSec: 600 }, meta));
  await waitFor(() => processesWith(`sleep 48.${process.pid % 1000}`).length > 0, { timeout: 30_000, message: 'the command to start' });
  return { answer }; // wrapped: an async function returning the promise itself would wait for the answer
}

function assertLedgerWhole(ws: string, marker: string): void {
  const entries = ledgerEntries(ws); // throws naming a line that is not whole
  const interrupted = entries.find((e) => String(e.input).includes(marker));
  assert.ok(interrupted, `the interrupted call is in the ledger: ${JSON.stringify(entries.map((e) => e.tool))}`);
  assert.match(String(interrupted.text), /cancelled \(process group killed\)/i);
  assert.deepEqual(processesWith(`sleep 47.${process.pid % 1000}`), [], 'no sleep of the command is left');
  assert.deepEqual(processesWith(`sleep 48.${process.pid % 1000}`), [], 'no sleep of the command is left');
}

test('its stdin closed: the server answers the call it had just been sent, ends the running command, and exits 0 within 5 s; the ledger is whole', async () => {
  const ws = workspace();
  const s = startRaw(['--root', ws, '--allow-run']);
  assert.equal((await s.initialize('2025-06-18')).result?.protocolVersion, '2025-06-18');
  const { command, marker } = sleeper('eof');
  const run = await runInFlight(s, command);
  // A request written just before the input ends is still answered (the calls in flight get a grace).
  const glob = s.request('tools/call', toolCall('agentContext_glob', { pattern: '*.md' }));
  s.proc.stdin!.end();
  assert.ok(await goneWithin(s.proc.pid!, EXIT_BOUND_MS), `the server still runs ${EXIT_BOUND_MS} ms after its input ended`);
  assert.deepEqual(await s.exited, { code: 0, signal: null });
  assert.match(resultText(await glob), /notes\.md/);
  assert.match(resultText(await run.answer), /cancelled \(process group killed\)/i);
  assertLedgerWhole(ws, marker);
});

test('its client killed with SIGKILL: the server (its pipes broken) ends the running command and exits within 5 s; the ledger is whole', async () => {
  const ws = workspace();
  const { command, marker } = sleeper('sigkill');
  // The client: a process that starts the server with pipes, speaks 2026-07-28 to it, starts a
  // long command, and reports the server's pid once the command runs. Then it is killed.
  const clientJs = path.join(ws, 'client.js');
  fs.writeFileSync(clientJs, `
    const { spawn } = require('node:child_process');
    const server = spawn(process.execPath, [${JSON.stringify(serverJs)}, '--root', ${JSON.stringify(ws)}, '--allow-run'], { stdio: ['pipe', 'pipe', 'ignore'] });
    const meta = ${JSON.stringify(MODERN_META)};
    const send = (m) => server.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');
    send({ id: 1, method: 'tools/call', params: { name: 'agentContext_glob', arguments: { pattern: '*.md' }, _meta: meta } });
    server.stdout.once('data', () => {
      send({ id: 2, method: 'tools/call', params: { name: 'agentContext_run', arguments: { command: ${JSON.stringify(command)}, timeoutSec: 600 }, _meta: meta } });
      process.stdout.write(server.pid + '\\n');
    });
    setInterval(() => {}, 1000);
  `);
  const client = spawn(process.execPath, [clientJs], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  client.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const serverPid = Number(await waitFor(() => /^(\d+)\n/.exec(out)?.[1], { timeout: 30_000, message: 'the client to start the server' }));
  await waitFor(() => processesWith(`sleep 48.${process.pid % 1000}`).length > 0, { timeout: 30_000, message: 'the command to start' });
  client.kill('SIGKILL');
  assert.ok(await goneWithin(serverPid, EXIT_BOUND_MS), `the server still runs ${EXIT_BOUND_MS} ms after its client was killed`);
  assertLedgerWhole(ws, marker);
});

test('SIGTERM during agentContext_run: the command\'s process group is ended, the call is in the ledger, and the server exits 143 within 5 s', async () => {
  const ws = workspace();
  const s = startRaw(['--root', ws, '--allow-run']);
  const { command, marker } = sleeper('sigterm');
  const run = await runInFlight(s, command, MODERN_META);
  s.proc.kill('SIGTERM');
  assert.ok(await goneWithin(s.proc.pid!, EXIT_BOUND_MS), `the server still runs ${EXIT_BOUND_MS} ms after SIGTERM`);
  assert.deepEqual(await s.exited, { code: 128 + os.constants.signals.SIGTERM, signal: null });
  assert.match(resultText(await run.answer), /cancelled \(process group killed\)/i);
  assertLedgerWhole(ws, marker);
});

test('SIGINT and SIGHUP stop an idle server too (exit 130, 129)', async () => {
  for (const sig of ['SIGINT', 'SIGHUP'] as const) {
    const s = startRaw(['--root', workspace()]);
    await s.request('tools/call', toolCall('agentContext_glob', { pattern: '*.md' }, MODERN_META));
    s.proc.kill(sig);
    assert.ok(await goneWithin(s.proc.pid!, EXIT_BOUND_MS), `the server still runs ${EXIT_BOUND_MS} ms after ${sig}`);
    assert.deepEqual(await s.exited, { code: 128 + os.constants.signals[sig], signal: null }, sig);
  }
});
