// Row 16: the concurrency soak of issue 22 §2. Two editor windows (one code-server, two Chromium
// browsers: two extension hosts) and three MCP servers on one `.agent/` for 60 s of mixed tool
// calls and terminal output, while three agents' hooks record their own shell commands
// (scripts/benchSoak.mjs, run as a child process; bench/soakWindow.ts in the windows,
// bench/soakAgents.ts for the agents, bench/soakChecks.ts afterwards). The row is met when no check
// finds a violation.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { failedRow, repoRoot, type Row } from './harness';
import type { Check } from './soakChecks';

interface SoakResult {
  ok: boolean;
  error?: string;
  soakMs: number;
  load: { start: number[]; max: number; end: number[] };
  checks: Check[];
  mcp: { calls?: number; perSecond?: number; perServer?: number[]; medianMs?: number; maxMs?: number };
  agents?: { commands: number; byAgent: Record<string, number> };
  windows: { window: number; terminals: number; commands: number; lines: number; calls: number; blockMs: number }[];
}

const GOAL = "no corrupt file; every call has its ledger line; every printed line captured once, in order; every agent's command recorded once, whole, with its exit code; terminal numbers unique; no plan, memory or finding update lost; caches = fresh scan";

export async function rowSoak(log: (s: string) => void): Promise<Row[]> {
  const what = `concurrency soak: 2 editor windows + 3 MCP servers + 3 agents' hooks on one .agent/ for ${Number(process.env.SOAK_MS ?? 60_000) / 1000} s (terminal output, mixed tool calls, agents' own commands)`;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-context-soak-row-'));
  try {
    const out = path.join(tmp, 'soak.json');
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(process.execPath, [path.join(repoRoot(), 'scripts', 'benchSoak.mjs'), out], { stdio: ['ignore', 'inherit', 'inherit'], cwd: repoRoot() });
      child.on('error', reject);
      child.on('exit', (c) => resolve(c));
    });
    if (!fs.existsSync(out)) return [failedRow('16', what, GOAL, new Error(`scripts/benchSoak.mjs exited ${code} without a result`))];
    const r = JSON.parse(fs.readFileSync(out, 'utf8')) as SoakResult;
    if (r.error) return [failedRow('16', what, GOAL, new Error(r.error.split('\n')[0]))];
    const bad = r.checks.filter((c) => c.violations.length);
    const lines = r.windows.reduce((a, w) => a + w.lines, 0);
    const windowCalls = r.windows.reduce((a, w) => a + w.calls, 0);
    const terminals = r.windows.reduce((a, w) => a + w.terminals, 0);
    log(`  soak: ${bad.length ? bad.map((c) => `${c.name}: ${c.violations.length}`).join(', ') : 'no violation'}`);
    return [{
      id: '16',
      what,
      ours: `${bad.length ? `**${bad.reduce((a, c) => a + c.violations.length, 0)} violations** (${bad.map((c) => `${c.name}: ${c.violations[0]}`).join('; ')})` : '0 violations'}: ${r.mcp.calls} MCP calls (${r.mcp.perSecond?.toFixed(1)}/s; ${r.mcp.perServer?.join(' / ')} per server; median ${r.mcp.medianMs?.toFixed(0)} ms, max ${r.mcp.maxMs?.toFixed(0)} ms) + ${windowCalls} invokeTool calls in the windows; ${terminals} terminals, ${lines.toLocaleString('en-US')} printed lines${r.agents ? `; ${r.agents.commands} agents' own commands (${Object.entries(r.agents.byAgent).map(([a, n]) => `${a} ${n}`).join(', ')})` : ''}`,
      reference: '—',
      ratio: '—',
      goal: GOAL,
      met: bad.length === 0,
      note: `scripts/benchSoak.mjs; ${r.checks.map((c) => `${c.name}: ${c.figures}`).join('; ')}; longest event-loop block per window ${r.windows.map((w) => `${w.blockMs.toFixed(0)} ms`).join(' / ')}; load average ${r.load.start.map((x) => x.toFixed(1)).join(' ')} at the start, at most ${r.load.max.toFixed(1)} during, ${r.load.end.map((x) => x.toFixed(1)).join(' ')} at the end. Not a timing row: the figures say how much concurrent work was checked`,
    }];
  } catch (e) {
    return [failedRow('16', what, GOAL, e)];
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
