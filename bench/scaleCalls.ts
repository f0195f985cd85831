// The tool calls of the scale study (issue 15), shared by row 9 (over MCP) and row 10 (over
// vscode.lm.invokeTool in the real editor): what each call asks of a generated `.agent/` folder
// (bench/scaleGen.ts) and how its answer is checked.
import { spawnSync } from 'node:child_process';
import { failureRef, type GeneratedFolder } from './scaleGen';

/** A growth from S to L up to this many ms is within the noise of one warm call (rows 9 and 10n–10v). */
export const SCALE_NOISE_MS = 10;

export interface Call {
  id: string;
  what: string;
  tool: string;
  input: (g: GeneratedFolder) => Record<string, unknown>;
  /** Compared with ripgrep over the same tree instead of the L/S ratio. */
  rg?: (g: GeneratedFolder) => string[];
  check?: (text: string, g: GeneratedFolder) => string | undefined;
}

const RG_GLOB_MD = ['--files', '--no-config', '--hidden', '--no-require-git', '-g', '!.git', '-g', '*.md'];
const rgCounts = new Map<string, number | undefined>();
let rgForCount: string | undefined;
/** The ripgrep the count checks use (none: they are skipped). */
export function setRgForCount(rg: string | undefined): void {
  rgForCount = rg;
}
/** How many lines `rg args` prints in `cwd` (once per folder; undefined without ripgrep). */
function rgCount(cwd: string, args: string[]): number | undefined {
  const key = `${cwd}\0${args.join(' ')}`;
  if (!rgCounts.has(key)) {
    const r = rgForCount ? spawnSync(rgForCount, args, { cwd, encoding: 'utf8', maxBuffer: 1 << 28 }) : undefined;
    rgCounts.set(key, r && (r.status === 0 || r.status === 1) ? r.stdout.split('\n').filter(Boolean).length : undefined);
  }
  return rgCounts.get(key);
}

export const SCALE_CALLS: Call[] = [
  { id: '9a', what: 'agentContext_briefing', tool: 'agentContext_briefing', input: () => ({}) },
  { id: '9b', what: 'agentContext_terminal (no args)', tool: 'agentContext_terminal', input: () => ({}) },
  {
    id: '9c', what: 'agentContext_terminal lastFailed (no terminal)', tool: 'agentContext_terminal', input: () => ({ command: 'lastFailed' }),
    check: (t, g) => (t.includes(failureRef(g.lastFailure)) ? undefined : `expected ${failureRef(g.lastFailure)}: ${t.slice(0, 120)}`),
  },
  { id: '9d', what: 'agentContext_cleanup dry run', tool: 'agentContext_cleanup', input: () => ({}) },
  { id: '9e', what: 'agentContext_agentWorkspace list', tool: 'agentContext_agentWorkspace', input: () => ({ agentId: 'bench', action: 'list' }) },
  { id: '9f', what: 'agentContext_plan get', tool: 'agentContext_plan', input: () => ({ action: 'get' }) },
  { id: '9g', what: 'agentContext_offload (tiny)', tool: 'agentContext_offload', input: () => ({ content: 'a tiny note', name: 'tiny' }) },
  {
    id: '9h', what: 'agentContext_grep default scope (.agent/), no match', tool: 'agentContext_grep', input: (g) => ({ pattern: g.absentWord, caseSensitive: true }),
    rg: (g) => ['-uu', '-n', '--no-config', '-e', g.absentWord, '.agent'],
    check: (t) => (t.startsWith('No matches') ? undefined : `expected no match: ${t.slice(0, 120)}`),
  },
  {
    id: '9i', what: 'agentContext_glob **/*.md from the workspace root', tool: 'agentContext_glob', input: () => ({ pattern: '**/*.md' }),
    // The same answer from ripgrep: hidden folders (.agent/) listed, .gitignore files honoured
    // outside a git repository too, as agentContext_glob does.
    rg: () => [...RG_GLOB_MD],
    check: (t, g) => {
      const want = rgCount(g.root, RG_GLOB_MD);
      const got = Number(/^([\d,]+) files? match/.exec(t)?.[1].replace(/,/g, ''));
      return want === undefined || got === want ? undefined : `${got} files listed, rg lists ${want}: ${t.slice(0, 120)}`;
    },
  },
];

/** A call as JSON for the editor scenario: which tool, with what input, checked against what text. */
export interface PlainCall {
  id: string;
  what: string;
  tool: string;
  input: Record<string, unknown>;
  /** Compared with ripgrep over MCP (row 9); in the editor only its L/S is reported. */
  wholeTree: boolean;
  /** The answer must contain this (the lastFailed call names the generated failure). */
  expect?: string;
}

export function plainCalls(g: GeneratedFolder): PlainCall[] {
  return SCALE_CALLS.map((c) => ({
    id: c.id, what: c.what, tool: c.tool, input: c.input(g), wholeTree: c.rg !== undefined,
    expect: c.id === '9c' ? failureRef(g.lastFailure) : undefined,
  }));
}
