// Helpers for the terminal capture suites: open a real terminal, run a command in it, read what
// .agent/terminals/N.txt and its index recorded for that command.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { type TerminalCommand, type TerminalInfo } from '../../src/core/terminal/terminalFormat';
import { listTerminals, readTerminalIndex } from '../../src/core/terminal/terminalIndex';
import { ui, waitFor } from './bridge';

export const agentDir = (): string => path.join(vscode.workspace.workspaceFolders![0].uri.fsPath, '.agent');
export const terminalsDir = (): string => path.join(agentDir(), 'terminals');

export interface OpenTerminal {
  terminal: vscode.Terminal;
  name: string;
  n: number;
}

let counter = 0;

/** A unique terminal name per test run. */
export function uniqueName(what: string): string {
  return `cap-${what}-${process.pid}-${++counter}`;
}

/** The capture file info of the terminal with this name, once its N.txt exists. */
export async function infoOf(name: string): Promise<TerminalInfo | undefined> {
  const l = await listTerminals(agentDir());
  return l.ok ? l.value.find((t) => t.name === name) : undefined;
}

/** Opens a bash terminal, waits for shell integration and for its capture file. */
export async function openTerminal(what: string): Promise<OpenTerminal> {
  const name = uniqueName(what);
  // PYENV_REHASH_TIMEOUT: on machines whose ~/.bashrc runs `pyenv init`, a stale rehash lock (left by a
  // killed shell) makes every new bash wait 60 s; one second is plenty for a test terminal.
  const terminal = vscode.window.createTerminal({ name, cwd: vscode.workspace.workspaceFolders![0].uri, env: { PYENV_REHASH_TIMEOUT: '1' } });
  terminal.show();
  await waitFor(() => terminal.shellIntegration, { timeout: 30_000, message: `shell integration in terminal ${name}` });
  const info = await waitFor(() => infoOf(name), { timeout: 15_000, message: `.agent/terminals/N.txt for ${name}` });
  return { terminal, name, n: info.n };
}

/** The terminal's commands from its index. */
export async function commandsOf(n: number): Promise<TerminalCommand[]> {
  const idx = await readTerminalIndex(agentDir(), n);
  if (!idx.ok) throw new Error(idx.error.message);
  return idx.value.commands;
}

/** The output lines of a command, read from the file(s) at the line ranges the index gives. */
export function outputOf(c: TerminalCommand): string[] {
  const out: string[] = [];
  for (const p of c.parts) {
    const lines = fs.readFileSync(path.join(agentDir(), p.file), 'utf8').split('\n');
    for (const l of lines.slice(p.firstLine - 1, p.lastLine ?? lines.length)) out.push(l);
  }
  return out;
}

/**
 * Runs one command line in the terminal (typed through the bridge, or sent with sendText) and
 * waits until the index records it as done. Returns the record and its output lines.
 */
export async function run(t: OpenTerminal, commandLine: string, opts: { type?: boolean; timeout?: number } = {}): Promise<{ cmd: TerminalCommand; output: string[] }> {
  const before = (await commandsOf(t.n)).length;
  if (opts.type) {
    t.terminal.show();
    await ui.terminalType(commandLine);
  } else {
    t.terminal.sendText(commandLine);
  }
  let cmd: TerminalCommand;
  try {
    cmd = await waitFor(
      async () => {
        const cs = await commandsOf(t.n);
        const last = cs[cs.length - 1];
        return cs.length > before && last.status === 'done' ? last : undefined;
      },
      { timeout: opts.timeout ?? 30_000, interval: 250, message: `terminal ${t.n} records "${commandLine}" as done` },
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}; ${await stallReport(t)}`);
  }
  return { cmd, output: outputOf(cmd) };
}

/**
 * What a command that never ended was doing, for the failure's message: how much its capture file
 * holds and when it last grew, and each process under the terminal's shell with its state and
 * kernel wait channel. A process asleep writing to the terminal (`wait_woken`) is held by VS Code's
 * flow control, which pauses the pty until the editor's renderer has drawn what it got: normal for
 * a fast producer (seq is there 3 s into a 12 s run, the file last written 2 s before). A capture
 * file that has not grown for minutes with the producer still there means the renderer stopped
 * taking output, and capture had nothing more to record: a cold CI saw `seq 1 2600000` stall so,
 * the terminal's own display stopped at line 640,105.
 */
async function stallReport(t: OpenTerminal): Promise<string> {
  const parts: string[] = [];
  try {
    const file = path.join(terminalsDir(), `${t.n}.txt`);
    const st = fs.statSync(file);
    parts.push(`${t.n}.txt holds ${st.size} bytes, last written ${Math.round((Date.now() - st.mtimeMs) / 1000)} s ago`);
  } catch (e) {
    parts.push(`capture file: ${(e as Error).message}`);
  }
  try {
    const shell = await t.terminal.processId;
    // Each process's state and parent, from the fields after its name in /proc/PID/stat (read once).
    const procs = new Map<number, { state: string; parent: number }>();
    for (const d of fs.readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
      try {
        const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
        const [state, parent] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        procs.set(Number(d), { state, parent: Number(parent) });
      } catch {
        // gone meanwhile
      }
    }
    const under = (pid: number): boolean => {
      for (let p: number | undefined = pid; p !== undefined && p > 1; p = procs.get(p)?.parent) if (p === shell) return true;
      return false;
    };
    const read = (pid: number, f: string): string => {
      try {
        return fs.readFileSync(`/proc/${pid}/${f}`, 'utf8').replace(/\0/g, ' ').trim();
      } catch {
        return '?';
      }
    };
    const described = [...procs].filter(([pid]) => pid !== shell && under(pid)).map(([pid, p]) => `${read(pid, 'cmdline').slice(0, 60)} (pid ${pid}, state ${p.state}, waiting in ${read(pid, 'wchan') || '-'})`);
    parts.push(`processes under the shell (pid ${shell}): ${described.join('; ') || 'none'}`);
  } catch (e) {
    parts.push(`processes: ${(e as Error).message}`);
  }
  return parts.join('; ');
}

/** Closes a terminal and waits for its file to be finalised. */
export async function closeTerminal(t: OpenTerminal): Promise<void> {
  t.terminal.dispose();
  await waitFor(async () => (await infoOf(t.name))?.closed, { timeout: 15_000, message: `terminal ${t.n} file finalised` });
}
