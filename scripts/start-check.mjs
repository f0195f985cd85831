// The README's `npm start`, checked the way a user tries it: run `npm start` in the repo, wait for
// the URL it prints, open it in Chromium, look at the Agent Context views (the demo plan and
// skills), run the demo's ./noisy-build.sh in a terminal and see it mirrored under
// .agent/terminals/, press Ctrl-C (SIGINT to npm's process group, as a terminal does), and verify
// that no code-server, Chromium or shell process is left. npm test runs it after the integration
// runs; its checks count in the final "N passed, N failed" line.
//   node scripts/start-check.mjs [--timeout-min N] [--repo DIR --command 'npm ci && npm start' --as-is]
// By default only the demo's profile and workspace are redirected (AGENT_CONTEXT_DEMO_DIR/_FOLDER to
// a temp folder), so the user's own demo profile and .demo/workspace stay untouched. --as-is keeps
// the defaults (scripts/fresh-check.sh, in a fresh clone with an empty HOME); --repo and --command
// run another clone's README command (through bash) instead of `npm start` here.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { launchBrowser } from '../test/runner/browser.mjs';
import { openViewContainer, runCommand, saveScreenshot, terminalType } from '../test/runner/bridge.mjs';
import { cleanNpmEnv, repoRoot } from '../test/runner/deps.mjs';
import { makeTempDir, removeTempDir } from '../test/runner/processes.mjs';

const argv = process.argv.slice(2);
const minutesArg = argv.indexOf('--timeout-min');
// The first `npm start` on a fresh machine installs code-server (3-4 minutes on 2 cores) and packages.
const startTimeoutMs = Number(minutesArg >= 0 ? argv[minutesArg + 1] : 15) * 60_000;
const opt = (name) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const repo = path.resolve(opt('--repo') ?? repoRoot);
const command = opt('--command') ?? 'npm start';
const asIs = argv.includes('--as-is');

// Every process started from here on (npm, start.mjs, code-server and its children, the pty shells,
// Chromium) inherits this variable: afterwards, any process still carrying it is a leftover.
const MARK_VAR = 'AGENT_CONTEXT_START_CHECK';
const mark = `${process.pid}-${Date.now()}`;
process.env[MARK_VAR] = mark;

const results = [];
function check(name, ok, detail = '') {
  results.push({ name, ok });
  console.log(`  ${ok ? '✔' : '✖'} ${name}${detail ? `: ${detail}` : ''}`);
  return ok;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Live processes (not zombies) carrying our mark, with their command names. */
function leftovers() {
  const found = [];
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e) || Number(e) === process.pid) continue;
    try {
      if (!fs.readFileSync(`/proc/${e}/environ`, 'latin1').split('\0').includes(`${MARK_VAR}=${mark}`)) continue;
      const stat = fs.readFileSync(`/proc/${e}/stat`, 'latin1');
      if (/^\S+ \(.*\) Z/.test(stat)) continue;
      found.push({ pid: Number(e), comm: fs.readFileSync(`/proc/${e}/comm`, 'utf8').trim() });
    } catch {
      /* gone meanwhile, or not ours to read */
    }
  }
  return found;
}

const base = makeTempDir('start-check');
let folder = path.join(base, 'workspace');
let npm;
let browser;
let output = '';

