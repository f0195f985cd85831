/*
 * The single source of tool names, descriptions and input schemas, for package.json
 * (`contributes.languageModelTools`, checked by a unit test), the VS Code registration and the MCP
 * server. Descriptions are static context paid on every turn: all definitions together stay under
 * 1,500 tokens (with room for two more tools), so every word here must earn its place.
 */

import type { ToolConfig } from '../config';
import { compoundOperator, runNeedsConfirmation } from './commandPolicy';
import { TOOL_NAMES, type ToolName } from './toolNames';
import { SEARCH_SCOPES } from '../search/ranked/sources';

/** The subset of JSON Schema the tools use (and validateInput checks). */
export interface JsonSchemaProp {
  /** Two types only for ids that are strings or numbers (a plan step's `id: 1`). */
  type: 'string' | 'integer' | 'number' | 'boolean' | ['string', 'integer'];
  description?: string;
  enum?: string[];
  minimum?: number;
  maximum?: number;
}

/** An object schema of a tool's input. */
export interface ToolInputSchema {
  type: 'object';
  properties: Record<string, JsonSchemaProp>;
  required?: string[];
}

/** One tool as every transport describes it. */
export interface ToolDefinition {
  name: ToolName;
  /** `#name` in chat. */
  toolReferenceName: string;
  displayName: string;
  /** What the model reads. */
  description: string;
  inputSchema: ToolInputSchema;
  /** Tools that change nothing never ask for confirmation. */
  readOnly: boolean;
  /**
   * Why this call must be confirmed by the user before it runs (undefined: it need not be), given
   * the input and the tool settings. Editors ask with this reason; the MCP server leaves asking to
   * its client and runs only what --allow-run or the allow-list permits.
   */
  confirmation?(input: Record<string, unknown>, config: ToolConfig): string | undefined;
  /**
   * Why this call must be asked about every time (undefined: the usual confirmation applies), even
   * when the editor lets the user allow the tool for a session, a workspace or always.
   */
  alwaysAsk?(input: Record<string, unknown>): string | undefined;
  /** How a call is shown to the user (undefined: by its display name): what it does, the code it runs, where, and the question when it asks. */
  describe?(input: Record<string, unknown>): { action: string; code?: string; where?: string; question: string };
  /** The call's output is echoed live to the user while it runs (agentContext_run's terminal). */
  streamsOutput?: boolean;
}

const s = (description?: string): JsonSchemaProp => (description ? { type: 'string', description } : { type: 'string' });
const int = (description: string | undefined, minimum: number, maximum?: number): JsonSchemaProp =>
  ({ type: 'integer', ...(description ? { description } : {}), minimum, ...(maximum !== undefined ? { maximum } : {}) });
/** An id a model may send as "2" or 2 (plan step ids, terminal command indexes). */
const idOrNumber = (description?: string): JsonSchemaProp => (description ? { type: ['string', 'integer'], description } : { type: ['string', 'integer'] });
const bool = (description?: string): JsonSchemaProp => (description ? { type: 'boolean', description } : { type: 'boolean' });

