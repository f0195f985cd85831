/*
 * A scripted stand-in for an OpenAI-compatible Chat Completions endpoint (`POST /v1/chat/completions`,
 * SSE when `stream: true`), so a real agent (VS Code's built-in Copilot agent through its "Custom
 * Endpoint" model provider, opencode, Copilot CLI…) runs offline. Each conversation turn is answered
 * from a script chosen by the user's prompt; every `tool` message the client sends back is recorded:
 * that is exactly what a model would read, which is what the real-client tests assert on.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ScriptTurn as AnyScriptTurn, Turn } from '../fakeModel';

export type { Turn };
/** A scripted turn (the script format of every fake model), or one computed from this conversation's tool results so far. */
export type ScriptTurn = AnyScriptTurn<ToolResult>;

/** What the client sent back for one tool call. */
export interface ToolResult {
  tool: string;
  input: Record<string, unknown>;
  /** The text the model would read (text parts joined with a newline). */
  text: string;
  /** Size of `text` in UTF-8 bytes. */
  bytes: number;
  /**
   * The text as first sent back. A client may change a tool message in later requests (VS Code's
   * agent appends a PostToolUse hook's context once the hook has answered); `text` is the latest.
   */
  firstText: string;
  /** The prompt of the conversation this call belongs to. */
  prompt: string;
}

/** A tool as offered in a request. */
export interface OfferedTool {
  name: string;
  description: string;
  parameters: unknown;
  /** Bytes of the definition as sent (`JSON.stringify` of the `function` object). */
  bytes: number;
}

/** What one request carried, for assertions on the tool list and the conversation. */
export interface RecordedRequest {
  tools: OfferedTool[];
  messages: ChatMessage[];
  /** Text of the last user message (the prompt, with whatever context the client wrapped around it). */
  prompt: string;
  stream: boolean;
}

export interface ChatMessage {
  role: string;
  content?: string | { type: string; text?: string }[] | null;
  tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

export interface FakeChatCompletions {
  url: string;
  port: number;
  /** Tool messages received, in order. */
  results: ToolResult[];
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Picks the script for a conversation from its prompt; undefined answers with text 'ok'. */
export type ScriptFor = (prompt: string) => readonly ScriptTurn[] | undefined;

export function textOf(content: ChatMessage['content']): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  return content.filter((p) => p.type === 'text').map((p) => p.text ?? '').join('\n');
}

function chunk(id: string, model: string, choices: unknown[], extra: object = {}): string {
  return `data: ${JSON.stringify({ id: `chatcmpl-${id}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model, choices, ...extra })}\n\n`;
}

/** SSE chunks of one assistant message in the shape the real API streams. */
function sse(turn: Turn, id: string, model: string): string {
  const out: string[] = [];
  if ('tool' in turn) {
    const args = JSON.stringify(turn.input);
    const mid = Math.floor(args.length / 2);
    // Split the arguments like the real API does, so the client's assembly of deltas is exercised.
    out.push(chunk(id, model, [{ index: 0, delta: { role: 'assistant', content: null, tool_calls: [{ index: 0, id: `call_${id}`, type: 'function', function: { name: turn.tool, arguments: args.slice(0, mid) } }] }, finish_reason: null }]));
    out.push(chunk(id, model, [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: args.slice(mid) } }] }, finish_reason: null }]));
    out.push(chunk(id, model, [{ index: 0, delta: {}, finish_reason: 'tool_calls' }]));
  } else {
    out.push(chunk(id, model, [{ index: 0, delta: { role: 'assistant', content: turn.text }, finish_reason: null }]));
    out.push(chunk(id, model, [{ index: 0, delta: {}, finish_reason: 'stop' }]));
  }
  out.push(chunk(id, model, [], { usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 } }));
  out.push('data: [DONE]\n\n');
  return out.join('');
}

function completion(turn: Turn, id: string, model: string): object {
  const message = 'tool' in turn
    ? { role: 'assistant', content: null, tool_calls: [{ id: `call_${id}`, type: 'function', function: { name: turn.tool, arguments: JSON.stringify(turn.input) } }] }
    : { role: 'assistant', content: turn.text };
  return {
    id: `chatcmpl-${id}`, object: 'chat.completion', created: Math.floor(Date.now() / 1000), model,
    choices: [{ index: 0, message, finish_reason: 'tool' in turn ? 'tool_calls' : 'stop' }],
    usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
  };
}

/**
 * Starts the fake endpoint on 127.0.0.1 (`port` 0: any free port). A conversation's step is the
 * number of assistant messages after its last user message, so utility requests (titles, summaries:
 * they carry no tools and get a short text) and retries do not advance the script.
 */
export async function startFakeChatCompletions(scriptFor: ScriptFor, opts: { port?: number } = {}): Promise<FakeChatCompletions> {
  const results: ToolResult[] = [];
  const requests: RecordedRequest[] = [];
  const seen = new Map<string, ToolResult>();
  const issued = new Map<string, { tool: string; input: Record<string, unknown>; prompt: string }>();

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || !/\/chat\/completions$/.test(req.url?.split('?')[0] ?? '')) {
        const models = { object: 'list', data: [{ id: 'fake-model', object: 'model', owned_by: 'fake' }] };
        res.writeHead(req.method === 'GET' ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(req.method === 'GET' ? models : {}));
        return;
      }
      let body: { model?: string; stream?: boolean; messages?: ChatMessage[]; tools?: { type: string; function: { name: string; description?: string; parameters?: unknown } }[] };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"bad json"}}');
        return;
      }
      const messages = body.messages ?? [];
      const lastUser = messages.map((m) => m.role).lastIndexOf('user');
      const prompt = lastUser >= 0 ? textOf(messages[lastUser].content) : '';
      const tools = (body.tools ?? []).map((t) => ({
        name: t.function.name,
        description: t.function.description ?? '',
        parameters: t.function.parameters,
        bytes: Buffer.byteLength(JSON.stringify(t.function), 'utf8'),
      }));
      requests.push({ tools, messages, prompt, stream: body.stream === true });
      for (const m of messages) {
        if (m.role !== 'tool' || !m.tool_call_id) continue;
        const text = textOf(m.content);
        const known = seen.get(m.tool_call_id);
        if (known) {
          known.text = text;
          known.bytes = Buffer.byteLength(text, 'utf8');
          continue;
        }
        const call = issued.get(m.tool_call_id);
        const r = { tool: call?.tool ?? '?', input: call?.input ?? {}, text, bytes: Buffer.byteLength(text, 'utf8'), firstText: text, prompt: call?.prompt ?? prompt };
        seen.set(m.tool_call_id, r);
        results.push(r);
      }
      const model = body.model ?? 'fake-model';
      let turn: Turn = { text: 'ok' };
      const script = tools.length > 0 ? scriptFor(prompt) : undefined;
      if (script) {
        const step = messages.slice(lastUser + 1).filter((m) => m.role === 'assistant').length;
        const next = script[step] ?? { text: 'Done.' };
        turn = typeof next === 'function' ? next(results.filter((r) => r.prompt === prompt)) : next;
      }
      const id = `${requests.length}${Math.random().toString(36).slice(2, 8)}`;
      if ('tool' in turn) issued.set(`call_${id}`, { ...turn, prompt });
      if (body.stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
        res.end(sse(turn, id, model));
      } else {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion(turn, id, model)));
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', resolve);
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    results,
    requests,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
