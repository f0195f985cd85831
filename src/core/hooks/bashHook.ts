/*
 * Offloading for Claude Code's own Bash tool, as Claude Code hooks (dist/claude-hook.js).
 *
 * Checked against Claude Code 2.1.197: a Bash command that exits non-zero never reaches a
 * PostToolUse hook (PostToolUseFailure runs instead; it cannot replace the output and sees only
 * 10 KB of a head already cut to 30,000 characters), so a PostToolUse hook alone never sees the
 * error lines of a failing build. Hence two hooks:
 *   - PreToolUse wraps the command so its output streams through `claude-hook.js capture` (secrets
 *     masked, saved under .agent/scratch/tool_outputs/) and `claude-hook.js report` prints what the
 *     model reads: the output itself when small, else the same reference agentContext_run returns.
 *     The exit code is kept, so Claude Code still flags a failure.
 *   - PostToolUse covers Bash results the wrap did not (background commands): when the output is
 *     large it offloads it (from Claude Code's own `persistedOutputPath` copy when there is one) and
 *     replaces it via `hookSpecificOutput.updatedToolOutput` in Bash's output shape.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { DEFAULT_TOOL_CONFIG, loadAgentConfig, secretSettingsFrom, toolConfigFromFile, type ToolConfig } from '../config';
import { mkdirpSync } from '../fs/fsAtomic';
import { appendLedger } from '../history/ledger';
import { formatReference, scanFile, shellQuote, type OutputScan } from '../output/reference';
import { StreamingMasker, type UserPatterns } from '../secrets';
import { userRulesFor } from '../secrets/gitleaks';
import { countTokens } from '../output/tokens';
import { maskCommand } from '../tools/run';
import { newScratchFile, ScratchWriter, type ScratchTarget } from '../tools/scratchOutput';
import { fitsInline, surelyFitsBytes } from '../output/inline';
import { toPosixRelative } from '../workspace/relativePaths';
import { agentDirOf } from '../workspace/agentLayout';

/** What Claude Code sends a hook on stdin (the fields we use). */
export interface HookInput {
  hook_event_name?: string;
  tool_name?: string;
  tool_input?: Record<string, unknown>;
  tool_response?: unknown;
  cwd?: string;
}

/** Bash's tool output shape in Claude Code (updatedToolOutput must match it or is ignored). */
interface BashOutput {
  stdout: string;
  stderr: string;
  interrupted: boolean;
  isImage?: boolean;
  noOutputExpected?: boolean;
  persistedOutputPath?: string;
  persistedOutputSize?: number;
}

/** Marks a command that is already wrapped, so a second hook (or a retry) leaves it alone. */
const WRAP_MARK = '__agent_context_exit';
/**
 * After the command ended, report waits for capture to finish. A background child may hold the
 * output open: report stops waiting once the file has not grown for QUIET_MS, or after MAX_WAIT_MS.
 */
const QUIET_MS = 2000;
const MAX_WAIT_MS = 30_000;

/** Settings of the workspace's `.agent/config.yaml` that the hook honours. */
export interface HookSettings {
  config: ToolConfig;
  /** The user's masking rules (config patterns, `.gitleaks.toml`); the built-in ones always apply. */
  rules: UserPatterns | undefined;
}

/** Reads `.agent/config.yaml` of the project; defaults when missing or unreadable (a hook must not fail the tool). */
export async function hookSettings(root: string): Promise<HookSettings> {
  const f = await loadAgentConfig(agentDirOf(root));
  const values = f.ok ? f.value.values : new Map<string, unknown>();
  const { rules } = userRulesFor({ roots: [root], ...secretSettingsFrom((k) => values.get(k)) });
  return { config: f.ok ? toolConfigFromFile(f.value) : DEFAULT_TOOL_CONFIG, rules };
}

function targetFor(root: string, command: string): ScratchTarget {
  return newScratchFile([{ name: path.basename(root), path: root }], 'scratch/tool_outputs', command.split(/\s+/).slice(0, 4).join(' '), '.txt');
}

const doneMarker = (file: string): string => path.join(path.dirname(file), `.${path.basename(file)}.done`);

/** How the hook program is started inside the wrapped command: this Node and this script. */
export interface HookProgram {
  node: string;
  script: string;
}

