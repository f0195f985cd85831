/*
 * The hook core every agent shares: what the model reads of one of the agent's own shell commands.
 * The shell side (dist/agent-context-shell.sh, sourced by the agent's shell before the command;
 * dist/agent-hook.sh for hook protocols) hands a small output without a secret candidate over
 * itself; everything else comes here:
 *   - a small output: masked, handed over whole (no file);
 *   - a large one: masked into .agent/scratch/tool_outputs/, and the model reads the same
 *     reference agentContext_run gives (exit code, every error line with its number, the path),
 *     plus a ledger line.
 * The input is the unmasked output as a stream; it is masked before anything is written.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { DEFAULT_TOOL_CONFIG, loadAgentConfig, secretSettingsFrom, toolConfigFromFile, type ToolConfig } from '../config';
import { writeFileAtomic } from '../fs/fsAtomic';
import { appendLedger } from '../history/ledger';
import { fitsInline, HOOK_MEMORY_BYTES, surelyFitsBytes } from '../output/inline';
import { formatReference, type OutputScan } from '../output/reference';
import { countTokens } from '../output/tokens';
import { maskSecrets, type UserPatterns } from '../secrets';
import { userRulesFor } from '../secrets/gitleaks';
import { maskCommand } from '../tools/run';
import { newScratchFile, ScratchWriter } from '../tools/scratchOutput';
import { agentDirOf } from '../workspace/agentLayout';
import { fastPathFile, ROOT_CLEARED } from './fastPathRules';
import { recordAgentCommand, type AgentCommandFacts } from '../terminal/agentCommands/recordCommand';

/** Settings of the workspace's `.agent/config.yaml` that the hooks honour. */
export interface HookSettings {
  config: ToolConfig;
  /** The user's masking rules (config patterns, a gitleaks config); the built-in ones always apply. */
  rules: UserPatterns | undefined;
}

/** Reads `.agent/config.yaml` of the project; defaults when missing or unreadable (a hook must not fail the tool). */
export async function hookSettings(root: string): Promise<HookSettings> {
  const f = await loadAgentConfig(agentDirOf(root));
  const values = f.ok ? f.value.values : new Map<string, unknown>();
  const { rules } = userRulesFor({ roots: [root], ...secretSettingsFrom((k) => values.get(k)) });
  return { config: f.ok ? toolConfigFromFile(f.value) : DEFAULT_TOOL_CONFIG, rules };
}

/**
 * Values a folder below the workspace could start with. Were one masked right after the workspace's
 * path (a folder named `Authorization: Bearer`, say), the path's end would name a secret, and what
 * is below it must be checked with it.
 */
const BELOW_PROBES = ['/A1b2C3d4E5f6G7h8J9k0L1m2N3p4Q5r6S7t8', '/0123456789abcdef0123456789abcdef01234567', '/x'];

/**
 * True when the built-in masker leaves the workspace's path as it is, alone and with a value right
 * after it: the shell's keyword check may then skip it and look only at what is below (the user's
 * own rules need no case: with any, every output goes through Node).
 */
export function rootCleared(root: string): boolean {
  return !root.includes('\n') && [root, ...BELOW_PROBES.map((p) => root + p)].every((t) => maskSecrets(t).text === t);
}

/**
 * The fast path's settings as the shell reads them (src/hooks/fastPath.sh __ac_settings):
 *   line 1 `<bytes> <1|0>`: outputs up to that many bytes may be handed over by the shell, and 0
 *     when the user has masking rules of their own (the shell's prefilter only knows the built-in
 *     ones, so every output then goes through Node);
 *   line 2 `<1|0> <root>`: 1 when the masker cleared the workspace's path (rootCleared), for that
 *     path only.
 */
export function fastPathLine(s: HookSettings, root: string): string {
  return `${surelyFitsBytes(s.config.offloadThresholdTokens)} ${s.rules && s.rules.rules.length > 0 ? 0 : 1}\n${rootCleared(root) ? ROOT_CLEARED : '0'} ${root}\n`;
}

