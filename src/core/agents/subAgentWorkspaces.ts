/**
 * Sub-agent workspaces: `.agent/agents/<id>/` with
 * - `findings.md` — append-only; each entry is `## <ISO time>` then the text, written with one
 *   O_APPEND write so agents in different processes never interleave or clobber each other;
 * - `status.json` — `{ agentId, status, progress, updated, details }`, replaced atomically;
 * - any other files the agent writes there.
 * A call only ever writes inside the folder of the agent id it was given.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { appendLineAtomic, mkdirp, writeFileAtomic } from '../fs/fsAtomic';
import { leadsOutside, outsideLinkMessage } from '../workspace/linkGuard';
import { Result, ok, err } from '../result';
import { foldFile, type FoldSpec } from '../fs/appendFold';
import { cacheFile } from '../workspace/cacheFiles';
import { toPosixRelative } from '../workspace/relativePaths';
import { checkAgentId } from './agentId';
import { agentActivityChanged, rankAgents } from './agentRanking';
import { agentPath } from '../workspace/layout';

export { checkAgentId } from './agentId';
export { agentActivityChanged, rankAgents, settleAgentRanking, type AgentActivity } from './agentRanking';

/** Statuses a sub-agent may report. */
export const AGENT_STATUSES = ['idle', 'working', 'blocked', 'done', 'failed'] as const;
export type AgentStatusValue = (typeof AGENT_STATUSES)[number];

/** Largest finding accepted in one call; longer material belongs in a file in the agent's folder. */
export const MAX_FINDING_CHARS = 16_000;

/** Contents of status.json. */
export interface AgentStatus {
  agentId: string;
  status: AgentStatusValue;
  progress: number;
  updated: string;
  details?: string;
}

/** One entry of findings.md. */
export interface Finding {
  time: string;
  text: string;
  /** 1-based line of the heading. */
  line: number;
}

/** What a listing shows for one agent. */
export interface AgentSummary {
  id: string;
  /** Workspace-relative folder. */
  folder: string;
  status?: AgentStatus;
  /** Set when status.json exists but cannot be read. */
  statusError?: string;
  findings: number;
  findingsBytes: number;
  /** Other files in the folder (relative to it), at most 200. */
  files: string[];
}

const HEADING_RE = /^## (\d{4}-\d\d-\d\dT[0-9:.]+Z)\s*$/;

function rel(agentDir: string, abs: string): string {
  return toPosixRelative(path.dirname(agentDir), abs);
}

/** Absolute folder of a sub-agent (the id must have passed checkAgentId). */
export function subAgentFolder(agentDir: string, id: string): string {
  return agentPath(agentDir, 'agents', id);
}

/** Refuses when `agents/` or `agents/<id>` is a symlink (it could lead outside the workspace). */
async function ensureOwnFolder(agentDir: string, id: string, create: boolean): Promise<Result<string>> {
  const reason = checkAgentId(id);
  const folder = subAgentFolder(agentDir, id);
  if (reason) return err({ file: rel(agentDir, agentPath(agentDir, 'agents')), message: reason });
  for (const p of [agentPath(agentDir, 'agents'), folder]) {
    try {
      const st = await fs.promises.lstat(p);
      if (st.isSymbolicLink() || !st.isDirectory()) return err({ file: rel(agentDir, p), message: 'is not a plain folder (a symlink or a file); refusing to write through it' });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      if (!create) return err({ file: rel(agentDir, p), message: 'does not exist' });
      await mkdirp(p);
    }
  }
  return ok(folder);
}

