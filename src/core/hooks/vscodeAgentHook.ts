/*
 * VS Code's own agent (Copilot Chat) runs hooks from `.github/hooks/*.json`. Its `run_in_terminal`
 * hands the model only a pointer for a large output (a file of the last lines, "beginning of output
 * was lost"), so a failing build's error lines never reach the model. A PostToolUse hook cannot
 * replace that result, but VS Code appends the hook's `additionalContext` to it: this adapter answers
 * with our reference to the command's output, taken from the terminal mirror the extension already
 * keeps (masked, under .agent/terminals/). The command, its confirmation and the user's approval
 * rules are untouched: the hook runs after the command and only adds text.
 */
import * as path from 'node:path';
import { type TerminalCommand } from '../terminal/terminalFormat';
import { agentDirOf } from '../workspace/layout';
import { terminalCatalog, type CatalogTerminal } from '../terminal/catalog/terminalCatalog';
import { terminalSummary } from '../terminal/terminalSummary';
import { terminalTool } from '../tools/terminal';
import { DEFAULT_TOOL_CONFIG } from '../config';
import { nullLogger } from '../log';

/** What VS Code's agent sends a PostToolUse hook on stdin (the fields we read). */
export interface VscodeHookInput {
  hook_event_name?: string;
  hookEventName?: string;
  tool_name?: string;
  tool_input?: { command?: unknown };
  tool_response?: unknown;
  cwd?: string;
}

/** The agent's shell tool; the other ~40 tools are none of our business. */
export const VSCODE_TERMINAL_TOOL = 'run_in_terminal';

/**
 * Outputs up to this size reach the model whole (Copilot moves text parts over 8 KB to a file): the
 * hook adds nothing to them. The shell gate in the hook file applies the same bound to its input.
 */
export const VSCODE_INLINE_BYTES = 8 * 1024;

/** Terminals whose latest commands findCommand reads: the command has just ended, so its terminal is among those with the newest activity. */
const NEWEST_TERMINALS = 8;

/** When a terminal last did something, from the catalog (0: no command). */
function activityMs(t: CatalogTerminal): number {
  return Math.max(t.brief.last?.endMs ?? 0, t.brief.lastDone?.endMs ?? 0);
}

/**
 * The newest finished command in the mirror whose command line is `command` (VS Code adds a leading
 * space). Only the terminals with the newest activity are read (the catalog knows which without
 * reading any): a year of terminals costs the hook a stat per file, not a read of each.
 */
async function findCommand(agentDir: string, command: string): Promise<{ n: number; c: TerminalCommand } | undefined> {
  const list = await terminalCatalog(agentDir);
  if (!list.ok) return undefined;
  const newest = list.value.filter((t) => !t.info.error && t.brief.commands > 0).sort((a, b) => activityMs(b) - activityMs(a) || b.info.n - a.info.n).slice(0, NEWEST_TERMINALS);
  let best: { n: number; c: TerminalCommand } | undefined;
  for (const { info: t } of newest) {
    const s = await terminalSummary(agentDir, t.n);
    for (const c of s.recent) {
      if (c.status !== 'done' || c.commandLine.trim() !== command) continue;
      if (!best || Date.parse(c.started) >= Date.parse(best.c.started)) best = { n: t.n, c };
    }
  }
  return best;
}

/**
 * The PostToolUse answer for a large `run_in_terminal` result: our reference (≤ 2 KB, exit code,
 * error lines with their numbers, the file and line range) as additional context. Undefined for
 * other tools, small outputs, or a command the mirror does not hold (within `waitMs`: the mirror's
 * end record can trail the tool's result by a moment).
 */
export async function vscodeAgentPostToolUse(input: VscodeHookInput, root: string, opts: { waitMs?: number } = {}): Promise<object | undefined> {
  if (input.tool_name !== VSCODE_TERMINAL_TOOL) return undefined;
  const command = typeof input.tool_input?.command === 'string' ? input.tool_input.command.trim() : '';
  const response = typeof input.tool_response === 'string' ? input.tool_response : JSON.stringify(input.tool_response ?? '');
  if (!command || Buffer.byteLength(response, 'utf8') <= VSCODE_INLINE_BYTES) return undefined;
  const agentDir = agentDirOf(root);
  const deadline = Date.now() + (opts.waitMs ?? 3000);
  let found = await findCommand(agentDir, command);
  while (!found && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    found = await findCommand(agentDir, command);
  }
  if (!found) return undefined;
  const ctx = { folders: [{ name: path.basename(root), path: root }], config: DEFAULT_TOOL_CONFIG, signal: new AbortController().signal, log: nullLogger, source: 'vscode' as const, trusted: true, allowRun: false };
  const ref = await terminalTool({ terminal: found.n, command: String(found.c.command) }, ctx);
  if (ref.isError) return undefined;
  return {
    hookSpecificOutput: {
      hookEventName: 'PostToolUse',
      additionalContext: `Agent Context kept this command's full output (the result above lost its beginning):\n${ref.text}\nRead any range of it with agentContext_read, or search it with agentContext_grep.`,
    },
  };
}
