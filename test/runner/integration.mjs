// Runs one integration run: a fresh copy of the fixture, a fresh code-server profile with the test
// driver (test/driver) installed, the bridge, Chromium on the workbench. The extension under test is
// the repo (extensionDevelopmentPath in the URL payload) or the installed .vsix. The driver calls
// run() of out/test/integration/index.js in the extension host and posts the exit code to the
// bridge. Everything is torn down whatever happens.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { launchBrowser } from './browser.mjs';
import { startBridge, saveScreenshot, safeName } from './bridge.mjs';
import { editorSettings, installExtensions, prepareProfile, startCodeServer } from './codeServer.mjs';
import { spawnSync } from 'node:child_process';
import { repoRoot } from './deps.mjs';
import { freePort, killMarkedAndWait, makeTempDir, onCleanup, removeTempDir } from './processes.mjs';
import { suiteFiles } from './runs.mjs';

export const DRIVER_EXTENSION = path.join(repoRoot, 'test/driver');
const DRIVER_VSIX = path.join(repoRoot, 'out/test-driver/agent-context-test-driver.vsix');
export const VSIX = path.join(repoRoot, 'agent-context.vsix');
const TESTS_MODULE = path.join(repoRoot, 'out/test/integration/index.js');

/** Copies the run's fixture (folder or .code-workspace file under test/fixtures) into base. */
export function copyFixture(fixture, base) {
  const src = path.join(repoRoot, 'test/fixtures', fixture);
  if (!fs.existsSync(src)) throw new Error(`fixture test/fixtures/${fixture} does not exist`);
  const multi = fixture.endsWith('.code-workspace');
  const dir = multi ? path.join(base, 'workspace') : path.join(base, 'workspace', path.basename(src));
  fs.cpSync(multi ? path.dirname(src) : src, dir, { recursive: true });
  // Git ignores empty folders: fixtures keep them alive with .gitkeep files, which tests should not see.
  for (const f of fs.readdirSync(dir, { recursive: true })) {
    if (path.basename(String(f)) === '.gitkeep') fs.rmSync(path.join(dir, String(f)));
  }
  return multi ? { kind: 'workspace', path: path.join(dir, path.basename(src)) } : { kind: 'folder', path: dir };
}

/**
 * Packages test/driver into out/test-driver/ (again only when its files changed). The driver is
 * installed, not loaded as a second extensionDevelopmentPath: the workbench reads the URL payload
 * into a Map, so only one extensionDevelopmentPath survives.
 */
export function driverVsix() {
  return packageVsix(DRIVER_EXTENSION, DRIVER_VSIX, 'test/driver');
}