/** Appends one timestamped entry to the agent's findings.md with a single O_APPEND write. */
export async function writeFinding(agentDir: string, id: string, content: string, opts: { now?: Date } = {}): Promise<Result<{ path: string; time: string }>> {
  const f = await ensureOwnFolder(agentDir, id, true);
  if (!f.ok) return f;
  const file = path.join(f.value, 'findings.md');
  const text = (content ?? '').replace(/\r\n?/g, '\n').trim();
  if (!text) return err({ file: rel(agentDir, file), message: 'the finding is empty; pass the text in `content`' });
  if (text.length > MAX_FINDING_CHARS) {
    return err({ file: rel(agentDir, file), message: `the finding is ${text.length} characters; the limit is ${MAX_FINDING_CHARS}. Write the long part to a file in ${rel(agentDir, f.value)}/ and record its path as the finding` });
  }
  const time = (opts.now ?? new Date()).toISOString();
  // A line inside the text that looks like an entry heading would split the entry when read back.
  const safe = text.replace(/^## (?=\d{4}-\d\d-\d\dT)/gm, '### ');
  // findings.md replaced by a link out of the workspace: an append would write there.
  const out = await leadsOutside(path.dirname(agentDir), file);
  if (out) return err({ file: rel(agentDir, file), message: outsideLinkMessage(out) });
  await appendLineAtomic(file, `\n## ${time}\n\n${safe}\n`);
  agentActivityChanged(agentDir, [file]);
  return ok({ path: rel(agentDir, file), time });
}

/** Replaces the agent's status.json atomically (temp file + rename). */
export async function setAgentStatus(
  agentDir: string,
  id: string,
  input: { status?: string; progress?: number; details?: string },
  opts: { now?: Date } = {},
): Promise<Result<{ path: string; status: AgentStatus }>> {
  const f = await ensureOwnFolder(agentDir, id, true);
  if (!f.ok) return f;
  const file = path.join(f.value, 'status.json');
  const status = input.status ?? 'working';
  if (!(AGENT_STATUSES as readonly string[]).includes(status)) {
    return err({ file: rel(agentDir, file), message: `unknown status "${status}"; use one of ${AGENT_STATUSES.join(', ')}` });
  }
  let progress = input.progress ?? (status === 'done' ? 1 : 0);
  if (typeof progress !== 'number' || !Number.isFinite(progress) || progress < 0 || progress > 1) {
    return err({ file: rel(agentDir, file), message: `progress must be a number from 0 to 1 (got ${String(input.progress)})` });
  }
  progress = Math.round(progress * 1000) / 1000;
  if (input.details !== undefined && input.details.length > 2000) {
    return err({ file: rel(agentDir, file), message: `details are ${input.details.length} characters; the limit is 2000 — write findings for longer text` });
  }
  const s: AgentStatus = { agentId: id, status: status as AgentStatusValue, progress, updated: (opts.now ?? new Date()).toISOString() };
  if (input.details) s.details = input.details;
  await writeFileAtomic(file, JSON.stringify(s, null, 2) + '\n');
  agentActivityChanged(agentDir, [file]);
  return ok({ path: rel(agentDir, file), status: s });
}

/** Splits findings.md into entries (text before the first heading is ignored). */
export function parseFindings(text: string): Finding[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const out: Finding[] = [];
  let cur: { time: string; line: number; body: string[] } | undefined;
  const flush = () => {
    if (cur) out.push({ time: cur.time, line: cur.line, text: cur.body.join('\n').trim() });
  };
  lines.forEach((l, i) => {
    const m = HEADING_RE.exec(l);
    if (m) {
      flush();
      cur = { time: m[1], line: i + 1, body: [] };
    } else if (cur) cur.body.push(l);
  });
  flush();
  return out;
}

/** A status.json is a few hundred bytes; anything much larger is not one (and is not read whole). */
const STATUS_MAX_BYTES = 64 * 1024;

/**
 * Reads status.json synchronously: a listing reads up to 40 of them, and a synchronous read of a
 * small file costs a seventh of fs.promises.readFile (measured: 0.5 against 3.4 ms for 40). Opened
 * non-blocking, so a FIFO in its place cannot hang the reader; anything but a small regular file
 * is reported, not read.
 */
function readStatus(file: string): { status?: AgentStatus; error?: string } {
  let text: string;
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? {} : { error: (e as Error).message };
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return { error: 'status.json is not a regular file' };
    if (st.size > STATUS_MAX_BYTES) return { error: `status.json is ${st.size} bytes; a status is a small JSON object (rewrite it with setStatus)` };
    const buf = Buffer.allocUnsafe(st.size);
    let got = 0;
    while (got < buf.length) {
      const n = fs.readSync(fd, buf, got, buf.length - got, got);
      if (n === 0) break;
      got += n;
    }
    text = buf.toString('utf8', 0, got);
  } catch (e) {
    return { error: (e as Error).message };
  } finally {
    fs.closeSync(fd);
  }
  try {
    const o = JSON.parse(text) as Partial<AgentStatus>;
    if (!o || typeof o !== 'object' || typeof o.status !== 'string') return { error: 'status.json has no "status" field' };
    return { status: { agentId: String(o.agentId ?? ''), status: o.status as AgentStatusValue, progress: Number(o.progress ?? 0), updated: String(o.updated ?? ''), details: o.details } };
  } catch (e) {
    return { error: `status.json is not valid JSON: ${(e as Error).message}` };
  }
}

