// Row 16 (the concurrency soak, issue 22 §2): what is checked on the `.agent/` folder once two
// editor windows and three MCP servers have written it at once (scripts/benchSoak.mjs runs the
// soak and calls these; bench/soakWindow.ts is the windows' side). Each check returns the
// violations it found as sentences, with the counts it made; no editor, no server needed here.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { readLedger } from '../src/core/history/ledger';
import { listMemory } from '../src/core/memory/preferences';
import { readFindings } from '../src/core/agents/subAgentWorkspaces';
import { loadPlanFile } from '../src/core/plan/planFiles';
import { parseTerminalHeader, type TerminalCommand, type TerminalInfo } from '../src/core/terminal/terminalFormat';
import { listTerminals, readTerminalIndex } from '../src/core/terminal/terminalIndex';
import { SPOOL_DIR } from '../src/core/terminal/agentCommands/commandSpool';
import { foldCommandSpool } from '../src/core/terminal/agentCommands/sessionFold';
import { answerProblem, printedText, type AgentCommand } from './soakAgents';
import type { SoakCommand, SoakToolCall, SoakWindowResult } from './soakWindow';

export interface Check {
  name: string;
  figures: string;
  violations: string[];
}

/** A tool call the runner made over MCP (the same shape as a window's). */
export type McpCall = SoakToolCall & { server: number; isError?: boolean };

function walk(dir: string, out: string[] = []): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.isFile()) out.push(p);
  }
  return out;
}

/**
 * A digest cache (core/fs/fileDigests.ts) is named .json but holds lines: a header
 * `{"format":"agent-context-digests/lines",…,"count":N}` and N entry lines, each JSON. undefined when
 * `text` is such a file, whole; '' when it is not one at all; else what is wrong with it.
 */
function digestLinesProblem(text: string): string | undefined {
  const ls = text.split('\n');
  let head: { format?: unknown; count?: unknown };
  try {
    head = JSON.parse(ls[0]) as typeof head;
  } catch {
    return '';
  }
  if (head?.format !== 'agent-context-digests/lines' || typeof head.count !== 'number') return '';
  if (ls.pop() !== '') return 'digest lines: torn last line (no newline at the end)';
  if (ls.length - 1 !== head.count) return `digest lines: the header says ${head.count} entries, the file has ${ls.length - 1}`;
  const i = ls.findIndex((l, k) => k > 0 && !parses(l));
  return i < 0 ? undefined : `digest lines: line ${i + 1} is not JSON: ${ls[i].slice(0, 80)}`;
}

function parses(l: string): boolean {
  try {
    JSON.parse(l);
    return true;
  } catch {
    return false;
  }
}

/** Every JSON, JSONL and YAML file under .agent/ parses (a digest cache's lines each); a JSONL's bad lines are named (a torn last line apart); no temp file or lock is left. */
export function checkFilesParse(agentDir: string): Check {
  const v: string[] = [];
  let json = 0;
  let jsonl = 0;
  let lines = 0;
  let yaml = 0;
  let torn = 0;
  const leftovers: string[] = [];
  for (const f of walk(agentDir)) {
    const rel = path.relative(agentDir, f);
    const base = path.basename(f);
    if (/\.tmp$|\.tmp-|\.lock$/.test(base) || rel.startsWith(`.cache${path.sep}tmp${path.sep}`)) leftovers.push(rel);
    if (/\.jsonl$/.test(base)) {
      jsonl++;
      const text = fs.readFileSync(f, 'utf8');
      const ls = text.split('\n');
      const last = ls.pop();
      if (last) {
        // No trailing newline: a torn last line (a writer stopped mid-line).
        torn++;
        v.push(`${rel}: torn last line (no newline at the end): ${last.slice(0, 80)}`);
      }
      ls.forEach((l, i) => {
        if (!l.trim()) return;
        lines++;
        try {
          JSON.parse(l);
        } catch {
          v.push(`${rel}:${i + 1}: not JSON: ${l.slice(0, 80)}`);
        }
      });
    } else if (/\.json$/.test(base)) {
      json++;
      const text = fs.readFileSync(f, 'utf8');
      try {
        JSON.parse(text);
      } catch (e) {
        const bad = digestLinesProblem(text);
        if (bad !== undefined) v.push(`${rel}: ${bad || `not JSON (${(e as Error).message.slice(0, 80)})`}`);
      }
    } else if (/\.ya?ml$/.test(base)) {
      yaml++;
      try {
        parseYaml(fs.readFileSync(f, 'utf8'));
      } catch (e) {
        v.push(`${rel}: not YAML (${(e as Error).message.split('\n')[0].slice(0, 80)})`);
      }
    }
  }
  if (leftovers.length) v.push(`${leftovers.length} temp or lock file(s) left: ${leftovers.slice(0, 5).join(', ')}`);
  return { name: 'files parse', figures: `${json} JSON, ${jsonl} JSONL (${lines.toLocaleString('en-US')} lines), ${yaml} YAML files; ${torn} torn last lines; ${leftovers.length} temp/lock files left`, violations: v };
}

