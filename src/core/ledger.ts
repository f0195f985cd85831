import * as fs from 'node:fs';
import * as path from 'node:path';
import { appendLineAtomic } from './fsAtomic';

/*
 * `.agent/history/tools.jsonl`: one JSON line per tool invocation, from the extension and the MCP
 * server alike. Each line is written with a single O_APPEND write, so two processes appending at
 * the same moment never interleave within a line.
 *
 *   {"time":"2026-11-29T19:00:00.000Z","tool":"agentContext_run","source":"vscode",
 *    "input":"{\"command\":\"npm test\"}","output":".agent/scratch/tool_outputs/npm-test-01J….txt",
 *    "rawTokens":48210,"returnedTokens":412,"ok":true,"text":"Saved: …"}
 */

/** One ledger record. */
export interface LedgerEntry {
  time: string;
  tool: string;
  source: 'vscode' | 'mcp' | string;
  /** The input as JSON, cut to INPUT_SUMMARY_CHARS. */
  input: string;
  /** Workspace-relative path of the offloaded output, when there is one. */
  output?: string;
  /** Tokens the agent would have seen without the tool (the full output or file range). */
  rawTokens: number;
  /** Tokens of the text actually returned. */
  returnedTokens: number;
  ok: boolean;
  /** The returned text itself (at most a few KB), so what the agent saw stays auditable. */
  text: string;
}

const INPUT_SUMMARY_CHARS = 300;

/** Absolute path of the ledger inside a `.agent` folder. */
export function ledgerPath(agentDir: string): string {
  return path.join(agentDir, 'history', 'tools.jsonl');
}

/** Summarises a tool input for the ledger: JSON, cut to a few hundred characters. */
export function summarizeInput(input: unknown): string {
  let s: string;
  try {
    s = JSON.stringify(input) ?? '';
  } catch {
    s = String(input);
  }
  return s.length > INPUT_SUMMARY_CHARS ? s.slice(0, INPUT_SUMMARY_CHARS) + '…' : s;
}

/** Appends one entry as one line with a single O_APPEND write. */
export async function appendLedger(agentDir: string, entry: LedgerEntry): Promise<void> {
  await appendLineAtomic(ledgerPath(agentDir), JSON.stringify(entry));
}

/** Reads the ledger; lines that are not valid entries are counted, not fatal. */
export async function readLedger(agentDir: string): Promise<{ entries: LedgerEntry[]; badLines: number[] }> {
  let text = '';
  try {
    text = await fs.promises.readFile(ledgerPath(agentDir), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const entries: LedgerEntry[] = [];
  const badLines: number[] = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    try {
      const o = JSON.parse(line) as LedgerEntry;
      if (typeof o.tool === 'string' && typeof o.time === 'string') entries.push(o);
      else badLines.push(i + 1);
    } catch {
      badLines.push(i + 1);
    }
  });
  return { entries, badLines };
}

/** Totals of a group of invocations. */
export interface LedgerTotals {
  calls: number;
  rawTokens: number;
  returnedTokens: number;
  /** rawTokens − returnedTokens, never below zero per call. */
  savedTokens: number;
}

/** Tokens kept out of context by one entry. */
export function savedBy(e: LedgerEntry): number {
  return Math.max(0, (e.rawTokens || 0) - (e.returnedTokens || 0));
}

function add(t: LedgerTotals | undefined, e: LedgerEntry): LedgerTotals {
  const x = t ?? { calls: 0, rawTokens: 0, returnedTokens: 0, savedTokens: 0 };
  x.calls++;
  x.rawTokens += e.rawTokens || 0;
  x.returnedTokens += e.returnedTokens || 0;
  x.savedTokens += savedBy(e);
  return x;
}

