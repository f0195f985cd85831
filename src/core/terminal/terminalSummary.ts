/**
 * Per-terminal summaries derived from `N.index.jsonl` without re-reading it: how many commands,
 * the last few, and the last one that failed. Built with AppendFold (src/core/fs/appendFold.ts):
 * each call reads only the records appended since the previous one, and a rotation (the index is
 * rewritten under a new inode) or a truncation resets it. The capture writer is unchanged.
 */
import * as path from 'node:path';
import { foldFile, type FoldSpec } from '../fs/appendFold';
import { cacheFile } from '../workspace/cacheFiles';
import { closingRecordOf, commandFromRecords, TERMINALS_DIR, type IndexRecord, type TerminalCommand } from './terminalFormat';
import type { LineOffset } from '../output/reference';

/** How many of the latest commands a summary keeps (the listing shows 3). */
export const RECENT_COMMANDS = 5;

interface State {
  /** Distinct commands seen (command numbers only grow within an index). */
  count: number;
  maxCommand: number;
  /** Records of the latest RECENT_COMMANDS commands, oldest first. */
  recent: [number, IndexRecord[]][];
  /** Records of the latest command that ended with a non-zero exit code. */
  lastFailed: [number, IndexRecord[]] | null;
  /** Unreadable lines (first few line numbers). */
  problems: number[];
}

function isRecord(r: unknown): r is IndexRecord {
  const o = r as IndexRecord;
  return typeof o === 'object' && o !== null && typeof o.command === 'number' && typeof o.file === 'string' && typeof o.firstLine === 'number';
}

const SPEC: FoldSpec<State> & { id: string } = {
  id: 'terminal-index',
  version: 1,
  init: () => ({ count: 0, maxCommand: 0, recent: [], lastFailed: null, problems: [] }),
  line(s, text, lineNo) {
    if (text.trim() === '') return;
    let r: unknown;
    try {
      r = JSON.parse(text);
    } catch {
      r = undefined;
    }
    if (!isRecord(r)) {
      if (!closingRecordOf(r) && s.problems.length < 20) s.problems.push(lineNo);
      return;
    }
    let entry = s.recent.find((e) => e[0] === r.command);
    if (!entry) {
      if (r.command > s.maxCommand || s.count === 0) s.count++;
      s.maxCommand = Math.max(s.maxCommand, r.command);
      entry = [r.command, []];
      s.recent.push(entry);
      s.recent.sort((a, b) => a[0] - b[0]);
      if (s.recent.length > RECENT_COMMANDS) s.recent.shift();
    }
    entry[1].push(r);
    if (r.status === 'done' && r.exitCode !== null && r.exitCode !== 0) s.lastFailed = [r.command, [...entry[1]]];
  },
};

/** What a terminal's index says, from its summary. */
export interface TerminalSummary {
  n: number;
  /** Commands in the index (N.1.txt and N.txt). */
  commands: number;
  /** The latest commands, oldest first (at most RECENT_COMMANDS). */
  recent: TerminalCommand[];
  last?: TerminalCommand;
  lastFailed?: TerminalCommand;
  /** 1-based lines of the index that could not be read (the first few). */
  problems: number[];
}

/** The summary of terminal N (reads only what was appended to N.index.jsonl since the last call in this process). */
export async function terminalSummary(agentDir: string, n: number): Promise<TerminalSummary> {
  const file = path.join(agentDir, TERMINALS_DIR, `${n}.index.jsonl`);
  const { state } = await foldFile(file, SPEC, cacheFile(agentDir, 'terminalIndexFold', String(n))).read();
  const recent = state.recent.map(([k, recs]) => commandFromRecords(k, recs));
  return {
    n,
    commands: state.count,
    recent,
    last: recent[recent.length - 1],
    lastFailed: state.lastFailed ? commandFromRecords(state.lastFailed[0], state.lastFailed[1]) : undefined,
    problems: [...state.problems],
  };
}

/** End time of a command (start + duration), for ordering failures across terminals. */
export function commandEndMs(c: TerminalCommand): number {
  const t = Date.parse(c.started);
  return (Number.isNaN(t) ? 0 : t) + (c.durationMs ?? 0);
}

/** Every LINE_STEP-th line start of a terminal text file is remembered. */
const LINE_STEP = 2048;

const LINES_SPEC: FoldSpec<{ offsets: number[] }> & { id: string } = {
  id: 'terminal-lines',
  version: 1,
  init: () => ({ offsets: [] }),
  line(s, _text, lineNo, byteOffset) {
    if ((lineNo - 1) % LINE_STEP === 0) s.offsets.push(byteOffset);
  },
};

/**
 * A line start at or before `line` in a terminal file (`terminals/N.txt` or `N.1.txt`, relative to
 * the .agent folder), so reading a command's lines skips the file's head instead of counting
 * lines from the top. Folded incrementally like the index.
 */
export async function lineOffsetBefore(agentDir: string, relFile: string, line: number): Promise<LineOffset> {
  const name = path.basename(relFile);
  const { state } = await foldFile(path.join(agentDir, relFile), LINES_SPEC, cacheFile(agentDir, 'terminalLinesFold', name)).read();
  const i = Math.min(state.offsets.length - 1, Math.floor((line - 1) / LINE_STEP));
  return i >= 0 ? { line: i * LINE_STEP + 1, byte: state.offsets[i] } : { line: 1, byte: 0 };
}