/** Writes the fast path's settings when they changed (errors ignored: the shell then keeps asking Node). */
export async function saveFastPath(root: string, s: HookSettings): Promise<void> {
  const file = fastPathFile(root);
  const line = fastPathLine(s, root);
  try {
    if ((await fs.promises.readFile(file, 'utf8').catch(() => '')) === line) {
      // Same answer: touch it, so it is newer than config.yaml again.
      const now = new Date();
      await fs.promises.utimes(file, now, now);
      return;
    }
    await fs.promises.mkdir(path.dirname(file), { recursive: true });
    await writeFileAtomic(file, line);
  } catch {
    // a cache, not a result
  }
}

/**
 * One shell command's output, as the hook got it: what the agent-command history records of a
 * command (AgentCommandFacts: agent, session, pid, shell, cwd, times, the command as given, masked
 * here before it is shown or recorded), and the output itself.
 */
export interface ShellOutputInput extends Omit<AgentCommandFacts, 'exitCode'> {
  /** The workspace folder (where .agent/ is). */
  root: string;
  /** The command's exit code (undefined when the agent does not say: Copilot CLI drops it for a large output), or a function giving it once the output has ended (the masking pipe reads it from the stream's end). */
  exitCode?: number | (() => number | undefined);
  durationMs?: number;
  /** The unmasked output. */
  output: AsyncIterable<Buffer | string>;
  /** The ledger's tool name. */
  tool?: string;
  /**
   * Recorded only: the agent hands its model its own result whatever the hook says (Qwen Code, Cline),
   * so a large output is still saved and referenced in the history, but no ledger line claims a saving.
   */
  recordOnly?: boolean;
}

/** What the model should read instead of the output, and whether it differs from the output. */
export interface ShellOutputResult {
  text: string;
  /** A reference to a saved file (false: the output itself, masked). */
  offloaded: boolean;
  /** Secrets masked. */
  masked: number;
}

/** The command's exit code, once its output has been read (the masking pipe gives it at the stream's end). */
function exitCodeOf(o: ShellOutputInput): number | undefined {
  return typeof o.exitCode === 'function' ? o.exitCode() : o.exitCode;
}

/**
 * Masks the output and decides what the model reads: the output itself when it fits inline
 * (fitsInline, the rule agentContext_run uses), else a reference to the masked copy under
 * .agent/scratch/tool_outputs/. Small outputs are held in memory only; nothing unmasked is written.
 * The command and what the model read go into the agent-command history (recordAgentCommand).
 */
export async function shellOutput(o: ShellOutputInput, settings?: HookSettings): Promise<ShellOutputResult> {
  const r = await decide(o, settings);
  const endedMs = o.endedMs ?? Date.now();
  const durationMs = o.durationMs;
  const failed = await recordAgentCommand(o.root, {
    agent: o.agent,
    session: o.session,
    agentPid: o.agentPid,
    shell: o.shell,
    cwd: o.cwd,
    startedMs: o.startedMs ?? (durationMs !== undefined ? endedMs - durationMs : undefined),
    endedMs,
    command: o.command,
    exitCode: exitCodeOf(o),
  }, { text: r.text, masked: r.masked, savedAbs: r.savedAbs });
  // Not on stderr: the agent's shell tool would hand it to the model with the command's output. A
  // record the fold cannot take is named by the next reader's fold (the editor's log, a tool's answer).
  void failed;
  return { text: r.text, offloaded: r.offloaded, masked: r.masked };
}

