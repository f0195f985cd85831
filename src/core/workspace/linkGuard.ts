/**
 * Files of `.agent/` that the tools read or write by a fixed name (preferences.yaml, progress.md,
 * features.json, a note, a skill) must not lead out of the workspace through a symbolic link: the
 * file itself or a folder above it. agentContext_read and grep refuse such paths
 * (workspacePaths.ts resolveWorkspacePath); these readers and writers refuse them the same way.
 */
import * as fs from 'node:fs';
import { isInside } from './relativePaths';

/** Where `file` really is when a symbolic link leads it out of `root`; undefined when it stays inside, or does not exist. */
export async function leadsOutside(root: string, file: string): Promise<string | undefined> {
  let real: string;
  let rootReal: string;
  try {
    [rootReal, real] = await Promise.all([fs.promises.realpath(root), fs.promises.realpath(file)]);
  } catch {
    return undefined; // missing (or a loop): what the read itself says
  }
  return isInside(rootReal, real) ? undefined : real;
}

/** The reason given for such a file (the caller names the file). */
export function outsideLinkMessage(real: string): string {
  return `it is a symbolic link (or inside one) leading outside the workspace, to ${real}; not read or written`;
}
