// Runs the built extension (dist/extension.js, as extensionDevelopmentPath) in a real editor
// (code-server + Chromium, as the integration tests do) on generated workspaces, with the bench
// probe extension (bench/editorProbe) installed, and collects the JSON each session writes.
// Used by bench/rowEditor.ts; usable alone:
//   node scripts/benchEditor.mjs spec.json
// spec.json: { "levels": [{ "name": "S", "workspace": "/tmp/…/S" }], "starts": 5, "reps": 5, "out": "results.json" }
// A level's "before": [script, ...args] is run with node before each of its sessions (e.g. the open
// agent sessions' agents running a command, bench/touchSessions.ts).
// Sessions are interleaved (level A, B, C, then again), so drift on a shared machine hits all levels alike.
// Every editor is started fresh (own profile, port, process group) and killed after its session.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { launchBrowser } from '../test/runner/browser.mjs';
import { editorSettings, installExtensions, prepareProfile, startCodeServer } from '../test/runner/codeServer.mjs';
import { ensureDeps, repoRoot } from '../test/runner/deps.mjs';
import { editorHome, workbenchUrl } from '../test/runner/integration.mjs';
import { makeTempDir, onEditorCleanup, removeTempDir } from '../test/runner/processes.mjs';
import { probeVsix } from './benchProbe.mjs';

const SCENARIO = path.join(repoRoot, 'out/bench/editorScenario.js');
const log = (s) => process.stderr.write(`[bench editor] ${s}\n`);

/**
 * The thread CPU one wakeup of a timer costs on this machine, in ms, with the Node that runs the
 * extension host: a 10 ms interval with an empty callback for 3 s, its CPU over its ticks. The probe
 * runs such timers in the host (its block monitor, its quiet check), and on some machines each
 * wakeup costs ~0.25 ms of system time (~24 ms a second for the monitor alone: a VM's timer exits),
 * which the scenario takes off its start-up CPU and its quiet budget (bench/editorScenario.ts).
 */
function timerWakeupMs() {
  const node = path.join(ensureDeps(['editor']).NODE24_DIR, 'bin', 'node');
  const script = 'const c0=process.threadCpuUsage();let n=0;const t=setInterval(()=>n++,10);setTimeout(()=>{clearInterval(t);const c=process.threadCpuUsage(c0);console.log(((c.user+c.system)/1000/Math.max(1,n)).toFixed(4))},3000)';
  const r = spawnSync(node, ['-e', script], { encoding: 'utf8' });
  const ms = Number(r.stdout.trim());
  return r.status === 0 && Number.isFinite(ms) && ms >= 0 ? ms : 0;
}

