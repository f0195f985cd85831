import { callAnswering } from '../callsAnswering';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { appendLedger, ledgerPath, summarizeInput } from '../history/ledger';
import { describeFsError, errnoOf } from '../fs/fsErrors';
import { cutToBytes } from '../output/reference';
import { countTokensAsync } from '../output/tokens';
import { defaultFolder, displayPath } from '../workspace/workspacePaths';
import { agentWorkspaceTool } from './agentWorkspace';
import { briefingTool } from './briefing';
import { cleanupTool } from './cleanup';
import { globTool } from './glob';
import { grepTool } from './grep';
import { memoryTool } from './memory';
import { offloadTool } from './offload';
import { planTool } from './plan';
import { readTool } from './read';
import { maskCommand, runTool } from './run';
import { maskedNote, maskWrittenInput } from './maskToolText';
import { maskSecrets } from '../secrets';
import { searchTool } from './search';
import { skillTool } from './skill';
import { terminalTool } from './terminal';
import { INLINE_MAX_BYTES, secretRulesOf, toolError, type ToolContext, type ToolHandler, type ToolOutcome } from './toolContext';
import { toolDefinition, validateInput, type ToolDefinition } from './toolDefinitions';
import type { ToolName } from './toolNames';
import { agentDirOf } from '../workspace/agentLayout';
import { noteSearchChange } from '../search/ranked/searchService';

/** Implementations by tool name; names and schemas live in toolDefinitions.ts. */
export const TOOL_HANDLERS: Record<ToolName, ToolHandler> = {
  agentContext_run: runTool,
  agentContext_offload: offloadTool,
  agentContext_read: readTool,
  agentContext_grep: grepTool,
  agentContext_search: searchTool,
  agentContext_glob: globTool,
  agentContext_terminal: terminalTool,
  agentContext_plan: planTool,
  agentContext_skill: skillTool,
  agentContext_memory: memoryTool,
  agentContext_agentWorkspace: agentWorkspaceTool,
  agentContext_briefing: briefingTool,
  agentContext_cleanup: cleanupTool,
};

/**
 * Models send numbers as strings and strings as numbers (`stepId: 1`, since plan.yaml writes
 * `id: 1`): accept the obvious ones. Where a string is accepted, a finite number becomes its
 * decimal text, so the implementations always receive strings there.
 */
function coerce(def: ToolDefinition, input: unknown): unknown {
  if (!input || typeof input !== 'object' || Array.isArray(input)) return input;
  const o = { ...(input as Record<string, unknown>) };
  for (const [k, spec] of Object.entries(def.inputSchema.properties)) {
    const v = o[k];
    const takesString = spec.type === 'string' || Array.isArray(spec.type);
    if (typeof v === 'number' && Number.isFinite(v) && takesString) {
      o[k] = String(v);
      continue;
    }
    if (typeof v !== 'string') continue;
    if (spec.type === 'integer' && /^\s*-?\d+\s*$/.test(v)) o[k] = Number(v);
    if (spec.type === 'number' && /^\s*-?\d+(\.\d+)?\s*$/.test(v)) o[k] = Number(v);
    if (spec.type === 'boolean' && /^(true|false)$/i.test(v.trim())) o[k] = v.trim().toLowerCase() === 'true';
  }
  return o;
}

/**
 * Runs a tool for either transport: validates the input, calls the implementation, turns any
 * exception into an error text, caps the text at INLINE_MAX_BYTES and appends a ledger line.
 * Never throws.
 */
export async function invokeTool(name: string, rawInput: unknown, ctx: ToolContext): Promise<ToolOutcome> {
  // Work a call leaves for later (callsAnswering.ts) waits for its answer.
  const answered = callAnswering();
  try {
    return await answerCall(name, rawInput, ctx);
  } finally {
    answered();
  }
}

