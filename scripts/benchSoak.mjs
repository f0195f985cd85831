// Row 16 of `npm run bench` (issue 22 §2): two editor windows and three MCP servers on the same
// `.agent/` at once, for 60 s of mixed tool calls and terminal output, while three agents' hooks
// record their own shell commands (issue 46: Codex through the shell capture, Copilot CLI through
// agent-hook.sh, opencode through its plugin; bench/soakAgents.ts). Then: every JSON/JSONL/YAML
// file parses, every call has its ledger line, every printed terminal line is in its terminal's
// capture exactly once and in order, terminal numbers are unique, every agent's command is in its
// session's capture once, whole, with its exit code, no plan edit, memory write or finding is lost,
// saved outputs are whole, and fresh servers answer the same with the caches as with .agent/.cache
// removed.
//   node scripts/benchSoak.mjs [result.json]      (env: SOAK_MS=60000, SOAK_KEEP=1 keeps the folder)
// Needs dist/ (node esbuild.mjs) and out/ (tsc -p .). Exit 1 on any violation, 2 when it could not run.
// One code-server serves both windows (two Chromium browsers on the same folder: two extension
// hosts); each window runs bench/soakWindow.ts through the bench probe (bench/editorProbe).
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { launchBrowser } from '../test/runner/browser.mjs';
import { editorSettings, installExtensions, prepareProfile, startCodeServer } from '../test/runner/codeServer.mjs';
import { repoRoot } from '../test/runner/deps.mjs';
import { copyFixture, editorHome, workbenchUrl } from '../test/runner/integration.mjs';
import { killMarkedAndWait, makeTempDir, onCleanup, removeTempDir } from '../test/runner/processes.mjs';
import { probeVsix } from './benchProbe.mjs';

