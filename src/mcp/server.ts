/*
 * The Agent Context MCP server: the same tool implementations as the extension, over stdio.
 *
 *   node dist/mcp.js --root <workspace> [--root <another folder>] [--allow-run] [--verbose]
 *   node dist/mcp.js --root <workspace> --setup-claude-code
 *
 * Settings come from <root>/.agent/config.yaml (same keys as the extension's settings without
 * the `agentContext.` prefix), re-read on every call. Commands run only with --allow-run or when
 * the whole command matches run.allowList there. Logs go to stderr (stdout is the protocol), and
 * only warnings and errors unless --verbose: clients such as Claude Code record any server stderr
 * as an error in their MCP logs.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import * as os from 'node:os';
import { setUpClaudeCode } from '../core/setup/agents/claudeCode';
import { DEFAULT_TOOL_CONFIG, loadAgentConfig, retentionFrom, secretSettingsFrom, toolConfigFromFile, type ToolConfig } from '../core/config';
import type { Logger } from '../core/log';
import { formatFileError } from '../core/result';
import { findRipgrep } from '../core/search/findRipgrep';
import { invokeTool } from '../core/tools/invokeTool';
import { TOOL_DEFINITIONS } from '../core/tools/toolDefinitions';
import { agentDirFor, type WorkspaceFolderRef } from '../core/workspace/workspacePaths';
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

interface Args {
  roots: string[];
  allowRun: boolean;
  verbose: boolean;
  setupClaudeCode: boolean;
}

function parseArgs(argv: string[]): Args | string {
  const roots: string[] = [];
  let allowRun = false;
  let verboseFlag = false;
  let setupClaudeCode = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--root') {
      const v = argv[++i];
      if (!v) return '--root needs a folder';
      roots.push(v);
    } else if (a.startsWith('--root=')) roots.push(a.slice(7));
    else if (a === '--allow-run') allowRun = true;
    else if (a === '--verbose') verboseFlag = true;
    else if (a === '--setup-claude-code') setupClaudeCode = true;
    else if (a === '--help' || a === '-h') return 'help';
    else return `unknown argument ${a}`;
  }
  if (roots.length === 0) return '--root <workspace folder> is required';
  return { roots, allowRun, verbose: verboseFlag, setupClaudeCode };
}

const USAGE = `usage: node mcp.js --root <workspace folder> [--root <folder>…] [--allow-run] [--verbose]
       node mcp.js --root <workspace folder> --setup-claude-code   (configure Claude Code for that folder)`;

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

/** --setup-claude-code: configures Claude Code for the folder with this mcp.js and the claude-hook.js next to it. */
async function runClaudeCodeSetup(root: string): Promise<number> {
  const paths = { node: process.execPath, mcpJs: path.resolve(__filename), hookJs: path.join(path.dirname(path.resolve(__filename)), 'claude-hook.js') };
  if (!fs.existsSync(paths.hookJs)) {
    stderr(`${paths.hookJs} is missing: it ships next to mcp.js (build it with node esbuild.mjs).`);
    return 1;
  }
  const r = await setUpClaudeCode(root, os.homedir(), paths);
  if (!r.ok) {
    stderr(`Claude Code was not set up: ${formatFileError(r.error)}`);
    return 1;
  }
  for (const f of r.value.changed) process.stdout.write(`updated ${f}\n`);
  for (const f of r.value.unchanged) process.stdout.write(`already set up: ${f}\n`);
  process.stdout.write(`Claude Code in ${root}: Bash output over the offload threshold goes to .agent/scratch/tool_outputs/ (hook), plans to .agent/plans/, MCP server "agent-context". Undo: remove the "agent-context" server (claude mcp remove agent-context -s local) and the claude-hook.js entries and plansDirectory from .claude/settings.local.json.\n`);
  return 0;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (typeof args === 'string') {
    stderr(args === 'help' ? USAGE : `${args}\n${USAGE}`);
    process.exit(args === 'help' ? 0 : 2);
  }
  verbose = args.verbose;
  const folders: WorkspaceFolderRef[] = [];
  for (const r of args.roots) {
    const abs = path.resolve(r);
    if (!fs.existsSync(abs) || !fs.statSync(abs).isDirectory()) {
      stderr(`--root ${r}: not a folder\n${USAGE}`);
      process.exit(2);
    }
    folders.push({ name: path.basename(abs), path: abs });
  }
  if (args.setupClaudeCode) process.exit(await runClaudeCodeSetup(folders[0].path));
  const ripgrep = findRipgrep(undefined);
  log.info(`serving ${folders.map((f) => f.path).join(', ')}${args.allowRun ? ' (commands allowed)' : ''}; search: ${ripgrep ?? 'built-in engine'}`);

  const server = new Server({ name: 'agent-context', version: VERSION }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: TOOL_DEFINITIONS.map((d) => ({
      name: d.name,
      description: d.description,
      inputSchema: d.inputSchema,
      annotations: { title: d.displayName, readOnlyHint: d.readOnly },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const { config, extra: values } = await currentConfig(folders);
    const outcome = await invokeTool(req.params.name, req.params.arguments ?? {}, {
      folders,
      config,
      signal: extra.signal,
      log,
      source: 'mcp',
      trusted: true,
      allowRun: args.allowRun,
      ripgrep,
      retention: retentionFrom((k) => values.get(k)),
      ...secretSettingsFrom((k) => values.get(k)),
    });
    return { content: [{ type: 'text' as const, text: outcome.text }], isError: outcome.isError === true || outcome.commandFailed === true };
  });
  await server.connect(new LimitedStdioServerTransport(process.stdin, process.stdout, MAX_REQUEST_BYTES, (m) => log.warn(m)));
}

main().catch((e) => {
  log.error(e as Error);
  process.exit(1);
});