/** Packages the extension in `folder` into `vsix` when the .vsix is missing or older than the folder's files; returns its path. */
export function packageVsix(folder, vsix, what) {
  const newest = Math.max(...fs.readdirSync(folder).map((f) => fs.statSync(path.join(folder, f)).mtimeMs));
  if (fs.existsSync(vsix) && fs.statSync(vsix).mtimeMs > newest) return vsix;
  fs.mkdirSync(path.dirname(vsix), { recursive: true });
  const r = spawnSync(path.join(repoRoot, 'node_modules/.bin/vsce'),
    ['package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '-o', vsix],
    { cwd: folder, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`packaging ${what} failed:\n${r.stdout}${r.stderr}`);
  return vsix;
}

/**
 * A fresh HOME under `base` for an editor's terminals: they must not run the machine user's
 * ~/.bashrc (slow or hanging init scripts such as `pyenv init` under load made shells miss their
 * prompt). Returns its path.
 */
export function editorHome(base) {
  const home = path.join(base, 'home');
  fs.mkdirSync(home, { recursive: true });
  fs.writeFileSync(path.join(home, '.bashrc'), "# Test editor's bash: no user init scripts.\nPS1='\\w\\$ '\n");
  return home;
}

/**
 * The workbench URL that opens the workspace with these extensions in development mode. The
 * payload is only honoured with --vscode-option enable-smoke-test-driver (a built workbench).
 */
export function workbenchUrl(server, ws, extensionDevelopmentPath) {
  const remote = (p) => `vscode-remote://127.0.0.1:${server.port}${p}`;
  const payload = [['skipWelcome', 'true']];
  if (extensionDevelopmentPath) payload.push(['extensionDevelopmentPath', remote(extensionDevelopmentPath)]);
  const key = ws.kind === 'workspace' ? 'workspace' : 'folder';
  return `${server.url}/?${key}=${encodeURIComponent(ws.path)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
}

// Editor log lines that say nothing about our tests.
const NOISE = [
  /\[AgentHost\]/, /No signed-in session/, /Failed to load resource/, /\bcopilot\b/i, /ENOTFOUND/, /open-vsx/,
  /authentication provider 'github'/, /same-origin iframe/, /allow-scripts and allow-same-origin/,
  /Dialog requested during smoke test/, /Creation of workbench contribution .* took \d+ms/,
];

/** Prints editor log lines, dropping known noise and collapsing repeats. */
function editorLog(out, verbose) {
  let last = '';
  let repeats = 0;
  return (type, raw) => {
    // The workbench's console logger styles its lines: '%c  ERR color: #f33 message'.
    let text = raw.replace(/^%c\s*(\w+)\s+color: #\w+\s*/, '$1 ');
    if (!verbose) text = text.split('\n').slice(0, 4).join('\n');
    if (!verbose && (type === 'trace' || type === 'debug' || NOISE.some((r) => r.test(text)))) return;
    if (text === last) {
      repeats++;
      return;
    }
    if (repeats) out(`[editor] (last line repeated ${repeats} more times)`);
    last = text;
    repeats = 0;
    out(`[editor ${type}] ${text.length > 2000 && !verbose ? `${text.slice(0, 2000)}...` : text}`);
  };
}

function printer(prefix) {
  return (line) => process.stdout.write(`${prefix}${line}\n`);
}

/**
 * The default editor: code-server plus Debian's Chromium. An editor installs .vsix files into a
 * profile and launches a window on the workspace; `preparePage(page)` runs before the workbench
 * loads; `onGone(message)` is called if the editor dies. (test/runner/electron.mjs is the other.)
 */
export const codeServerEditor = {
  name: 'code-server',
  install: (profile, vsixes) => installExtensions(profile, vsixes),
  async launch({ profile, trust, env, ws, devPath, verbose, preparePage, onGone }) {
    const server = await startCodeServer({
      profile,
      trust,
      env,
      onOutput: verbose ? (s) => process.stdout.write(`  [code-server] ${s}`) : undefined,
    });
    let browser;
    const stop = async () => {
      await browser?.close();
      await server.stop();
    };
    try {
      server.child.on('exit', (code, signal) => onGone(`code-server exited (${code ?? signal})`));
      browser = await launchBrowser();
      await preparePage(browser.page);
      await browser.page.goto(workbenchUrl(server, ws, devPath));
      // Focused page: the async clipboard API (vscode.env.clipboard in the browser) needs it.
      await browser.page.bringToFront();
    } catch (e) {
      await stop();
      throw e;
    }
    /**
     * Another window of the same editor (same profile, as a user's second window) on a folder: a new
     * tab of the browser. The test driver does nothing in it (its workspace is not the run's).
     */
    const openWindow = async (folder) => {
      const p = await browser.context.newPage();
      await p.goto(workbenchUrl(server, { kind: 'folder', path: folder }, devPath));
      await p.locator('.monaco-workbench .part.activitybar').waitFor({ state: 'visible', timeout: 60_000 });
      return p;
    };
    return { page: browser.page, stop, output: () => server.output(), openWindow };
  },
};

/**
 * Runs one run. Returns { name, passed, failed, failures, exitCode, error? }.
 * opts: { grep, keep (keep temp dirs), timeoutMs, verbose, editor (default codeServerEditor) }
 */
export async function runIntegration(run, opts = {}) {
  const editorImpl = opts.editor ?? codeServerEditor;
  const files = suiteFiles(run);
  const out = printer('  ');
  if (files.length === 0) {
    out(`(run ${run.name}: no suite files match ${run.include.join(', ')}; skipped)`);
    return { name: run.name, passed: 0, failed: 0, failures: [], exitCode: 0, skipped: true };
  }
  const base = makeTempDir(run.name);
  const resultsFile = path.join(base, 'results.json');
  let window;
  let bridge;
  let page;
  let timer;
  let startTimer;
  const cleanup = onCleanup(async () => {
    await window?.stop();
    await bridge?.close();
    const left = await killMarkedAndWait();
    if (left) out(`(warning: ${left} process(es) of this run did not exit)`);
    if (opts.keep) {
      fs.rmSync(path.join(base, '.owner'), { force: true });
      out(`(kept ${base})`);
    }
    removeTempDir(base, opts.keep);
  });
  try {
    const ws = copyFixture(run.workspace, base);
    const profile = prepareProfile(base, editorSettings(run.settings));
    const chatEnv = run.chat ? await prepareChat(profile) : {};
    const vsixes = [driverVsix()];
    let devPath = repoRoot;
    if (run.extension === 'vsix') {
      if (!fs.existsSync(VSIX)) throw new Error(`${VSIX} is missing: run \`npm run package\` first`);
      vsixes.push(VSIX);
      devPath = undefined;
    }
    await editorImpl.install(profile, vsixes);
    let resolveExit;
    let driverStarted = false;
    const exited = new Promise((r) => (resolveExit = r));
    bridge = await startBridge(() => page, {
      onLog: out,
      onExit: (code, message) => resolveExit({ code, message }),
      onStarted: () => (driverStarted = true),
      namePrefix: `${run.name}--`,
      openWindow: (folder) => {
        if (!window?.openWindow) throw new Error(`${editorImpl.name} cannot open a second window`);
        return window.openWindow(folder);
      },
    });
    const home = editorHome(base);
    const env = {
      HOME: home,
      AGENT_CONTEXT_BRIDGE: bridge.url,
      AGENT_CONTEXT_RUN: run.name,
      AGENT_CONTEXT_TESTS_MODULE: TESTS_MODULE,
      AGENT_CONTEXT_TEST_FILES: JSON.stringify(files),
      AGENT_CONTEXT_TEST_RESULTS: resultsFile,
      AGENT_CONTEXT_TEST_GREP: opts.grep ?? '',
      AGENT_CONTEXT_WORKSPACE: ws.path,
      // Where the editor keeps its state: a test that writes what another extension would (Copilot's session memory).
      AGENT_CONTEXT_USER_DATA: profile.userDataDir,
      ...chatEnv,
    };
    const editor = editorLog(out, opts.verbose);
    const preparePage = async (p) => {
      page = p;
      // Only called in VS Code's extensionTestsPath mode; kept so that mode's logs would show too.
      await p.exposeFunction('codeAutomationLog', (type, args) =>
        editor(type, (Array.isArray(args) ? args : [args]).map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ')));
      await p.exposeFunction('codeAutomationExit', (code) => resolveExit({ code: Number(code), message: 'the extension host exited' }));
      p.on('console', (msg) => {
        const type = msg.type();
        if (type === 'error' || type === 'warning' || opts.verbose) editor(type === 'warning' ? 'warn' : type, msg.text());
      });
      p.on('pageerror', (e) => editor('error', `page error: ${e.message}`));
      p.on('crash', () => resolveExit({ code: 1, message: 'the workbench page crashed' }));
    };
    const timeoutMs = opts.timeoutMs ?? 20 * 60_000;
    timer = setTimeout(() => resolveExit({ code: 1, message: `the run did not finish within ${Math.round(timeoutMs / 1000)} s` }), timeoutMs);
    startTimer = setTimeout(() => {
      if (!driverStarted) resolveExit({ code: 1, message: 'the test driver did not start within 180 s (no extension host, or the driver extension was disabled)' });
    }, 180_000);
    window = await editorImpl.launch({
      profile, trust: run.trust, env, ws, devPath, verbose: opts.verbose, preparePage,
      onGone: (message) => resolveExit({ code: 1, message }),
    });
    const exit = await exited;
    clearTimeout(timer);
    clearTimeout(startTimer);

    const results = readResults(resultsFile);
    if (!results) {
      const why = exit.message ?? `the tests ended (exit ${exit.code}) without writing results`;
      const shot = page ? await saveScreenshot(page, `${run.name}--run-error`).catch(() => undefined) : undefined;
      out(`run ${run.name} failed: ${why}${shot ? ` (screenshot ${path.relative(repoRoot, shot)})` : ''}`);
      if (!opts.verbose) out(`last ${editorImpl.name} output:\n${window.output().slice(-3000)}`);
      return { name: run.name, passed: 0, failed: 1, failures: [why], exitCode: 1, error: why };
    }
    return { name: run.name, passed: results.passed, failed: results.failed, failures: results.failures, tests: results.tests, exitCode: exit.code };
  } catch (e) {
    const why = String(e?.stack ?? e);
    if (page) await saveScreenshot(page, `${run.name}--run-error`).catch(() => undefined);
    out(`run ${run.name} failed: ${why}`);
    return { name: run.name, passed: 0, failed: 1, failures: [why], exitCode: 1, error: why };
  } finally {
    clearTimeout(timer);
    clearTimeout(startTimer);
    await cleanup();
  }
}

/**
 * A run with `chat: true` drives VS Code's built-in Copilot agent: its "Custom Endpoint" model
 * provider (no account, no key) points at a fake Chat Completions server that the suites start in
 * the extension host on AGENT_CONTEXT_FAKE_MODEL_PORT (test/realClient/fakeModels/chatCompletions.ts).
 * AGENT_CONTEXT_ENABLE_CHAT makes the driver enable the chat extension first (see test/driver).
 */
export async function prepareChat(profile) {
  const port = await freePort();
  const models = [{
    name: 'Fake',
    vendor: 'customendpoint',
    models: [{ id: 'fake-model', name: 'Fake Model', url: `http://127.0.0.1:${port}/v1/chat/completions`, toolCalling: true, vision: false, maxInputTokens: 120000, maxOutputTokens: 8000 }],
  }];
  fs.writeFileSync(path.join(profile.userDataDir, 'User', 'chatLanguageModels.json'), JSON.stringify(models, null, 2));
  return { AGENT_CONTEXT_FAKE_MODEL_PORT: String(port), AGENT_CONTEXT_ENABLE_CHAT: '1' };
}

function readResults(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

export { safeName };
