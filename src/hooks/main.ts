/*
 * dist/claude-hook.js: Agent Context's hook program for Claude Code (see core/claudeCode/bashHook.ts).
 *
 *   node claude-hook.js                      a PreToolUse or PostToolUse hook (JSON on stdin)
 *   node claude-hook.js capture <root> <file>                       (used inside a wrapped command)
 *   node claude-hook.js report <root> <file> <exit> <started> <b64> (used inside a wrapped command)
 *   node claude-hook.js vscode               VS Code's agent: PostToolUse of run_in_terminal (core/hooks/vscodeAgent.ts)
 *
 * A hook must never break the tool call it observes: on any error it prints nothing and exits 0,
 * so Claude Code goes on with the call unchanged; the reason goes to stderr (Claude Code's debug log).
 */
import * as path from 'node:path';
import { capture, postToolUse, preToolUse, report, type HookInput } from '../core/hooks/bashHook';
import { vscodeAgentPostToolUse, type VscodeHookInput } from '../core/hooks/vscodeAgent';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function main(argv: string[]): Promise<void> {
  const [mode, ...rest] = argv;
  if (mode === 'capture') {
    await capture(rest[0], rest[1], process.stdin);
    return;
  }
  if (mode === 'report') {
    const [root, file, exit, started, b64] = rest;
    process.stdout.write((await report(root, file, Number(exit), Number(started), b64 ?? '')) + '\n');
    return;
  }
  if (mode === 'vscode') {
    const input = JSON.parse(await readStdin()) as VscodeHookInput;
    const out = await vscodeAgentPostToolUse(input, path.resolve(input.cwd || process.cwd()));
    if (out) process.stdout.write(JSON.stringify(out));
    return;
  }
  const input = JSON.parse(await readStdin()) as HookInput;
  // The project folder (where .agent/ lives): Claude Code sets CLAUDE_PROJECT_DIR for hooks.
  const root = path.resolve(process.env.CLAUDE_PROJECT_DIR || input.cwd || process.cwd());
  const program = { node: process.execPath, script: path.resolve(process.argv[1]) };
  const out = input.hook_event_name === 'PreToolUse' ? preToolUse(input, root, program)
    : input.hook_event_name === 'PostToolUse' ? await postToolUse(input, root)
      : undefined;
  if (out) process.stdout.write(JSON.stringify(out));
}

main(process.argv.slice(2)).catch((e: unknown) => {
  process.stderr.write(`agent-context hook: ${(e as Error).stack ?? String(e)}\n`);
  // capture must still drain its input, or the command writing to it would block; report prints nothing.
  if (process.argv[2] === 'capture') process.stdin.resume();
  process.exitCode = 0;
});
