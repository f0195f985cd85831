/*
 * A scripted stand-in for the Anthropic Messages API, so a real Claude Code CLI can run offline.
 * Claude Code streams `POST /v1/messages` (SSE); we answer each conversation turn from a script
 * (a tool call or a final text) and record the `tool_result` blocks the client sends back: that is
 * exactly what a model would see, which is what the real-client tests assert on.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One model turn: call a tool, or answer with text and end the conversation. */
export type Turn = { tool: string; input: Record<string, unknown> } | { text: string };

/** A scripted turn, or one computed from the tool results so far (e.g. read around a grep hit). */
export type ScriptTurn = Turn | ((results: readonly ToolResult[]) => Turn);

/** What the client sent back for one tool call. */
export interface ToolResult {
  /** The tool the fake model called (e.g. `mcp__agent-context__agentContext_run`, `Bash`). */
  tool: string;
  input: Record<string, unknown>;
  /** The text the model would read (text blocks joined with a newline). */
  text: string;
  isError: boolean;
  /** Size of `text` in UTF-8 bytes. */
  bytes: number;
}

/** What a request carried, for assertions on the tool list and the conversation. */
export interface RecordedRequest {
  toolNames: string[];
  messages: unknown[];
  stream: boolean;
}

export interface FakeMessagesApi {
  url: string;
  /** tool_result blocks received, in order. */
  results: ToolResult[];
  requests: RecordedRequest[];
  close(): Promise<void>;
}

interface ContentBlock {
  type: string;
  id?: string;
  tool_use_id?: string;
  content?: string | ContentBlock[];
  text?: string;
  is_error?: boolean;
}

interface Message {
  role: string;
  content: string | ContentBlock[];
}

function textOf(content: string | ContentBlock[] | undefined): string {
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  return content.filter((b) => b.type === 'text').map((b) => b.text ?? '').join('\n');
}

/** SSE events of one assistant message (the shape the real API streams). */
function sseEvents(turn: Turn, id: string, model: string): string {
  const ev = (type: string, data: object): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const out = [ev('message_start', { message: { id: `msg_${id}`, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } })];
  if ('tool' in turn) {
    out.push(ev('content_block_start', { index: 0, content_block: { type: 'tool_use', id: `toolu_${id}`, name: turn.tool, input: {} } }));
    const json = JSON.stringify(turn.input);
    // Split the input like the real API does, so the client's partial-JSON assembly is exercised.
    const mid = Math.floor(json.length / 2);
    for (const part of [json.slice(0, mid), json.slice(mid)]) out.push(ev('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: part } }));
    out.push(ev('content_block_stop', { index: 0 }));
    out.push(ev('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 20 } }));
  } else {
    out.push(ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }));
    out.push(ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: turn.text } }));
    out.push(ev('content_block_stop', { index: 0 }));
    out.push(ev('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } }));
  }
  out.push(ev('message_stop', {}));
  return out.join('');
}

function jsonMessage(turn: Turn, id: string, model: string): object {
  const content = 'tool' in turn ? [{ type: 'tool_use', id: `toolu_${id}`, name: turn.tool, input: turn.input }] : [{ type: 'text', text: turn.text }];
  return { id: `msg_${id}`, type: 'message', role: 'assistant', model, content, stop_reason: 'tool' in turn ? 'tool_use' : 'end_turn', stop_sequence: null, usage: { input_tokens: 10, output_tokens: 5 } };
}

/**
 * Starts the fake API on 127.0.0.1. The conversation's turn number is the count of assistant
 * messages in the request, so retries and side requests (which carry no tools, e.g. title
 * generation) do not advance the script.
 */
export async function startFakeMessagesApi(script: readonly ScriptTurn[]): Promise<FakeMessagesApi> {
  const results: ToolResult[] = [];
  const requests: RecordedRequest[] = [];
  const seenResults = new Set<string>();
  const issued = new Map<string, { tool: string; input: Record<string, unknown> }>();

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.startsWith('/v1/messages')) {
        res.writeHead(req.method === 'HEAD' || req.method === 'GET' ? 200 : 404, { 'content-type': 'application/json' });
        res.end(req.method === 'HEAD' ? undefined : '{}');
        return;
      }
      let body: { model?: string; stream?: boolean; messages?: Message[]; tools?: { name: string }[] };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400).end('{"type":"error","error":{"type":"invalid_request_error","message":"bad json"}}');
        return;
      }
      if (req.url.startsWith('/v1/messages/count_tokens')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"input_tokens":100}');
        return;
      }
      const messages = body.messages ?? [];
      const toolNames = (body.tools ?? []).map((t) => t.name);
      requests.push({ toolNames, messages, stream: body.stream === true });
      for (const m of messages) {
        if (m.role !== 'user' || typeof m.content === 'string') continue;
        for (const b of m.content) {
          if (b.type !== 'tool_result' || !b.tool_use_id || seenResults.has(b.tool_use_id)) continue;
          seenResults.add(b.tool_use_id);
          const call = issued.get(b.tool_use_id);
          const text = textOf(b.content);
          results.push({ tool: call?.tool ?? '?', input: call?.input ?? {}, text, isError: b.is_error === true, bytes: Buffer.byteLength(text, 'utf8') });
        }
      }
      const model = body.model ?? 'claude-fake';
      let turn: Turn;
      if (toolNames.length === 0) {
        // A side request (title, summary, classifier): a short neutral answer.
        turn = { text: 'ok' };
      } else {
        const n = messages.filter((m) => m.role === 'assistant').length;
        const step = script[n] ?? { text: 'done' };
        turn = typeof step === 'function' ? step(results) : step;
      }
      const id = `${requests.length}_${Math.random().toString(36).slice(2, 8)}`;
      if ('tool' in turn) issued.set(`toolu_${id}`, turn);
      if (body.stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
        res.end(sseEvents(turn, id, model));
      } else {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(jsonMessage(turn, id, model)));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    results,
    requests,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
