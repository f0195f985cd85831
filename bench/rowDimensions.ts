// Row 17: every other dimension of issue 22 §1, each grown on its own (row 14 has the terminal
// files): tool calls over MCP on generated `.agent/` folders (bench/scaleGen.ts, Dimensions) where
// one thing grows to M and L and everything else stays at scale S. S is the row-9 S folder itself,
// shared by every dimension. Per dimension, the calls that read what grew, and the briefing (which
// reads nearly everything): the first call after a fresh server start (`.agent/.cache/` as the
// previous server left it) and warm calls, levels interleaved (bench/mcpLevels.ts), every answer
// checked against what was generated. One row per call: cold and warm, S/M/L.
// Env: BENCH_DIMS=a,c (the dimensions to run, by letter; default all); BENCH_DIMS_SCALE=0.01 (M and L
// shrunk for a quick look at the checks).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { failedRow, measure, repoRoot, type Row } from './harness';
import { cellText, coldCells, judge, medians, startServers, warmCells, type Cell, type LevelCall, type LevelFolder } from './mcpLevels';
import { generateAgentFolder, type Dimensions, type GeneratedFolder } from './scaleGen';

interface Dimension {
  letter: string;
  name: string;
  M: Dimensions;
  L: Dimensions;
  calls: LevelCall[];
  /**
   * What keeping the answers exact costs by itself, measured in this process at each level (as row 14
   * does for the terminal files): its growth from S to L is allowed on top of L/S ≤ 1.5×.
   */
  check?: { what: string; run: (g: GeneratedFolder) => void };
}

const n = (x: number): string => x.toLocaleString('en-US');
const MB = 1 << 20;
const expect = (text: string, want: string | RegExp): string | undefined =>
  (typeof want === 'string' ? text.includes(want) : want.test(text)) ? undefined : `expected ${String(want)}: ${text.slice(0, 160).replace(/\n/g, ' ⏎ ')}`;
/** The newest sub-agent's id: a big-findings one at M and L, the last generated at S. */
const newestAgent = (g: GeneratedFolder): { id: string; entries: number } =>
  g.bigFindings[g.bigFindings.length - 1] ?? { id: `agent-${String(g.counts.agents - 1).padStart(5, '0')}`, entries: g.counts.findingsPerAgent };

/** The newest plan in plans/ (the generator alternates Markdown and YAML), or undefined without any. */
const newestPlan = (g: GeneratedFolder): string | undefined => (g.counts.plans ? `plan-${String(g.counts.plans - 1).padStart(5, '0')}.${(g.counts.plans - 1) % 2 ? 'yaml' : 'md'}` : undefined);

const briefing = (check: (t: string, g: GeneratedFolder) => string | undefined): LevelCall => ({ id: 'briefing', what: 'agentContext_briefing', tool: 'agentContext_briefing', input: {}, check });