const FINDINGS_SPEC: FoldSpec<{ count: number }> & { id: string } = {
  id: 'agent-findings',
  version: 1,
  init: () => ({ count: 0 }),
  line(s, text) {
    if (HEADING_RE.test(text)) s.count++;
  },
};

/**
 * The count of an agent's findings, folded incrementally (findings.md is append-only); a big file's
 * fold is checkpointed in `.agent/.cache/` (once 256 KB were folded), so a new process does not
 * read 50 MB of findings again to count them.
 */
function findingsFold(agentDir: string, id: string) {
  return foldFile(path.join(subAgentFolder(agentDir, id), 'findings.md'), FINDINGS_SPEC, cacheFile(agentDir, 'findingsFold', id));
}

/** Status, findings count (folded incrementally: findings.md is append-only) and other files of one agent. */
export async function summarizeAgent(agentDir: string, id: string): Promise<AgentSummary> {
  const folder = subAgentFolder(agentDir, id);
  const { status, error } = readStatus(path.join(folder, 'status.json'));
  let findings = 0;
  let findingsBytes = 0;
  try {
    const r = await findingsFold(agentDir, id).read();
    findings = r.state.count;
    findingsBytes = r.offset;
  } catch {
    // unreadable findings: counted as none
  }
  const files: string[] = [];
  const walk = async (dir: string) => {
    let es: fs.Dirent[];
    try {
      es = await fs.promises.readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of es) {
      if (files.length >= 200) return;
      const p = path.join(dir, e.name);
      const r = toPosixRelative(folder, p);
      if (r === 'findings.md' || r === 'status.json' || e.name.startsWith('.')) continue;
      if (e.isDirectory()) await walk(p);
      else if (e.isFile()) files.push(r);
    }
  };
  await walk(folder);
  return { id, folder: rel(agentDir, folder), status, statusError: error, findings, findingsBytes, files: files.sort() };
}

async function agentIds(agentDir: string): Promise<string[]> {
  const root = agentPath(agentDir, 'agents');
  try {
    const st = await fs.promises.lstat(root);
    if (!st.isDirectory()) return [];
    return (await fs.promises.readdir(root, { withFileTypes: true })).filter((d) => d.isDirectory() && !checkAgentId(d.name)).map((d) => d.name);
  } catch {
    return [];
  }
}

/** Lists every agent folder with its status, number of findings and other files, sorted by id. */
export async function listAgents(agentDir: string): Promise<AgentSummary[]> {
  const out = await Promise.all((await agentIds(agentDir)).map((id) => summarizeAgent(agentDir, id)));
  return out.sort((a, b) => a.id.localeCompare(b.id));
}

/**
 * The `limit` most recently active agents (newest first) from `offset` on, with their summaries, and
 * how many agents there are: only those returned are read, the rest cost two stats each.
 */
export async function recentAgents(agentDir: string, limit: number, offset = 0): Promise<{ total: number; agents: (AgentSummary & { activeMs: number })[] }> {
  const ranked = await rankAgents(agentDir);
  const shown = await Promise.all(ranked.slice(Math.max(0, offset), Math.max(0, offset) + Math.max(0, limit)).map(async (a) => ({ ...(await summarizeAgent(agentDir, a.id)), activeMs: a.activeMs })));
  return { total: ranked.length, agents: shown };
}

