/*
 * The fake Anthropic Messages API (Claude Code, Copilot CLI with COPILOT_PROVIDER_TYPE=anthropic):
 * the shared fake model (fakeModel.ts) with the Messages adapter (protocols.ts).
 */
import { startFakeModel, type FakeModel, type ScriptTurn } from './fakeModel';
import { anthropicCountTokens, anthropicMessages } from './protocols';

export type { RecordedRequest, ScriptTurn, ToolResult, Turn } from './fakeModel';

/** Starts the fake Messages API on 127.0.0.1. */
export function startFakeMessagesApi(script: readonly ScriptTurn[]): Promise<FakeModel> {
  return startFakeModel([anthropicCountTokens, anthropicMessages], script);
}