/**
 * Terminals: every window's terminal has exactly one N.txt (its header names it) and no two share a
 * number; every command's `SOAK <tag> i` lines are in its terminal's file, each exactly once, in
 * order, inside that command's block (from the index), whose exit code is the one the shell reported.
 */
export async function checkTerminals(agentDir: string, windows: SoakWindowResult[]): Promise<Check> {
  const v: string[] = [];
  const dir = path.join(agentDir, 'terminals');
  const byName = new Map<string, number[]>();
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => /^\d+\.txt$/.test(f)) : [];
  for (const f of files) {
    const n = Number(f.slice(0, -4));
    const head = fs.readFileSync(path.join(dir, f), 'utf8').slice(0, 4096);
    const h = parseTerminalHeader(head);
    if (Number(h.number) !== n) v.push(`terminals/${f}: header says number ${h.number}`);
    byName.set(h.terminal, [...(byName.get(h.terminal) ?? []), n]);
  }
  const ours = windows.flatMap((w) => w.terminals);
  for (const t of ours) {
    const ns = byName.get(t.name) ?? [];
    if (ns.length !== 1) v.push(`terminal ${t.name}: ${ns.length} capture files (${ns.join(', ') || 'none'})`);
    else if (t.n !== undefined && t.n !== ns[0]) v.push(`terminal ${t.name}: the window saw number ${t.n}, the file is ${ns[0]}.txt`);
  }
  const numbers = ours.map((t) => byName.get(t.name)?.[0]).filter((n): n is number => n !== undefined);
  if (new Set(numbers).size !== numbers.length) v.push('two terminals share a number');

  // Every SOAK line anywhere, by tag: where it is and in what order.
  const seen = new Map<string, { n: number; i: number; line: number }[]>();
  for (const f of fs.existsSync(dir) ? fs.readdirSync(dir).filter((x) => /^\d+(\.1)?\.txt$/.test(x)) : []) {
    const n = Number(f.split('.')[0]);
    const text = fs.readFileSync(path.join(dir, f), 'utf8').split('\n');
    text.forEach((l, k) => {
      const m = /^SOAK (\S+) (\d+)$/.exec(l);
      if (m) seen.set(m[1], [...(seen.get(m[1]) ?? []), { n, i: Number(m[2]), line: k + 1 }]);
      else if (l.includes('SOAK ') && !l.startsWith('>>> ')) v.push(`terminals/${f}:${k + 1}: a damaged line: ${l.slice(0, 80)}`);
    });
  }
  let expected = 0;
  let found = 0;
  let commands = 0;
  const indexCache = new Map<number, Awaited<ReturnType<typeof readTerminalIndex>>>();
  for (const w of windows) {
    for (const c of w.commands) {
      commands++;
      expected += c.lines;
      const n = byName.get(c.terminal)?.[0];
      const got = seen.get(c.tag) ?? [];
      found += got.length;
      seen.delete(c.tag);
      const problem = linesProblem(c, got, n);
      if (problem) v.push(problem);
      if (n === undefined) continue;
      if (!indexCache.has(n)) indexCache.set(n, await readTerminalIndex(agentDir, n));
      const idx = indexCache.get(n)!;
      const rec = idx.ok ? idx.value.commands.find((r) => r.commandLine.includes(`SOAK ${c.tag} `)) : undefined;
      if (!rec) {
        v.push(`${c.tag}: no index record in terminal ${n}`);
        continue;
      }
      if (rec.status !== 'done') v.push(`${c.tag}: index record ${n}#${rec.command} is ${rec.status}`);
      if (c.ended && rec.exitCode !== (c.endedExit ?? null)) v.push(`${c.tag}: index says exit ${rec.exitCode}, the shell said ${c.endedExit}`);
      if (c.ended && c.endedExit !== c.exitCode) v.push(`${c.tag}: the shell said exit ${c.endedExit}, the command exits ${c.exitCode}`);
      if (!c.ended) v.push(`${c.tag}: the window saw no end of the command within 60 s`);
      const inBlock = got.every((g) => g.n === n && rec.parts.some((p) => g.line >= p.firstLine && (p.lastLine === null || g.line <= p.lastLine)));
      if (!inBlock) v.push(`${c.tag}: some lines lie outside the command's block ${n}#${rec.command}`);
    }
  }
  for (const [tag, got] of seen) v.push(`${tag}: ${got.length} lines of a command no window ran`);
  const terminalsPerWindow = windows.map((w) => `window ${w.window}: ${w.terminals.length} terminals, ${w.commands.length} commands`).join('; ');
  return {
    name: 'terminals',
    figures: `${ours.length} terminals (numbers ${numbers.length ? `${Math.min(...numbers)}–${Math.max(...numbers)}` : '—'}, all distinct: ${new Set(numbers).size === numbers.length}), ${commands} commands, ${found.toLocaleString('en-US')}/${expected.toLocaleString('en-US')} printed lines captured; ${terminalsPerWindow}`,
    violations: v,
  };
}

