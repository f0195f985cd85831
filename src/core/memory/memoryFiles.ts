import * as fs from 'node:fs';
import * as path from 'node:path';
import { toPosixRelative } from '../workspace/relativePaths';
import { agentPath } from '../workspace/layout';

/** A free-form note in `.agent/memory/*.md`. */
export interface MemoryFile {
  name: string;
  /** Workspace-relative path. */
  path: string;
  bytes: number;
  mtimeMs: number;
  /** First heading or first non-empty line, up to 80 characters. */
  title: string;
}

/** Lists `.agent/memory/*.md` (not recursive), newest first; a missing folder is an empty list. */
export async function listMemoryFiles(agentDir: string): Promise<MemoryFile[]> {
  const dir = agentPath(agentDir, 'memory');
  let names: string[];
  try {
    names = await fs.promises.readdir(dir);
  } catch {
    return [];
  }
  const out: MemoryFile[] = [];
  for (const name of names) {
    if (!name.toLowerCase().endsWith('.md')) continue;
    const abs = path.join(dir, name);
    try {
      const st = await fs.promises.lstat(abs);
      if (!st.isFile()) continue; // symlinks could point outside the workspace
      const fh = await fs.promises.open(abs, 'r');
      let head = '';
      try {
        const buf = Buffer.alloc(Math.min(st.size, 2048));
        await fh.read(buf, 0, buf.length, 0);
        head = buf.toString('utf8');
      } finally {
        await fh.close();
      }
      const first = head.split(/\r?\n/).find((l) => l.trim() !== '') ?? '';
      out.push({
        name,
        path: toPosixRelative(path.dirname(agentDir), abs),
        bytes: st.size,
        mtimeMs: st.mtimeMs,
        title: first.replace(/^#+\s*/, '').trim().slice(0, 80),
      });
    } catch {
      // deleted while listing
    }
  }
  return out.sort((a, b) => b.mtimeMs - a.mtimeMs);
}
