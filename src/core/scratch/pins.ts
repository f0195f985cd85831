import * as fs from 'node:fs';
import * as path from 'node:path';
import { LAYOUT } from '../workspace/agentLayout';
import { withFileLock } from '../fs/fileLock';
import { writeFileAtomic } from '../fs/fsAtomic';
import { err, ok, Result } from '../result';
import { leavesFolder, toPosixRelative } from '../workspace/relativePaths';

/** The pins file: `.agent/pins.json` = `{ "pinned": ["scratch/notes.md", ...] }`, paths relative to `.agent/`. */
export function pinsFileOf(agentDir: string): string {
  return path.join(agentDir, LAYOUT.pins);
}

async function readPins(agentDir: string): Promise<Result<string[]>> {
  const file = pinsFileOf(agentDir);
  let text: string;
  try {
    text = await fs.promises.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return ok([]);
    return err({ file, message: `cannot read: ${(e as Error).message}` });
  }
  try {
    const data = JSON.parse(text) as { pinned?: unknown };
    if (!Array.isArray(data.pinned) || !data.pinned.every((p) => typeof p === 'string')) {
      return err({ file, line: 1, message: 'expected {"pinned": ["scratch/...", ...]}; fix or delete the file' });
    }
    return ok(data.pinned as string[]);
  } catch (e) {
    return err({ file, line: 1, message: `invalid JSON (${(e as Error).message}); fix or delete the file` });
  }
}

/** Loads the pinned files of an `.agent/` folder as absolute paths. A broken pins file is an error, so cleanup can refuse. */
export async function loadPins(agentDir: string): Promise<Result<Set<string>>> {
  const r = await readPins(agentDir);
  if (!r.ok) return r;
  return ok(new Set(r.value.map((rel) => path.resolve(agentDir, rel))));
}

/** Pins or unpins a file under `.agent/` (locked read-modify-write, atomic); returns the new pin set. */
export async function setPinned(agentDir: string, file: string, pinned: boolean): Promise<Result<Set<string>>> {
  const rel = toPosixRelative(agentDir, path.resolve(file));
  if (rel === '' || leavesFolder(rel)) {
    return err({ file, message: 'only files inside .agent/ can be pinned' });
  }
  const pinsFile = pinsFileOf(agentDir);
  try {
    return await withFileLock(pinsFile, async () => {
      const cur = await readPins(agentDir);
      if (!cur.ok) return cur;
      const set = new Set(cur.value);
      if (pinned) set.add(rel);
      else set.delete(rel);
      await writeFileAtomic(pinsFile, JSON.stringify({ pinned: [...set].sort() }, null, 2) + '\n');
      return ok(new Set([...set].map((r) => path.resolve(agentDir, r))));
    });
  } catch (e) {
    return err({ file: pinsFile, message: `could not update pins: ${(e as Error).message}` });
  }
}