function linesProblem(c: SoakCommand, got: { n: number; i: number; line: number }[], n: number | undefined): string | undefined {
  if (got.length !== c.lines) return `${c.tag} (${c.terminal}): ${got.length} of ${c.lines} lines captured${got.length > c.lines ? ' (some twice)' : ''}`;
  for (let k = 0; k < got.length; k++) {
    if (got[k].i !== k + 1) return `${c.tag}: line ${k + 1} is "${got[k].i}" (out of order or doubled)`;
    if (got[k].n !== n) return `${c.tag}: line ${k + 1} is in terminal ${got[k].n}, the command ran in ${c.terminal} (${n})`;
    if (k > 0 && got[k].line <= got[k - 1].line) return `${c.tag}: lines out of order in the file`;
  }
  return undefined;
}

/** Every call made (over MCP and through the windows) has exactly one ledger line, found by its `soakCall` tag. */
export async function checkLedger(agentDir: string, calls: { tag: string; who: string }[]): Promise<Check> {
  const v: string[] = [];
  const l = await readLedger(agentDir);
  for (const b of l.bad) v.push(`history/${b.file}:${b.line}: not a ledger line`);
  const count = new Map<string, number>();
  for (const e of l.entries) {
    const m = /"soakCall":"([^"]+)"/.exec(e.input);
    if (m) count.set(m[1], (count.get(m[1]) ?? 0) + 1);
  }
  const byWho = new Map<string, { made: number; recorded: number }>();
  for (const c of calls) {
    const k = count.get(c.tag) ?? 0;
    const w = byWho.get(c.who) ?? { made: 0, recorded: 0 };
    w.made++;
    if (k >= 1) w.recorded++;
    byWho.set(c.who, w);
    if (k !== 1) v.push(`call ${c.tag}: ${k} ledger lines`);
    count.delete(c.tag);
  }
  for (const [tag, k] of count) v.push(`ledger: ${k} line(s) for ${tag}, a call nobody made`);
  const per = [...byWho].map(([who, x]) => `${who} ${x.recorded}/${x.made}`).join(', ');
  return { name: 'ledger', figures: `${l.entries.length.toLocaleString('en-US')} ledger lines; recorded/made: ${per}`, violations: v.slice(0, 50).concat(v.length > 50 ? [`… ${v.length - 50} more`] : []) };
}

const ok = (c: SoakToolCall & { isError?: boolean }): boolean => !c.threw && !c.isError && !/^Error/.test(c.text);

