/*
 * The Agent Context MCP server: the same tool implementations as the extension, over stdio.
 *
 *   node dist/mcp.js [--root <workspace>] [--root <another folder>] [--allow-run] [--verbose]
 *   node dist/mcp.js [--root <workspace>] --setup <agent>   (--undo <agent>; agents: claude-code, codex, gemini, copilot-cli, opencode, kilo, vscode-copilot)
 *
 * The folder served is --root, or the working folder without one; never the client's roots
 * (deprecated by MCP 2026-07-28; the server sends no request to the client).
 * Both eras of MCP are served (serveStdio of @modelcontextprotocol/server decides per connection):
 * clients of 2026-07-28, stateless, each request carrying its version in `_meta` (and
 * `server/discover`), and older ones (2025-11-25, 2025-06-18, …) that open with `initialize`.
 * Settings come from <root>/.agent/config.yaml (same keys as the extension's settings without
 * the `agentContext.` prefix), re-read on every call. Commands run only with --allow-run or when
 * the whole command matches run.allowList there. Logs go to stderr (stdout is the protocol), and
 * only warnings and errors unless --verbose: clients such as Claude Code record any server stderr
 * as an error in their MCP logs. The server exits on end of input and on SIGTERM, SIGINT and
 * SIGHUP (lifetime.ts).
 */
// First: it may start the terminal catalog's first build on a worker while the rest loads.
import './startEarly';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Server, type Tool } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as os from 'node:os';
import { AGENT_SETUPS, agentSetup, setUpAgent, undoAgent } from '../core/setup/agents';
import { DEFAULT_TOOL_CONFIG, loadAgentConfig, retentionFrom, secretSettingsFrom, toolConfigFromFile, type ToolConfig } from '../core/config';
import type { Logger } from '../core/log';
import { formatFileError } from '../core/result';
import { useTokenizerWorker } from '../core/output/tokens';
import { findRipgrep } from '../core/search/findRipgrep';
import { invokeTool } from '../core/tools/invokeTool';
import { TOOL_DEFINITIONS } from '../core/tools/toolDefinitions';
import { agentDirFor, type WorkspaceFolderRef } from '../core/workspace/workspacePaths';
import { folderRefs, parseServerArgs } from './serverArgs';
import { ServerLifetime } from './lifetime';
import { LimitedStdioServerTransport, MAX_REQUEST_BYTES } from './stdioTransport';

const VERSION = '0.1.0';

const stderr = (line: string): void => void process.stderr.write(line + '\n');

let verbose = false;

const log: Logger = {
  trace() {},
  debug() {},
  info: (m) => verbose && stderr(`[agent-context] ${m}`),
  warn: (m) => stderr(`[agent-context] warning: ${m}`),
  error: (m) => stderr(`[agent-context] error: ${m instanceof Error ? m.stack : m}`),
};

const USAGE = `usage: node mcp.js [--root <workspace folder>…] [--allow-run] [--verbose]   (without --root: the working folder)
       node mcp.js [--root <workspace folder>] --setup <agent>   (configure an agent CLI for that folder: ${AGENT_SETUPS.map((a) => a.id).join(', ')})
       node mcp.js [--root <workspace folder>] --undo <agent>    (remove exactly what --setup added)`;

async function currentConfig(folders: readonly WorkspaceFolderRef[]): Promise<{ config: ToolConfig; extra: Map<string, unknown> }> {
  const agentDir = agentDirFor(folders);
  if (!agentDir) return { config: DEFAULT_TOOL_CONFIG, extra: new Map() };
  const f = await loadAgentConfig(agentDir);
  if (!f.ok) {
    log.warn(`${formatFileError(f.error)}; using default settings`);
    return { config: DEFAULT_TOOL_CONFIG, extra: new Map() };
  }
  return { config: toolConfigFromFile(f.value), extra: f.value.values };
}

