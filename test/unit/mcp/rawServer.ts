// The MCP server spoken to in raw JSON-RPC lines over real pipes (the tsc build of src/mcp/server.ts,
// the code esbuild bundles into dist/mcp.js): what any client writes, with nothing of an SDK in
// between, so a test sees exactly what the server answers, and when the process ends.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ledgerPath } from '../../../src/core/history/ledger';

export const serverJs = require.resolve('../../../src/mcp/server');

/** The `_meta` a 2026-07-28 request carries (no roots, no sampling: empty capabilities). */
export const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw-test-client', version: '1.0.0' },
};

export type Message = Record<string, unknown> & { id?: string | number; method?: string; result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } };

export interface RawServer {
  proc: ChildProcess;
  /** Every message the server wrote, in order. */
  received: Message[];
  /** Writes one message. */
  send(message: Record<string, unknown>): void;
  /** Sends a request and resolves to the server's answer to it. */
  request(method: string, params: Record<string, unknown>): Promise<Message>;
  /** The legacy opening: initialize (at `version`) and notifications/initialized. */
  initialize(version: string): Promise<Message>;
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
}

let nextId = 1;

/** Starts the server with `args` (e.g. ['--root', ws]) in `cwd`. */
export function startRaw(args: string[], cwd?: string): RawServer {
  const proc = spawn(process.execPath, [serverJs, ...args], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  const received: Message[] = [];
  const waiting = new Map<string | number, (m: Message) => void>();
  const failers = new Map<string | number, (why: string) => void>();
  let buf = '';
  let err = '';
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  proc.stdout!.on('data', (d: Buffer) => {
    buf += d.toString();
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const m = JSON.parse(buf.slice(0, nl)) as Message;
      buf = buf.slice(nl + 1);
      received.push(m);
      if (m.id !== undefined && m.method === undefined) waiting.get(m.id)?.(m);
    }
  });
  // A test that ends the server's input may still write to it: no EPIPE crash in the test.
  proc.stdin!.on('error', () => undefined);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  // A request the server will never answer fails, naming how the server ended and what it said.
  proc.on('close', (code, signal) => {
    ended = `the server ended (code ${code}, signal ${signal}) before answering; its stderr: ${err.slice(-2000) || '(empty)'}`;
    for (const [id, fail] of failers) if (!received.some((m) => m.id === id && m.method === undefined)) fail(ended);
  });
  const send = (message: Record<string, unknown>): void => void proc.stdin!.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');
  let ended: string | undefined;
  const request = (method: string, params: Record<string, unknown>): Promise<Message> => {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      if (ended) reject(new Error(`${method}: ${ended}`));
      waiting.set(id, resolve);
      failers.set(id, (why) => reject(new Error(`${method}: ${why}`)));
      send({ id, method, params });
    });
  };
  return {
    proc,
    received,
    send,
    request,
    async initialize(version) {
      const r = await request('initialize', { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw-test-client', version: '1.0.0' } });
      send({ method: 'notifications/initialized' });
      return r;
    },
    exited,
    stderr: () => err,
  };
}

/** A tool call's params in either era (`meta` undefined: a legacy call, after initialize). */
export function toolCall(name: string, args: Record<string, unknown>, meta?: Record<string, unknown>): Record<string, unknown> {
  return meta ? { name, arguments: args, _meta: meta } : { name, arguments: args };
}

/** The text of a tools/call answer. */
export const resultText = (m: Message): string => ((m.result?.content as { text?: string }[] | undefined) ?? []).map((c) => c.text ?? '').join('');

/** Whether process `pid` still runs (a zombie, exited but not reaped by a parent that died, does not). */
export function running(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Polls until `pid` no longer runs or `ms` have passed; true when it is gone. */
export async function goneWithin(pid: number, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (running(pid)) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

/** The command lines of running processes that contain `text`. */
export function processesWith(text: string): string[] {
  return execFileSync('ps', ['-eo', 'pid=,stat=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l.includes(text) && !/^\s*\d+\s+Z/.test(l) && !l.includes('ps -eo'));
}

/** Every line of the workspace's tool ledger, parsed; throws naming the first line that is not one whole JSON object. */
export function ledgerEntries(ws: string): Record<string, unknown>[] {
  const file = ledgerPath(path.join(ws, '.agent'));
  if (!fs.existsSync(file)) return [];
  const text = fs.readFileSync(file, 'utf8');
  if (text.length > 0 && !text.endsWith('\n')) throw new Error(`${file} ends in a partial line: ${JSON.stringify(text.slice(-200))}`);
  return text.split('\n').filter(Boolean).map((l, i) => {
    try {
      return JSON.parse(l) as Record<string, unknown>;
    } catch {
      throw new Error(`${file} line ${i + 1} is not whole JSON: ${JSON.stringify(l.slice(0, 200))}`);
    }
  });
}
