/*
 * The wire protocols the fake model speaks (see fakeModel.ts). Each adapter reads the tool list,
 * the number of model turns and the returned tool results from a request, and writes a turn in the
 * shape the real API streams. Shapes checked against the real clients (FACTS.md, third round).
 */
import { sse, textOf, type ParsedRequest, type Protocol, type ReturnedResult, type Turn } from './fakeModel';

type Json = Record<string, unknown>;
const list = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]) : []);

// ---------------------------------------------------------------------------------------------
// Anthropic Messages: Claude Code; Copilot CLI with COPILOT_PROVIDER_TYPE=anthropic.

export const anthropicMessages: Protocol = {
  name: 'anthropic-messages',
  accepts: (method, url) => method === 'POST' && url.startsWith('/v1/messages') && !url.startsWith('/v1/messages/count_tokens'),
  parse(body) {
    const messages = list(body.messages);
    const results: ReturnedResult[] = [];
    for (const m of messages) {
      if (m.role !== 'user') continue;
      for (const b of list(m.content)) {
        if (b.type === 'tool_result' && typeof b.tool_use_id === 'string') results.push({ callId: b.tool_use_id, text: textOf(b.content), isError: b.is_error === true });
      }
    }
    const toolNames = list(body.tools).map((t) => String(t.name));
    return { toolNames, turns: messages.filter((m) => m.role === 'assistant').length, results, side: toolNames.length === 0, stream: body.stream === true };
  },
  answer(turn, callId, req, body) {
    const model = typeof body.model === 'string' ? body.model : 'claude-fake';
    const content = 'tool' in turn ? [{ type: 'tool_use', id: callId, name: turn.tool, input: turn.input }] : [{ type: 'text', text: turn.text }];
    const stop = 'tool' in turn ? 'tool_use' : 'end_turn';
    if (!req.stream) {
      return { contentType: 'application/json', body: JSON.stringify({ id: `msg_${callId}`, type: 'message', role: 'assistant', model, content, stop_reason: stop, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 5 } }) };
    }
    const ev = (type: string, data: object): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    const out = [ev('message_start', { message: { id: `msg_${callId}`, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } })];
    if ('tool' in turn) {
      out.push(ev('content_block_start', { index: 0, content_block: { type: 'tool_use', id: callId, name: turn.tool, input: {} } }));
      const json = JSON.stringify(turn.input);
      // Split the input like the real API does, so the client's partial-JSON assembly is exercised.
      const mid = Math.floor(json.length / 2);
      for (const part of [json.slice(0, mid), json.slice(mid)]) out.push(ev('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: part } }));
    } else {
      out.push(ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }));
      out.push(ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: turn.text } }));
    }
    out.push(ev('content_block_stop', { index: 0 }));
    out.push(ev('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 20 } }));
    out.push(ev('message_stop', {}));
    return { contentType: 'text/event-stream', body: out.join('') };
  },
};

/** `POST /v1/messages/count_tokens`, which Claude Code calls beside the conversation. */
export const anthropicCountTokens: Protocol = {
  name: 'anthropic-count-tokens',
  accepts: (method, url) => method === 'POST' && url.startsWith('/v1/messages/count_tokens'),
  parse: () => ({ toolNames: [], turns: 0, results: [], side: true, stream: false }),
  answer: () => ({ contentType: 'application/json', body: '{"input_tokens":100}' }),
};

// ---------------------------------------------------------------------------------------------
// OpenAI Responses: Codex. MCP tools come inside `{type:'namespace', name:'mcp__<server>', tools}`
// and a call to one must name the namespace; the fake model's tool name `mcp__srv__tool` is split
// at the last `__` into namespace and name.

function responsesToolNames(tools: Json[]): string[] {
  const out: string[] = [];
  for (const t of tools) {
    if (t.type === 'namespace' && Array.isArray(t.tools)) for (const n of list(t.tools)) out.push(`${String(t.name)}__${String(n.name)}`);
    else if (typeof t.name === 'string') out.push(t.name);
  }
  return out;
}