/** Why an agent's findings cannot be read (a bad id, no such agent, a symlinked folder), or undefined. */
async function findingsProblem(agentDir: string, id: string): Promise<Result<string>> {
  const reason = checkAgentId(id);
  if (reason) return err({ file: rel(agentDir, agentPath(agentDir, 'agents')), message: reason });
  try {
    const st = await fs.promises.lstat(subAgentFolder(agentDir, id));
    if (!st.isDirectory()) return err({ file: rel(agentDir, subAgentFolder(agentDir, id)), message: 'is not a plain folder; refusing to read through it' });
  } catch {
    return err({ file: rel(agentDir, subAgentFolder(agentDir, id)), message: `no agent "${id}"; list agents to see their ids` });
  }
  return ok(path.join(subAgentFolder(agentDir, id), 'findings.md'));
}

/** Reads an agent's findings (its own or a peer's); a missing file is an empty list. */
export async function readFindings(agentDir: string, id: string): Promise<Result<{ path: string; findings: Finding[] }>> {
  const p = await findingsProblem(agentDir, id);
  if (!p.ok) return p;
  const file = p.value;
  try {
    return ok({ path: rel(agentDir, file), findings: parseFindings(await fs.promises.readFile(file, 'utf8')) });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return ok({ path: rel(agentDir, file), findings: [] });
    return err({ file: rel(agentDir, file), message: `cannot read: ${(e as Error).message}` });
  }
}

/**
 * An agent's newest findings, at least `bytes` of them (whole entries, with their line numbers in
 * the file), and how many it has in all: the count comes from the incremental fold, and only the
 * end of the file is read, so a findings file of 50 MB costs what its last entries take.
 */
export async function readRecentFindings(agentDir: string, id: string, bytes: number): Promise<Result<{ path: string; total: number; findings: Finding[] }>> {
  const p = await findingsProblem(agentDir, id);
  if (!p.ok) return p;
  const file = p.value;
  const shown = rel(agentDir, file);
  let fh: fs.promises.FileHandle | undefined;
  try {
    const fold = await findingsFold(agentDir, id).read();
    // What the fold has seen: complete lines up to `offset`; a later append shows at the next call.
    const end = fold.offset;
    if (end <= 4 * bytes) {
      const all = parseFindings((await fs.promises.readFile(file)).subarray(0, end).toString('utf8'));
      return ok({ path: shown, total: all.length, findings: all });
    }
    fh = await fs.promises.open(file, 'r');
    for (let span = 4 * bytes; ; span *= 2) {
      const start = Math.max(0, end - span);
      const buf = Buffer.alloc(end - start);
      let got = 0;
      while (got < buf.length) {
        const { bytesRead } = await fh.read(buf, got, buf.length - got, start + got);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
      // From the first whole line on (unless at the start of the file): its number from the fold's line count.
      const from = start === 0 ? 0 : buf.indexOf(10) + 1;
      const text = buf.subarray(from, got).toString('utf8');
      let newlines = 0;
      for (let i = from; i < got; i++) if (buf[i] === 10) newlines++;
      const firstLine = fold.lines - newlines + 1;
      const found = parseFindings(text).map((f) => ({ ...f, line: f.line + firstLine - 1 }));
      // The first entry may have begun before the chunk: dropped unless the chunk starts the file.
      const whole = start === 0 ? found : found.slice(1);
      let at = 0;
      for (let k = whole.length ? whole[0].line - firstLine : 0; k > 0 && at !== -1; k--) at = text.indexOf('\n', at) + 1 || -1;
      const wholeBytes = whole.length && at !== -1 ? Buffer.byteLength(text.slice(at)) : 0;
      if (start === 0 || wholeBytes >= 2 * bytes) return ok({ path: shown, total: start === 0 ? whole.length : fold.state.count, findings: whole });
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return ok({ path: shown, total: 0, findings: [] });
    return err({ file: shown, message: `cannot read: ${(e as Error).message}` });
  } finally {
    await fh?.close();
  }
}
