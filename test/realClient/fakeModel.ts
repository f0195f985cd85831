/*
 * A scripted stand-in for a model API, so a real agent CLI can run offline. One HTTP server, one
 * script of turns, and one small adapter per wire protocol:
 *   - Anthropic Messages (`POST /v1/messages`): Claude Code, Copilot CLI with COPILOT_PROVIDER_TYPE=anthropic;
 *   - OpenAI Responses (`POST /v1/responses`): Codex;
 *   - Gemini (`POST /v1beta/models/<m>:streamGenerateContent?alt=sse`, `:generateContent`): Gemini CLI;
 *   - OpenAI Chat Completions (`POST /v1/chat/completions`): opencode, Copilot CLI's default.
 * The client sends the whole conversation with every request; the script's position is the number
 * of model turns in it, so retries and side requests (titles, summaries: requests without tools) do
 * not advance it. Every tool result the client sends back is recorded: that is exactly what a
 * model would read, which is what the real-client tests assert on.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One model turn: call a tool, or answer with text and end the conversation. */
export type Turn = { tool: string; input: Record<string, unknown> } | { text: string };

/** A scripted turn, or one computed from the tool results so far (e.g. read around a grep hit). */
export type ScriptTurn<R = ToolResult> = Turn | ((results: readonly R[]) => Turn);

/** What the client sent back for one tool call. */
export interface ToolResult {
  /** The tool the fake model called, as the client named it (e.g. `mcp__agent-context__agentContext_run`, `Bash`). */
  tool: string;
  input: Record<string, unknown>;
  /** The text the model would read (text parts joined with a newline). */
  text: string;
  isError: boolean;
  /** Size of `text` in UTF-8 bytes. */
  bytes: number;
  /** Milliseconds from the end of the answer that issued the call to the request that carried its result. */
  ms: number;
  /** Whether the request the call answered offered that tool (a scripted model may call one the client has not listed yet). */
  offered: boolean;
}

/** What a request carried, for assertions on the tool list and the conversation. */
export interface RecordedRequest {
  toolNames: string[];
  /** The request body as sent. */
  body: unknown;
  url: string;
}

export interface FakeModel {
  url: string;
  results: ToolResult[];
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** A tool result found in a request: the call id the fake model gave, and what came back. */
export interface ReturnedResult {
  callId: string;
  text: string;
  isError: boolean;
}

/** What an adapter reads from a request. */
export interface ParsedRequest {
  toolNames: string[];
  /** Model turns already in the conversation: the script's position. */
  turns: number;
  results: ReturnedResult[];
  /** A request the script does not answer (no tools: a title, a summary, a check). */
  side: boolean;
  stream: boolean;
}

/** One wire protocol. */
export interface Protocol {
  name: string;
  /** True when this adapter serves the request. */
  accepts(method: string, url: string): boolean;
  parse(body: Record<string, unknown>, url: string): ParsedRequest;
  /** The HTTP answer for a turn; `callId` names a tool call so its result can be matched. */
  answer(turn: Turn, callId: string, req: ParsedRequest, body: Record<string, unknown>, url: string): { contentType: string; body: string };
  /** The answer to a side request (default: the text `ok`). */
  sideAnswer?(body: Record<string, unknown>, url: string): Turn;
}

/** Joins the text parts of a content value (a string, or a list of `{type:'text',text}` parts). */
export function textOf(content: unknown): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((p) => (p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : ''))
      .filter((t) => t !== '')
      .join('\n');
  }
  return JSON.stringify(content);
}

/** `data: <json>\n\n` server-sent events. */
export function sse(events: readonly object[], done = false): string {
  return events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('') + (done ? 'data: [DONE]\n\n' : '');
}

/**
 * Starts the fake model on 127.0.0.1 with the given protocol adapters (several can share one
 * server: the request's path picks the adapter).
 */
export async function startFakeModel(protocols: readonly Protocol[], script: readonly ScriptTurn[]): Promise<FakeModel> {
  const results: ToolResult[] = [];
  const requests: RecordedRequest[] = [];
  const seen = new Set<string>();
  const issued = new Map<string, { tool: string; input: Record<string, unknown>; at: number; offered: boolean }>();
  let served = 0;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = req.url ?? '/';
      const method = req.method ?? 'GET';
      const protocol = protocols.find((p) => p.accepts(method, url));
      if (!protocol) {
        // Health checks (HEAD /), model lists and the like: an empty success.
        const known = method === 'HEAD' || method === 'GET';
        res.writeHead(known ? 200 : 404, { 'content-type': 'application/json' });
        res.end(method === 'HEAD' ? undefined : url.includes('/models') ? '{"data":[],"models":[]}' : '{}');
        return;
      }
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"bad json"}}');
        return;
      }
      const parsed = protocol.parse(body, url);
      requests.push({ toolNames: parsed.toolNames, body, url });
      const now = Date.now();
      for (const r of parsed.results) {
        if (seen.has(r.callId)) continue;
        seen.add(r.callId);
        const call = issued.get(r.callId);
        results.push({ tool: call?.tool ?? '?', input: call?.input ?? {}, text: r.text, isError: r.isError, bytes: Buffer.byteLength(r.text, 'utf8'), ms: call ? now - call.at : -1, offered: call?.offered ?? false });
      }
      let turn: Turn;
      if (parsed.side) turn = protocol.sideAnswer?.(body, url) ?? { text: 'ok' };
      else {
        const step = script[parsed.turns] ?? { text: 'Done.' };
        turn = typeof step === 'function' ? step(results) : step;
      }
      const callId = `call_${++served}_${Math.random().toString(36).slice(2, 8)}`;
      const out = protocol.answer(turn, callId, parsed, body, url);
      if ('tool' in turn && !parsed.side) issued.set(callId, { ...turn, at: Date.now(), offered: parsed.toolNames.includes(turn.tool) });
      res.writeHead(200, { 'content-type': out.contentType, 'cache-control': 'no-cache' });
      res.end(out.body);
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
