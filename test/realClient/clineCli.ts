/*
 * Runs the real Cline CLI (npm `cline`, installed by scripts/ensure-deps.sh; AGENT_CONTEXT_CLINE_BIN)
 * against the fake Chat Completions API: a fresh HOME set up with `cline auth -p openai -k dummy -m
 * fake-model -b <url>/v1` (its provider in ~/.cline/data/settings/providers.json), and, unless the test brings its own set-up, our MCP server in
 * cline_mcp_settings.json. `cline "<prompt>"` runs one task in act mode with every tool approved.
 * Cline starts a hub daemon (`cline --cline-hub-daemon --port <port>`) in a process group of its own
 * that outlives the CLI, and reuses one already listening on the port: each run gets a port of its
 * own (CLINE_HUB_PORT) and ends the daemon on it afterwards.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { baseEnv, binFrom, MCP_JS, runAgentProcess, tempDir, type AgentRun } from './agentProcess';
import { startFakeModel, type ScriptTurn } from './fakeModel';
import { chatCompletions } from './protocols';
import { unescapeJsonText, type RecordingDriver } from './agentScenarios';

/** Cline offers a server named `agent-context` as `agent-context__<tool>`. */
export const clineMcpTool = (name: string): string => `agent-context__${name}`;
/** Cline's own shell tool (its input: `{"commands": [...]}`). */
export const CLINE_SHELL = 'run_commands';

export function clineBin(): string {
  return binFrom('AGENT_CONTEXT_CLINE_BIN', 'cline');
}

/** A TCP port nobody listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** Ends the hub daemon this run started (found by its own command line: the port is the run's). */
function endHubDaemon(port: number): void {
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    let cmd = '';
    try {
      cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
    } catch {
      continue;
    }
    if (cmd.includes('--cline-hub-daemon') && cmd.includes(`--port ${port} `)) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

export interface ClineRunOptions {
  workspace: string;
  script: readonly ScriptTurn[];
  home?: string;
  /** Add our MCP server to Cline's MCP settings (default true). */
  mcp?: boolean;
  env?: Record<string, string>;
  timeoutMs?: number;
}

/** One conversation: `cline "<prompt>"`, the model scripted by `script`. */
export async function runCline(o: ClineRunOptions): Promise<AgentRun> {
  const api = await startFakeModel([chatCompletions], o.script);
  const home = o.home ?? tempDir('home-');
  const settings = path.join(home, '.cline', 'data', 'settings');
  fs.mkdirSync(settings, { recursive: true });
  const port = await freePort();
  const env = { ...baseEnv(home), CLINE_HUB_PORT: String(port), CLINE_NO_AUTO_UPDATE: '1', ...o.env };
  // The provider, as a user sets it (providers.json).
  const auth = spawnSync(clineBin(), ['auth', '-p', 'openai', '-k', 'dummy', '-m', 'fake-model', '-b', `${api.url}/v1`], { cwd: o.workspace, env, encoding: 'utf8', timeout: 60_000 });
  endHubDaemon(port);
  if (auth.status !== 0) await api.close();
  if (auth.status !== 0) throw new Error(`cline auth failed (${auth.status}): ${auth.stderr}${auth.stdout}`);
  if (o.mcp !== false) {
    // The test's own entry (--root: this workspace); a 60 s timeout, as the set-up writes (Cline's own is 3 s).
    fs.writeFileSync(path.join(settings, 'cline_mcp_settings.json'), JSON.stringify({ mcpServers: { 'agent-context': { transport: { type: 'stdio', command: process.execPath, args: [MCP_JS, '--root', o.workspace, '--allow-run'] }, timeout: 60 } } }, null, 2));
  }
  try {
    return await runAgentProcess({ bin: clineBin(), args: ['Work on the task in this workspace.'], cwd: o.workspace, env, home, api, timeoutMs: o.timeoutMs });
  } finally {
    endHubDaemon(port);
  }
}

/** Cline for the shared scenarios (agentScenarios.ts): it hands the model an MCP result as the result's JSON (the text escaped). */
export const clineDriver: RecordingDriver = {
  id: 'cline',
  label: 'Cline',
  mcpTool: clineMcpTool,
  shellTool: CLINE_SHELL,
  shellInput: (command: string): Record<string, unknown> => ({ commands: [command] }),
  run: (o: { workspace: string; script: readonly ScriptTurn[] }): Promise<AgentRun> => runCline(o),
  runSetUp: (o: { workspace: string; home: string; script: readonly ScriptTurn[] }): Promise<AgentRun> => runCline({ ...o, mcp: false }),
  unwrap: unescapeJsonText,
};