async function decide(o: ShellOutputInput, settings?: HookSettings): Promise<ShellOutputResult & { savedAbs?: string }> {
  const s = settings ?? (await hookSettings(o.root));
  const { config, rules } = s;
  const small = surelyFitsBytes(config.offloadThresholdTokens);
  const chunks: Buffer[] = [];
  let bytes = 0;
  let writer: ScratchWriter | undefined;
  const command = maskCommand(o.command, rules);
  const open = (): ScratchWriter => new ScratchWriter(newScratchFile([{ name: path.basename(o.root), path: o.root }], 'scratch/tool_outputs', command.split(/\s+/).slice(0, 4).join(' ') || 'shell', '.txt'), rules, { render: true });
  for await (const c of o.output) {
    const buf = typeof c === 'string' ? Buffer.from(c, 'utf8') : c;
    if (writer) {
      if (!writer.writeBytes(buf)) await writer.drain();
      continue;
    }
    chunks.push(buf);
    bytes += buf.length;
    // Past what surely fits, and past what a hook holds in memory: to the file (read back when it still fits).
    if (bytes > Math.max(small, HOOK_MEMORY_BYTES)) {
      writer = open();
      for (const b of chunks.splice(0)) if (!writer.writeBytes(b)) await writer.drain();
    }
  }
  if (!writer) {
    const decoder = new StringDecoder('utf8');
    const text = decoder.write(Buffer.concat(chunks)) + decoder.end();
    const m = maskSecrets(text, rules);
    if (bytes <= small || fitsInline({ tokens: countTokens(m.text), bytes: Buffer.byteLength(m.text) }, config.offloadThresholdTokens)) {
      return { text: m.text, offloaded: false, masked: m.count };
    }
    writer = open();
    writer.writeText(text);
  }
  let done: { scan: OutputScan; masked: number };
  try {
    done = await writer.finish();
  } catch (e) {
    // Disk full, a read-only or broken .agent/: the output was masked on its way, so the model
    // still gets its exit code, error lines and end, with why it was not kept.
    const { scan, masked } = await writer.scanOfUnsaved();
    const text = formatReference(scan, { path: '', command, exitCode: exitCodeOf(o), durationMs: o.durationMs, masked, unsaved: (e as Error).message, maxBytes: config.referenceMaxBytes });
    return { text, offloaded: true, masked };
  }
  const { scan, masked } = done;
  if (fitsInline(scan, config.offloadThresholdTokens)) {
    const text = await fs.promises.readFile(writer.target.abs, 'utf8');
    await fs.promises.rm(writer.target.abs, { force: true });
    return { text, offloaded: false, masked };
  }
  const exitCode = exitCodeOf(o);
  const reference = formatReference(scan, {
    title: 'Output saved',
    path: writer.target.rel,
    command,
    exitCode,
    durationMs: o.durationMs,
    masked,
    note: exitCode === undefined ? 'Exit code: not reported by the agent for a large output.' : undefined,
    maxBytes: config.referenceMaxBytes,
  });
  if (o.recordOnly) return { text: reference, offloaded: true, masked, savedAbs: writer.target.abs };
  try {
    await appendLedger(agentDirOf(o.root), {
      time: new Date().toISOString(),
      tool: o.tool ?? 'shell',
      source: o.agent,
      input: JSON.stringify({ command }).slice(0, 300),
      output: writer.target.rel,
      rawTokens: scan.tokens.tokens,
      returnedTokens: countTokens(reference).tokens,
      ok: true,
      text: reference,
    });
  } catch {
    // The ledger is a record, not the result: a failure here must not cost the agent its output.
  }
  return { text: reference, offloaded: true, masked, savedAbs: writer.target.abs };
}

/**
 * The shell capture's file (cap.<pid of its shell> in a 0700 folder in RAM), once Node has it open
 * as stdin: removed, and with it the captures of shells that are gone (killed before they could
 * empty theirs). Errors are ignored: the shell empties its own file in any case.
 */
export function releaseCapture(file: string | undefined): void {
  if (!file || !/^cap\.\d+$/.test(path.basename(file))) return;
  const dir = path.dirname(file);
  try {
    fs.rmSync(file, { force: true });
    for (const name of fs.readdirSync(dir)) {
      const pid = /^cap\.(\d+)$/.exec(name)?.[1];
      if (pid && !alive(Number(pid))) fs.rmSync(path.join(dir, name), { force: true });
    }
  } catch {
    // a cleanup, not a result
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