const require = createRequire(import.meta.url);
const SOAK_MS = Number(process.env.SOAK_MS ?? 60_000);
const SERVERS = 3;
const LOOPS_PER_SERVER = 2;
const SERVER_JS = path.join(repoRoot, 'dist/mcp.js');
const SCENARIO = path.join(repoRoot, 'out/bench/soakWindow.js');
const CHECKS = path.join(repoRoot, 'out/bench/soakChecks.js');
const MCP_CLIENT = path.join(repoRoot, 'out/test/integration/mcpClient.js');
const AGENTS = path.join(repoRoot, 'out/bench/soakAgents.js');
const PLUGIN = path.join(repoRoot, 'dist/opencode-plugin.mjs');
const outFile = process.argv[2];
const log = (s) => process.stderr.write(`[soak] ${s}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const load = () => os.loadavg().map((x) => x.toFixed(1)).join(' ');

function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

/** One call of the mix an agent makes over MCP, tagged `soakCall` so the ledger check finds it. */
function nextCall(server, loop, k, random) {
  const tag = `s${server}l${loop}-${k}`;
  const r = random();
  const lines = (n) => Array.from({ length: n }, (_, i) => `OFF ${tag} ${i + 1}`).join('\n') + '\n';
  if (r < 0.14) {
    const n = random() < 0.5 ? 5 + Math.floor(random() * 30) : 200 + Math.floor(random() * 5000);
    return { tag, tool: 'agentContext_run', input: { soakCall: tag, command: `seq -f 'RUN ${tag} %g' 1 ${n}` } };
  }
  if (r < 0.26) return { tag, tool: 'agentContext_offload', input: { soakCall: tag, name: `soak-${tag}`, content: lines(5 + Math.floor(random() * 3000)) } };
  if (r < 0.36) return { tag, tool: 'agentContext_grep', input: { soakCall: tag, pattern: random() < 0.5 ? `SOAK w1t1c${1 + Math.floor(random() * 20)} ` : 'RUN s2', maxResults: 20 } };
  if (r < 0.42) return { tag, tool: 'agentContext_glob', input: { soakCall: tag, pattern: '*.txt', path: '.agent/scratch', maxResults: 20 } };
  if (r < 0.48) return { tag, tool: 'agentContext_read', input: { soakCall: tag, path: '.agent/terminals/1.txt', offset: 1, limit: 40 } };
  if (r < 0.58) {
    const a = random();
    if (a < 0.6) return { tag, tool: 'agentContext_plan', input: { soakCall: tag, action: 'addStep', description: `soak step ${tag}` } };
    if (a < 0.8) return { tag, tool: 'agentContext_plan', input: { soakCall: tag, action: 'setNotes', stepId: '4', notes: `notes ${tag}` } };
    return { tag, tool: 'agentContext_plan', input: { soakCall: tag, action: 'get' } };
  }
  if (r < 0.68) {
    const key = `soak-s${server}l${loop}-${k % 5}`;
    const a = random();
    if (a < 0.6) return { tag, tool: 'agentContext_memory', input: { soakCall: tag, action: 'remember', key, value: `value ${tag}` } };
    if (a < 0.75) return { tag, tool: 'agentContext_memory', input: { soakCall: tag, action: 'forget', key } };
    return { tag, tool: 'agentContext_memory', input: { soakCall: tag, action: random() < 0.5 ? 'recall' : 'list', key } };
  }
  if (r < 0.8) {
    const a = random();
    const input = a < 0.4 ? {} : a < 0.7 ? { command: 'lastFailed' } : { terminal: 1 + Math.floor(random() * 8), command: 'last' };
    return { tag, tool: 'agentContext_terminal', input: { soakCall: tag, ...input } };
  }
  if (r < 0.87) return { tag, tool: 'agentContext_briefing', input: { soakCall: tag } };
  if (r < 0.93) return { tag, tool: 'agentContext_cleanup', input: { soakCall: tag } };
  if (r < 0.97) return { tag, tool: 'agentContext_agentWorkspace', input: { soakCall: tag, agentId: 'soak-shared', action: 'writeFinding', content: `FIND ${tag}` } };
  return { tag, tool: 'agentContext_skill', input: { soakCall: tag } };
}

/** The questions asked of a fresh server, with and without .agent/.cache. */
function freshQuestions(numbers) {
  const q = {
    briefing: ['agentContext_briefing', {}],
    'terminal list': ['agentContext_terminal', {}],
    'terminal lastFailed': ['agentContext_terminal', { command: 'lastFailed' }],
    'cleanup dry run': ['agentContext_cleanup', {}],
    'plan get': ['agentContext_plan', { action: 'get' }],
    'agents list': ['agentContext_agentWorkspace', { agentId: 'soak-check', action: 'list' }],
    'memory list': ['agentContext_memory', { action: 'list' }],
    // maxResults keeps the list under the answer's byte budget: each line's age ("9 s ago", "1 min
    // ago") changes length with the clock, and a budget-cut list would then show a different count.
    'scratch glob': ['agentContext_glob', { pattern: '*', path: '.agent/scratch', maxResults: 30 }],
  };
  for (const n of numbers) q[`terminal ${n} last`] = ['agentContext_terminal', { terminal: n, command: 'last' }];
  return q;
}

async function ask(startMcp, ws, questions) {
  const s = await startMcp(SERVER_JS, ws, ['--allow-run']);
  const out = {};
  try {
    for (const [k, [tool, input]] of Object.entries(questions)) out[k] = (await s.call(tool, input)).text;
  } finally {
    await s.close();
  }
  return out;
}

function ledgerSizes(agentDir) {
  const dir = path.join(agentDir, 'history');
  const m = new Map();
  for (const f of fs.existsSync(dir) ? fs.readdirSync(dir) : []) m.set(f, fs.statSync(path.join(dir, f)).size);
  return m;
}

/** Puts the history folder back as it was (the fresh servers' own calls append ledger lines). */
function restoreLedger(agentDir, sizes) {
  const dir = path.join(agentDir, 'history');
  for (const f of fs.readdirSync(dir)) {
    if (!sizes.has(f)) fs.rmSync(path.join(dir, f), { recursive: true, force: true });
    else if (fs.statSync(path.join(dir, f)).size !== sizes.get(f)) fs.truncateSync(path.join(dir, f), sizes.get(f));
  }
}

async function main() {
  for (const f of [SERVER_JS, path.join(repoRoot, 'dist/extension.js'), PLUGIN, path.join(repoRoot, 'dist/agent-context-shell.sh'), path.join(repoRoot, 'dist/agent-hook.sh')]) if (!fs.existsSync(f)) throw new Error(`${f} is missing: run node esbuild.mjs`);
  for (const f of [SCENARIO, CHECKS, MCP_CLIENT, AGENTS]) if (!fs.existsSync(f)) throw new Error(`${f} is missing: run tsc -p .`);
  const { startMcp } = require(MCP_CLIENT);
  const checks = require(CHECKS);
  const { runAgentHooks } = require(AGENTS);
  const { agentContextPlugin } = await import(PLUGIN);
  const base = makeTempDir('soak');
  const keep = process.env.SOAK_KEEP === '1';
  const browsers = [];
  const servers = [];
  let server;
  const cleanup = onCleanup(async () => {
    for (const b of browsers) await b.close();
    await server?.stop();
    await Promise.all(servers.map((s) => s.close().catch(() => {})));
    await killMarkedAndWait();
    if (keep) fs.rmSync(path.join(base, '.owner'), { force: true });
    removeTempDir(base, keep);
  });
  const result = { ok: false, soakMs: SOAK_MS, load: { start: os.loadavg(), max: 0 }, checks: [], mcp: {}, windows: [] };
  try {
    const ws = copyFixture('workspace', base).path;
    const agentDir = path.join(ws, '.agent');
    const soakDir = path.join(base, 'soak');
    fs.mkdirSync(soakDir);
    const profile = prepareProfile(base, editorSettings({ 'remote.autoForwardPorts': false, 'remote.autoForwardPortsSource': 'output' }));
    installExtensions(profile, [probeVsix()]);
    const home = editorHome(base);
    server = await startCodeServer({
      profile,
      env: {
        HOME: home,
        AGENT_CONTEXT_BENCH_SCENARIO: SCENARIO,
        AGENT_CONTEXT_BENCH_OUT: path.join(soakDir, 'probe.json'),
        AGENT_CONTEXT_SOAK_DIR: soakDir,
        AGENT_CONTEXT_SOAK_MS: String(SOAK_MS),
      },
    });
    log(`code-server on ${server.url}; opening two windows on ${ws} (load ${load()})`);
    for (let i = 0; i < 2; i++) {
      const b = await launchBrowser();
      browsers.push(b);
      await b.page.goto(workbenchUrl(server, { kind: 'folder', path: ws }, repoRoot));
    }
    for (let i = 1; i <= SERVERS; i++) servers.push(await startMcp(SERVER_JS, ws, ['--allow-run']));
    const readyDeadline = Date.now() + 300_000;
    while (!(fs.existsSync(path.join(soakDir, 'ready-1')) && fs.existsSync(path.join(soakDir, 'ready-2')))) {
      for (const w of [1, 2]) {
        const f = path.join(soakDir, `window-${w}.json`);
        if (fs.existsSync(f)) throw new Error(`window ${w} failed before the start: ${JSON.parse(fs.readFileSync(f, 'utf8')).error}`);
      }
      const probe = path.join(soakDir, 'probe.json');
      if (fs.existsSync(probe) && JSON.parse(fs.readFileSync(probe, 'utf8')).ok === false) throw new Error(`a window failed: ${fs.readFileSync(probe, 'utf8')}`);
      if (Date.now() > readyDeadline) throw new Error('the windows were not ready (terminals with shell integration) within 300 s');
      await sleep(250);
    }

    // The soak: both windows and every server loop start together.
    log(`both windows ready; ${SERVERS} servers × ${LOOPS_PER_SERVER} loops of calls for ${SOAK_MS / 1000} s (load ${load()})`);
    const calls = [];
    const t0 = Date.now();
    fs.writeFileSync(path.join(soakDir, 'go'), '');
    const end = t0 + SOAK_MS;
    const sampler = setInterval(() => (result.load.max = Math.max(result.load.max, os.loadavg()[0])), 2000);
    const loop = async (si, li) => {
      const random = rng(si * 100 + li);
      let k = 0;
      while (Date.now() < end) {
        const c = nextCall(si + 1, li + 1, ++k, random);
        const call = { ...c, server: si + 1, text: '' };
        const t = performance.now();
        try {
          const r = await servers[si].call(c.tool, c.input);
          call.text = r.text;
          call.isError = r.isError;
        } catch (e) {
          call.threw = String(e?.message ?? e);
        }
        call.ms = performance.now() - t;
        call.at = Date.now() - t0 - call.ms;
        calls.push(call);
      }
    };
    // Three agents' own shell commands through their hooks, meanwhile (parallel calls in each session).
    const agentsRun = runAgentHooks({ ws, dist: path.join(repoRoot, 'dist'), until: end, plugin: agentContextPlugin });
    await Promise.all(servers.flatMap((_, si) => Array.from({ length: LOOPS_PER_SERVER }, (_, li) => loop(si, li))));
    const mcpSeconds = (Date.now() - t0) / 1000;
    const agentCommands = await agentsRun;
    log(`servers done: ${calls.length} calls in ${mcpSeconds.toFixed(0)} s; agents' hooks: ${agentCommands.length} commands; waiting for the windows (load ${load()})`);
    const windows = [];
    const winDeadline = Date.now() + 180_000;
    for (const w of [1, 2]) {
      const f = path.join(soakDir, `window-${w}.json`);
      while (!fs.existsSync(f) && Date.now() < winDeadline) await sleep(250);
      if (!fs.existsSync(f)) throw new Error(`window ${w} wrote no result within 180 s of the soak's end`);
      await sleep(100);
      windows.push(JSON.parse(fs.readFileSync(f, 'utf8')));
    }
    clearInterval(sampler);
    result.load.end = os.loadavg();
    for (const b of browsers.splice(0)) await b.close();
    await server.stop();
    server = undefined;
    await Promise.all(servers.splice(0).map((s) => s.close()));
    await killMarkedAndWait();

    // Checks on disk.
    const windowCalls = windows.flatMap((w) => w.calls.map((c) => ({ ...c, who: `window ${w.window}` })));
    const mcpCalls = calls.map((c) => ({ ...c, who: `server ${c.server}` }));
    const all = [...mcpCalls, ...windowCalls];
    const threw = all.filter((c) => c.threw);
    result.checks.push({ name: 'calls answered', figures: `${all.length - threw.length}/${all.length}`, violations: threw.slice(0, 20).map((c) => `${c.who} ${c.tag} ${c.tool}: ${c.threw}`) });
    for (const w of windows) if (!w.ok) result.checks.push({ name: `window ${w.window}`, figures: '—', violations: [`window ${w.window} failed: ${w.error}`] });
    result.checks.push(checks.checkFilesParse(agentDir));
    result.checks.push(await checks.checkTerminals(agentDir, windows));
    result.checks.push(await checks.checkAgentCommands(agentDir, agentCommands));
    result.checks.push(await checks.checkLedger(agentDir, all.map((c) => ({ tag: c.tag, who: c.who }))));
    result.checks.push(await checks.checkPlan(agentDir, all));
    result.checks.push(await checks.checkMemory(agentDir, mcpCalls));
    result.checks.push(await checks.checkMemory(agentDir, windowCalls));
    result.checks.push(await checks.checkFindings(agentDir, all));
    result.checks.push(checks.checkSaved(ws, all));

    // The caches against a fresh scan: the same questions to a fresh server that finds .agent/.cache
    // as the soak left it, and to one that finds none.
    const numbers = windows.flatMap((w) => w.terminals.map((t) => t.n)).filter((n) => n !== undefined).sort((a, b) => a - b);
    const questions = freshQuestions([numbers[0], numbers[Math.floor(numbers.length / 2)], numbers[numbers.length - 1]].filter((n, i, a) => n !== undefined && a.indexOf(n) === i));
    const cacheFiles = fs.existsSync(path.join(agentDir, '.cache')) ? fs.readdirSync(path.join(agentDir, '.cache')) : [];
    const sizes = ledgerSizes(agentDir);
    const withCache = await ask(startMcp, ws, questions);
    restoreLedger(agentDir, sizes);
    fs.renameSync(path.join(agentDir, '.cache'), path.join(base, 'cache-after-soak'));
    const fresh = await ask(startMcp, ws, questions);
    restoreLedger(agentDir, sizes);
    const cmp = checks.compareAnswers(withCache, fresh);
    cmp.figures += ` (caches found: ${cacheFiles.join(', ') || 'none'})`;
    result.checks.push(cmp);

    const per = (s) => calls.filter((c) => c.server === s);
    result.mcp = {
      calls: calls.length,
      perSecond: calls.length / mcpSeconds,
      seconds: mcpSeconds,
      perServer: [1, 2, 3].map((s) => per(s).length),
      byTool: Object.fromEntries([...new Set(calls.map((c) => c.tool))].sort().map((t) => [t, calls.filter((c) => c.tool === t).length])),
      medianMs: [...calls.map((c) => c.ms)].sort((a, b) => a - b)[Math.floor(calls.length / 2)],
      maxMs: Math.max(...calls.map((c) => c.ms)),
      slowest: [...calls].sort((a, b) => b.ms - a.ms).slice(0, 5).map((c) => `${c.tag} ${c.tool} ${JSON.stringify({ ...c.input, soakCall: undefined, content: undefined }).slice(0, 80)} ${c.ms.toFixed(0)} ms`),
      errors: calls.filter((c) => c.isError).length,
      errorKinds: [...new Set(calls.filter((c) => c.isError && c.tool !== 'agentContext_run').map((c) => `${c.tool}: ${c.text.split('\n')[0].slice(0, 100)}`))].slice(0, 8),
    };
    result.callTimes = calls.map((c) => ({ tag: c.tag, tool: c.tool, at: Math.round(c.at), ms: Math.round(c.ms), isError: c.isError }));
    result.agents = { commands: agentCommands.length, byAgent: Object.fromEntries([...new Set(agentCommands.map((c) => c.agent))].map((a) => [a, agentCommands.filter((c) => c.agent === a).length])) };
    result.windows = windows.map((w) => ({ window: w.window, ok: w.ok, terminals: w.terminals.length, commands: w.commands.length, lines: w.commands.reduce((a, c) => a + c.lines, 0), calls: w.calls.length, blockMs: w.blockMs, durationMs: w.durationMs }));
    result.ok = result.checks.every((c) => c.violations.length === 0);
  } catch (e) {
    result.error = String(e?.stack ?? e);
  } finally {
    await cleanup();
  }
  result.load.end ??= os.loadavg();
  for (const c of result.checks) {
    log(`${c.violations.length ? 'FAIL' : 'ok  '} ${c.name}: ${c.figures}`);
    for (const v of c.violations.slice(0, 20)) log(`       ${v}`);
    if (c.violations.length > 20) log(`       … ${c.violations.length - 20} more`);
  }
  if (result.mcp.calls) log(`MCP: ${result.mcp.calls} calls, ${result.mcp.perSecond.toFixed(1)}/s (servers ${result.mcp.perServer.join(' / ')}), median ${result.mcp.medianMs.toFixed(0)} ms, max ${result.mcp.maxMs.toFixed(0)} ms; by tool ${JSON.stringify(result.mcp.byTool)}`);
  if (result.mcp.calls) log(`slowest calls: ${result.mcp.slowest.join('; ')}`);
  for (const w of result.windows) log(`window ${w.window}: ${w.terminals} terminals, ${w.commands} commands, ${w.lines} lines, ${w.calls} tool calls, longest block ${w.blockMs.toFixed(0)} ms`);
  log(`load average: start ${result.load.start.map((x) => x.toFixed(1)).join(' ')}, max ${result.load.max.toFixed(1)}, end ${result.load.end.map((x) => x.toFixed(1)).join(' ')}`);
  if (result.error) log(`could not run: ${result.error}`);
  log(result.ok ? 'no violation' : 'VIOLATIONS (see above)');
  if (outFile) fs.writeFileSync(outFile, JSON.stringify(result, null, 1));
  process.exit(result.error ? 2 : result.ok ? 0 : 1);
}

main().catch((e) => {
  log(String(e?.stack ?? e));
  process.exit(2);
});