async function answerCall(name: string, rawInput: unknown, ctx: ToolContext): Promise<ToolOutcome> {
  const def = toolDefinition(name);
  let outcome: ToolOutcome;
  const input = def ? coerce(def, rawInput ?? {}) : rawInput;
  const rules = secretRulesOf(ctx);
  let maskedWritten = 0;
  if (!def) outcome = toolError(`unknown tool "${name}"`);
  else {
    const bad = validateInput(def, input);
    if (bad) outcome = toolError(bad);
    else if (ctx.signal.aborted) outcome = toolError('cancelled before it started');
    else {
      try {
        // What the tool will write (a plan step, a memory value, a finding) holds no secret (maskToolText.ts).
        const written = maskWrittenInput(def.name, input, rules);
        maskedWritten = written.count;
        outcome = await TOOL_HANDLERS[def.name](written.input as Record<string, unknown>, ctx);
      } catch (e) {
        // A file system error names its file and cause the way users read them ("disk full (ENOSPC) writing …");
        // it is the machine's state, not a bug, so the log gets that sentence, not a stack.
        const file = (e as NodeJS.ErrnoException).path;
        if (errnoOf(e) && file) {
          outcome = toolError(`${name} failed: ${describeFsError(e, shownPath(ctx, file))}`);
          ctx.log.warn(outcome.text.replace(/^Error: /, ''));
        } else {
          ctx.log.error(`${name} failed: ${(e as Error).stack ?? e}`);
          outcome = toolError(`${name} failed unexpectedly: ${(e as Error).message}`);
        }
      }
    }
  }
  // The answer as the model gets it and the ledger keeps it: no secret from a file read, grepped or listed.
  const answer = maskSecrets(outcome.text, rules);
  if (answer.count) outcome = { ...outcome, text: answer.text };
  // What a tool just saved is looked at first by the next search of this process (the worker's watch sees it too, where there is one).
  const saved = outcome.outputPath && defaultFolder(ctx.folders);
  if (saved) noteSearchChange(agentDirOf(saved.path), path.resolve(saved.path, outcome.outputPath!));
  const body = outcome.text;
  const notes: string[] = [];
  const note = maskedNote(maskedWritten, answer.count);
  if (note) notes.push(note);
  outcome = { ...outcome, text: withinCeiling(body, notes) };
  const unrecorded = await recordInLedger(name, input, rules, outcome, ctx);
  // The call worked but left no trace in the ledger (a full disk): the agent and user hear of it.
  if (unrecorded) outcome = { ...outcome, text: withinCeiling(body, [...notes, `Note: this call was not recorded in the ledger: ${unrecorded}.`]) };
  return outcome;
}

/** What a cut answer ends with. */
const CUT_NOTE = '[result cut to stay under 6 KB]';

/**
 * `text` with `notes` after it, never over INLINE_MAX_BYTES: the answer is cut (and says so) to
 * leave the notes their room. Tools fit their own answers in TOOL_ANSWER_MAX_BYTES, which leaves
 * the usual notes room without a cut.
 */
export function withinCeiling(text: string, notes: readonly string[]): string {
  const tail = notes.map((n) => `\n${n}`).join('');
  const room = INLINE_MAX_BYTES - Buffer.byteLength(tail, 'utf8');
  const body = Buffer.byteLength(text, 'utf8') <= room ? text : `${cutToBytes(text, room - Buffer.byteLength(`\n${CUT_NOTE}`))}\n${CUT_NOTE}`;
  return body + tail;
}

/** An absolute path as tools print it (workspace-relative inside the default folder). */
function shownPath(ctx: ToolContext, abs: string): string {
  const folder = defaultFolder(ctx.folders);
  return folder ? displayPath(ctx.folders, folder, abs) : abs;
}

/** Appends the call's ledger line; the reason when it could not (undefined when it was recorded or there is no .agent/). */
async function recordInLedger(name: string, input: unknown, rules: ReturnType<typeof secretRulesOf>, outcome: ToolOutcome, ctx: ToolContext): Promise<string | undefined> {
  const folder = defaultFolder(ctx.folders);
  if (!folder) return undefined;
  const agentDir = agentDirOf(folder.path);
  // Only where .agent/ exists: a tool call must not create the folder by itself.
  if (!fs.existsSync(agentDir)) return undefined;
  const time = (ctx.now?.() ?? new Date()).toISOString();
  try {
    const returnedTokens = (await countTokensAsync(outcome.text)).tokens;
    await appendLedger(agentDir, {
      time,
      tool: name,
      source: ctx.source,
      // The ledger is on disk: the input (a command line, offloaded text) is masked like any output.
      input: maskCommand(summarizeInput(input), rules),
      ...(outcome.outputPath ? { output: outcome.outputPath } : {}),
      rawTokens: outcome.rawTokens ?? returnedTokens,
      returnedTokens,
      ok: !outcome.isError,
      text: outcome.text,
    });
    return undefined;
  } catch (e) {
    const why = describeFsError(e, shownPath(ctx, ledgerPath(agentDir, time)));
    ctx.log.warn(`the ledger: ${why}`);
    return why;
  }
}