/** Local calendar day (YYYY-MM-DD) of a timestamp. */
export function localDay(t: Date | string): string {
  const d = typeof t === 'string' ? new Date(t) : t;
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** Per-tool and per-day totals, plus today's, for the status bar and the report. */
export function summarizeLedger(entries: readonly LedgerEntry[], now = new Date()): {
  today: LedgerTotals;
  byTool: Map<string, LedgerTotals>;
  byDay: Map<string, LedgerTotals>;
  total: LedgerTotals;
} {
  const today = localDay(now);
  let todayTotals: LedgerTotals = { calls: 0, rawTokens: 0, returnedTokens: 0, savedTokens: 0 };
  let total: LedgerTotals | undefined;
  const byTool = new Map<string, LedgerTotals>();
  const byDay = new Map<string, LedgerTotals>();
  for (const e of entries) {
    const day = localDay(e.time);
    byTool.set(e.tool, add(byTool.get(e.tool), e));
    byDay.set(day, add(byDay.get(day), e));
    total = add(total, e);
    if (day === today) todayTotals = add(todayTotals, e);
  }
  return { today: todayTotals, byTool, byDay, total: total ?? { calls: 0, rawTokens: 0, returnedTokens: 0, savedTokens: 0 } };
}

/** A Markdown report of the ledger: per tool, per day (newest first), with a bar per day. */
export function formatLedgerReport(entries: readonly LedgerEntry[], now = new Date()): string {
  const s = summarizeLedger(entries, now);
  const n = (x: number): string => x.toLocaleString('en-US');
  const out = ['# Agent Context: tokens kept out of context', ''];
  out.push(`Today: **${n(s.today.savedTokens)}** tokens kept out (${n(s.today.calls)} calls). All time: ${n(s.total.savedTokens)} tokens over ${n(s.total.calls)} calls.`, '');
  out.push('## Per tool', '', '| tool | calls | raw tokens | returned tokens | kept out | saving |', '|---|---:|---:|---:|---:|---:|');
  for (const [tool, t] of [...s.byTool].sort((a, b) => b[1].savedTokens - a[1].savedTokens)) {
    const pct = t.rawTokens > 0 ? `${Math.round((t.savedTokens / t.rawTokens) * 100)}%` : '–';
    out.push(`| ${tool} | ${n(t.calls)} | ${n(t.rawTokens)} | ${n(t.returnedTokens)} | ${n(t.savedTokens)} | ${pct} |`);
  }
  out.push('', '## Per day', '', '| day | calls | kept out | |', '|---|---:|---:|---|');
  const days = [...s.byDay].sort((a, b) => (a[0] < b[0] ? 1 : -1));
  const max = Math.max(1, ...days.map(([, t]) => t.savedTokens));
  for (const [day, t] of days) {
    out.push(`| ${day} | ${n(t.calls)} | ${n(t.savedTokens)} | ${'█'.repeat(Math.round((t.savedTokens / max) * 30))} |`);
  }
  out.push('', 'Source: `.agent/history/tools.jsonl` (one line per call, with the text the agent saw).');
  return out.join('\n') + '\n';
}

/**
 * Follows the ledger incrementally (the status bar): each call reads only the bytes appended since
 * the last one, so a long ledger is not re-read on every tool call.
 */
export class LedgerFollower {
  private offset = 0;
  private partial = '';
  private readonly entries: LedgerEntry[] = [];

  constructor(private readonly agentDir: string) {}

  /** Reads new complete lines; returns all entries seen so far. */
  async poll(): Promise<readonly LedgerEntry[]> {
    const file = ledgerPath(this.agentDir);
    let fh: fs.promises.FileHandle;
    try {
      fh = await fs.promises.open(file, 'r');
    } catch {
      return this.entries;
    }
    try {
      const size = (await fh.stat()).size;
      if (size < this.offset) {
        // Replaced or truncated by hand: start over.
        this.offset = 0;
        this.partial = '';
        this.entries.length = 0;
      }
      if (size === this.offset) return this.entries;
      const buf = Buffer.alloc(size - this.offset);
      const { bytesRead } = await fh.read(buf, 0, buf.length, this.offset);
      this.offset += bytesRead;
      const text = this.partial + buf.subarray(0, bytesRead).toString('utf8');
      const lines = text.split('\n');
      this.partial = lines.pop() ?? '';
      for (const line of lines) {
        try {
          const o = JSON.parse(line) as LedgerEntry;
          // Only what the summary needs: the returned text can be dropped.
          if (typeof o.tool === 'string') this.entries.push({ ...o, text: '' });
        } catch {
          // a bad line is skipped; readLedger reports it
        }
      }
    } finally {
      await fh.close();
    }
    return this.entries;
  }
}