/** --setup <agent> / --undo <agent>: the agent's set-up for the folder, with this mcp.js and the hook scripts next to it. */
async function runSetup(root: string, id: string, undo: boolean): Promise<number> {
  const setup = agentSetup(id);
  if (!setup) {
    stderr(`unknown agent ${id}; known: ${AGENT_SETUPS.map((a) => a.id).join(', ')}`);
    return 2;
  }
  const dist = path.dirname(path.resolve(__filename));
  for (const f of ['agent-hook.js', 'agent-hook.sh', 'agent-context-shell.sh', 'secret-keywords.ere', 'opencode-plugin.mjs']) {
    if (!undo && !fs.existsSync(path.join(dist, f))) {
      stderr(`${path.join(dist, f)} is missing: it ships next to mcp.js (build it with node esbuild.mjs).`);
      return 1;
    }
  }
  // The folder's one spelling (a link to it, a trailing slash): the agents key projects by the real
  // path (their working directory), and an undo through another spelling must find what was added.
  root = fs.realpathSync(root);
  const r = undo ? await undoAgent(setup, root, os.homedir()) : await setUpAgent(setup, root, os.homedir(), { node: process.execPath, dist });
  if (!r.ok) {
    stderr(`${setup.label} was not ${undo ? 'restored' : 'set up'}: ${formatFileError(r.error)}`);
    return 1;
  }
  for (const f of r.value.changed) process.stdout.write(`${undo ? 'restored' : 'updated'} ${f}\n`);
  for (const f of r.value.unchanged) process.stdout.write(`${undo ? 'nothing to remove in' : 'already set up:'} ${f}\n`);
  for (const n of r.value.notes) process.stdout.write(`note: ${n}\n`);
  process.stdout.write(undo
    ? r.value.changed.length > 0 ? `${setup.label} in ${root}: what the set-up added is removed.\n` : `${setup.label} in ${root}: nothing of the set-up was found, so nothing was removed.\n`
    : `${setup.label} in ${root}: MCP server "agent-context", ${setup.shellNotOffloaded ? 'its own shell\'s output not offloaded (see the note above; agentContext_run offloads)' : 'large shell output to .agent/scratch/tool_outputs/ (the command itself is never rewritten)'}. Undo: node ${path.resolve(__filename)} --root ${root} --undo ${setup.id}\n`);
  return 0;
}

async function main(): Promise<void> {
  const args = parseServerArgs(process.argv.slice(2), AGENT_SETUPS.map((a) => a.id));
  if (typeof args === 'string') {
    stderr(args === 'help' ? USAGE : `${args}\n${USAGE}`);
    process.exit(args === 'help' ? 0 : 2);
  }
  verbose = args.verbose;
  const folders: WorkspaceFolderRef[] = folderRefs(args.roots);
  for (const [i, f] of folders.entries()) {
    if (!fs.existsSync(f.path) || !fs.statSync(f.path).isDirectory()) {
      stderr(`--root ${args.roots[i]}: not a folder\n${USAGE}`);
      process.exit(2);
    }
  }
  if (args.setup) process.exit(await runSetup(folders[0].path, args.setup.agent, args.setup.undo));
  // Load the tokenizer's tables on a worker while the client connects: the first call's ledger count
  // and briefing need them, and loading them here would hold that call ~280 ms.
  useTokenizerWorker(true);
  const ripgrep = findRipgrep(undefined);
  log.info(`serving ${folders.map((f) => f.path).join(', ')}${args.allowRun ? ' (commands allowed)' : ''}; search: ${ripgrep ?? 'built-in engine'}`);

  const tools = TOOL_DEFINITIONS.map((d) => ({
    name: d.name,
    description: d.description,
    // Plain JSON objects; the SDK's type wants an index signature an interface does not declare.
    inputSchema: d.inputSchema as unknown as Tool['inputSchema'],
    annotations: { title: d.displayName, readOnlyHint: d.readOnly },
  }));
  const transport = new LimitedStdioServerTransport(process.stdin, process.stdout, MAX_REQUEST_BYTES, (m) => log.warn(m));
  const lifetime = new ServerLifetime({
    close: () => handle.close(),
    exit: (code) => process.exit(code),
    log: (m) => log.info(m),
  });
  // One server per connection era (serveStdio may build a second one when a client probes with
  // server/discover and then falls back to initialize): cheap to build, no state of its own.
  const handle = serveStdio(() => {
    const server = new Server({ name: 'agent-context', version: VERSION }, { capabilities: { tools: {} } });
    server.setRequestHandler('tools/list', () => ({ tools }));
    server.setRequestHandler('tools/call', (req, ctx) => lifetime.track(async () => {
      const { config, extra: values } = await currentConfig(folders);
      const outcome = await invokeTool(req.params.name, req.params.arguments ?? {}, {
        folders,
        config,
        signal: lifetime.signalFor(ctx.mcpReq.signal),
        log,
        source: 'mcp',
        trusted: true,
        allowRun: args.allowRun,
        ripgrep,
        retention: retentionFrom((k) => values.get(k)),
        ...secretSettingsFrom((k) => values.get(k)),
      });
      // A command that ran and exited non-zero is a result (its text leads with the exit code), not a
      // tool error: Gemini CLI and Qwen Code wrap an isError result whole as escaped JSON (more bytes, worse to read).
      return { content: [{ type: 'text' as const, text: outcome.text }], isError: outcome.isError === true };
    }));
    return server;
  }, { transport, onerror: (e) => log.info(`protocol: ${e.message}`) });
  transport.onhangup = (why) => (why === 'end of input' ? lifetime.endOfInput() : lifetime.stopNow(0, why));
  lifetime.handleSignals();
}

main().catch((e) => {
  log.error(e as Error);
  process.exit(1);
});