export const DIMENSIONS: Dimension[] = [
  {
    letter: 'a', name: 'commands per terminal (20 terminals)', M: { commandsPerTerminal: 2_000 }, L: { commandsPerTerminal: 20_000 },
    calls: [
      briefing((t, g) => expect(t, `(${g.failedTerminals.length} of ${g.counts.terminals}):`)),
      { id: 'list', what: 'agentContext_terminal (no args)', tool: 'agentContext_terminal', input: {}, check: (t, g) => expect(t, new RegExp(`^${g.counts.terminals} captured terminal`)) },
      { id: 'lastFailed', what: 'agentContext_terminal lastFailed', tool: 'agentContext_terminal', input: { command: 'lastFailed' }, check: (t, g) => expect(t, `Terminal ${g.lastFailure.terminal} command #${g.lastFailure.command}:`) },
      { id: 'last', what: 'agentContext_terminal terminal 1 last', tool: 'agentContext_terminal', input: { terminal: 1, command: 'last' }, check: (t, g) => expect(t, `Terminal 1 command #${g.counts.commandsPerTerminal}:`) },
    ],
  },
  {
    letter: 'b', name: 'scratch files', M: { scratchFiles: 10_000 }, L: { scratchFiles: 100_000 },
    calls: [
      // Offloads of other calls add files: at least the generated ones.
      briefing((t, g) => {
        const m = /Scratch \.agent\/scratch\/: ([\d,]+) files/.exec(t);
        return m && Number(m[1].replace(/,/g, '')) >= g.counts.scratchFiles ? undefined : `expected ≥ ${g.counts.scratchFiles} scratch files: ${m?.[0] ?? t.slice(0, 120)}`;
      }),
      { id: 'cleanup', what: 'agentContext_cleanup dry run', tool: 'agentContext_cleanup', input: {}, check: (t) => expect(t, /^(Would remove|Nothing to remove|Removed|No )/i) },
      { id: 'offload', what: 'agentContext_offload (tiny)', tool: 'agentContext_offload', input: (_g, i) => ({ content: `a tiny note ${i}`, name: 'tiny' }), check: (t) => expect(t, '.agent/scratch/') },
    ],
  },
  {
    letter: 'c', name: 'sub-agent folders (3 findings files of 5 / 50 MB at M / L)', M: { agents: 500, bigFindings: { agents: 3, bytes: 5 * MB } }, L: { agents: 5_000, bigFindings: { agents: 3, bytes: 50 * MB } },
    // Ranking by last activity: a stat of status.json and findings.md per agent (an append leaves the folder's mtime alone).
    check: {
      what: 'a readdir of agents/ and a stat of each agent\'s status.json and findings.md',
      run: (g) => {
        const dir = path.join(g.agentDir, 'agents');
        for (const id of fs.readdirSync(dir)) {
          fs.lstatSync(path.join(dir, id, 'status.json'), { throwIfNoEntry: false });
          fs.lstatSync(path.join(dir, id, 'findings.md'), { throwIfNoEntry: false });
        }
      },
    },
    calls: [
      briefing((t, g) => expect(t, `Sub-agents (${g.counts.agents}, most recently active first`)),
      { id: 'list', what: 'agentContext_agentWorkspace list', tool: 'agentContext_agentWorkspace', input: { agentId: 'bench', action: 'list' }, check: (t, g) => expect(t, `${g.counts.agents} agents, most recently active first`) },
      {
        id: 'read', what: 'agentContext_agentWorkspace read (the newest agent: its findings file is the big one at M, L)', tool: 'agentContext_agentWorkspace', input: (g) => ({ agentId: 'bench', action: 'read', peer: newestAgent(g).id }),
        check: (t, g) => expect(t, `Findings of ${newestAgent(g).id} (.agent/agents/${newestAgent(g).id}/findings.md, ${newestAgent(g).entries} entr`),
      },
    ],
  },
  {
    letter: 'd', name: 'plan files in .agent/plans/ (YAML and Markdown)', M: { plans: 100 }, L: { plans: 1_000 },
    calls: [
      // plan.yaml plus the generated plans: the ones shown and "… N more plan files".
      briefing((t, g) => {
        const shown = (t.match(/^Plan \.agent\//gm) ?? []).length;
        const more = Number(/… (\d+) more plan files/.exec(t)?.[1] ?? 0);
        return shown + more === g.counts.plans + 1 ? undefined : `expected ${g.counts.plans + 1} plans, briefing names ${shown} + ${more} more`;
      }),
      { id: 'get', what: 'agentContext_plan get', tool: 'agentContext_plan', input: { action: 'get' }, check: (t, g) => (g.counts.plans > 8 ? expect(t, `… and ${g.counts.plans - 8} more in .agent/plans`) : expect(t, 'Plan .agent/plan.yaml')) },
      {
        id: 'getOne', what: 'agentContext_plan get of one plan in plans/ (the newest)', tool: 'agentContext_plan', input: (g) => ({ action: 'get', plan: newestPlan(g) ?? 'plan.yaml' }),
        check: (t, g) => expect(t, newestPlan(g) ? `Plan .agent/plans/${newestPlan(g)}` : 'Plan .agent/plan.yaml'),
      },
    ],
  },
  {
    letter: 'e', name: 'skills', M: { skills: 50 }, L: { skills: 500 },
    calls: [
      briefing((t, g) => expect(t, `Skills (${g.counts.skills}; load one`)),
      { id: 'list', what: 'agentContext_skill (the index)', tool: 'agentContext_skill', input: {}, check: (t, g) => expect(t, `${g.counts.skills} skill${g.counts.skills === 1 ? '' : 's'}; load one with name`) },
      { id: 'one', what: 'agentContext_skill name (the last)', tool: 'agentContext_skill', input: (g) => ({ name: `skill-${g.counts.skills - 1}` }), check: (t, g) => expect(t, `# Skill ${g.counts.skills - 1}`) },
    ],
  },
  {
    letter: 'f', name: 'memory entries (preferences.yaml)', M: { memoryKeys: 200 }, L: { memoryKeys: 2_000 },
    calls: [
      briefing((t, g) => expect(t, `(${g.counts.memoryKeys} keys; recall with the memory tool)`)),
      { id: 'list', what: 'agentContext_memory list', tool: 'agentContext_memory', input: { action: 'list' }, check: (t, g) => expect(t, `${g.counts.memoryKeys} entries in .agent/memory/preferences.yaml`) },
      { id: 'recall', what: 'agentContext_memory recall (the last key)', tool: 'agentContext_memory', input: (g) => ({ action: 'recall', key: `key-${g.counts.memoryKeys - 1}` }), check: (t, g) => expect(t, `key-${g.counts.memoryKeys - 1}: `) },
    ],
  },
  {
    letter: 'g', name: 'notes from the user', M: { notes: 1_000 }, L: { notes: 10_000 },
    calls: [
      briefing((t, g) => expect(t, `Notes from the user (${g.counts.notes}; follow them)`)),
      { id: 'list', what: 'agentContext_terminal (no args; lists notes per terminal)', tool: 'agentContext_terminal', input: {}, check: (t, g) => expect(t, new RegExp(`^${g.counts.terminals} captured terminal`)) },
      { id: 'lastFailed', what: 'agentContext_terminal lastFailed (with its notes)', tool: 'agentContext_terminal', input: { command: 'lastFailed' }, check: (t, g) => expect(t, `Terminal ${g.lastFailure.terminal} command #${g.lastFailure.command}:`) },
    ],
  },
  {
    letter: 'h', name: 'progress entries', M: { progressEntries: 10_000 }, L: { progressEntries: 100_000 },
    calls: [
      // logProgress calls add entries: at least the generated ones.
      briefing((t, g) => {
        const m = /Progress \(\.agent\/progress\.md, (\d+) entries/.exec(t);
        return m && Number(m[1]) >= g.counts.progressEntries ? undefined : `expected ≥ ${g.counts.progressEntries} entries: ${m?.[0] ?? t.slice(0, 120)}`;
      }),
      { id: 'log', what: 'agentContext_plan logProgress', tool: 'agentContext_plan', input: (_g, i) => ({ action: 'logProgress', description: `Bench entry ${i}`, notes: 'Measured.', next: 'Measure again.' }), check: (t) => expect(t, 'Logged to .agent/progress.md:') },
    ],
  },
  {
    letter: 'i', name: 'features', M: { features: 500 }, L: { features: 5_000 },
    calls: [
      briefing((t, g) => expect(t, new RegExp(`Features \\.agent/features\\.json: \\d+/${g.counts.features} passing`))),
      { id: 'setPasses', what: 'agentContext_plan setPasses', tool: 'agentContext_plan', input: (_g, i) => ({ action: 'setPasses', feature: 0, passes: i % 2 === 0 }), check: (t, g) => expect(t, new RegExp(`\\d+/${g.counts.features} passing`)) },
    ],
  },
  {
    letter: 'j', name: 'the ledger (24 monthly files; S: 1,000 lines in tools.jsonl)', M: { ledger: { bytes: 100 * MB, months: 24 } }, L: { ledger: { bytes: 1024 * MB, months: 24 } },
    calls: [
      briefing((t) => expect(t, 'Plan .agent/plan.yaml')),
      { id: 'offload', what: 'agentContext_offload (tiny; appends to this month\'s ledger file)', tool: 'agentContext_offload', input: (_g, i) => ({ content: `a tiny note ${i}`, name: 'tiny' }), check: (t) => expect(t, '.agent/scratch/') },
    ],
  },
];

/** A dimension's level shrunk (or grown) by `k`: counts and bytes alike, never below one. */
export function scaleDims(d: Dimensions, k: number): Dimensions {
  const x = (v: number): number => Math.max(1, Math.round(v * k));
  const out: Dimensions = {};
  for (const [key, v] of Object.entries(d) as [keyof Dimensions, Dimensions[keyof Dimensions]][]) {
    if (typeof v === 'number') (out as Record<string, unknown>)[key] = x(v);
    else if (key === 'bigFindings') out.bigFindings = { agents: d.bigFindings!.agents, bytes: x(d.bigFindings!.bytes) };
    else if (key === 'ledger') out.ledger = { months: d.ledger!.months, bytes: x(d.ledger!.bytes) };
  }
  return out;
}

/** Cold and warm cells of every call of one dimension at S, M, L. */
async function measureDimension(serverJs: string, up: LevelFolder[], d: Dimension, log: (s: string) => void): Promise<Map<string, { cold: Map<string, Cell>; warm: Map<string, Cell> }>> {
  const out = new Map<string, { cold: Map<string, Cell>; warm: Map<string, Cell> }>();
  for (const c of d.calls) {
    const cold = await coldCells(serverJs, up, c, log);
    log(`  17${d.letter} ${c.what}, first call: ${medians(cold)} (load ${[...cold.values()][0].load})`);
    out.set(c.id, { cold, warm: new Map() });
  }
  const servers = await startServers(serverJs, up);
  try {
    for (const c of d.calls) {
      const warm = await warmCells(servers, c, log);
      log(`  17${d.letter} ${c.what}, warm: ${medians(warm)} (load ${[...warm.values()][0].load})`);
      out.get(c.id)!.warm = warm;
    }
  } finally {
    for (const s of servers) await s.mcp.close().catch(() => undefined);
  }
  return out;
}

/**
 * Throws when `only` names a dimension otherwise than by its letter: such a run measured nothing and
 * wrote an empty "Re-measured" line into bench/results.md. The bench checks BENCH_DIMS before it starts.
 */
export function checkDimensionLetters(only = process.env.BENCH_DIMS?.split(',').map((s) => s.trim())): void {
  const unknown = (only ?? []).filter((l) => !DIMENSIONS.some((d) => d.letter === l));
  if (unknown.length) throw new Error(`BENCH_DIMS: unknown dimension ${unknown.join(', ')}; the letters are ${DIMENSIONS.map((d) => `${d.letter} (${d.name})`).join(', ')}`);
}

/** Runs every dimension (BENCH_DIMS picks some), one row per call. */
export async function rowDimensions(log: (s: string) => void, only = process.env.BENCH_DIMS?.split(',').map((s) => s.trim()), k = Number(process.env.BENCH_DIMS_SCALE ?? 1)): Promise<Row[]> {
  const serverJs = path.join(repoRoot(), 'out', 'src', 'mcp', 'server.js');
  if (!fs.existsSync(serverJs)) return [failedRow('17', 'dimensions over MCP', '—', new Error(`${serverJs} missing: run tsc -p .`))];
  checkDimensionLetters(only);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-context-dims-'));
  const rows: Row[] = [];
  const gen = async (dir: string, dims: Dimensions): Promise<GeneratedFolder> => {
    const t0 = Date.now();
    const g = await generateAgentFolder(path.join(tmp, dir), 'S', 15, new Date(), { dims });
    log(`  ${dir}: generated ${n(g.files)} files, ${(g.bytes / MB).toFixed(0)} MB in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    return g;
  };
  try {
    if (k !== 1) log(`BENCH_DIMS_SCALE=${k}: M and L shrunk`);
    const S = await gen('S', {});
    for (const d of DIMENSIONS.filter((x) => !only || only.includes(x.letter))) {
      log(`row 17${d.letter}: ${d.name}`);
      let up: LevelFolder[] = [];
      const dimsOf: Record<string, Dimensions | undefined> = { M: scaleDims(d.M, k), L: scaleDims(d.L, k) };
      try {
        up = [{ label: 'S', g: S }, { label: 'M', g: await gen(`${d.letter}-M`, dimsOf.M!) }, { label: 'L', g: await gen(`${d.letter}-L`, dimsOf.L!) }];
        let allowance = 0;
        if (d.check) {
          const ms = new Map<string, number>();
          for (const u of up) ms.set(u.label, (await measure(() => d.check!.run(u.g))).median);
          allowance = ms.get('L')! - ms.get('S')!;
          log(`  17${d.letter} ${d.check.what}: ${[...ms].map(([l, v]) => `${l} ${v.toFixed(1)} ms`).join(', ')}`);
        }
        const res = await measureDimension(serverJs, up, d, log);
        d.calls.forEach((c, i) => {
          const r = res.get(c.id)!;
          const cold = judge(r.cold, 1000, 50, allowance);
          const warm = judge(r.warm, 300, 10, allowance);
          const ratio = (x: number): string => (Number.isFinite(x) ? `${x.toFixed(2)}×` : '—');
          const sizes = up.map((u) => `${u.label} ${describe(d, dimsOf[u.label], u.g)}`).join(', ');
          rows.push({
            id: `17${d.letter}${i + 1}`,
            what: `${d.name}: ${c.what}, over MCP (${sizes})`,
            ours: `cold ${cellText(r.cold)} · warm ${cellText(r.warm)}`,
            reference: 'the same call at S',
            ratio: `L/S cold ${ratio(cold.ratio)}, warm ${ratio(warm.ratio)}`,
            goal: `first call after a fresh server start ≤ 1,000 ms at L, warm ≤ 300 ms; L/S ≤ 1.5× (growth ≤ 50 ms cold, 10 ms warm counts as none)${d.check ? ` plus ${d.check.what} (${allowance.toFixed(0)} ms more at L than at S)` : ''}`,
            met: cold.met && warm.met,
            note: [`levels interleaved; load average cold ${[...r.cold.values()][0].load}, warm ${[...r.warm.values()][0].load}`, ...cold.errors.map((e) => `cold ${e}`), ...warm.errors.map((e) => `warm ${e}`)].join('; '),
          });
        });
      } catch (e) {
        rows.push(failedRow(`17${d.letter}`, d.name, '—', e));
      } finally {
        for (const u of up.slice(1)) fs.rmSync(u.g.root, { recursive: true, force: true });
      }
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return rows;
}

/** How big the grown dimension is in a folder, for the row's title. */
function describe(d: Dimension, dims: Dimensions | undefined, g: GeneratedFolder): string {
  const c = g.counts;
  switch (d.letter) {
    case 'a': return n(c.commandsPerTerminal);
    case 'b': return n(c.scratchFiles);
    case 'c': return `${n(c.agents)}${dims?.bigFindings ? ` (${dims.bigFindings.agents} × ${Math.round(dims.bigFindings.bytes / MB)} MB findings)` : ''}`;
    case 'd': return n(c.plans);
    case 'e': return n(c.skills);
    case 'f': return n(c.memoryKeys);
    case 'g': return n(c.notes);
    case 'h': return n(c.progressEntries);
    case 'i': return n(c.features);
    case 'j': return dims?.ledger ? `${n(Math.round(dims.ledger.bytes / MB))} MB, ${n(c.ledgerLines)} lines` : `${n(c.ledgerLines)} lines`;
    default: return '?';
  }
}
