/*
 * What every real-client driver shares: temp folders under the run's folder, fixture copies, the
 * noisy failing build, counting error lines, and starting an agent CLI hermetically (its own
 * process group, killed at the end with the MCP servers, hooks and shells it left behind).
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { FakeModel, RecordedRequest, ToolResult } from './fakeModel';

export const repoRoot = path.resolve(__dirname, '../../..');
/** The MCP server under test: the bundle the extension ships. */
export const MCP_JS = path.join(repoRoot, 'dist/mcp.js');

/** Temp folders made here; the runner removes the parent with its run folder. */
export function tempDir(prefix: string): string {
  const base = process.env.AGENT_CONTEXT_REAL_CLIENT_TMP ?? os.tmpdir();
  return fs.realpathSync(fs.mkdtempSync(path.join(base, prefix)));
}

/** Copies a fixture under test/fixtures to a fresh folder (without .gitkeep files) and returns it. */
export function copyFixture(name: string): string {
  // Under a folder whose name holds a keyword of the masking rules ("sk"), as a user's ~/Desktop does:
  // the hooks' fast path must hold there too (the verdict on the workspace's path in shell-hook.conf).
  const dir = path.join(tempDir('ws-'), 'Desktop', name);
  fs.cpSync(path.join(repoRoot, 'test/fixtures', name), dir, { recursive: true });
  for (const f of fs.readdirSync(dir, { recursive: true })) {
    if (path.basename(String(f)) === '.gitkeep') fs.rmSync(path.join(dir, String(f)));
  }
  return dir;
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
    // `bash build.sh medium`: a test run's TAP output (235 lines, ~20 KB) with two failures, exit 1;
    // `bash build.sh fail`: a small failure (a line on stderr, exit 7). The same script, so the user's
    // rules that allow `bash build.sh` allow these too.
    `if [ "\${1-}" = medium ]; then for i in $(seq 1 235); do case $i in ${MEDIUM_FAILURES.map((f) => f.n).join('|')}) ;; *) echo "ok $i - renders the component tree with props set $i and matches its snapshot" ;; esac; ${MEDIUM_FAILURES.map((f) => `[ $i = ${f.n} ] && echo ${JSON.stringify(f.text)}`).join('; ')}; done; exit 1; fi`,
    `if [ "\${1-}" = fail ]; then echo ${JSON.stringify(SMALL_FAILURE)} >&2; exit 7; fi`,
    'for i in $(seq 1 29999); do echo "[$i/60000] compiling module_$i.c ... ok"; done',
    ...errors.map((e) => `echo ${JSON.stringify(e).replace(/\$/g, '\\$')}`),
    'for i in $(seq 30003 60000); do echo "[$i/60000] compiling module_$i.c ... ok"; done',
    'exit 1',
    '',
  ].join('\n'), { mode: 0o755 });
  return { script: './build.sh', errorLines: errors.map((text, i) => ({ n: 30000 + i, text })) };
}

/** The two failures of `bash build.sh medium` (its line numbers are theirs in the output). */
export const MEDIUM_FAILURES = [
  { n: 101, text: 'not ok 101 - parser handles an empty input file' },
  { n: 181, text: 'not ok 181 - fetch retries until the timeout' },
];
/** What `bash build.sh fail` prints (on stderr) before it exits with 7. */
export const SMALL_FAILURE = 'step 3 of 5: connection refused (ECONNREFUSED 127.0.0.1:5432)';

/** How many of the error lines a text shows, each with its line number (`L30000: <text>`). */
export function errorLinesWithNumbers(text: string, errorLines: readonly { n: number; text: string }[]): number {
  return errorLines.filter((e) => text.includes(`L${e.n}: ${e.text}`)).length;
}

/** How many of the error lines a text shows at all (also when a client escaped it into JSON). */
export function errorLinesSeen(text: string, errorLines: readonly { n: number; text: string }[]): number {
  return errorLines.filter((e) => text.includes(e.text) || text.includes(JSON.stringify(e.text).slice(1, -1))).length;
}

/** One conversation of an agent CLI with the fake model. */
export interface AgentRun {
  results: ToolResult[];
  requests: RecordedRequest[];
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** The HOME the CLI ran with. */
  home: string;
}

/** The environment every CLI starts from: a PATH with this Node first, a fresh HOME, nothing else of the machine's. */
export function baseEnv(home: string): Record<string, string> {
  return {
    PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: home,
    SHELL: '/bin/bash',
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    TMPDIR: process.env.TMPDIR ?? '/tmp',
    ...(process.env.XDG_RUNTIME_DIR ? { XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR } : {}),
    ...(process.env.AGENT_CONTEXT_HARNESS_OWNER ? { AGENT_CONTEXT_HARNESS_OWNER: process.env.AGENT_CONTEXT_HARNESS_OWNER } : {}),
  };
}

/**
 * Runs an agent CLI to its end against `api` (closed afterwards), in its own process group, which
 * is killed afterwards whatever happened: the MCP servers, hooks and shells it started go with it.
 */
export async function runAgentProcess(o: { bin: string; args: string[]; cwd: string; env: Record<string, string>; home: string; api: FakeModel; timeoutMs?: number }): Promise<AgentRun> {
  const child = spawn(o.bin, o.args, { cwd: o.cwd, env: o.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
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
  const timer = setTimeout(killGroup, o.timeoutMs ?? 150_000);
  try {
    const exitCode = await new Promise<number | null>((resolve) => {
      child.once('error', (e) => {
        stderr += String(e);
        resolve(null);
      });
      child.once('close', (code) => resolve(code));
    });
    return { results: [...o.api.results], requests: [...o.api.requests], exitCode, stdout, stderr, home: o.home };
  } finally {
    clearTimeout(timer);
    killGroup();
    await o.api.close();
  }
}

/** The result of the nth call of `tool`; fails with what was seen when there is none. */
export function resultOf(run: AgentRun, tool: string, nth = 0): ToolResult {
  const r = run.results.filter((x) => x.tool === tool)[nth];
  if (!r) {
    throw new Error(`no result for ${tool} reached the model; results: ${JSON.stringify(run.results.map((x) => ({ tool: x.tool, text: x.text.slice(0, 200) })))}; CLI exit ${run.exitCode}; stderr: ${run.stderr.slice(-1500)}; last stdout: ${run.stdout.slice(-1500)}`);
  }
  return r;
}

/** Where a test's installed CLI is: the env var the runner sets from scripts/ensure-deps.sh. */
export function binFrom(envVar: string, run: string): string {
  const bin = process.env[envVar];
  if (!bin || !fs.existsSync(bin)) throw new Error(`${envVar} is not set to an installed CLI (got ${bin ?? 'nothing'}); run through node scripts/test.mjs --run ${run}`);
  return bin;
}