/** Plan: every addStep answered "Updated." is in plan.yaml once; ids are distinct; the file parses. */
export async function checkPlan(agentDir: string, calls: (SoakToolCall & { isError?: boolean })[]): Promise<Check> {
  const v: string[] = [];
  const file = path.join(agentDir, 'plan.yaml');
  const loaded = await loadPlanFile(file, '.agent/plan.yaml');
  if (!loaded.ok) return { name: 'plan edits', figures: '—', violations: [`plan.yaml: ${loaded.error.message}`] };
  const steps = loaded.value.plan.steps;
  const ids = steps.map((s) => s.id);
  if (new Set(ids).size !== ids.length) v.push(`plan.yaml: step ids repeat (${ids.length} steps, ${new Set(ids).size} ids)`);
  const adds = calls.filter((c) => c.tool === 'agentContext_plan' && c.input.action === 'addStep');
  const updated = adds.filter((c) => ok(c) && /^Updated\./.test(c.text));
  const refused = adds.filter((c) => !ok(c));
  for (const c of updated) {
    const k = steps.filter((s) => s.description === c.input.description).length;
    if (k !== 1) v.push(`plan: "${c.input.description}" answered Updated. but is in plan.yaml ${k} time(s) (a lost update)`);
  }
  const notes = calls.filter((c) => c.tool === 'agentContext_plan' && c.input.action === 'setNotes' && ok(c));
  const reasons = [...new Set(refused.map((c) => (c.threw ?? c.text).split('\n')[0].slice(0, 120)))];
  return {
    name: 'plan edits',
    figures: `${adds.length} addStep calls: ${updated.length} answered Updated., ${refused.length} refused${reasons.length ? ` (${reasons.slice(0, 2).join('; ')})` : ''}; ${notes.length} setNotes; ${steps.length} steps in plan.yaml`,
    violations: v,
  };
}

/** Memory: each key ends with the value of the last remember that answered without error (one writer per key). */
export async function checkMemory(agentDir: string, calls: (SoakToolCall & { isError?: boolean })[]): Promise<Check> {
  const v: string[] = [];
  const list = await listMemory(agentDir);
  if (!list.ok) return { name: 'memory', figures: '—', violations: [`preferences.yaml: ${list.error.message}`] };
  const last = new Map<string, string | undefined>();
  let writes = 0;
  for (const c of calls.filter((x) => x.tool === 'agentContext_memory' && ok(x))) {
    if (c.input.action === 'remember') last.set(String(c.input.key), String(c.input.value));
    else if (c.input.action === 'forget') last.set(String(c.input.key), undefined);
    else continue;
    writes++;
  }
  for (const [key, value] of last) {
    const e = list.value.find((x) => x.key === key);
    if (e?.value !== value) v.push(`memory ${key}: "${e?.value}" on disk, the last write answered for "${value}"`);
  }
  return { name: 'memory', figures: `${writes} writes to ${last.size} keys; ${list.value.length} entries`, violations: v };
}

/** Findings: every writeFinding that answered is in the shared agent's findings.md exactly once. */
export async function checkFindings(agentDir: string, calls: (SoakToolCall & { isError?: boolean })[]): Promise<Check> {
  const v: string[] = [];
  const writes = calls.filter((c) => c.tool === 'agentContext_agentWorkspace' && c.input.action === 'writeFinding' && ok(c));
  if (!writes.length) return { name: 'findings', figures: '0 writes', violations: [] };
  const r = await readFindings(agentDir, 'soak-shared');
  if (!r.ok) return { name: 'findings', figures: '—', violations: [`findings: ${r.error.message}`] };
  for (const c of writes) {
    const k = r.value.findings.filter((f) => f.text.trim() === String(c.input.content)).length;
    if (k !== 1) v.push(`finding ${c.input.content}: ${k} times in findings.md`);
  }
  return { name: 'findings', figures: `${writes.length} findings written, ${r.value.findings.length} in findings.md`, violations: v };
}

