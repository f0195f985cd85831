// Row 16 (the concurrency soak, issue 22 §2), the part inside each editor window's extension host.
// Loaded by the bench probe (bench/editorProbe) in every window of the soak's code-server
// (scripts/benchSoak.mjs opens two). Each window claims a number, waits for the runner's start
// signal, then for the soak's duration keeps terminals busy with commands whose every output line
// is known (`SOAK <tag> <i>`), closes and opens terminals (new terminal numbers claimed while the
// other window and three MCP servers write the same .agent/), and calls Agent Context's tools
// through vscode.lm.invokeTool (plan edits, offloads, memory, findings, briefing). At the end it
// closes its terminals, waits until their files say so, and writes what it did as JSON for the
// runner's checks (bench/soakChecks.ts).
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { BlockMonitor, openContainer, type ProbeStart } from './editorScenario';
import { listTerminals } from '../src/core/terminal/terminalIndex';

export { BlockMonitor, openContainer };

const EXTENSION_ID = 'agent-context.agent-context';

/** One terminal command the window ran: the lines it printed are `SOAK <tag> 1..lines`. */
export interface SoakCommand {
  terminal: string;
  tag: string;
  lines: number;
  exitCode: number;
  /** The shell reported the command's end (false: timed out waiting). */
  ended: boolean;
  endedExit?: number;
}

/** One tool call made through vscode.lm.invokeTool. */
export interface SoakToolCall {
  tag: string;
  tool: string;
  input: Record<string, unknown>;
  text: string;
  threw?: string;
}

export interface SoakWindowResult {
  ok: boolean;
  window: number;
  error?: string;
  terminals: { name: string; n?: number; closed: boolean }[];
  commands: SoakCommand[];
  calls: SoakToolCall[];
  blockMs: number;
  durationMs: number;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A small seeded generator, so a window's mix is reproducible given its number. */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

/** Claims the first free window number (window-1, window-2…) in the soak's folder. */
function claimWindow(dir: string): number {
  for (let i = 1; i < 100; i++) {
    try {
      fs.writeFileSync(path.join(dir, `window-${i}`), String(process.pid), { flag: 'wx' });
      return i;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
  throw new Error(`no free window number in ${dir}`);
}

function waitIntegration(t: vscode.Terminal, ms: number): Promise<void> {
  if (t.shellIntegration) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error(`no shell integration in terminal ${t.name} within ${ms} ms`));
    }, ms);
    const sub = vscode.window.onDidChangeTerminalShellIntegration((e) => {
      if (e.terminal === t) {
        clearTimeout(timer);
        sub.dispose();
        resolve();
      }
    });
  });
}

/** Runs one command through shell integration and waits for its end event (or `ms`). */
function execute(t: vscode.Terminal, commandLine: string, ms: number): Promise<{ ended: boolean; exitCode?: number }> {
  return new Promise((resolve) => {
    const si = t.shellIntegration;
    if (!si) return resolve({ ended: false });
    // The end event comes from a later turn of the event loop: subscribing right after starting is in time.
    const execution = si.executeCommand(commandLine);
    const timer = setTimeout(() => {
      sub.dispose();
      resolve({ ended: false });
    }, ms);
    const sub = vscode.window.onDidEndTerminalShellExecution((e) => {
      if (e.terminal === t && e.execution === execution) {
        clearTimeout(timer);
        sub.dispose();
        resolve({ ended: true, exitCode: e.exitCode });
      }
    });
  });
}

