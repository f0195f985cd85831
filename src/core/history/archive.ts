/**
 * `.agent/history/` is append-only. Nothing in the core rewrites or deletes a file there: new
 * records are new files (created with O_EXCL) or lines appended with one O_APPEND write.
 * Cleanup never reaches it: it removes files under scratch/ only.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ulid } from 'ulid';
import { appendLineAtomic, createExclusive, mkdirp } from '../fs/fsAtomic';
import { Result, ok, err } from '../result';
import { toPosixRelative } from '../workspace/relativePaths';
import { agentPath } from '../workspace/layout';

/** Largest text archived in one call (bigger transcripts: split them). */
export const MAX_ARCHIVE_BYTES = 20 * 1024 * 1024;

/** An archived session file. */
export interface HistoryFile {
  name: string;
  /** Workspace-relative path. */
  path: string;
  bytes: number;
  mtimeMs: number;
}

/** Absolute history folder of a `.agent` folder. */
export function historyDir(agentDir: string): string {
  return agentPath(agentDir, 'history');
}

function rel(agentDir: string, abs: string): string {
  return toPosixRelative(path.dirname(agentDir), abs);
}

async function plainHistoryDir(agentDir: string): Promise<Result<string>> {
  const dir = historyDir(agentDir);
  try {
    const st = await fs.promises.lstat(dir);
    if (!st.isDirectory()) return err({ file: rel(agentDir, dir), message: 'is not a plain folder (a symlink or a file); refusing to write through it' });
  } catch {
    await mkdirp(dir);
  }
  return ok(dir);
}

/**
 * Archives text as `history/session-<ULID>.md` (a new file, never overwritten) with a small
 * front matter (archived time, title, source) before the text, which is kept byte for byte.
 */
export async function archiveText(
  agentDir: string,
  text: string,
  opts: { title?: string; source?: string; now?: Date } = {},
): Promise<Result<{ path: string; bytes: number }>> {
  const hist = rel(agentDir, historyDir(agentDir));
  if (typeof text !== 'string' || text.length === 0) return err({ file: hist, message: 'nothing to archive: the text is empty' });
  if (Buffer.byteLength(text) > MAX_ARCHIVE_BYTES) return err({ file: hist, message: `the text is over ${MAX_ARCHIVE_BYTES / 1024 / 1024} MB; archive it in parts` });
  const d = await plainHistoryDir(agentDir);
  if (!d.ok) return d;
  const now = opts.now ?? new Date();
  const oneLine = (s: string) => JSON.stringify(s.replace(/\s+/g, ' ').trim().slice(0, 200));
  const front = ['---', `archived: ${now.toISOString()}`];
  if (opts.title) front.push(`title: ${oneLine(opts.title)}`);
  if (opts.source) front.push(`source: ${oneLine(opts.source)}`);
  front.push('---', '');
  const data = front.join('\n') + text;
  for (let i = 0; i < 5; i++) {
    const file = path.join(d.value, `session-${ulid(now.getTime())}.md`);
    if (await createExclusive(file, data)) return ok({ path: rel(agentDir, file), bytes: Buffer.byteLength(data) });
  }
  return err({ file: rel(agentDir, d.value), message: 'could not pick a new file name; try again' });
}

/** Appends one JSON record to a `.jsonl` file under history/ (one O_APPEND write, never interleaved). */
export async function appendHistoryRecord(agentDir: string, name: string, record: unknown): Promise<void> {
  if (!/^[A-Za-z0-9._-]+\.jsonl$/.test(name)) throw new Error(`history record file must be a plain *.jsonl name, got ${name}`);
  const d = await plainHistoryDir(agentDir);
  if (!d.ok) throw new Error(`${d.error.file}: ${d.error.message}`);
  await appendLineAtomic(path.join(d.value, name), JSON.stringify(record));
}

/** Lists `history/session-*.md`, newest first. */
export async function listHistory(agentDir: string): Promise<HistoryFile[]> {
  let names: string[];
  try {
    names = await fs.promises.readdir(historyDir(agentDir));
  } catch {
    return [];
  }
  const out: HistoryFile[] = [];
  for (const name of names) {
    if (!/^session-.*\.md$/.test(name)) continue;
    try {
      const abs = path.join(historyDir(agentDir), name);
      const st = await fs.promises.lstat(abs);
      if (st.isFile()) out.push({ name, path: rel(agentDir, abs), bytes: st.size, mtimeMs: st.mtimeMs });
    } catch {
      // vanished
    }
  }
  // ULIDs sort by time.
  return out.sort((a, b) => b.name.localeCompare(a.name));
}
