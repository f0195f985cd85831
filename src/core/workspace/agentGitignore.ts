import * as fs from 'node:fs';
import * as path from 'node:path';
import { AGENT_DIR, LAYOUT } from './layout';


/** .gitignore written into `.agent/`: transient and machine-local content stays out of git. */
export const AGENT_GITIGNORE = `scratch/
terminals/
history/
pins.json
`;

/** Folders directly under `.agent/` that the .gitignore above keeps out of git. */
const IGNORED_FOLDERS = new Set<string>([LAYOUT.scratch, LAYOUT.terminals, LAYOUT.history]);

/** Writes `.agent/.gitignore` unless a file of that name exists (never overwrites: the user may have edited it). */
export function writeAgentGitignoreSync(agentDir: string): boolean {
  try {
    fs.writeFileSync(path.join(agentDir, LAYOUT.gitignore), AGENT_GITIGNORE, { flag: 'wx' });
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
}

/**
 * Called with the first folder a recursive mkdir created. When that is `.agent/` itself or one of
 * its ignored folders, the .gitignore Initialize writes is written too: a tool call over MCP, a
 * terminal capture or a hook must not leave command lines and outputs for `git add -A` to commit.
 * Only on creation, so a user who deleted the file on purpose is not overruled on every write.
 */
export function afterDirCreated(created: string | undefined): void {
  if (!created) return;
  if (path.basename(created) === AGENT_DIR) writeAgentGitignoreSync(created);
  else if (path.basename(path.dirname(created)) === AGENT_DIR && IGNORED_FOLDERS.has(path.basename(created))) writeAgentGitignoreSync(path.dirname(created));
}