export const openaiResponses: Protocol = {
  name: 'openai-responses',
  accepts: (method, url) => method === 'POST' && /^\/v1\/responses(\?|$)/.test(url),
  parse(body) {
    const input = list(body.input);
    const results: ReturnedResult[] = [];
    let turns = 0;
    for (const item of input) {
      if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output') {
        const output = item.output;
        const text = typeof output === 'string' ? output : textOf((output as Json | undefined)?.content ?? output);
        results.push({ callId: String(item.call_id), text, isError: false });
      }
      if (item.type === 'function_call' || item.type === 'custom_tool_call' || (item.type === 'message' && item.role === 'assistant')) turns++;
    }
    const toolNames = responsesToolNames(list(body.tools));
    return { toolNames, turns, results, side: toolNames.length === 0, stream: body.stream !== false };
  },
  answer(turn, callId, _req, body) {
    const model = typeof body.model === 'string' ? body.model : 'fake-model';
    const id = `resp_${callId}`;
    let item: Json;
    if ('tool' in turn) {
      const cut = turn.tool.lastIndexOf('__');
      const ns = turn.tool.startsWith('mcp__') && cut > 4 ? turn.tool.slice(0, cut) : undefined;
      item = { type: 'function_call', id: `fc_${callId}`, call_id: callId, name: ns ? turn.tool.slice(cut + 2) : turn.tool, arguments: JSON.stringify(turn.input), status: 'completed', ...(ns ? { namespace: ns } : {}) };
    } else {
      item = { type: 'message', id: `msg_${callId}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: turn.text, annotations: [] }] };
    }
    const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 };
    const response = { id, object: 'response', created_at: Math.floor(Date.now() / 1000), model, status: 'completed', output: [item], usage };
    return {
      contentType: 'text/event-stream',
      body: sse([
        { type: 'response.created', response: { ...response, status: 'in_progress', output: [] } },
        { type: 'response.output_item.added', output_index: 0, item },
        { type: 'response.output_item.done', output_index: 0, item },
        { type: 'response.completed', response },
      ]),
    };
  },
};

// ---------------------------------------------------------------------------------------------
// Gemini: `models/<m>:streamGenerateContent?alt=sse` (the conversation) and `:generateContent`
// (side requests with a JSON schema, e.g. the next-speaker check).

export const gemini: Protocol = {
  name: 'gemini',
  accepts: (method, url) => method === 'POST' && /\/models\/[^/:]+:(streamGenerateContent|generateContent)/.test(url),
  parse(body, url) {
    const contents = list(body.contents);
    const results: ReturnedResult[] = [];
    for (const c of contents) {
      for (const p of list(c.parts)) {
        const fr = p.functionResponse as Json | undefined;
        if (!fr) continue;
        const response = (fr.response ?? {}) as Json;
        const callId = typeof fr.id === 'string' ? fr.id : String(fr.name);
        const value = response.output ?? response.error ?? response.content ?? response;
        const text = typeof value === 'string' ? value : textOf(value);
        results.push({ callId, text, isError: response.error !== undefined });
      }
    }
    const toolNames = list(body.tools).flatMap((t) => list(t.functionDeclarations).map((f) => String(f.name)));
    const turns = contents.filter((c) => c.role === 'model' && list(c.parts).some((p) => p.functionCall || typeof p.text === 'string')).length;
    const cfg = (body.generationConfig ?? {}) as Json;
    const side = toolNames.length === 0 || cfg.responseMimeType === 'application/json';
    return { toolNames, turns, results, side, stream: url.includes('streamGenerateContent') };
  },
  sideAnswer(body) {
    const cfg = (body.generationConfig ?? {}) as Json;
    // The next-speaker check wants JSON; an answer of `user` ends the turn.
    if (cfg.responseMimeType === 'application/json') return { text: JSON.stringify({ reasoning: 'The task is done.', next_speaker: 'user' }) };
    return { text: 'ok' };
  },
  answer(turn, callId, req) {
    const part = 'tool' in turn ? { functionCall: { id: callId, name: turn.tool, args: turn.input } } : { text: turn.text };
    const chunk = { candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 }, modelVersion: 'gemini-2.5-pro' };
    return req.stream ? { contentType: 'text/event-stream', body: sse([chunk]) } : { contentType: 'application/json', body: JSON.stringify(chunk) };
  },
};

// ---------------------------------------------------------------------------------------------
// OpenAI Chat Completions: opencode (openai-compatible provider), Copilot CLI's default, VS Code's agent.

export const chatCompletions: Protocol = {
  name: 'chat-completions',
  accepts: (method, url) => method === 'POST' && /\/chat\/completions(\?|$)/.test(url),
  parse(body) {
    const messages = list(body.messages);
    const results: ReturnedResult[] = [];
    for (const m of messages) {
      if (m.role === 'tool' && typeof m.tool_call_id === 'string') results.push({ callId: m.tool_call_id, text: textOf(m.content), isError: false });
    }
    const toolNames = list(body.tools).map((t) => String((t.function as Json | undefined)?.name ?? t.name));
    return { toolNames, turns: messages.filter((m) => m.role === 'assistant').length, results, side: toolNames.length === 0, stream: body.stream === true };
  },
  answer(turn: Turn, callId: string, req: ParsedRequest, body: Json) {
    const model = typeof body.model === 'string' ? body.model : 'fake-model';
    const base = { id: `chatcmpl-${callId}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model };
    const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
    if (!req.stream) {
      const message = 'tool' in turn
        ? { role: 'assistant', content: null, tool_calls: [{ id: callId, type: 'function', function: { name: turn.tool, arguments: JSON.stringify(turn.input) } }] }
        : { role: 'assistant', content: turn.text };
      return { contentType: 'application/json', body: JSON.stringify({ ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: 'tool' in turn ? 'tool_calls' : 'stop' }], usage }) };
    }
    const chunks: object[] = [{ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }];
    if ('tool' in turn) {
      const args = JSON.stringify(turn.input);
      const mid = Math.floor(args.length / 2);
      chunks.push({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: callId, type: 'function', function: { name: turn.tool, arguments: args.slice(0, mid) } }] }, finish_reason: null }] });
      chunks.push({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: args.slice(mid) } }] }, finish_reason: null }] });
      chunks.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] });
    } else {
      chunks.push({ ...base, choices: [{ index: 0, delta: { content: turn.text }, finish_reason: null }] });
      chunks.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
    }
    chunks.push({ ...base, choices: [], usage });
    return { contentType: 'text/event-stream', body: sse(chunks, true) };
  },
};