/**
 * The wrapped command. `{ …; }` with a redirection runs in the current shell (a `cd` still
 * sticks, as Claude Code keeps the working folder between calls); the process substitution
 * streams stdout and stderr, in arrival order, to capture; report prints what the model sees on
 * the original stdout (fds 7 and 8); `(exit N)` keeps the status. A command that calls `exit`
 * ends the shell inside the braces: the EXIT trap still reports. Works in bash and zsh.
 */
export function wrapCommand(command: string, root: string, program: HookProgram, now = Date.now()): { command: string; target: ScratchTarget } {
  const target = targetFor(root, command);
  const run = `${shellQuote(program.node)} ${shellQuote(program.script)}`;
  const b64 = Buffer.from(command, 'utf8').toString('base64');
  const x = WRAP_MARK;
  const wrapped =
    `exec 7>&1 8>&2; ${x}_report() { ${run} report ${shellQuote(root)} ${shellQuote(target.abs)} "$1" ${now} ${b64} 1>&7 2>&8; }; ` +
    `trap '${x}=$?; trap - EXIT; exec 1>&7 2>&8; ${x}_report $${x}' EXIT; ` +
    `{ ${command}\n} > >(exec ${run} capture ${shellQuote(root)} ${shellQuote(target.abs)}) 2>&1; ` +
    `${x}=$?; trap - EXIT; ${x}_report $${x}; exec 7>&- 8>&-; (exit $${x})`;
  return { command: wrapped, target };
}

/** PreToolUse: the hook's stdout for a Bash call (undefined: leave the call as it is). */
export function preToolUse(input: HookInput, root: string, program: HookProgram): object | undefined {
  if (input.tool_name !== 'Bash' || !input.tool_input) return undefined;
  const command = input.tool_input.command;
  if (typeof command !== 'string' || !command.trim() || command.includes(WRAP_MARK)) return undefined;
  // A background command's output is read later through BashOutput; PostToolUse covers what comes back.
  if (input.tool_input.run_in_background === true) return undefined;
  const { command: wrapped } = wrapCommand(command, root, program);
  return { hookSpecificOutput: { hookEventName: 'PreToolUse', updatedInput: { ...input.tool_input, command: wrapped } } };
}

/**
 * `claude-hook.js capture <root> <file>`: stdin → masked file; a marker file says it is complete.
 * No scan here: counting tokens loads the tokenizer (seconds on a loaded machine), and report
 * needs none for a small output.
 */
export async function capture(root: string, file: string, stdin: NodeJS.ReadableStream): Promise<void> {
  const { rules } = await hookSettings(root);
  const masker = new StreamingMasker(rules);
  const decoder = new StringDecoder('utf8');
  mkdirpSync(path.dirname(file));
  const out = fs.createWriteStream(file, { flags: 'wx' });
  const write = async (text: string): Promise<void> => {
    if (text && !out.write(text)) await new Promise<void>((r) => out.once('drain', () => r()));
  };
  for await (const chunk of stdin) await write(masker.push(decoder.write(chunk as Buffer)));
  await write(masker.push(decoder.end()) + masker.flush());
  await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
  fs.writeFileSync(doneMarker(file), String(masker.count));
}

async function waitForCapture(file: string): Promise<{ complete: boolean; masked: number }> {
  const marker = doneMarker(file);
  const started = Date.now();
  let size = -1;
  let grewAt = started;
  for (;;) {
    try {
      const masked = Number(fs.readFileSync(marker, 'utf8')) || 0;
      fs.rmSync(marker, { force: true });
      return { complete: true, masked };
    } catch {
      const now = Date.now();
      const s = fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0;
      if (s !== size) {
        size = s;
        grewAt = now;
      }
      if (now - grewAt > QUIET_MS || now - started > MAX_WAIT_MS) return { complete: false, masked: 0 };
      await new Promise((r) => setTimeout(r, 15));
    }
  }
}

const smallBytes = (config: ToolConfig): number => surelyFitsBytes(config.offloadThresholdTokens);
const small = (scan: OutputScan, config: ToolConfig): boolean => fitsInline(scan, config.offloadThresholdTokens);

/**
 * `claude-hook.js report <root> <file> <exit> <startedMs> <command base64>`: the text Claude Code's
 * Bash hands the model. Small output: the output itself (masked), and no file is kept. Large: the
 * reference (exit code, error lines with their numbers, path), plus a ledger line.
 */
