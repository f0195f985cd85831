import * as fs from 'node:fs';
import * as path from 'node:path';

/*
 * What `.agent/terminals/` holds, found the plainest way there is, from docs/terminal-format.md
 * alone: every N.txt read whole, every N.index.jsonl parsed line by line, the last record of a
 * command winning. It shares no code with terminalIndex.ts, terminalSummary.ts or the catalog, so
 * the catalog's tests compare against it and a bug in the readers they share cannot hide (as
 * test/slow/scratch/index/plainScan.ts does for the scratch index).
 */

interface PlainCommand {
  command: number;
  status: string;
  exitCode: number | null;
  exitUnknown: string | null;
  endMs: number;
}

/** Every terminal by number: its header facts and the brief the catalog keeps of its index. */
export function plainTerminals(agentDir: string): unknown[] {
  const dir = path.join(agentDir, 'terminals');
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const numbers = names.map((f) => /^(\d+)\.txt$/.exec(f)).filter((m) => m !== null).map((m) => Number(m[1])).sort((a, b) => a - b);
  const out: unknown[] = [];
  for (const n of numbers) {
    const text = fs.readFileSync(path.join(dir, `${n}.txt`), 'utf8');
    const header = new Map<string, string>();
    for (const line of text.split('\n')) {
      if (!line.startsWith('# ')) break;
      const m = /^# ([a-z ]+): (.*)$/.exec(line);
      if (m && !header.has(m[1])) header.set(m[1], m[2]);
    }
    const info: Record<string, unknown> = {
      n,
      name: header.get('terminal') ?? `terminal ${n}`,
      shell: header.get('shell') ?? null,
      cwd: header.get('cwd') ?? null,
      started: header.get('started') ?? null,
      shellIntegration: (header.get('shell integration') ?? '').startsWith('active') || text.includes('\n# shell integration became active'),
      file: `terminals/${n}.txt`,
      previousFile: names.includes(`${n}.1.txt`) ? `terminals/${n}.1.txt` : null,
      closed: /(^|\n)# terminal closed at [^\n]*\n?$/.test(text),
      sizeBytes: Buffer.byteLength(text),
    };
    if (header.has('agent')) Object.assign(info, { agent: header.get('agent'), session: header.get('session') ?? 'unknown' });
    out.push({ n, info, brief: brief(path.join(dir, `${n}.index.jsonl`)) });
  }
  return out;
}

function brief(file: string): unknown {
  let text = '';
  try {
    if (fs.statSync(file).isFile()) text = fs.readFileSync(file, 'utf8');
  } catch {
    // no index: no commands
  }
  const byNumber = new Map<number, PlainCommand>();
  // A closing record ({"v":1,"closed":...}, no command) after every command: the terminal closed, and whose it is.
  let closed: { agent: string | null; session: string | null } | undefined;
  for (const line of text.split('\n')) {
    let r: Record<string, unknown>;
    try {
      r = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue; // a cut or damaged line: not a record
    }
    if (r?.v === 1 && typeof r.closed === 'string' && r.command === undefined) {
      closed = typeof r.agent === 'string' ? { agent: r.agent, session: typeof r.session === 'string' ? r.session : 'unknown' } : { agent: null, session: null };
      continue;
    }
    if (typeof r?.command !== 'number') continue;
    closed = undefined;
    const exitCode = typeof r.exitCode === 'number' ? r.exitCode : null;
    const status = r.status === 'done' ? 'done' : 'running';
    byNumber.set(r.command, {
      command: r.command,
      status,
      exitCode,
      exitUnknown: status === 'done' && exitCode === null ? (typeof r.exitUnknown === 'string' ? r.exitUnknown : 'not recorded') : null,
      endMs: (Date.parse(String(r.started)) || 0) + (typeof r.durationMs === 'number' ? r.durationMs : 0),
    });
  }
  const commands = [...byNumber.values()].sort((a, b) => a.command - b.command);
  const done = commands.filter((c) => c.status === 'done');
  const failed = done.filter((c) => c.exitCode !== null && c.exitCode !== 0);
  return { commands: commands.length, last: commands.at(-1) ?? null, lastDone: done.at(-1) ?? null, lastFailed: failed.at(-1) ?? null, ...(closed ? { closed } : {}) };
}
