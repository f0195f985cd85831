/**
 * The MCP server's first import (server.ts): when the server is to serve a folder whose terminal
 * catalog file is missing (a first session after an upgrade, a wiped `.agent/.cache/`), the
 * catalog's first build starts on a worker thread at once (catalogWorker.ts), while this thread
 * still loads the rest of the server (~250 ms for the tsc build, ~60 ms for the bundle after it
 * starts). At 10,000 terminals the build is ~250 ms of CPU: started after the load, it competed
 * with the first call for the 2 cores, and a call that came right away built on this thread
 * instead (bench row 14i, tsc build: 519 → 421 ms at L, medians of 9; with the bundle such a call
 * still builds here, row 14j).
 * Nothing starts for --setup, --undo, --help or arguments the server refuses.
 */
import { prebuildTerminalCatalog } from '../core/terminal/catalog/catalogWorker';
import { agentDirFor } from '../core/workspace/workspacePaths';
import { folderRefs, parseServerArgs } from './serverArgs';

/** Starts the catalog's first build for the server `argv` (without node and the script) would serve; true when one was started. */
export function prebuildAtStart(argv: readonly string[]): boolean {
  const args = parseServerArgs(argv, []);
  if (typeof args === 'string' || args.setup) return false;
  const agentDir = agentDirFor(folderRefs(args.roots));
  return agentDir !== undefined && prebuildTerminalCatalog(agentDir);
}

prebuildAtStart(process.argv.slice(2));
