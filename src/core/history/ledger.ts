import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { appendLineAtomic } from '../fs/fsAtomic';
import { leadsOutside, outsideLinkMessage } from '../workspace/linkGuard';
import { foldFile, type FoldSpec } from '../fs/appendFold';
import { cacheFile } from '../workspace/cacheFiles';
import { groupDigits, plural } from '../output/humanize';
import { agentPath } from '../workspace/layout';

/*
 * The tool ledger: one JSON line per tool invocation, from the extension and the MCP server alike,
 * in one file per month, `.agent/history/tools-YYYY-MM.jsonl` (the UTC month of the call), so no
 * file grows without bound. A folder from before rotation keeps its `tools.jsonl`: it is read as the
 * oldest part and never rewritten (history is append-only). Each line is written with a single
 * O_APPEND write, so two processes appending at the same moment never interleave within a line.
 * Totals per day and tool are folded incrementally (records/appendFold.ts): the status bar and the
 * report read only what was appended since they last looked.
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

/** The ledger file of before monthly rotation (still read, never written). */
export const LEGACY_LEDGER = 'tools.jsonl';
const MONTH_FILE = /^tools-(\d{4}-\d\d)\.jsonl$/;

/** Absolute path of the ledger file that records calls made at `time` (default now): `history/tools-YYYY-MM.jsonl`. */
export function ledgerPath(agentDir: string, time: Date | string = new Date()): string {
  const iso = typeof time === 'string' ? time : time.toISOString();
  const month = /^\d{4}-\d\d/.test(iso) ? iso.slice(0, 7) : new Date().toISOString().slice(0, 7);
  return agentPath(agentDir, 'history', `tools-${month}.jsonl`);
}

/** Every ledger file, oldest first: the legacy `tools.jsonl`, then the months. */
export async function ledgerFiles(agentDir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await fs.promises.readdir(agentPath(agentDir, 'history'));
  } catch {
    return [];
  }
  const months = names.filter((n) => MONTH_FILE.test(n)).sort();
  return [...(names.includes(LEGACY_LEDGER) ? [LEGACY_LEDGER] : []), ...months].map((n) => agentPath(agentDir, 'history', n));
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

/** Appends one entry (to its month's file) as one line with a single O_APPEND write; refuses a history folder or file linked out of the workspace. */
export async function appendLedger(agentDir: string, entry: LedgerEntry): Promise<void> {
  const file = ledgerPath(agentDir, entry.time);
  // The folder (one realpath); the month file only when it is itself a link.
  const root = path.dirname(agentDir);
  const out = (await leadsOutside(root, path.dirname(file))) ?? (fs.lstatSync(file, { throwIfNoEntry: false })?.isSymbolicLink() ? await leadsOutside(root, file) : undefined);
  if (out) throw new Error(outsideLinkMessage(out));
  await appendLineAtomic(file, JSON.stringify(entry));
}

/**
 * Reads every entry of every ledger file, line by line (a ledger of any size, never one string);
 * lines that are not valid entries are reported by file and line, not fatal. For totals, use
 * ledgerSummary, which does not keep the entries.
 */
