import type { ToolConfig } from '../config';
import { userRulesFor } from '../secrets/gitleaks';
import type { UserPatterns } from '../secrets';
import type { Logger } from '../log';
import type { RetentionPolicy } from '../scratch/retention';
import type { WorkspaceFolderRef } from '../workspace/workspacePaths';

/** Live view of a running command (the extension shows it in a Pseudoterminal; MCP ignores it). */
export interface RunObserver {
  start(info: { command: string; cwd: string; outputPath: string }): void;
  /** Output as it arrives (masked, escapes kept: the viewer is a terminal); false: no more wanted. */
  data(text: string): boolean | void;
  end(info: { exitCode: number | null; signal: string | null; timedOut: boolean; cancelled: boolean; durationMs: number }): void;
}

/** Everything a tool needs from its host; the same shape for the extension and the MCP server. */
export interface ToolContext {
  folders: readonly WorkspaceFolderRef[];
  config: ToolConfig;
  signal: AbortSignal;
  log: Logger;
  /** Who called: recorded in the ledger. */
  source: 'vscode' | 'mcp';
  /** Workspace trust; an untrusted workspace never runs commands. */
  trusted: boolean;
  /**
   * Whether run may execute a command that is not on the allow-list. The extension passes true
   * (it has asked the user in prepareInvocation); the MCP server passes its --allow-run flag.
   */
  allowRun: boolean;
  /** Path of a ripgrep binary, if one was found; the built-in engine is used otherwise. */
  ripgrep?: string;
  /** How long one ripgrep search may run before it is stopped and the built-in engine searches instead (default 20 s). */
  ripgrepTimeoutMs?: number;
  /** `files.exclude` globs (VS Code); honoured when searching a workspace path. */
  filesExclude?: readonly string[];
  /** User secret patterns (regex sources) for masking offloaded output. */
  secretPatterns?: readonly string[];
  /** A gitleaks config to apply too (agentContext.secrets.gitleaksConfig); else `<root>/.gitleaks.toml` when present. */
  gitleaksConfig?: string;
  run?: RunObserver;
  /** Scratch retention (agentContext.scratch.* / config.yaml scratch.*); defaults apply when absent. */
  retention?: RetentionPolicy;
  /** Clock, for tests. */
  now?: () => Date;
}

/** What a tool returns: the text for the model plus what the ledger records. */
export interface ToolOutcome {
  text: string;
  /** The tool could not do what was asked (bad input, not allowed, could not start). */
  isError?: boolean;
  /**
   * The tool worked but what it ran failed (a command that exited non-zero, timed out or was
   * killed). A result, not a tool error: MCP reports it with `isError: false` (the text leads with
   * the exit code) for every client, since Gemini CLI and Qwen Code turn an isError result into
   * escaped JSON; the ledger counts the call as ok.
   */
  commandFailed?: boolean;
  /** Workspace-relative path of offloaded output. */
  outputPath?: string;
  /** Tokens the raw content would have cost (defaults to the returned text's). */
  rawTokens?: number;
}

/** One tool's implementation. */
export type ToolHandler = (input: Record<string, unknown>, ctx: ToolContext) => Promise<ToolOutcome>;

/** A failed call, as text the model can act on. */
export function toolError(message: string): ToolOutcome {
  return { text: `Error: ${message}`, isError: true };
}

const reported = new Set<string>();

/**
 * The user's masking rules for a tool call (settings patterns and the gitleaks config), the same
 * for every tool that writes to disk. Problems with them are logged once each, not per call.
 */
export function secretRulesOf(ctx: Pick<ToolContext, 'folders' | 'secretPatterns' | 'gitleaksConfig' | 'log'>): UserPatterns | undefined {
  const { rules, errors } = userRulesFor({ roots: ctx.folders.map((f) => f.path), secretPatterns: ctx.secretPatterns, gitleaksConfig: ctx.gitleaksConfig });
  for (const e of errors) {
    if (reported.has(e)) continue;
    if (reported.size > 1000) reported.clear();
    reported.add(e);
    ctx.log.warn(`secret masking: ${e}`);
  }
  return rules;
}

export { INLINE_MAX_BYTES, TOOL_ANSWER_MAX_BYTES } from '../output/inline';
