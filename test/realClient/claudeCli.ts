/*
 * Runs the real Claude Code CLI (installed by scripts/ensure-deps.sh; its path comes in
 * AGENT_CONTEXT_CLAUDE_BIN) against the fake Messages API, offline and hermetic: a fresh HOME per
 * conversation, no telemetry, no updater, its own process group killed at the end.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startFakeMessagesApi, type RecordedRequest, type ScriptTurn, type ToolResult } from './fakeMessagesApi';

export const repoRoot = path.resolve(__dirname, '../../..');
/** The MCP server under test: the bundle the extension ships. */
export const MCP_JS = path.join(repoRoot, 'dist/mcp.js');
export const HOOK_JS = path.join(repoRoot, 'dist/claude-hook.js');

/** Tool names as Claude Code offers our MCP tools to the model. */
export const mcpTool = (name: string): string => `mcp__agent-context__${name}`;

export interface ClaudeRun {
  results: ToolResult[];
  requests: RecordedRequest[];
  exitCode: number | null;
  stdout: string;
  stderr: string;
  home: string;
}

export interface ClaudeRunOptions {
  workspace: string;
  script: readonly ScriptTurn[];
  /** HOME for the CLI (a fresh temp folder when absent). */
  home?: string;
  /** Start our MCP server through --mcp-config (default true); false: whatever the settings configure. */
  mcpConfig?: boolean;
  allowedTools?: string;
  env?: Record<string, string>;
  timeoutMs?: number;
}

/** Temp folders made here; the runner removes the parent with its run folder. */
export function tempDir(prefix: string): string {
  const base = process.env.AGENT_CONTEXT_REAL_CLIENT_TMP ?? os.tmpdir();
  return fs.realpathSync(fs.mkdtempSync(path.join(base, prefix)));
}

/** Copies a fixture under test/fixtures to a fresh folder (without .gitkeep files) and returns it. */
export function copyFixture(name: string): string {
  const dir = path.join(tempDir('ws-'), name);
  fs.cpSync(path.join(repoRoot, 'test/fixtures', name), dir, { recursive: true });
  for (const f of fs.readdirSync(dir, { recursive: true })) {
    if (path.basename(String(f)) === '.gitkeep') fs.rmSync(path.join(dir, String(f)));
  }
  return dir;
}

function claudeBin(): string {
  const bin = process.env.AGENT_CONTEXT_CLAUDE_BIN;
  if (!bin || !fs.existsSync(bin)) throw new Error(`AGENT_CONTEXT_CLAUDE_BIN is not set to an installed claude (got ${bin ?? 'nothing'}); run through node scripts/test.mjs --run claude-code`);
  return bin;
}

/** One conversation: the CLI in print mode with stream-json output, the model scripted by `script`. */
export async function runClaude(o: ClaudeRunOptions): Promise<ClaudeRun> {
  const api = await startFakeMessagesApi(o.script);
  const home = o.home ?? tempDir('home-');
  const args = ['-p', 'Work on the task in this workspace.', '--output-format', 'stream-json', '--verbose', '--allowedTools', o.allowedTools ?? 'Bash Read Grep mcp__agent-context'];
  if (o.mcpConfig !== false) {
    const cfg = path.join(home, 'mcp-config.json');
    fs.writeFileSync(cfg, JSON.stringify({ mcpServers: { 'agent-context': { command: process.execPath, args: [MCP_JS, '--root', o.workspace, '--allow-run'] } } }));
    args.push('--mcp-config', cfg);
  }
  const env: Record<string, string> = {
    PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: home,
    SHELL: '/bin/bash',
    LANG: 'C.UTF-8',
    ANTHROPIC_BASE_URL: api.url,
    ANTHROPIC_API_KEY: 'sk-ant-test-not-a-real-key',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
    // In print mode Claude Code 2.1.197 sends the first request without waiting for MCP servers;
    // under load our server (a Node start) was not connected yet and the first call got "No such
    // tool available". "false" makes it wait for the connections, as an interactive session does.
    MCP_CONNECTION_NONBLOCKING: 'false',
    ...(process.env.AGENT_CONTEXT_HARNESS_OWNER ? { AGENT_CONTEXT_HARNESS_OWNER: process.env.AGENT_CONTEXT_HARNESS_OWNER } : {}),
    ...o.env,
  };
  const child = spawn(claudeBin(), args, { cwd: o.workspace, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const killGroup = (): void => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  const timer = setTimeout(killGroup, o.timeoutMs ?? 120_000);
  try {
    const exitCode = await new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    return { results: [...api.results], requests: [...api.requests], exitCode, stdout, stderr, home };
  } finally {
    clearTimeout(timer);
    killGroup(); // MCP server, hooks and shells the CLI left behind
    await api.close();
  }
}

/** The result of the first call of `tool`; fails with what was seen when there is none. */
export function resultOf(run: ClaudeRun, tool: string, nth = 0): ToolResult {
  const r = run.results.filter((x) => x.tool === tool)[nth];
  if (!r) {
    throw new Error(`no tool_result for ${tool} reached the model; results: ${JSON.stringify(run.results.map((x) => ({ tool: x.tool, text: x.text.slice(0, 200) })))}; CLI exit ${run.exitCode}; stderr: ${run.stderr.slice(0, 500)}; last stdout: ${run.stdout.slice(-800)}`);
  }
  return r;
}

/** A build log like a real one gone wrong: 60,000 lines, three error lines in the middle, exit 1. */
export function writeNoisyBuild(workspace: string): { script: string; errorLines: { n: number; text: string }[] } {
  const errors = [
    "src/limiter.ts(41,7): error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'.",
    "ld: error: undefined reference to 'bucket_refill'",
    'FATAL ERROR: build step "bundle" failed',
  ];
  const file = path.join(workspace, 'build.sh');
  fs.writeFileSync(file, [
    '#!/bin/bash',
    'for i in $(seq 1 29999); do echo "[$i/60000] compiling module_$i.c ... ok"; done',
    ...errors.map((e) => `echo ${JSON.stringify(e).replace(/\$/g, '\\$')}`),
    'for i in $(seq 30003 60000); do echo "[$i/60000] compiling module_$i.c ... ok"; done',
    'exit 1',
    '',
  ].join('\n'), { mode: 0o755 });
  return { script: './build.sh', errorLines: errors.map((text, i) => ({ n: 30000 + i, text })) };
}

/** How many of the error lines a text shows, each with its line number (`L30000: <text>`). */
export function errorLinesWithNumbers(text: string, errorLines: readonly { n: number; text: string }[]): number {
  return errorLines.filter((e) => text.includes(`L${e.n}: ${e.text}`)).length;
}

/** How many of the error lines a text shows at all. */
export function errorLinesSeen(text: string, errorLines: readonly { n: number; text: string }[]): number {
  return errorLines.filter((e) => text.includes(e.text)).length;
}
