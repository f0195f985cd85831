// Shared by the terminal catalog's tests: a generated folder, what the catalog must say computed
// from the files alone, and appends made the way the capture writer makes them.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { generateAgentFolder } from '../../../../bench/scaleGen';
import { terminalCatalog } from '../../../../src/core/terminal/catalog/terminalCatalog';
import { commandEndMs } from '../../../../src/core/terminal/terminalSummary';
import { formatCommandFooter, formatCommandHeader, type IndexRecord, type TerminalCommand } from '../../../../src/core/terminal/terminalFormat';
import { listTerminals, readTerminalIndex } from '../../../../src/core/terminal/terminalIndex';
import { plainTerminals } from './plainTerminals';

export async function folder(terminals = 40): Promise<{ root: string; agentDir: string }> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ac-catalog-')));
  const g = await generateAgentFolder(root, 0.1, 5, new Date('2026-06-01T12:00:00Z'), { terminals: { terminals, longLived: 400 } });
  return { root, agentDir: g.agentDir };
}

/** What the catalog must say, computed from the files alone (every file read whole) by an oracle that shares no code with it (plainTerminals.ts). */
export async function fresh(agentDir: string): Promise<unknown> {
  return plainTerminals(agentDir);
}

export async function catalog(agentDir: string): Promise<unknown> {
  const r = await terminalCatalog(agentDir);
  assert.ok(r.ok);
  return r.value;
}

/** Appends one command to terminal n as the capture writer does; `done: false` leaves it running. */
export function appendCommand(agentDir: string, n: number, k: number, exit: number, done = true): void {
  const txt = path.join(agentDir, 'terminals', `${n}.txt`);
  const lines = fs.readFileSync(txt, 'utf8').split('\n').length - 1;
  const started = new Date('2026-06-01T13:00:00Z').getTime() + k * 1000;
  fs.appendFileSync(txt, `${formatCommandHeader(k, new Date(started), '/w', `make t${k}`)}\nout\n${done ? formatCommandFooter(k, exit, 500, 0) + '\n' : ''}`);
  const base: IndexRecord = { v: 1, command: k, status: 'running', file: `${n}.txt`, commandLine: `make t${k}`, cwd: '/w', started: new Date(started).toISOString(), headerLine: lines + 1, firstLine: lines + 2, lastLine: null, exitCode: null, durationMs: null, secretsMasked: 0 };
  const idx = path.join(agentDir, 'terminals', `${n}.index.jsonl`);
  fs.appendFileSync(idx, JSON.stringify(base) + '\n');
  if (done) fs.appendFileSync(idx, JSON.stringify({ ...base, status: 'done', lastLine: lines + 2, exitCode: exit, durationMs: 500 }) + '\n');
}

export const commandsOf = async (agentDir: string, n: number): Promise<number> => (await readTerminalIndex(agentDir, n)).ok ? ((await readTerminalIndex(agentDir, n)) as { value: { commands: unknown[] } }).value.commands.length : 0;

/** The newest failure across all terminals, how many terminals' last finished command failed, and how many terminals, from the files alone. */
export async function truth(agentDir: string): Promise<{ lastFailed: string; failedLast: number; total: number }> {
  const list = await listTerminals(agentDir);
  assert.ok(list.ok);
  let best: { n: number; c: TerminalCommand } | undefined;
  let failedLast = 0;
  const failed = (c: TerminalCommand | undefined): boolean => c !== undefined && c.status === 'done' && c.exitCode !== null && c.exitCode !== 0;
  for (const t of list.value) {
    const idx = await readTerminalIndex(agentDir, t.n);
    assert.ok(idx.ok);
    const cmds = idx.value.commands;
    if (failed(cmds.filter((c) => c.status === 'done').pop())) failedLast++;
    const f = cmds.filter(failed).pop();
    if (f && (!best || commandEndMs(f) >= commandEndMs(best.c))) best = { n: t.n, c: f };
  }
  return { lastFailed: best ? `Terminal ${best.n} command #${best.c.command}:` : 'No failed command', failedLast, total: list.value.length };
}
