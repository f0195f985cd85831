/*
 * The briefing handed to an agent when a session starts, is resumed or cleared, and right after its
 * context was compacted (issue 21, "Surviving compaction"): users lose their plan and rules when an
 * agent compacts; a session-start hook that fires again after the compaction puts the plan's
 * current step and the paths to read back in front of the model.
 *   - Claude Code: SessionStart (source startup | resume | clear | compact; PreCompact cannot add
 *     context, but SessionStart fires with source "compact" once the summary is in place), output
 *     `hookSpecificOutput.additionalContext`.
 *   - Codex CLI 0.171: SessionStart (startup | resume | clear | compact | fork), the same output;
 *     after an automatic or manual compaction it fires with source "compact".
 *   - Gemini CLI 0.61: SessionStart (startup | resume | clear), the same output. Its compression
 *     fires only PreCompress, which is advisory (no context): after a compression nothing is added.
 *   - Copilot CLI 1.0.102: sessionStart (startup | resume | new), output `{additionalContext}`; its
 *     preCompact runs before a compaction and adds nothing, so after one nothing is added either.
 * The text is the agentContext_briefing of the folder (≤ BRIEFING_MAX_TOKENS in all, this line
 * included), so what the agent reads after a reset is what the tool would have told it.
 */
import { composeBriefing, BRIEFING_MAX_TOKENS } from '../briefing/composeBriefing';
import { gatherBriefing } from '../briefing/briefingSources';
import { countTokens } from '../output/tokens';
import { agentDirOf } from '../workspace/agentLayout';
import { maskSecrets } from '../secrets';
import { hookSettings, type HookSettings } from './shellOutput';

/** Why the session (re)started, as the agents name it. */
export type SessionSource = 'startup' | 'resume' | 'clear' | 'compact';

const WHEN: Record<SessionSource, string> = {
  startup: 'at the start of this session',
  resume: 'as this session was resumed',
  clear: 'after the conversation was cleared',
  compact: 'right after the conversation was compacted',
};

/** The source named in a hook's JSON input (`source`), if it is one of the known ones (Copilot CLI's "new" is a start). */
export function sessionSourceOf(input: unknown): SessionSource | undefined {
  const s = input && typeof input === 'object' ? (input as { source?: unknown }).source : undefined;
  if (s === 'new') return 'startup';
  return typeof s === 'string' && s in WHEN ? (s as SessionSource) : undefined;
}

/** Copilot CLI's sessionStart answer (`settings`: the workspace's, when the caller has read them). */
export async function copilotSessionStart(input: unknown, root: string, settings?: HookSettings): Promise<object> {
  return { additionalContext: (await sessionStartContext(root, sessionSourceOf(input), BRIEFING_MAX_TOKENS, settings)).text };
}

/** The text to put in front of the model: one line saying why, then the briefing; the whole ≤ maxTokens. `settings`: read here when not given. */
export async function sessionStartContext(root: string, source: SessionSource | undefined, maxTokens = BRIEFING_MAX_TOKENS, settings?: HookSettings): Promise<{ text: string; tokens: number }> {
  const head = `Agent Context put this briefing here ${WHEN[source ?? 'startup']}: the plan's current step and the files that hold the state. Read the paths it names before going on.`;
  const headTokens = countTokens(`${head}\n`).tokens;
  const briefing = composeBriefing(await gatherBriefing(agentDirOf(root)), maxTokens - headTokens);
  // Masked as the tool's answer is (tools/maskToolText.ts): a plan or memory entry may hold a secret.
  const text = `${head}\n${maskSecrets(briefing.text, (settings ?? (await hookSettings(root))).rules).text}`;
  return { text, tokens: countTokens(text).tokens };
}

/**
 * The SessionStart answer of Claude Code, Codex and Gemini CLI (the same shape): the briefing as
 * additional context. Gemini CLI puts it in front of the first prompt, in `<hook_context>`.
 */
export async function sessionStartHookOutput(input: unknown, root: string, settings?: HookSettings): Promise<object> {
  const { text } = await sessionStartContext(root, sessionSourceOf(input), BRIEFING_MAX_TOKENS, settings);
  return { hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: text } };
}
