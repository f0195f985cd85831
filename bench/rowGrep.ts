// Row 3: agentContext_grep on the generated 1 GB `.agent/` tree against `rg -uu -n` and
// `LC_ALL=C grep -rn`, a literal and a regex query; matching-line counts must be identical.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ensureAgentTree, LITERAL, REGEX, type AgentTree } from './agentTree';
import { failedRow, fmtMs, loadBuilt, measurePair, type ConfigModule, type InvokeModule, type Row, type ToolOutcome } from './harness';


/** Runs a command and counts the lines it prints (each is one matching line). */
function countLines(cmd: string, args: string[], cwd: string, env?: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let n = 0;
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      for (let i = d.indexOf(10); i !== -1; i = d.indexOf(10, i + 1)) n++;
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 || code === 1 ? resolve(n) : reject(new Error(`${cmd} exited ${code}: ${err.trim()}`))));
  });
}

/** The match count the tool states ("1,234 matches in 5 files for ..."), or 0 for "No matches". */
function toolCount(o: ToolOutcome): number {
  if (o.isError) throw new Error(`agentContext_grep failed: ${o.text.split('\n')[0]}`);
  if (o.text.startsWith('No matches')) return 0;
  const m = /^([\d,]+) match(?:es)? in /.exec(o.text);
  if (!m) throw new Error(`agentContext_grep: unexpected result text: ${o.text.slice(0, 120)}`);
  return Number(m[1].replace(/,/g, ''));
}

/** Measures row 3 (two queries × two comparisons); `rgPath` undefined means ripgrep is unavailable. */
export async function rowGrep(workDir: string, rgPath: string | undefined, rgMissingReason: string, log: (s: string) => void): Promise<Row[]> {
  const invoke = loadBuilt<InvokeModule>('core/tools/invokeTool', ['invokeTool']);
  const config = loadBuilt<ConfigModule>('core/config', ['DEFAULT_TOOL_CONFIG']);
  const queries = [
    { kind: 'literal', pattern: LITERAL, literal: true },
    { kind: 'regex', pattern: REGEX, literal: false },
  ];
  const goalRg = '≤ 1.2× rg, same count';
  const goalGrep = '≤ 3× GNU grep, same count';
  let tree: AgentTree;
  try {
    tree = ensureAgentTree(workDir, log);
  } catch (e) {
    return [failedRow('3', 'grep on generated .agent/ tree', goalRg, e)];
  }
  const size = `${tree.files.toLocaleString('en-US')} files, ${(tree.bytes / 1024 ** 3).toFixed(2)} GB`;
  const ctx = (ripgrep: string | undefined): unknown => ({
    folders: [{ name: 'bench', path: tree.root }], config: config.DEFAULT_TOOL_CONFIG, signal: new AbortController().signal,
    log: { info() {}, warn() {}, error() {}, debug() {}, trace() {} }, source: 'mcp', trusted: true, allowRun: false, ripgrep,
  });
  // The tool records each call in .agent/history/tools.jsonl and puts long result lists in
  // .agent/scratch/tool_outputs/grep-*.txt; rg and grep would find the needles there in the next
  // run, so both are removed (untimed) after every call to keep the tree as generated.
  const undoToolWrites = (): void => {
    fs.rmSync(path.join(tree.agentDir, 'history'), { recursive: true, force: true });
    const out = path.join(tree.agentDir, 'scratch', 'tool_outputs');
    for (const f of fs.readdirSync(out)) if (!f.startsWith('out-')) fs.rmSync(path.join(out, f), { force: true });
  };
  undoToolWrites();
  const rows: Row[] = [];
  for (const q of queries) {
    const expected = q.literal ? tree.literalLines : tree.regexLines;
    const input = { pattern: q.pattern, literal: q.literal, caseSensitive: true };
    const idA = `3${q.kind === 'literal' ? 'a' : 'c'}`;
    const idB = `3${q.kind === 'literal' ? 'b' : 'd'}`;
    const whatA = `agentContext_grep ${q.kind} /${q.pattern}/ with ripgrep, vs rg -uu -n (${size})`;
    const whatB = `agentContext_grep ${q.kind}, built-in engine alone, vs LC_ALL=C grep -rn`;
    if (!rgPath) rows.push({ id: idA, what: whatA, ours: '—', reference: '—', ratio: '—', goal: goalRg, state: `skipped: ${rgMissingReason}` });
    else {
      try {
        let ours = -1;
        let ref = -1;
        const rgArgs = ['-uu', '-n', '--no-config', ...(q.literal ? ['-F'] : []), '-e', q.pattern, '.agent'];
        const t = await measurePair(
          async () => (ours = toolCount(await invoke.invokeTool('agentContext_grep', input, ctx(rgPath)))),
          async () => (ref = await countLines(rgPath, rgArgs, tree.root)),
          { after: undoToolWrites },
        );
        rows.push(timedRow(idA, whatA, goalRg, 1.2, t, ours, ref, expected, 'rg'));
      } catch (e) {
        rows.push(failedRow(idA, whatA, goalRg, e));
      }
    }
    try {
      let ours = -1;
      let ref = -1;
      const grepArgs = ['-rn', q.literal ? '-F' : '-E', '-e', q.pattern, '.agent'];
      const t = await measurePair(
        async () => (ours = toolCount(await invoke.invokeTool('agentContext_grep', input, ctx(undefined)))),
        async () => (ref = await countLines('grep', grepArgs, tree.root, { LC_ALL: 'C' })),
        // One built-in call over 1 GB takes tens of seconds: only grep gets a warm-up call (the
        // page cache is warm from the ripgrep sub-row anyway).
        { after: undoToolWrites, warmupA: false },
      );
      rows.push(timedRow(idB, whatB, goalGrep, 3, t, ours, ref, expected, 'grep'));
    } catch (e) {
      rows.push(failedRow(idB, whatB, goalGrep, e));
    }
  }
  return rows;
}

function timedRow(id: string, what: string, goal: string, maxRatio: number, t: { a: import('./harness').Stats; b: import('./harness').Stats }, ours: number, ref: number, expected: number, refName: string): Row {
  const ratio = t.a.median / t.b.median;
  const sameCount = ours === ref && ref === expected;
  return {
    id, what,
    ours: `${fmtMs(t.a, 0)}; ${ours} lines`,
    reference: `${fmtMs(t.b, 0)}; ${ref} lines`,
    ratio: `${ratio.toFixed(2)}×`,
    goal,
    met: ratio <= maxRatio && sameCount,
    note: sameCount ? undefined : `counts differ: ours ${ours}, ${refName} ${ref}, planted ${expected}`,
  };
}
