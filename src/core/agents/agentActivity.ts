/** A sub-agent's last activity, as the Agents view and the briefing rank agents by it (agentRanking.ts). */
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * An agent's last activity: the newer mtime of status.json and findings.md, the folder's own mtime
 * when it has neither. Synchronous stats that return undefined for a missing file (a fifth of the
 * CPU of fs.promises, no exception). Also run on the check worker (fs/digestCheckEntry.ts).
 */
export function lastActivity(folder: string): number {
  const a = fs.lstatSync(folder + path.sep + 'status.json', { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const b = fs.lstatSync(folder + path.sep + 'findings.md', { throwIfNoEntry: false })?.mtimeMs ?? 0;
  return a || b ? Math.max(a, b) : (fs.lstatSync(folder, { throwIfNoEntry: false })?.mtimeMs ?? 0);
}