/** Every tool's definition, keyed by name: the compiler insists on one per ToolName. */
const DEFINITIONS: { [N in ToolName]: ToolDefinition & { name: N } } = {
  agentContext_run: {
    name: 'agentContext_run',
    toolReferenceName: 'run',
    displayName: 'Run Command (output to file)',
    description: 'Run a bash command. Full output goes to a file; returns exit code, error lines and the file path. Use instead of a terminal for noisy commands.',
    inputSchema: { type: 'object', properties: { command: s(), cwd: s('workspace-relative'), timeoutSec: int('default 120', 1, 1800) }, required: ['command'] },
    readOnly: false,
    confirmation: (input, config) => runNeedsConfirmation(String(input.command ?? ''), config.runAllowList, config.terminalAutoApprove),
    alwaysAsk: (input) => {
      const op = compoundOperator(String(input.command ?? ''));
      return op ? `it contains ${op}` : undefined;
    },
    describe: (input) => ({
      action: 'Running',
      code: String(input.command ?? ''),
      where: `in ${typeof input.cwd === 'string' && input.cwd ? input.cwd : 'the workspace root'}. Output goes to .agent/scratch/tool_outputs/.`,
      question: 'Run this command?',
    }),
    streamsOutput: true,
  },
  agentContext_offload: {
    name: 'agentContext_offload',
    toolReferenceName: 'offload',
    displayName: 'Offload to Scratch',
    description: 'Save text or JSON to .agent/scratch/ (or to: history, an append-only archive); returns its path and summary.',
    inputSchema: { type: 'object', properties: { content: s(), name: s('file name hint'), to: { type: 'string', enum: ['scratch', 'history'] } }, required: ['content'] },
    readOnly: false,
  },
  agentContext_read: {
    name: 'agentContext_read',
    toolReferenceName: 'readLines',
    displayName: 'Read File Lines',
    description: 'Read numbered lines of a workspace file.',
    inputSchema: { type: 'object', properties: { path: s(), offset: int('first line, 1-based', 1), limit: int('default 200', 1) }, required: ['path'] },
    readOnly: true,
  },
  agentContext_grep: {
    name: 'agentContext_grep',
    toolReferenceName: 'grepAgent',
    displayName: 'Grep .agent and Workspace',
    description: 'Exact text or JavaScript regex; every match as path:line: text. Searches .agent/ (plans, scratch, terminals) unless path is given. For a question in words, use agentContext_search.',
    inputSchema: {
      type: 'object',
      properties: {
        pattern: s(), literal: bool(), caseSensitive: bool(), path: s(), glob: s('e.g. **/*.ts'),
        context: int('lines around', 0, 10), maxResults: int(undefined, 1),
      },
      required: ['pattern'],
    },
    readOnly: true,
  },
  agentContext_search: {
    name: 'agentContext_search',
    toolReferenceName: 'searchAgent',
    displayName: 'Search Saved Output',
    description: 'Ranked search of all .agent/ saves (terminals, tool outputs, scratch, plans, memory, notes) for a question or keywords: the best line windows with numbers, error lines first. For an exact string or regex, use agentContext_grep.',
    inputSchema: {
      type: 'object',
      properties: { query: s(), scope: { type: 'string', enum: [...SEARCH_SCOPES] }, maxTokens: int('default 1500', 100) },
      required: ['query'],
    },
    readOnly: true,
  },
  agentContext_glob: {
    name: 'agentContext_glob',
    toolReferenceName: 'globFiles',
    displayName: 'Find Files',
    description: 'Find files by glob, newest first.',
    inputSchema: { type: 'object', properties: { pattern: s(), path: s(), maxResults: int(undefined, 1) }, required: ['pattern'] },
    readOnly: true,
  },
  agentContext_terminal: {
    name: 'agentContext_terminal',
    toolReferenceName: 'terminalOutput',
    displayName: 'Terminal Output',
    description: 'No args: list captured terminals and agents\' own shell commands (every agent, by session) with recent commands. command lastFailed or last: newest such command anywhere, or of terminal N; a command number needs terminal; agent (codex, claude-code… or terminals) narrows it. Gives exit code, error lines with numbers, line range in .agent/terminals/N.txt.',
    inputSchema: { type: 'object', properties: { terminal: int(undefined, 1), command: idOrNumber(), agent: s() } },
    readOnly: true,
  },
  agentContext_plan: {
    name: 'agentContext_plan',
    toolReferenceName: 'plan',
    displayName: 'Plan',
    description: 'Read the plan (.agent/plan.yaml; plan.md, plans/*.md checklists: stepId = item number) or edit it: setStatus, setNotes, addStep. logProgress (description=title, notes=done, next) appends to .agent/progress.md; setPasses (feature index, passes) marks .agent/features.json.',
    inputSchema: {
      type: 'object',
      properties: {
        action: { type: 'string', enum: ['get', 'setStatus', 'setNotes', 'addStep', 'logProgress', 'setPasses'] },
        stepId: idOrNumber(), status: { type: 'string', enum: ['pending', 'in_progress', 'completed', 'blocked', 'cancelled'] },
        notes: s(), description: s(), plan: s('plan file; get without it lists the others'),
        next: s(), feature: int(undefined, 0), passes: bool(),
      },
    },
    readOnly: false,
  },
  agentContext_skill: {
    name: 'agentContext_skill',
    toolReferenceName: 'skill',
    displayName: 'Skills',
    description: 'No name: list skills. With name: that SKILL.md.',
    inputSchema: { type: 'object', properties: { name: s() } },
    readOnly: true,
  },
  agentContext_memory: {
    name: 'agentContext_memory',
    toolReferenceName: 'memory',
    displayName: 'Memory',
    description: 'Persistent preferences across sessions: remember key+value, recall key, forget key, list.',
    inputSchema: {
      type: 'object',
      properties: { action: { type: 'string', enum: ['remember', 'recall', 'forget', 'list'] }, key: s(), value: s() },
      required: ['action'],
    },
    readOnly: false,
  },
  agentContext_agentWorkspace: {
    name: 'agentContext_agentWorkspace',
    toolReferenceName: 'agentWorkspace',
    displayName: 'Sub-agent Workspace',
    description: 'Sub-agent workspace .agent/agents/<agentId>/: writeFinding (content), setStatus (status, progress 0-1), list agents, read findings (own or peer).',
    inputSchema: {
      type: 'object',
      properties: {
        agentId: s(), action: { type: 'string', enum: ['writeFinding', 'setStatus', 'list', 'read'] }, content: s(),
        status: { type: 'string', enum: ['idle', 'working', 'blocked', 'done', 'failed'] }, progress: { type: 'number', minimum: 0, maximum: 1 }, peer: s(),
      },
      required: ['agentId', 'action'],
    },
    readOnly: false,
  },
  agentContext_briefing: {
    name: 'agentContext_briefing',
    toolReferenceName: 'briefing',
    displayName: 'Briefing',
    description: 'Compact orientation to start or resume work: plan, progress, features, failed terminals, skills, memory, with paths.',
    inputSchema: { type: 'object', properties: {} },
    readOnly: true,
  },
  agentContext_cleanup: {
    name: 'agentContext_cleanup',
    toolReferenceName: 'cleanupScratch',
    displayName: 'Clean Up Scratch',
    description: 'Show what the scratch retention policy would remove; apply=true removes it (to trash).',
    inputSchema: { type: 'object', properties: { apply: bool() } },
    readOnly: false,
  },
};