export async function report(root: string, file: string, exitCode: number, startedMs: number, commandB64: string, now = Date.now()): Promise<string> {
  const { config, rules } = await hookSettings(root);
  const { complete, masked } = await waitForCapture(file);
  const command = maskCommand(Buffer.from(commandB64, 'base64').toString('utf8'), rules);
  const size = fs.statSync(file, { throwIfNoEntry: false })?.size;
  if (size === undefined) return `(Agent Context found no saved output at ${file}; the command's output is lost)`;
  // Small enough to be under the threshold whatever the tokens (a token is at least one byte): no scan, no tokenizer.
  let scan: OutputScan | undefined;
  if (!complete || size > smallBytes(config)) {
    try {
      scan = await scanFile(file);
    } catch (e) {
      return `(Agent Context could not read the saved output ${file}: ${(e as Error).message})`;
    }
  }
  const rel = toPosixRelative(root, file);
  if (complete && (size <= smallBytes(config) || small(scan!, config))) {
    const text = await fs.promises.readFile(file, 'utf8');
    await fs.promises.rm(file, { force: true });
    return text.replace(/\n$/, '');
  }
  scan ??= await scanFile(file);
  const reference = formatReference(scan, {
    title: 'Output saved',
    path: rel,
    command,
    exitCode,
    durationMs: Math.max(0, now - startedMs),
    masked,
    note: complete ? undefined : 'A background process still writes to this file.',
    maxBytes: config.referenceMaxBytes,
  });
  await ledger(root, 'Bash', command, rel, scan.tokens.tokens, reference);
  return reference;
}

async function ledger(root: string, tool: string, command: string, output: string, rawTokens: number, text: string): Promise<void> {
  try {
    await appendLedger(agentDirOf(root), {
      time: new Date().toISOString(),
      tool,
      source: 'claude-code',
      input: JSON.stringify({ command }).slice(0, 300),
      output,
      rawTokens,
      returnedTokens: countTokens(text).tokens,
      ok: true,
      text,
    });
  } catch {
    // The ledger is a record, not the result: a failure here must not cost the agent its output.
  }
}

function bashOutput(v: unknown): BashOutput | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const o = v as Record<string, unknown>;
  if (typeof o.stdout !== 'string') return undefined;
  return o as unknown as BashOutput;
}

/** PostToolUse: for a large Bash result the wrap did not cover, the hook's stdout (undefined: pass through). */
export async function postToolUse(input: HookInput, root: string): Promise<object | undefined> {
  if (input.tool_name !== 'Bash') return undefined;
  const out = bashOutput(input.tool_response);
  if (!out) return undefined;
  const command = typeof input.tool_input?.command === 'string' ? input.tool_input.command : '';
  if (command.includes(WRAP_MARK)) return undefined; // report already printed what the model should see
  const { config, rules } = await hookSettings(root);
  const persisted = typeof out.persistedOutputPath === 'string' && fs.existsSync(out.persistedOutputPath) ? out.persistedOutputPath : undefined;
  const inline = out.stdout + (out.stderr ? `\n${out.stderr}` : '');
  if (!persisted && fitsInline({ tokens: countTokens(inline), bytes: Buffer.byteLength(inline) }, config.offloadThresholdTokens)) return undefined;
  const shown = maskCommand(command, rules);
  const target = targetFor(root, shown || 'bash');
  const writer = new ScratchWriter(target, rules);
  if (persisted) {
    for await (const chunk of fs.createReadStream(persisted)) if (!writer.writeBytes(chunk as Buffer)) await writer.drain();
  } else writer.writeText(inline);
  const { scan, masked } = await writer.finish();
  if (small(scan, config)) {
    await fs.promises.rm(target.abs, { force: true });
    return undefined;
  }
  const reference = formatReference(scan, { title: 'Output saved', path: target.rel, command: shown, masked, maxBytes: config.referenceMaxBytes });
  await ledger(root, 'Bash', shown, target.rel, scan.tokens.tokens, reference);
  const replaced: BashOutput = { stdout: reference, stderr: '', interrupted: out.interrupted === true, isImage: false, noOutputExpected: false };
  return { hookSpecificOutput: { hookEventName: 'PostToolUse', updatedToolOutput: replaced } };
}