export async function readLedger(agentDir: string): Promise<{ entries: LedgerEntry[]; badLines: number[]; bad: { file: string; line: number }[] }> {
  const entries: LedgerEntry[] = [];
  const badLines: number[] = [];
  const bad: { file: string; line: number }[] = [];
  for (const file of await ledgerFiles(agentDir)) {
    const rl = readline.createInterface({ input: fs.createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
    let n = 0;
    for await (const line of rl) {
      n++;
      if (!line.trim()) continue;
      const o = parseEntry(line);
      if (o) entries.push(o);
      else {
        badLines.push(n);
        bad.push({ file: path.basename(file), line: n });
      }
    }
  }
  return { entries, badLines, bad };
}

function parseEntry(line: string): LedgerEntry | undefined {
  try {
    const o = JSON.parse(line) as LedgerEntry;
    return o && typeof o.tool === 'string' && typeof o.time === 'string' ? o : undefined;
  } catch {
    return undefined;
  }
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

/** Per-tool and per-day totals, plus today's: what the status bar and the report show. */
export interface LedgerSummary {
  today: LedgerTotals;
  byTool: Map<string, LedgerTotals>;
  byDay: Map<string, LedgerTotals>;
  total: LedgerTotals;
}

const zero = (): LedgerTotals => ({ calls: 0, rawTokens: 0, returnedTokens: 0, savedTokens: 0 });

/** Per-tool and per-day totals, plus today's, for the status bar and the report. */
export function summarizeLedger(entries: readonly LedgerEntry[], now = new Date()): LedgerSummary {
  const today = localDay(now);
  let todayTotals: LedgerTotals = zero();
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
  return { today: todayTotals, byTool, byDay, total: total ?? zero() };
}

/** Folded state of one ledger file: totals per local day and tool, and the first unreadable lines. */
interface LedgerFoldState {
  days: Record<string, Record<string, LedgerTotals>>;
  badCount: number;
  bad: number[];
}

const LEDGER_SPEC: FoldSpec<LedgerFoldState> & { id: string } = {
  id: 'ledger-totals',
  version: 1,
  init: () => ({ days: {}, badCount: 0, bad: [] }),
  line(s, text, lineNo) {
    if (!text.trim()) return;
    const e = parseEntry(text);
    if (!e) {
      s.badCount++;
      if (s.bad.length < 10) s.bad.push(lineNo);
      return;
    }
    const day = localDay(e.time);
    const tools = (s.days[day] ??= {});
    tools[e.tool] = add(tools[e.tool], e);
  },
};

function merge(into: LedgerTotals, t: LedgerTotals): LedgerTotals {
  into.calls += t.calls;
  into.rawTokens += t.rawTokens;
  into.returnedTokens += t.returnedTokens;
  into.savedTokens += t.savedTokens;
  return into;
}

/**
 * The ledger's totals from its incremental per-file summaries: a call reads only what was appended
 * to each file since the previous call in this process (or since the last checkpoint in
 * `.agent/.cache/`), however long the ledger is. Also names unreadable lines (file and line).
 */
export async function ledgerSummary(agentDir: string, now = new Date()): Promise<LedgerSummary & { bad: { file: string; line: number }[]; badCount: number }> {
  const today = localDay(now);
  const out: LedgerSummary = { today: zero(), byTool: new Map(), byDay: new Map(), total: zero() };
  const bad: { file: string; line: number }[] = [];
  let badCount = 0;
  for (const file of await ledgerFiles(agentDir)) {
    const { state } = await foldFile(file, LEDGER_SPEC, cacheFile(agentDir, 'ledgerFold', path.basename(file, '.jsonl'))).read();
    badCount += state.badCount;
    for (const line of state.bad) bad.push({ file: path.basename(file), line });
    for (const [day, tools] of Object.entries(state.days)) {
      const d = out.byDay.get(day) ?? zero();
      for (const [tool, t] of Object.entries(tools)) {
        merge(d, t);
        out.byTool.set(tool, merge(out.byTool.get(tool) ?? zero(), t));
        merge(out.total, t);
        if (day === today) merge(out.today, t);
      }
      out.byDay.set(day, d);
    }
  }
  return { ...out, bad, badCount };
}

/** The Markdown savings report from the ledger's summaries (see ledgerSummary), with unreadable lines named. */
export async function ledgerReport(agentDir: string, now = new Date()): Promise<string> {
  const s = await ledgerSummary(agentDir, now);
  let md = formatLedgerSummary(s);
  if (s.badCount) md += `\n${plural(s.badCount, 'unreadable line')} in .agent/history/ ${s.badCount === 1 ? 'was' : 'were'} skipped (first: ${s.bad.slice(0, 3).map((b) => `${b.file} line ${b.line}`).join(', ')}).\n`;
  return md;
}

/** The report's Markdown from totals (summarizeLedger or ledgerSummary). */
export function formatLedgerSummary(s: LedgerSummary): string {
  const n = groupDigits;
  const out = ['# Agent Context: tokens kept out of context', ''];
  out.push(`Today: **${plural(s.today.savedTokens, 'token')}** kept out (${plural(s.today.calls, 'call')}). All time: ${plural(s.total.savedTokens, 'token')} over ${plural(s.total.calls, 'call')}.`, '');
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
  out.push('', 'Source: `.agent/history/tools-YYYY-MM.jsonl`, one file per month (and `tools.jsonl` from before monthly files): one line per call, with the text the agent saw.');
  return out.join('\n') + '\n';
}