/** One editor session on one workspace; returns the scenario's JSON (or { ok: false, error }). */
async function session(level, workspace, reps, extensionsTemplate, timeoutMs, callsFile, wakeupMs) {
  const base = makeTempDir(`bench-${level}`);
  const out = path.join(base, 'result.json');
  let server;
  let browser;
  const cleanup = onEditorCleanup(base, () => ({ browser, server }));
  const load0 = os.loadavg();
  try {
    const profile = prepareProfile(base, editorSettings({
      'workbench.view.alwaysShowHeaderActions': false,
      // code-server's automatic port forwarding scans /proc for listening ports inside the extension
      // host every few seconds while a terminal is open (findCandidatePorts: 20-100 ms bursts in the
      // CPU profiles, at every level). That is neither Agent Context's CPU nor the event's, and its
      // bursts made the idle-rate subtraction of the event rows swing between 0 and 60 ms.
      'remote.autoForwardPorts': false,
      // code-server registers a tunnel provider, which keeps the process scan on whatever autoForwardPorts says; only the 'output' source stops it.
      'remote.autoForwardPortsSource': 'output',
    }));
    fs.cpSync(extensionsTemplate, profile.extensionsDir, { recursive: true });
    const home = editorHome(base);
    server = await startCodeServer({
      profile,
      env: {
        HOME: home,
        AGENT_CONTEXT_BENCH_SCENARIO: SCENARIO,
        AGENT_CONTEXT_BENCH_OUT: out,
        AGENT_CONTEXT_BENCH_LEVEL: level,
        AGENT_CONTEXT_BENCH_REPS: String(reps),
        AGENT_CONTEXT_BENCH_WAKEUP_MS: String(wakeupMs),
        // The scale study's tool calls (bench/scaleCalls.ts), measured where views and events are.
        ...(callsFile && reps > 0 ? { AGENT_CONTEXT_BENCH_CALLS: callsFile } : {}),
        // A CPU profile of each session's start-up and view renders (bench/editorScenario.ts), for a closer look.
        ...(process.env.AGENT_CONTEXT_BENCH_CPUPROF ? { AGENT_CONTEXT_BENCH_CPUPROF: process.env.AGENT_CONTEXT_BENCH_CPUPROF } : {}),
      },
    });
    browser = await launchBrowser();
    await browser.page.goto(workbenchUrl(server, { kind: 'folder', path: workspace }, repoRoot));
    const deadline = Date.now() + timeoutMs;
    while (!fs.existsSync(out)) {
      if (Date.now() > deadline) return { ok: false, level, error: `no result within ${Math.round(timeoutMs / 1000)} s` };
      if (server.child.exitCode !== null) return { ok: false, level, error: `code-server exited (${server.child.exitCode})` };
      await new Promise((r) => setTimeout(r, 500));
    }
    await new Promise((r) => setTimeout(r, 200)); // the write is one call; let it finish
    const r = JSON.parse(fs.readFileSync(out, 'utf8'));
    return { ...r, level, runnerLoad: { start: load0, end: os.loadavg() } };
  } catch (e) {
    return { ok: false, level, error: String(e?.stack ?? e) };
  } finally {
    await cleanup();
  }
}

async function main() {
  const spec = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  if (!fs.existsSync(SCENARIO)) throw new Error(`${SCENARIO} is missing: run tsc -p .`);
  if (!fs.existsSync(path.join(repoRoot, 'dist/extension.js'))) throw new Error('dist/extension.js is missing: run node esbuild.mjs');
  // Install the probe once into a template extensions folder; each session copies it.
  const tmpl = makeTempDir('bench-extensions');
  const tmplProfile = prepareProfile(tmpl, editorSettings());
  installExtensions(tmplProfile, [probeVsix()]);
  const results = [];
  try {
    const wakeupMs = timerWakeupMs();
    log(`a timer's wakeup costs ${(wakeupMs * 1000).toFixed(0)} µs of thread CPU here (the probe's own timers are taken off its figures)`);
    for (let i = 0; i < spec.starts; i++) {
      for (const l of spec.levels) {
        log(`session ${i + 1}/${spec.starts} ${l.name} (load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')})`);
        if (l.before) {
          const b = spawnSync(process.execPath, l.before, { stdio: ['ignore', 'inherit', 'inherit'] });
          if (b.status !== 0) throw new Error(`${l.name}: ${l.before.join(' ')} exited ${b.status}`);
        }
        const t = Date.now();
        // Views and events are measured (reps times) in the first session of each level; the others measure start-up only.
        const r = await session(l.name, l.workspace, i === 0 ? spec.reps : 0, tmplProfile.extensionsDir, spec.timeoutMs ?? 15 * 60_000, l.calls, wakeupMs);
        // Each start's own figures in the log (the row keeps only their median and range).
        const start = r.startup ? `: start-up CPU ${r.startup.cpuMs.toFixed(0)} ms, longest block ${r.startup.blockMs.toFixed(0)} ms, RSS ${r.startup.rssMB.toFixed(0)} MB` : '';
        log(`  ${r.ok ? 'done' : `FAILED: ${String(r.error).split('\n')[0]}`} in ${((Date.now() - t) / 1000).toFixed(0)} s${start}`);
        results.push(r);
        fs.writeFileSync(spec.out, JSON.stringify(results, null, 1));
      }
    }
  } finally {
    removeTempDir(tmpl);
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    log(String(e?.stack ?? e));
    process.exit(1);
  },
);