/** All tools, in the order they are listed. */
export const TOOL_DEFINITIONS: readonly ToolDefinition[] = TOOL_NAMES.map((n) => DEFINITIONS[n]);

/** The definition of a tool by name. */
export function toolDefinition(name: string): ToolDefinition | undefined {
  return Object.prototype.hasOwnProperty.call(DEFINITIONS, name) ? DEFINITIONS[name as ToolName] : undefined;
}

/** Checks an input against a tool's schema; returns a message naming the bad field, or undefined. */
export function validateInput(def: ToolDefinition, input: unknown): string | undefined {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return `${def.name}: the input must be an object`;
  const o = input as Record<string, unknown>;
  for (const r of def.inputSchema.required ?? []) {
    if (o[r] === undefined || o[r] === null || o[r] === '') return `${def.name}: "${r}" is required`;
  }
  for (const [k, spec] of Object.entries(def.inputSchema.properties)) {
    const v = o[k];
    if (v === undefined || v === null) continue;
    if (Array.isArray(spec.type)) {
      if (typeof v !== 'string' && !(typeof v === 'number' && Number.isInteger(v))) return `${def.name}: "${k}" must be a string or a whole number`;
      continue;
    }
    if (spec.type === 'string' && typeof v !== 'string') return `${def.name}: "${k}" must be a string`;
    if (spec.type === 'boolean' && typeof v !== 'boolean') return `${def.name}: "${k}" must be true or false`;
    if (spec.type === 'integer' || spec.type === 'number') {
      const whole = spec.type === 'integer';
      if (typeof v !== 'number' || !Number.isFinite(v) || (whole && !Number.isInteger(v))) return `${def.name}: "${k}" must be a ${whole ? 'whole number' : 'number'}`;
      if (spec.minimum !== undefined && v < spec.minimum) return `${def.name}: "${k}" must be at least ${spec.minimum}`;
      if (spec.maximum !== undefined && v > spec.maximum) return `${def.name}: "${k}" must be at most ${spec.maximum}`;
    }
    if (spec.enum && !spec.enum.includes(v as string)) return `${def.name}: "${k}" must be one of ${spec.enum.join(', ')}`;
  }
  return undefined;
}
