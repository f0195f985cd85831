// Runs a real-client run: an agent CLI (Claude Code, Codex, Gemini CLI, Copilot CLI, opencode, Kilo Code…)
// installed into the test cache, driven by a scripted fake model API against our MCP server and
// hooks (suites under test/realClient/, mocha in this process; no editor). Same result shape as
// runIntegration, so npm test counts it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';
import { ensureDeps, repoRoot } from './deps.mjs';
import { killMarkedAndWait, makeTempDir, OWNER_VAR, ownerMarker, removeTempDir } from './processes.mjs';

/**
 * Per client: the env var its driver reads (test/realClient/<client>Cli.ts) ← the ensure-deps.sh
 * value it comes from. Every `*_BIN` is a binary, which must exist.
 */
const CLIENTS = {
  'claude-code': [['AGENT_CONTEXT_CLAUDE_BIN', 'CLAUDE_BIN']],
  'claude-code-current': [['AGENT_CONTEXT_CLAUDE_BIN', 'CLAUDE_CURRENT_BIN']],
  // The newest release (its platform package), with its ToolSearch: test/realClient/claudeToolSearch.test.ts.
  'claude-code-newest': [['AGENT_CONTEXT_CLAUDE_BIN', 'CLAUDE_NEWEST_BIN']],
  codex: [['AGENT_CONTEXT_CODEX_BIN', 'CODEX_BIN']],
  gemini: [['AGENT_CONTEXT_GEMINI_BIN', 'GEMINI_BIN']],
  'copilot-cli': [['AGENT_CONTEXT_COPILOT_BIN', 'COPILOT_BIN'], ['AGENT_CONTEXT_COPILOT_CACHE', 'COPILOT_CACHE']],
  opencode: [['AGENT_CONTEXT_OPENCODE_BIN', 'OPENCODE_BIN']],
  // VS Code's Copilot harness: the Copilot SDK (a library, driven by test/realClient/copilotHarnessHost.ts).
  'copilot-harness': [['AGENT_CONTEXT_COPILOT_SDK', 'COPILOT_SDK_DIR']],
  kilo: [['AGENT_CONTEXT_KILO_BIN', 'KILO_BIN']],
  // Qwen Code needs Node >= 22: its driver puts ensure-deps' Node 24 first on its PATH.
  'qwen-code': [['AGENT_CONTEXT_QWEN_BIN', 'QWEN_BIN'], ['AGENT_CONTEXT_NODE24_DIR', 'NODE24_DIR']],
  cline: [['AGENT_CONTEXT_CLINE_BIN', 'CLINE_BIN']],
  // test/realClient/crossAgent.test.ts: Codex and Claude Code (the pinned release) on one workspace.
  'cross-agent': [['AGENT_CONTEXT_CODEX_BIN', 'CODEX_BIN'], ['AGENT_CONTEXT_CLAUDE_BIN', 'CLAUDE_BIN']],
};

/** The client CLI, installed (once) into the test cache by scripts/ensure-deps.sh: the env its driver reads. */
export function ensureClient(client) {
  const vars = CLIENTS[client];
  if (!vars) throw new Error(`unknown client ${client} (known: ${Object.keys(CLIENTS).join(', ')})`);
  const deps = ensureDeps(['clients']);
  const env = { AGENT_CONTEXT_CLIENT: client };
  for (const [to, from] of vars) {
    if (!deps[from]) throw new Error(`scripts/ensure-deps.sh did not print ${from}`);
    env[to] = deps[from];
  }
  for (const [to, from] of vars.filter(([to]) => to.endsWith('_BIN'))) {
    if (!fs.existsSync(env[to])) throw new Error(`scripts/ensure-deps.sh did not install ${client} (${from}=${env[to]})`);
  }
  return env;
}

function suiteFiles(run) {
  const dir = path.join(repoRoot, 'out/test/realClient');
  const src = path.join(repoRoot, 'test/realClient');
  const re = run.include.map((g) => new RegExp(`^${g.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`));
  return fs.readdirSync(src)
    .filter((f) => f.endsWith('.test.ts') && re.some((r) => r.test(f.replace(/\.ts$/, ''))))
    .sort()
    .map((f) => path.join(dir, f.replace(/\.ts$/, '.js')));
}

/** Runs one real-client run; never throws. */
export async function runRealClient(run, { grep, keep } = {}) {
  const tmp = makeTempDir(run.name);
  const measure = path.join(tmp, 'measure.json');
  try {
    for (const f of [path.join(repoRoot, 'dist/mcp.js'), path.join(repoRoot, 'dist/agent-hook.js')]) {
      if (!fs.existsSync(f)) throw new Error(`${path.relative(repoRoot, f)} is missing: build first (node esbuild.mjs)`);
    }
    Object.assign(process.env, ensureClient(run.client), {
      AGENT_CONTEXT_REAL_CLIENT_TMP: tmp,
      AGENT_CONTEXT_REAL_CLIENT_MEASURE: measure,
      [OWNER_VAR]: ownerMarker(),
    });
    const files = suiteFiles(run);
    if (files.length === 0) throw new Error(`no suites under test/realClient matching ${run.include.join(',')}`);
    for (const f of files) if (!fs.existsSync(f)) throw new Error(`${path.relative(repoRoot, f)} is missing: compile first (tsc -p .)`);
    const mocha = new Mocha({ timeout: 180_000, slow: 30_000, reporter: function Silent() {} , ...(grep ? { grep } : {}) });
    for (const f of files) mocha.addFile(f);
    const results = { passed: 0, failed: 0, failures: [], tests: [] };
    await new Promise((resolve) => {
      // Unloaded afterwards: two runs (claude-code, claude-code-current) share the suite files, and a
      // file still in require's cache would define no tests the second time.
      const runner = mocha.run(() => {
        mocha.unloadFiles();
        resolve();
      });
      runner.on('pass', (t) => {
        results.passed++;
        results.tests.push({ title: t.fullTitle(), durationMs: t.duration });
        console.log(`  ✔ ${t.fullTitle()} (${((t.duration ?? 0) / 1000).toFixed(1)} s)`);
      });
      runner.on('pending', (t) => {
        results.tests.push({ title: t.fullTitle(), state: 'pending' });
        console.log(`  ﹣ ${t.fullTitle()} (skipped)`);
      });
      runner.on('fail', (t, e) => {
        results.failed++;
        results.failures.push(`${t.fullTitle()}: ${e?.message ?? e}`);
        console.log(`  ✖ ${t.fullTitle()}\n      ${String(e?.stack ?? e).split('\n').slice(0, 12).join('\n      ')}`);
      });
    });
    if (fs.existsSync(measure)) console.log(`  measured (bytes / error lines with numbers that reached the model): ${fs.readFileSync(measure, 'utf8').replace(/\s+/g, ' ')}`);
    return { name: run.name, ...results, exitCode: results.failed ? 1 : 0 };
  } catch (e) {
    const why = String(e?.message ?? e);
    console.log(`  ✖ ${why}`);
    return { name: run.name, passed: 0, failed: 1, failures: [why], exitCode: 1, error: why };
  } finally {
    await killMarkedAndWait();
    removeTempDir(tmp, keep);
  }
}
