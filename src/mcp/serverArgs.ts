/**
 * The MCP server's command line (server.ts), apart from the server so that its first import
 * (startEarly.ts) can read it before the rest of the server loads.
 */
import * as path from 'node:path';
import type { WorkspaceFolderRef } from '../core/workspace/workspacePaths';

export interface ServerArgs {
  /** The folders served, as given: `--root` (repeatable), else the working folder ('.'). */
  roots: string[];
  allowRun: boolean;
  verbose: boolean;
  /** --setup <agent> / --undo <agent>. */
  setup?: { agent: string; undo: boolean };
}

/** The arguments, 'help', or what is wrong with them; `agentIds` only completes the messages. */
export function parseServerArgs(argv: readonly string[], agentIds: readonly string[]): ServerArgs | string {
  const roots: string[] = [];
  let allowRun = false;
  let verbose = false;
  let setup: ServerArgs['setup'];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--root') {
      const v = argv[++i];
      if (!v) return '--root needs a folder';
      roots.push(v);
    } else if (a.startsWith('--root=')) roots.push(a.slice(7));
    else if (a === '--allow-run') allowRun = true;
    else if (a === '--verbose') verbose = true;
    else if (a === '--setup-claude-code') setup = { agent: 'claude-code', undo: false };
    else if (a === '--setup' || a === '--undo') {
      const v = argv[++i];
      if (!v) return `${a} needs an agent (${agentIds.join(', ')})`;
      setup = { agent: v, undo: a === '--undo' };
    } else if (a.startsWith('--setup=') || a.startsWith('--undo=')) setup = { agent: a.slice(a.indexOf('=') + 1), undo: a.startsWith('--undo') };
    else if (a === '--help' || a === '-h') return 'help';
    else return `unknown argument ${a}`;
  }
  // No --root: the working folder (the folder the agent runs in). Never the client's roots: MCP
  // 2026-07-28 deprecates them, and the Copilot runtime starts user-scope servers without --root,
  // in the session's working folder.
  if (roots.length === 0) roots.push('.');
  return { roots, allowRun, verbose, setup };
}

/** The folders the server serves, as given (resolved; whether each is a folder is the caller's check). */
export function folderRefs(roots: readonly string[]): WorkspaceFolderRef[] {
  return roots.map((r) => {
    const abs = path.resolve(r);
    return { name: path.basename(abs), path: abs };
  });
}
