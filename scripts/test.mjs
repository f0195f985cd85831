// npm test: lint -> tsc -> unit tests -> bundle (+ package for the vsix run) -> integration runs in
// code-server -> the npm start check. Ends with the names of the tests skipped and one line
// "N passed, M failed, K skipped" (unit + integration + start check totals; scripts/testSummary.mjs)
// and exits non-zero if anything failed. Usage: node scripts/test.mjs --help
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cleanNpmEnv, ensureDepsInBackground, repoRoot } from '../test/runner/deps.mjs';
import { runIntegration } from '../test/runner/integration.mjs';
import { runRealClient } from '../test/runner/realClient.mjs';
import { sweepOrphans } from '../test/runner/processes.mjs';
import { runs } from '../test/runner/runs.mjs';
import { summaryLine, unitCounts } from './testSummary.mjs';
import { judgeLeftovers, makeRunTemp, removeRunTemp, testLeftovers } from './testTemp.mjs';

const HELP = `usage: node scripts/test.mjs [options]      (npm test -- [options])
  --integration-only   skip lint and unit tests (still compiles, bundles and packages as needed)
  --unit-only          lint, tsc and unit tests only
  --no-build           skip tsc/bundle/package too (reuse out/, dist/, agent-context.vsix)
  --no-lint            skip eslint
  --run <name>         only this integration run (repeatable or comma-separated): ${runs.map((r) => r.name).join(', ')},
                       or start (the npm start check: scripts/start-check.mjs)
  --no-start-check     skip the npm start check (it runs when no --run/--grep is given)
  --grep <pattern>     mocha grep inside the extension host (integration test titles)
  --unit <substring>   only unit test files whose path contains this
  --keep               keep each run's temp folder (workspace copy, profile) for inspection
  --verbose            show code-server output and all editor log lines
  --list               list the runs and their suite globs`;

const argv = process.argv.slice(2);
const opt = { runs: [], grep: undefined };
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  const value = () => {
    const v = argv[++i];
    if (v === undefined) fail(`${a} needs a value`);
    return v;
  };
  if (a === '--help' || a === '-h') {
    console.log(HELP);
    process.exit(0);
  } else if (a === '--integration-only') opt.integrationOnly = true;
  else if (a === '--unit-only') opt.unitOnly = true;
  else if (a === '--no-build') opt.noBuild = true;
  else if (a === '--no-lint') opt.noLint = true;
  else if (a === '--no-start-check') opt.noStartCheck = true;
  else if (a === '--run') opt.runs.push(...value().split(','));
  else if (a.startsWith('--run=')) opt.runs.push(...a.slice(6).split(','));
  else if (a === '--grep' || a === '-g') opt.grep = value();
  else if (a.startsWith('--grep=')) opt.grep = a.slice(7);
  else if (a === '--unit') opt.unitFilter = value();
  else if (a === '--keep') opt.keep = true;
  else if (a === '--verbose') opt.verbose = true;
  else if (a === '--list') opt.list = true;
  else fail(`unknown option ${a}\n${HELP}`);
}

function fail(msg) {
  console.error(msg);
  process.exit(2);
}

if (opt.list) {
  for (const r of runs) {
    if (r.client) console.log(`${r.name.padEnd(12)} client ${r.client} (no editor)  suites test/realClient/${r.include.join(',')}`);
    else console.log(`${r.name.padEnd(12)} workspace test/fixtures/${r.workspace}  suites ${r.include.join(',')}${r.exclude ? ` minus ${r.exclude.join(',')}` : ''}  trust ${r.trust ? 'on' : 'off (restricted)'}  extension ${r.extension}`);
  }
  console.log(`${'start'.padEnd(12)} the README's npm start, checked in the browser and stopped with Ctrl-C (scripts/start-check.mjs)`);
  process.exit(0);
}

const unknown = opt.runs.filter((n) => n !== 'start' && !runs.some((r) => r.name === n));
if (unknown.length) fail(`unknown run ${unknown.join(', ')}; runs: ${runs.map((r) => r.name).join(', ')}, start`);
const selected = opt.runs.length ? runs.filter((r) => opt.runs.includes(r.name)) : runs;
// The npm start check belongs to a full run (or is asked for by name); a --grep means iterating on suites.
const startCheck = opt.runs.includes('start') || (!opt.runs.length && !opt.grep && !opt.noStartCheck);