/** The window's whole soak; writes `<dir>/window-<i>.json`. */
export async function run(probe: ProbeStart): Promise<{ ok: boolean }> {
  const dir = process.env.AGENT_CONTEXT_SOAK_DIR;
  if (!dir) throw new Error('AGENT_CONTEXT_SOAK_DIR is not set');
  const durationMs = Number(process.env.AGENT_CONTEXT_SOAK_MS ?? 60_000);
  const w = claimWindow(dir);
  const result: SoakWindowResult = { ok: false, window: w, terminals: [], commands: [], calls: [], blockMs: 0, durationMs: 0 };
  const write = (): void => fs.writeFileSync(path.join(dir, `window-${w}.json`), JSON.stringify(result));
  try {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    if (!ext) throw new Error(`${EXTENSION_ID} is not in this editor`);
    const deadline = Date.now() + 300_000;
    while (!ext.isActive && Date.now() < deadline) await sleep(50);
    if (!ext.isActive) throw new Error('Agent Context did not activate within 300 s');
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    if (!folder) throw new Error('no workspace folder');
    const agentDir = path.join(folder, '.agent');
    const random = rng(1000 + w);
    const open = new Map<string, vscode.Terminal>();
    let terminalSeq = 0;
    const openTerminal = async (): Promise<string> => {
      const name = `soak-w${w}-t${++terminalSeq}`;
      const t = vscode.window.createTerminal({ name, cwd: folder });
      result.terminals.push({ name, closed: false });
      open.set(name, t);
      await waitIntegration(t, 60_000);
      return name;
    };
    // Ready: three terminals with shell integration, then the start signal.
    for (let i = 0; i < 3; i++) await openTerminal();
    fs.writeFileSync(path.join(dir, `ready-${w}`), '');
    const goFile = path.join(dir, 'go');
    const goDeadline = Date.now() + 600_000;
    while (!fs.existsSync(goFile) && Date.now() < goDeadline) await sleep(100);
    if (!fs.existsSync(goFile)) throw new Error('no start signal within 600 s');
    probe.blocks.reset();
    const t0 = Date.now();
    const end = t0 + durationMs;

    // One loop per terminal slot: commands back to back; every few commands the slot's terminal
    // is closed and a new one opened (a new N claimed while others claim theirs).
    let commandSeq = 0;
    const slot = async (initial: string): Promise<void> => {
      let name = initial;
      let inThis = 0;
      while (Date.now() < end) {
        const t = open.get(name)!;
        const tag = `w${w}t${name.split('-t')[1]}c${++commandSeq}`;
        const r = random();
        let lines: number;
        let cmd: string;
        let exitCode = 0;
        if (r < 0.45) {
          lines = 50 + Math.floor(random() * 2950);
          cmd = `seq -f 'SOAK ${tag} %g' 1 ${lines}`;
        } else if (r < 0.8) {
          // A slow stream: output arrives over a second or two, interleaved with everything else.
          lines = 40 + Math.floor(random() * 120);
          cmd = `for i in $(seq 1 ${lines}); do echo "SOAK ${tag} $i"; sleep 0.01; done`;
        } else {
          lines = 20 + Math.floor(random() * 400);
          exitCode = 3;
          cmd = `seq -f 'SOAK ${tag} %g' 1 ${lines}; (exit 3)`;
        }
        const done = await execute(t, cmd, 60_000);
        result.commands.push({ terminal: name, tag, lines, exitCode, ended: done.ended, endedExit: done.exitCode });
        if (++inThis >= 6 + Math.floor(random() * 6) && Date.now() < end - 3000) {
          t.dispose();
          open.delete(name);
          result.terminals.find((x) => x.name === name)!.closed = true;
          name = await openTerminal();
          inThis = 0;
        }
      }
    };

    // Tool calls through the editor, about one a second, tagged so the ledger check finds them.
    let callSeq = 0;
    const tools = async (): Promise<void> => {
      while (Date.now() < end) {
        const tag = `w${w}-${++callSeq}`;
        const r = random();
        let tool: string;
        let input: Record<string, unknown>;
        if (r < 0.3) {
          tool = 'agentContext_plan';
          input = { soakCall: tag, action: 'addStep', description: `soak step ${tag}` };
        } else if (r < 0.5) {
          tool = 'agentContext_offload';
          const n = 5 + Math.floor(random() * 200);
          input = { soakCall: tag, name: `soak-${tag}`, content: Array.from({ length: n }, (_, i) => `OFF ${tag} ${i + 1}`).join('\n') + '\n' };
        } else if (r < 0.65) {
          tool = 'agentContext_memory';
          input = { soakCall: tag, action: 'remember', key: `soak-w${w}-${callSeq % 5}`, value: `value ${tag}` };
        } else if (r < 0.8) {
          tool = 'agentContext_agentWorkspace';
          input = { soakCall: tag, agentId: 'soak-shared', action: 'writeFinding', content: `FIND ${tag}` };
        } else if (r < 0.9) {
          tool = 'agentContext_briefing';
          input = { soakCall: tag };
        } else {
          tool = 'agentContext_terminal';
          input = { soakCall: tag };
        }
        const call: SoakToolCall = { tag, tool, input, text: '' };
        try {
          const res = await vscode.lm.invokeTool(tool, { input, toolInvocationToken: undefined });
          call.text = res.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
        } catch (e) {
          call.threw = String((e as Error).message ?? e);
        }
        result.calls.push(call);
        await sleep(500 + random() * 1000);
      }
    };

    await Promise.all([...[...open.keys()].map((n) => slot(n)), tools()]);
    result.durationMs = Date.now() - t0;
    result.blockMs = probe.blocks.read().busy;
    // Close every terminal; its capture file then ends with the closed note.
    for (const [name, t] of open) {
      t.dispose();
      result.terminals.find((x) => x.name === name)!.closed = true;
    }
    const names = new Set(result.terminals.map((t) => t.name));
    const closeDeadline = Date.now() + 30_000;
    for (;;) {
      const l = await listTerminals(agentDir);
      const mine = l.ok ? l.value.filter((t) => names.has(t.name)) : [];
      for (const t of mine) {
        const r = result.terminals.find((x) => x.name === t.name)!;
        r.n = t.n;
      }
      if (mine.length === names.size && mine.every((t) => t.closed)) break;
      if (Date.now() > closeDeadline) break;
      await sleep(250);
    }
    result.ok = true;
  } catch (e) {
    result.error = String((e as Error).stack ?? e);
  }
  write();
  return { ok: result.ok };
}