async function main() {
  console.log(`[start-check] ${command} in ${repo}${asIs ? '' : ' (demo profile and workspace in a temp folder)'}`);
  const demoEnv = asIs ? {} : { AGENT_CONTEXT_DEMO_DIR: path.join(base, 'profile'), AGENT_CONTEXT_DEMO_FOLDER: folder };
  npm = spawn('bash', ['-c', command], {
    cwd: repo,
    // Its own process group: the SIGINT below reaches bash, npm, its shell and start.mjs together, like Ctrl-C.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...cleanNpmEnv(), ...demoEnv },
  });
  const exited = new Promise((resolve) => npm.on('exit', (code, signal) => resolve({ code, signal })));
  const url = await new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), startTimeoutMs);
    let partial = '';
    const onData = (d) => {
      const s = d.toString();
      output += s;
      const lines = (partial + s).split('\n');
      partial = lines.pop();
      for (const line of lines) console.log(`    | ${line}`);
      const m = /Agent Context demo: (http:\/\/\S+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    npm.stdout.on('data', onData);
    npm.stderr.on('data', onData);
    exited.then(() => resolve(undefined));
  });
  if (!check('npm start prints the demo URL', Boolean(url), url ?? `no URL within ${startTimeoutMs / 60_000} min or npm exited`)) return { exited };
  folder = new URL(url).searchParams.get('folder') ?? folder;

  browser = await launchBrowser();
  const { page } = browser;
  try {
    await page.goto(url);
    await page.locator('.monaco-workbench .part.activitybar').waitFor({ state: 'visible', timeout: 90_000 });
    await openViewContainer(page, 'Agent Context', 60_000);
    const row = (text) => page.locator(`.part.sidebar .monaco-list-row:has-text(${JSON.stringify(text)})`).first();
    const plan = ['Find every public endpoint', 'Implement the middleware', 'Load-test with 1,000 clients'];
    let missing = [];
    for (const text of plan) {
      const ok = await row(text).waitFor({ state: 'visible', timeout: 60_000 }).then(() => true, () => false);
      if (!ok) missing.push(text);
    }
    check('the Plan view shows the demo plan', missing.length === 0, missing.length ? `missing rows: ${missing.join(', ')}` : `${plan.length} steps`);
    missing = [];
    for (const text of ['load-testing', 'code-review']) {
      if (!(await row(text).waitFor({ state: 'visible', timeout: 20_000 }).then(() => true, () => false))) missing.push(text);
    }
    check('the Skills view shows the demo skills', missing.length === 0, missing.join(', '));

    // The README's next step: run ./noisy-build.sh in a terminal; it is mirrored as .agent/terminals/N.txt.
    // Ctrl+` as the README says; a key press that lands while the workbench is still settling (a
    // notification taking focus) opens nothing, so the check falls back to the command palette: what is
    // checked here is the mirror, not the key binding (the CI run of 464c853 lost its 30 s there).
    await page.keyboard.press('Control+Backquote');
    const textarea = page.locator('.xterm-helper-textarea').first();
    if (!(await textarea.waitFor({ state: 'attached', timeout: 15_000 }).then(() => true, () => false))) {
      console.log('  [start-check] Ctrl+` opened no terminal within 15 s; Terminal: Create New Terminal from the command palette');
      await runCommand(page, 'Terminal: Create New Terminal', 30_000);
      await textarea.waitFor({ state: 'attached', timeout: 30_000 });
    }
    await sleep(1500); // the shell prints its prompt and shell integration starts
    await terminalType(page, './noisy-build.sh', true, 30_000);
    const terminals = path.join(folder, '.agent/terminals');
    let captured = '';
    for (const deadline = Date.now() + 60_000; Date.now() < deadline && !captured; await sleep(500)) {
      for (const f of fs.existsSync(terminals) ? fs.readdirSync(terminals) : []) {
        const text = fs.readFileSync(path.join(terminals, f), 'utf8');
        if (text.includes('error: build failed with 1 error')) captured = f;
      }
    }
    check('./noisy-build.sh in the terminal is mirrored under .agent/terminals/', Boolean(captured), captured ? `.agent/terminals/${captured}` : 'no mirror with its last line within 60 s');
  } catch (e) {
    check('the demo opens in the browser', false, String(e.message ?? e).split('\n')[0]);
    await saveScreenshot(page, 'start-check').then((f) => console.log(`  screenshot: ${f}`), () => {});
  }
  // Wrapped: returning the promise itself would make `await main()` wait for npm to exit.
  return { exited };
}

let exited;
try {
  ({ exited } = await main());
} catch (e) {
  check('the check ran', false, String(e.stack ?? e));
}

// Ctrl-C, with the browser still open, as a user would.
const before = leftovers();
if (npm?.pid && npm.exitCode === null && npm.signalCode === null) {
  process.kill(-npm.pid, 'SIGINT');
  const res = await Promise.race([exited, sleep(30_000).then(() => undefined)]);
  check('Ctrl-C (SIGINT) stops npm start within 30 s', Boolean(res), res ? `exit ${res.code ?? res.signal}` : 'still running');
  check('npm start reports code-server stopped', /\[start\] code-server exited/.test(output));
}
await browser?.close();
await sleep(500);
const left = leftovers();
const kinds = (ps) => [...new Set(ps.map((p) => p.comm))].join(', ');
check(
  'no code-server, Chromium or shell process is left',
  left.length === 0,
  left.length ? `${left.length} left: ${left.map((p) => `${p.pid} ${p.comm}`).join(', ')}` : `${before.length} processes (${kinds(before)}) were running before Ctrl-C`,
);
for (const p of left) {
  try {
    process.kill(p.pid, 'SIGKILL');
  } catch {
    /* gone */
  }
}
removeTempDir(base);

const passed = results.filter((r) => r.ok).length;
const failed = results.length - passed;
console.log(`start check: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