// Runners that died leave processes and temp folders in the machine's temp dir: sweep them before
// this run moves to its own (--keep keeps the machine's temp dir, so kept folders stay).
sweepOrphans((m) => console.log(`  (${m})`));
const runTemp = opt.keep ? undefined : makeRunTemp();
if (runTemp) process.env.TMPDIR = runTemp;

const totals = { passed: 0, failed: 0, skipped: 0 };
const problems = [];
const started = Date.now();
const secs = (t) => `${((Date.now() - t) / 1000).toFixed(1)} s`;

function step(title, cmd, args, { capture = false } = {}) {
  const t = Date.now();
  console.log(`\n=== ${title}`);
  const r = spawnSync(cmd, args, {
    cwd: repoRoot,
    stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    encoding: 'utf8',
    env: cleanNpmEnv(),
  });
  if (capture) {
    process.stdout.write(r.stdout ?? '');
    process.stderr.write(r.stderr ?? '');
  }
  const ok = r.status === 0;
  console.log(`--- ${title}: ${ok ? 'ok' : `FAILED (exit ${r.status ?? r.signal})`} in ${secs(t)}`);
  return { ok, stdout: r.stdout ?? '' };
}

/** Like step(), for a long step: its output is shown as it comes and also returned. */
async function streamedStep(title, cmd, args) {
  const t = Date.now();
  console.log(`\n=== ${title}`);
  const child = spawn(cmd, args, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'], env: cleanNpmEnv() });
  let stdout = '';
  child.stdout.on('data', (d) => {
    stdout += d;
    process.stdout.write(d);
  });
  const status = await new Promise((resolve) => child.on('close', (code, signal) => resolve(code ?? signal)));
  const ok = status === 0;
  console.log(`--- ${title}: ${ok ? 'ok' : `FAILED (exit ${status})`} in ${secs(t)}`);
  return { ok, stdout };
}

const failedTests = [];
const skippedTests = [];
const timed = [];

function finish() {
  console.log(`\n=== done in ${secs(started)}`);
  if (timed.length) {
    console.log('slowest integration tests:');
    for (const t of timed.sort((a, b) => b.ms - a.ms).slice(0, 5)) console.log(`  ${(t.ms / 1000).toFixed(1).padStart(6)} s  [${t.run}] ${t.title}`);
  }
  if (failedTests.length) {
    console.log('failed:');
    for (const f of failedTests) console.log(`  - ${f}`);
  }
  if (runTemp) {
    // A test's temp folder still there: it did not clean up after itself (scripts/testTemp.mjs).
    const { failing, warned } = judgeLeftovers(testLeftovers(runTemp));
    if (failing.length) {
      totals.failed++;
      problems.push(`editor suites left ${failing.length} temp folder(s) behind (each test removes what it made): ${failing.map((d) => path.basename(d)).join(', ')}`);
    }
    if (warned.length) console.log(`warning: tests left ${warned.length} temp folder(s) behind (removed now): ${warned.map((d) => path.basename(d)).join(', ')}`);
    removeRunTemp(runTemp);
  }
  for (const p of problems) console.log(`  - ${p}`);
  if (skippedTests.length) {
    console.log('skipped:');
    for (const s of skippedTests) console.log(`  - ${s}`);
  }
  console.log(summaryLine(totals));
  process.exit(totals.failed > 0 || problems.length > 0 ? 1 : 0);
}

/** A build step failing means the later steps cannot run: count it and stop. */
function buildStep(title, cmd, args) {
  if (!step(title, cmd, args).ok) {
    totals.failed++;
    problems.push(`${title} failed`);
    finish();
  }
}

const npx = (bin) => path.join(repoRoot, 'node_modules/.bin', bin);

// The editor's dependencies install (cold: minutes, mostly native compiles) while lint, tsc and the
// unit tests run; its progress lines ([ensure-deps] ...) may appear among theirs.
const depGroups = [...new Set(selected.map((r) => (r.client ? 'clients' : 'editor')))];
const depsReady = opt.unitOnly ? undefined : ensureDepsInBackground(depGroups.length ? depGroups : ['editor']);

if (!opt.integrationOnly && !opt.noLint) {
  const benchDir = fs.existsSync(path.join(repoRoot, 'bench')) ? ['bench'] : [];
  buildStep('lint (eslint)', npx('eslint'), ['src', 'test', 'scripts', ...benchDir]);
  // The rest of `npm run lint`: the layout rules docs/ARCHITECTURE.md says the build enforces.
  buildStep('lint (no import cycles)', process.execPath, ['scripts/checkCycles.mjs', 'src', 'test', ...benchDir]);
  buildStep('lint (file sizes)', process.execPath, ['scripts/checkFileSizes.mjs', 'src']);
  buildStep('lint (file names)', process.execPath, ['scripts/checkFileNames.mjs', 'src']);
}
if (!opt.noBuild) buildStep('type check + compile (tsc -p .)', npx('tsc'), ['-p', '.']);

if (!opt.integrationOnly) {
  const unitArgs = ['scripts/unit.mjs', '--all', ...(opt.unitFilter ? [opt.unitFilter] : [])];
  const r = step('unit tests (node --test)', process.execPath, unitArgs, { capture: true });
  const counts = unitCounts(r.stdout);
  if (counts) {
    totals.passed += counts.passed;
    totals.failed += counts.failed;
    totals.skipped += counts.skipped;
    for (const name of counts.skippedNames) skippedTests.push(`[unit] ${name}`);
    if (counts.failed > 0) {
      for (const name of counts.failedNames) failedTests.push(`[unit] ${name}`);
      if (counts.failedNames.length < counts.failed) failedTests.push(`${counts.failed - counts.failedNames.length} more unit test(s): see "node scripts/unit.mjs" output above`);
    }
    if (!r.ok && counts.failed === 0) {
      totals.failed++;
      problems.push('the unit test runner failed without failing a test');
    }
  } else if (!r.ok) {
    totals.failed++;
    problems.push('unit tests did not run (see above)');
  }
}

if (opt.unitOnly) finish();

const needsVsix = selected.some((r) => r.extension === 'vsix');
if (!opt.noBuild) {
  // Package first (production bundle into the .vsix), then the development bundle the dev runs load.
  if (needsVsix) buildStep('package (npm run package)', 'npm', ['run', '--silent', 'package']);
  buildStep('bundle (node esbuild.mjs)', process.execPath, ['esbuild.mjs']);
}

console.log('\n=== integration (code-server, real clients)');
const t0 = Date.now();
try {
  await depsReady;
} catch (e) {
  totals.failed++;
  problems.push(String(e.message ?? e));
  finish();
}
console.log(`--- dependencies ready in ${secs(t0)}`);
for (const run of selected) {
  const t = Date.now();
  console.log(run.client
    ? `\n--- run ${run.name}: the ${run.client} CLI against a scripted fake model API (test/realClient/)`
    : `\n--- run ${run.name}: test/fixtures/${run.workspace}, trust ${run.trust ? 'on' : 'off'}, extension from ${run.extension}`);
  const res = run.client
    ? await runRealClient(run, { grep: opt.grep, keep: opt.keep })
    : await runIntegration(run, { grep: opt.grep, keep: opt.keep, verbose: opt.verbose });
  totals.passed += res.passed;
  totals.failed += res.failed;
  for (const t of res.tests ?? []) {
    if (t.state !== 'pending') continue;
    totals.skipped++;
    skippedTests.push(`[${run.name}] ${t.title}`);
  }
  if (res.error) problems.push(`run ${run.name}: ${res.error.split('\n')[0]}`);
  else for (const f of res.failures ?? []) failedTests.push(`[${run.name}] ${f.split('\n')[0].slice(0, 300)}`);
  for (const t of res.tests ?? []) if (t.durationMs) timed.push({ run: run.name, title: t.title, ms: t.durationMs });
  if (!res.skipped) console.log(`--- run ${run.name}: ${res.passed} passed, ${res.failed} failed in ${secs(t)}`);
}
if (startCheck) {
  // Each of its checks (URL printed, views, terminal mirror, Ctrl-C, no leftovers) counts as a test.
  const r = await streamedStep('npm start check (scripts/start-check.mjs)', process.execPath, ['scripts/start-check.mjs']);
  const m = /^start check: (\d+) passed, (\d+) failed$/m.exec(r.stdout);
  if (m) {
    totals.passed += Number(m[1]);
    totals.failed += Number(m[2]);
    for (const line of r.stdout.split('\n')) if (/^\s+✖ /.test(line)) failedTests.push(`[start] ${line.trim().slice(2)}`);
  }
  if (!m || (!r.ok && Number(m[2]) === 0)) {
    totals.failed++;
    problems.push('the npm start check did not finish (see its output above)');
  }
}
finish();
