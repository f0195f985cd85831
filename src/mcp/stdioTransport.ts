/*
 * The MCP server's stdio transport: newline-delimited JSON-RPC like the SDK's
 * StdioServerTransport, with two differences that matter for large requests, and a hang-up
 * callback the server's shutdown (lifetime.ts) is driven by.
 *
 * - A request over MAX_REQUEST_BYTES is answered, not fatal. The SDK's transport closes itself
 *   when its buffer passes 10 MB, so an offload above ~10 MB made the server exit and the client's
 *   next call fail with "Not connected". Here the oversized line is skipped as it arrives (only its
 *   first and last few hundred bytes are kept, to find its id and method), and the request gets an
 *   error naming the limit; the server goes on serving.
 * - Memory and time stay linear in the request: chunks are kept in a list and joined once per line
 *   (the SDK joins the whole buffer again on every chunk, quadratic for a line of tens of MB).
 *
 * End of input (the client closed the server's stdin, or died) and a broken output (nobody reads
 * the answers any more) are reported once through `onhangup`; the transport does not close
 * itself, so that the server decides what becomes of the calls in flight before it closes.
 */
import { deserializeMessage, serializeMessage, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/server';

/**
 * The largest request line the server takes. Offload accepts 20 MB of content; as JSON text
 * (escaped quotes, backslashes, control characters) that can grow, so the line may be larger.
 */
export const MAX_REQUEST_BYTES = 64 * 1024 * 1024;
const KEEP = 1024;

const mb = (n: number): string => `${(n / 1024 / 1024).toFixed(1)} MB`;

/** What is known of a line that was too long to keep: its size and both ends. */
interface Oversized {
  bytes: number;
  head: Buffer;
  tail: Buffer;
}

/** The JSON-RPC id of a request from the ends of its text (clients put it first or last), or undefined. */
function findId(o: Oversized): string | number | undefined {
  const pick = (text: string, last: boolean): string | number | undefined => {
    const re = /"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)\s*[,}]/g;
    let found: string | undefined;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      found = m[1];
      if (!last) break;
    }
    if (found === undefined) return undefined;
    return found.startsWith('"') ? (JSON.parse(found) as string) : Number(found);
  };
  // A request's own "id" sits at its top level: at the start (after "jsonrpc") or at the very end.
  const head = o.head.toString('utf8');
  const headId = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"/.test(head) ? pick(head, false) : undefined;
  return headId ?? pick(o.tail.toString('utf8'), true);
}

function findMethod(o: Oversized): string | undefined {
  return /"method"\s*:\s*"([^"]{1,100})"/.exec(o.head.toString('utf8'))?.[1];
}

/** Why the transport can go on no longer: its input ended, or its output is gone. */
export type Hangup = 'end of input' | 'output closed';

export class LimitedStdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Called once, the first time the input ends or the output breaks. */
  onhangup?: (why: Hangup) => void;
  private chunks: Buffer[] = [];
  private size = 0;
  private oversized: Oversized | undefined;
  private started = false;
  private hungUp = false;
  private outputClosed = false;

  constructor(
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    readonly maxBytes = MAX_REQUEST_BYTES,
    private readonly warn: (message: string) => void = () => undefined,
  ) {}

  private readonly ondata = (chunk: Buffer): void => {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, start)) {
      this.take(chunk.subarray(start, nl));
      this.endLine();
      start = nl + 1;
    }
    if (start < chunk.length) this.take(chunk.subarray(start));
  };

  private readonly onerrorEvent = (e: Error): void => this.onerror?.(e);

  private hangup(why: Hangup): void {
    if (why === 'output closed') this.outputClosed = true;
    if (this.hungUp) return;
    this.hungUp = true;
    this.onhangup?.(why);
  }

  private readonly oninputEnd = (): void => this.hangup('end of input');

  /** A write to a closed pipe (EPIPE: the client is gone) is a hang-up, never an uncaught error. */
  private readonly onoutputError = (): void => this.hangup('output closed');

  /** Adds bytes of the current line: kept while it is within the limit, else only its ends. */
  private take(part: Buffer): void {
    if (part.length === 0) return;
    if (this.oversized) {
      this.oversized.bytes += part.length;
      this.oversized.tail = Buffer.concat([this.oversized.tail, part]).subarray(-KEEP);
      return;
    }
    if (this.size + part.length <= this.maxBytes) {
      // Copied: the stream may reuse its buffer.
      this.chunks.push(Buffer.from(part));
      this.size += part.length;
      return;
    }
    const all = Buffer.concat([...this.chunks, part]);
    this.oversized = { bytes: all.length, head: Buffer.from(all.subarray(0, KEEP)), tail: Buffer.from(all.subarray(-KEEP)) };
    this.chunks = [];
    this.size = 0;
  }

  private endLine(): void {
    const over = this.oversized;
    if (over) {
      this.oversized = undefined;
      void this.refuse(over);
      return;
    }
    if (this.size === 0) return;
    const line = Buffer.concat(this.chunks, this.size).toString('utf8').replace(/\r$/, '');
    this.chunks = [];
    this.size = 0;
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line);
    } catch (e) {
      this.onerror?.(e as Error);
      return;
    }
    this.onmessage?.(message);
  }

  /** Answers a request that was too large with an error naming the limit (a notification is only logged). */
  private async refuse(o: Oversized): Promise<void> {
    const id = findId(o);
    const method = findMethod(o);
    const why = `the request is ${mb(o.bytes)}; this server takes requests of up to ${mb(this.maxBytes)} (as JSON text; agentContext_offload takes up to 20 MB of content). Nothing was done: split the content into smaller calls, or write it to a file and pass its path.`;
    this.warn(`refused a ${method ?? 'message'} of ${mb(o.bytes)} (limit ${mb(this.maxBytes)})${id === undefined ? ' without an id: no answer sent' : ''}`);
    if (id === undefined) return;
    // A tool call gets a tool result the model can read; anything else a JSON-RPC error.
    const reply: JSONRPCMessage = method === 'tools/call'
      ? { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: `Error: ${why}` }], isError: true } }
      : { jsonrpc: '2.0', id, error: { code: -32600, message: `Request too large: ${why}` } };
    await this.send(reply);
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('LimitedStdioServerTransport already started');
    this.started = true;
    this.stdin.on('data', this.ondata);
    this.stdin.on('error', this.onerrorEvent);
    this.stdin.on('end', this.oninputEnd);
    this.stdin.on('close', this.oninputEnd);
    this.stdout.on('error', this.onoutputError);
  }

  async close(): Promise<void> {
    this.stdin.off('data', this.ondata);
    this.stdin.off('error', this.onerrorEvent);
    this.stdin.off('end', this.oninputEnd);
    this.stdin.off('close', this.oninputEnd);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.chunks = [];
    this.size = 0;
    this.oversized = undefined;
    this.onclose?.();
  }

  /** Writes a message; resolves once it is written, or at once when the output is gone (the message is dropped). */
  send(message: JSONRPCMessage): Promise<void> {
    if (this.outputClosed) return Promise.resolve();
    return new Promise((resolve) => {
      if (this.stdout.write(serializeMessage(message))) {
        resolve();
        return;
      }
      const done = (): void => {
        this.stdout.off('drain', done);
        this.stdout.off('error', done);
        this.stdout.off('close', done);
        resolve();
      };
      this.stdout.on('drain', done);
      this.stdout.on('error', done);
      this.stdout.on('close', done);
    });
  }
}
