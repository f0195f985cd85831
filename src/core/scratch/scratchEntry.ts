import * as path from 'node:path';
import { LAYOUT } from '../workspace/agentLayout';
import type { FileError } from '../result';

/** One file (or symlink, never followed) under `.agent/scratch/`. */
export interface ScratchEntry {
  /** Absolute path. */
  path: string;
  /** Path relative to the scratch folder, with forward slashes. */
  rel: string;
  size: number;
  mtimeMs: number;
  symlink: boolean;
}

/** Everything under `.agent/scratch/`: files, folders (relative, forward slashes) and totals. */
export interface ScratchInventory {
  agentDir: string;
  scratchDir: string;
  files: ScratchEntry[];
  dirs: string[];
  totalBytes: number;
  /** Problems that did not stop the scan (unreadable folders, a symlinked scratch folder). */
  errors: FileError[];
}

/** The scratch folder of an `.agent/` folder. */
export function scratchDirOf(agentDir: string): string {
  return path.join(agentDir, LAYOUT.scratch);
}