/** Offloads and run outputs: each saved file holds exactly what was sent or printed. */
export function checkSaved(root: string, calls: (SoakToolCall & { isError?: boolean })[]): Check {
  const v: string[] = [];
  let offloads = 0;
  let runs = 0;
  let inline = 0;
  for (const c of calls.filter(ok)) {
    const m = /(\.agent\/scratch\/[^\s`)]+)/.exec(c.text);
    if (c.tool === 'agentContext_offload') {
      if (!m) {
        v.push(`offload ${c.tag}: no path in the answer: ${c.text.slice(0, 100)}`);
        continue;
      }
      offloads++;
      const text = fs.existsSync(path.join(root, m[1])) ? fs.readFileSync(path.join(root, m[1]), 'utf8') : undefined;
      if (text !== c.input.content) v.push(`offload ${c.tag}: ${m[1]} ${text === undefined ? 'is missing' : `differs (${text.length} of ${String(c.input.content).length} chars)`}`);
    } else if (c.tool === 'agentContext_run') {
      const want = Number(/1 (\d+)$/.exec(String(c.input.command))?.[1]);
      const tag = /'RUN (\S+) %g'/.exec(String(c.input.command))?.[1];
      const expect = Array.from({ length: want }, (_, i) => `RUN ${tag} ${i + 1}`).join('\n') + '\n';
      if (m && /tool_outputs/.test(m[1])) {
        runs++;
        const p = path.join(root, m[1]);
        const text = fs.existsSync(p) ? fs.readFileSync(p, 'utf8') : undefined;
        if (text !== expect) v.push(`run ${c.tag}: ${m[1]} ${text === undefined ? 'is missing' : `differs (${text.split('\n').length - 1} of ${want} lines)`}`);
      } else {
        // No file named: the whole output must be in the answer.
        inline++;
        if (!c.text.includes(`RUN ${tag} ${want}\n`)) v.push(`run ${c.tag}: no saved file and the answer lacks the last line`);
      }
    }
  }
  return { name: 'saved outputs', figures: `${offloads} offloads and ${runs} run outputs checked byte for byte${inline ? `, ${inline} run answers with no file` : ''}`, violations: v };
}

/**
 * The answers a fresh server gives with the caches (.agent/.cache) and without them, compared after
 * dropping what differs by the clock alone (relative ages, durations).
 */
export function compareAnswers(withCache: Record<string, string>, fresh: Record<string, string>): Check {
  const v: string[] = [];
  const norm = (s: string): string =>
    s
      .replace(/\b\d+(\.\d+)? ?(ms|s|sec|min|m|h|d|seconds?|minutes?|hours?|days?) ago\b/g, '<ago>')
      .replace(/\b(just now|moments? ago)\b/g, '<ago>')
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>');
  for (const k of Object.keys(fresh)) {
    const a = norm(withCache[k] ?? '');
    const b = norm(fresh[k]);
    if (a !== b) {
      const al = a.split('\n');
      const bl = b.split('\n');
      const i = al.findIndex((l, j) => l !== bl[j]);
      v.push(`${k}: with the caches "${(al[i] ?? '').slice(0, 140)}" vs fresh scan "${(bl[i] ?? '').slice(0, 140)}" (line ${i + 1})`);
    }
  }
  return { name: 'caches vs fresh scan', figures: `${Object.keys(fresh).length} answers compared`, violations: v };
}

/**
 * The agent-command history after the soak (issue 46): once a fold has run (as any reader's does),
 * every command an agent's hook saw is in its session's capture exactly once, with its own exit code
 * and its whole output: in its block, or (offloaded) in the saved file the block's record names,
 * every `AGT <tag> i` line once and in order; each capture holds one agent session only, its
 * command numbers run 1, 2, 3… and each record's header line is that command's `>>>` line; no record
 * is left in the spool or set aside; what each agent read was its output or a reference to it.
 */
export async function checkAgentCommands(agentDir: string, commands: AgentCommand[]): Promise<Check> {
  const v: string[] = [];
  const fold = await foldCommandSpool(agentDir);
  for (const p of fold.problems) v.push(`fold: ${p}`);
  const spool = path.join(agentDir, SPOOL_DIR);
  const left = fs.existsSync(spool) ? fs.readdirSync(spool).filter((f) => f !== 'sessions.json') : [];
  if (left.length) v.push(`spool: ${left.length} file(s) left after a fold: ${left.slice(0, 5).join(', ')}`);
  const list = await listTerminals(agentDir);
  if (!list.ok) return { name: 'agent commands', figures: '—', violations: [`${list.error.file}: ${list.error.message}`] };
  /** Per tag, the records that name it, with their capture. */
  const found = new Map<string, { t: TerminalInfo; rec: TerminalCommand }[]>();
  const captures = list.value.filter((t) => t.agent);
  const linesOf = new Map<number, string[]>();
  for (const t of captures) {
    const idx = await readTerminalIndex(agentDir, t.n);
    if (!idx.ok) {
      v.push(`terminals/${t.n}.index.jsonl: ${idx.error.message}`);
      continue;
    }
    for (const p of idx.value.problems) v.push(`terminals/${t.n}.index.jsonl: ${JSON.stringify(p).slice(0, 100)}`);
    const text = fs.readFileSync(path.join(agentDir, t.file), 'utf8').split('\n');
    linesOf.set(t.n, text);
    idx.value.commands.forEach((rec, i) => {
      if (rec.command !== i + 1) v.push(`terminal ${t.n}: command #${rec.command} is its ${i + 1}th record`);
      if (Number(/^>>> command (\d+)\b/.exec(text[rec.headerLine - 1] ?? '')?.[1]) !== rec.command) v.push(`terminal ${t.n}: #${rec.command}'s header line ${rec.headerLine} is "${(text[rec.headerLine - 1] ?? '').slice(0, 60)}"`);
      const tag = /AGT (\S+) %g/.exec(rec.commandLine)?.[1];
      if (!tag) return;
      found.set(tag, [...(found.get(tag) ?? []), { t, rec }]);
    });
  }
  let offloaded = 0;
  let answersOk = 0;
  for (const c of commands) {
    const a = answerProblem(c);
    if (a) v.push(`${c.tag} (${c.agent}): ${a}`);
    else answersOk++;
    const got = found.get(c.tag) ?? [];
    found.delete(c.tag);
    if (got.length !== 1) {
      v.push(`${c.tag} (${c.agent}): ${got.length} records in the history${got.length ? ` (terminals ${got.map((g) => g.t.n).join(', ')})` : ''}`);
      if (!got.length) continue;
    }
    const { t, rec } = got[0];
    if (t.agent !== c.agent || t.session !== c.session) v.push(`${c.tag}: in terminal ${t.n}, the capture of ${t.agent} session ${t.session}, not ${c.agent} session ${c.session}`);
    if (rec.exitCode !== c.exit) v.push(`${c.tag}: recorded exit ${rec.exitCode}, the command exits ${c.exit}`);
    let body: string[];
    if (rec.saved) {
      offloaded++;
      const p = path.join(agentDir, rec.saved);
      body = fs.existsSync(p) ? fs.readFileSync(p, 'utf8').split('\n') : [];
      if (!body.length) v.push(`${c.tag}: its saved output ${rec.saved} is missing`);
    } else {
      const text = linesOf.get(t.n) ?? [];
      body = rec.lastLine === null ? [] : text.slice(rec.firstLine - 1, rec.lastLine);
    }
    const mine = body.filter((l) => l.startsWith(`AGT ${c.tag} `));
    const want = printedText(c).split('\n').slice(0, -1);
    if (mine.length !== want.length || mine.some((l, i) => l !== want[i])) v.push(`${c.tag}: ${mine.length} of its ${want.length} lines ${rec.saved ? `in ${rec.saved}` : `in its block ${t.n}#${rec.command}`}, or out of order`);
    else if (!rec.saved && body.length !== want.length) v.push(`${c.tag}: its block ${t.n}#${rec.command} holds ${body.length - want.length} line(s) that are not its own`);
  }
  for (const [tag, got] of found) v.push(`${tag}: ${got.length} record(s) of a command no agent ran`);
  const sessions = new Set(commands.map((c) => `${c.agent} ${c.session}`));
  const byAgent = [...new Set(commands.map((c) => c.agent))].map((a) => `${a} ${commands.filter((c) => c.agent === a).length}`).join(', ');
  return {
    name: 'agent commands',
    figures: `${commands.length} commands (${byAgent}) in ${sessions.size} sessions, ${captures.length} session captures (numbers ${captures.length ? `${Math.min(...captures.map((t) => t.n))}–${Math.max(...captures.map((t) => t.n))}` : '—'}), ${offloaded} offloaded, ${commands.filter((c) => c.exit !== 0).length} failed; ${answersOk} agents' answers as printed or a reference; the last fold took ${fold.folded} record(s)`,
    violations: v.slice(0, 60).concat(v.length > 60 ? [`… ${v.length - 60} more`] : []),
  };
}
