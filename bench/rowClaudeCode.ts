// Row 11: the real Claude Code CLI (scripts/ensure-deps.sh installs it) against the scripted fake
// Messages API of test/realClient/: what reaches the model from a 60,000-line failing build through
// Claude Code's own Bash with our hook vs without it (11a), through agentContext_run over MCP (11b),
// and what the hook costs a small command (11c: the three Node starts, timed in bash directly).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { errorLinesSeen, errorLinesWithNumbers, MCP_JS, mcpTool, resultOf, runClaude, writeNoisyBuild } from '../test/realClient/claudeCli';
import { failedRow, fmtMs, measurePair, type Row } from './harness';

const GOAL = '≤ 2 KB, 3/3 error lines with numbers';

function claudeBin(repo: string): string {
  const r = spawnSync('bash', [path.join(repo, 'scripts/ensure-deps.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const bin = /^CLAUDE_BIN=(.*)$/m.exec(r.stdout ?? '')?.[1];
  if (r.status !== 0 || !bin) throw new Error(`scripts/ensure-deps.sh failed (exit ${r.status}): Claude Code not installed`);
  return bin;
}

function freshWorkspace(base: string): string {
  const ws = fs.mkdtempSync(path.join(base, 'ws-'));
  fs.cpSync(path.join(path.dirname(MCP_JS), '..', 'test/fixtures/workspace'), ws, { recursive: true });
  return ws;
}

const fmt = (bytes: number, errors: number): string => `${bytes.toLocaleString('en-US')} bytes, ${errors}/3 error lines with numbers`;

/** Rows 11a–11c. */
export async function rowClaudeCode(repo: string, workDir: string): Promise<Row[]> {
  const base = path.join(workDir, 'claude-code');
  fs.rmSync(base, { recursive: true, force: true });
  fs.mkdirSync(base, { recursive: true });
  try {
    process.env.AGENT_CONTEXT_CLAUDE_BIN = claudeBin(repo);
    process.env.AGENT_CONTEXT_REAL_CLIENT_TMP = base;
    if (!fs.existsSync(MCP_JS) || !fs.existsSync(path.join(path.dirname(MCP_JS), 'agent-hook.js'))) spawnSync(process.execPath, ['esbuild.mjs'], { cwd: repo, stdio: 'inherit' });
    const version = spawnSync(process.env.AGENT_CONTEXT_CLAUDE_BIN, ['--version'], { encoding: 'utf8', env: { ...process.env, HOME: base } }).stdout.trim().split(' ')[0];

    const rows: Row[] = [];
    // 11a: Bash with the hook (configured by --setup-claude-code) vs plain Bash.
    const hookedWs = freshWorkspace(base);
    const build = writeNoisyBuild(hookedWs);
    const home = fs.mkdtempSync(path.join(base, 'home-'));
    const setup = spawnSync(process.execPath, [MCP_JS, '--root', hookedWs, '--setup', 'claude-code'], { encoding: 'utf8', env: { ...process.env, HOME: home } });
    if (setup.status !== 0) throw new Error(`--setup-claude-code failed: ${setup.stderr}`);
    const bashStep = { tool: 'Bash', input: { command: build.script, description: 'Build the project' } };
    const hooked = resultOf(await runClaude({ workspace: hookedWs, home, mcpConfig: false, script: [bashStep, { text: 'Done.' }] }), 'Bash');
    const plainWs = freshWorkspace(base);
    writeNoisyBuild(plainWs);
    const plain = resultOf(await runClaude({ workspace: plainWs, script: [bashStep, { text: 'Done.' }] }), 'Bash');
    const hookedErrors = errorLinesWithNumbers(hooked.text, build.errorLines);
    rows.push({
      id: '11a',
      what: `Claude Code ${version} Bash, 60,000-line build failing with 3 error lines mid-way: tool_result the model gets, with our hook vs without`,
      ours: fmt(hooked.bytes, hookedErrors),
      reference: `${plain.bytes.toLocaleString('en-US')} bytes, ${errorLinesSeen(plain.text, build.errorLines)}/3 error lines at all`,
      ratio: `${(plain.bytes / hooked.bytes).toFixed(1)}× fewer bytes`,
      goal: GOAL,
      met: hooked.bytes <= 2048 && hookedErrors === 3,
      note: 'the model is a script (a fake Messages API); the bytes are the tool_result blocks Claude Code sent back. Hook and MCP server configured by mcp.js --setup-claude-code; Bash without the hook keeps a head and cuts the middle',
    });

    // 11b: the same build through agentContext_run over MCP.
    const mcpWs = freshWorkspace(base);
    writeNoisyBuild(mcpWs);
    const run = resultOf(await runClaude({ workspace: mcpWs, script: [{ tool: mcpTool('agentContext_run'), input: { command: build.script } }, { text: 'Done.' }] }), mcpTool('agentContext_run'));
    const runErrors = errorLinesWithNumbers(run.text, build.errorLines);
    rows.push({
      id: '11b',
      what: `the same build through agentContext_run, called by Claude Code ${version} over MCP, vs its own Bash`,
      ours: fmt(run.bytes, runErrors),
      reference: `${plain.bytes.toLocaleString('en-US')} bytes, ${errorLinesSeen(plain.text, build.errorLines)}/3 (Bash)`,
      ratio: `${(plain.bytes / run.bytes).toFixed(1)}× fewer bytes`,
      goal: GOAL,
      met: run.bytes <= 2048 && runErrors === 3,
    });

    // 11c: the hook's cost on a small command: the shell capture Claude Code puts in front of each
    // Bash command (through CLAUDE_ENV_FILE) vs the command alone, both through bash.
    const ws = freshWorkspace(base);
    const snippet = path.join(path.dirname(MCP_JS), 'agent-context-shell.sh');
    const env = { ...process.env, AGENT_CONTEXT_ROOT: ws, AGENT_CONTEXT_CAPTURE: '' };
    const withHook = (): void => void spawnSync('bash', ['-c', `. '${snippet}'\n: && eval 'echo hi' < /dev/null`], { cwd: ws, env, stdio: 'ignore' });
    const without = (): void => void spawnSync('bash', ['-c', "eval 'echo hi' < /dev/null"], { cwd: ws, env, stdio: 'ignore' });
    const t = await measurePair(withHook, without);
    const load = os.loadavg().map((l) => l.toFixed(1)).join(' ');
    rows.push({
      id: '11c',
      what: 'the shell capture on a small Bash command (echo hi), sourced as Claude Code sources it, vs the command alone',
      ours: fmtMs(t.a),
      reference: fmtMs(t.b),
      ratio: `+${(t.a.median - t.b.median).toFixed(0)} ms`,
      goal: '≤ 50 ms added',
      note: `one more shell start, no Node for a small output; load average ${load} on ${os.cpus().length} cores while measured`,
    });
    return rows;
  } catch (e) {
    return [failedRow('11a', 'Claude Code Bash with our hook vs without (real CLI)', GOAL, e)];
  } finally {
    delete process.env.AGENT_CONTEXT_REAL_CLIENT_TMP;
    fs.rmSync(base, { recursive: true, force: true });
  }
}
