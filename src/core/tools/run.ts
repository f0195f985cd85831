import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { maskSecrets, type UserPatterns } from '../secrets';
import { fenceData } from '../output/fence';
import { formatDuration, formatReference } from '../output/reference';
import { resolveWorkspacePath } from '../workspace/workspacePaths';
import { allowListMatch, compoundOperator } from './commandPolicy';
import { newScratchFile, ScratchWriter } from './scratchOutput';
import { fitsInline } from '../output/inline';
import { INLINE_MAX_BYTES, secretRulesOf, toolError, type ToolContext, type ToolOutcome } from './toolContext';
import { plural } from '../output/humanize';
import { runShell } from '../platform/runShell';
import { endProcessTree } from '../platform/processTree';

/** Longest timeout a caller may ask for, in seconds. */
export const MAX_TIMEOUT_SEC = 1800;
/** After bash exits, how long stray background children may keep its output open. */
const STDIO_GRACE_MS = 2000;
/** After SIGTERM, how long before SIGKILL. */
const KILL_GRACE_MS = 2000;

/** The command line as shown and recorded: built-in secret shapes and the user's rules masked. */
export function maskCommand(command: string, rules: UserPatterns | undefined): string {
  return maskSecrets(command, rules).text;
}

/** agentContext_run: runs a command in bash with no TTY, output to a scratch file as a terminal would show it, returns a reference. */
export async function runTool(input: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutcome> {
  const command = String(input.command ?? '');
  if (!command.trim()) return toolError('"command" is empty; give the shell command to run');
  if (!ctx.trusted) {
    return toolError('this workspace is not trusted, so Agent Context does not run commands. Trust the workspace (Workspaces: Manage Workspace Trust) to enable agentContext_run.');
  }
  if (!ctx.allowRun && !allowListMatch(command, ctx.config.runAllowList)) {
    const op = compoundOperator(command);
    return toolError(
      `not allowed: the MCP server was started without --allow-run and ${op ? `the command contains ${op}, which the allow-list never covers` : 'the command matches no entry of run.allowList in .agent/config.yaml'}. Add it there or restart the server with --allow-run.`,
    );
  }
  const timeoutSec = Math.min(MAX_TIMEOUT_SEC, (input.timeoutSec as number | undefined) ?? ctx.config.runDefaultTimeoutSec);
  const cwdR = await resolveWorkspacePath(ctx.folders, input.cwd as string | undefined);
  if (!cwdR.ok) return toolError(`cwd ${cwdR.error.file}: ${cwdR.error.message}`);
  const cwd = cwdR.value;
  const st = await fs.promises.stat(cwd.abs).catch(() => undefined);
  if (!st?.isDirectory()) return toolError(`cwd ${cwd.display}: not a folder in the workspace`);
  if (ctx.signal.aborted) return toolError('cancelled before the command started');

  // The command line itself can hold a secret: mask it wherever it is shown or lands on disk.
  const rules = secretRulesOf(ctx);
  const shownCommand = maskCommand(command, rules);
  const target = newScratchFile(ctx.folders, 'scratch/tool_outputs', shownCommand.split(/\s+/).slice(0, 4).join(' '), '.txt');
  const writer = new ScratchWriter(target, rules, { render: true });
  // A folder that takes no file (read-only, no permission, no space for the name): nothing is run.
  if (writer.failure) return toolError(`${writer.failure.message}. The command was not run: its output would have nowhere to go.`);
  writer.onText = ctx.run ? (t) => ctx.run!.data(t) : undefined;
  ctx.run?.start({ command: shownCommand, cwd: cwd.display, outputPath: target.display });

  const started = Date.now();
  // The platform's shell (platform/runShell.ts): bash, its stderr merged into stdout, in its own process group.
  const shell = runShell(command);
  const child = spawn(shell.file, shell.args, {
    cwd: cwd.abs,
    detached: shell.detached,
    stdio: ['ignore', 'pipe', shell.mergesStderr ? 'ignore' : 'pipe'],
    env: { ...process.env, TERM: 'dumb', PAGER: 'cat', GIT_PAGER: 'cat', AGENT_CONTEXT_RUN: '1' },
    windowsHide: shell.windowsHide,
  });
  let timedOut = false;
  let cancelled = false;
  let writeFailed = false;
  let killTimer: NodeJS.Timeout | undefined;
  const stop = (why: 'timeout' | 'cancel' | 'write'): void => {
    if (why === 'timeout') timedOut = true;
    else if (why === 'cancel') cancelled = true;
    else writeFailed = true;
    endProcessTree(child.pid, 'SIGTERM');
    killTimer = setTimeout(() => endProcessTree(child.pid, 'SIGKILL'), KILL_GRACE_MS);
  };
  // The output file failed (a full disk): the command's output can no longer be kept, so it is stopped at once.
  writer.onFailure(() => stop('write'));
  const timer = setTimeout(() => stop('timeout'), timeoutSec * 1000);
  const onAbort = (): void => stop('cancel');
  ctx.signal.addEventListener('abort', onAbort, { once: true });

  const result = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let graceTimer: NodeJS.Timeout | undefined;
    for (const out of [child.stdout!, child.stderr].filter((x) => x !== null)) {
      out.on('data', (chunk: Buffer) => {
        if (!writer.writeBytes(chunk)) {
          out.pause();
          void writer.drain().then(() => out.resume());
        }
      });
    }
    child.once('error', (e) => resolve({ code: null, signal: null, error: e }));
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      // A background child may hold the pipe open after bash is gone: give it a moment, then end it.
      graceTimer = setTimeout(() => {
        endProcessTree(child.pid, 'SIGKILL');
        child.stdout!.destroy();
        child.stderr?.destroy();
        resolve(exit!);
      }, STDIO_GRACE_MS);
    });
    child.stdout!.once('close', () => {
      if (graceTimer) clearTimeout(graceTimer);
      if (exit) resolve(exit);
      else child.once('exit', (code, signal) => resolve({ code, signal }));
    });
  });
  clearTimeout(timer);
  if (killTimer) clearTimeout(killTimer);
  ctx.signal.removeEventListener('abort', onAbort);
  const durationMs = Date.now() - started;
  let finished: Awaited<ReturnType<ScratchWriter['finish']>>;
  try {
    finished = await writer.finish();
  } catch (e) {
    ctx.run?.end({ exitCode: result.code, signal: result.signal, timedOut, cancelled, durationMs });
    const what = writeFailed ? `The command was stopped after ${formatDuration(durationMs)} (process group killed)` : `The command ${result.code !== null ? `exited ${result.code}` : `was killed by ${result.signal}`} after ${formatDuration(durationMs)}`;
    return toolError(`${(e as Error).message}. ${what}; its output was not saved.`);
  }
  const { scan, masked } = finished;
  ctx.run?.end({ exitCode: result.code, signal: result.signal, timedOut, cancelled, durationMs });
  if (result.error) return { ...toolError(`could not start ${shell.name}: ${result.error.message}`), outputPath: target.display };

  const meta = {
    title: 'Output saved',
    path: target.display,
    grepPath: target.rel,
    command: shownCommand,
    cwd: cwd.display === '.' ? undefined : cwd.display,
    exitCode: result.code,
    signal: result.signal,
    durationMs,
    timedOut,
    cancelled,
    masked,
    note: timedOut ? `Timed out after ${timeoutSec} s; raise timeoutSec (max ${MAX_TIMEOUT_SEC}) if it needs longer.` : undefined,
    maxBytes: ctx.config.referenceMaxBytes,
  };
  const reference = formatReference(scan, meta);
  const commandFailed = timedOut || cancelled || result.code !== 0;
  // Small outputs come back inline (still saved), fenced as data.
  if (fitsInline(scan, ctx.config.offloadThresholdTokens)) {
    const text = await fs.promises.readFile(target.abs, 'utf8');
    const status = timedOut ? `timed out after ${timeoutSec} s (process group killed)` : cancelled ? 'cancelled (process group killed)' : result.code !== null ? `exit ${result.code}` : `killed by ${result.signal}`;
    const head = `$ ${shownCommand}${meta.cwd ? ` (cwd: ${meta.cwd})` : ''}\n${status} · ${formatDuration(durationMs)}${masked ? ` · ${plural(masked, 'secret')} masked` : ''} · saved to ${target.display}`;
    const inline = scan.bytes === 0 ? `${head}\n(no output)` : `${head}\n${fenceData('Output', text)}`;
    if (Buffer.byteLength(inline, 'utf8') <= INLINE_MAX_BYTES) return { text: inline, outputPath: target.display, rawTokens: scan.tokens.tokens, commandFailed };
  }
  return { text: reference, outputPath: target.display, rawTokens: scan.tokens.tokens, commandFailed };
}
