// npm run screenshot: runs the demo headless (fresh profile, fresh copy of the demo workspace) in a
// 1500×950 window, opens the Agent Context container as a new user sees it (default sidebar width,
// default view sizes and collapsed states) and saves media/screenshot-sidebar.png, the README's
// screenshot, with two agents' own commands in Terminals. --empty: a new folder right after "Initialize .agent Folder" instead (each view's
// empty state), saved as media/screenshot-empty.png.
//   node scripts/screenshot.mjs [--no-build] [--empty] [--out FILE.png] [--size 1500x950]
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { launchBrowser } from '../test/runner/browser.mjs';
import { openViewContainer, resetUi } from '../test/runner/bridge.mjs';
import { startCodeServer } from '../test/runner/codeServer.mjs';
import { demoProfile, packageExtension, VSIX, writeDemoWorkspace } from '../test/runner/demo.mjs';
import { ensureDeps, repoRoot } from '../test/runner/deps.mjs';
import { makeTempDir, onEditorCleanup } from '../test/runner/processes.mjs';

const argv = process.argv.slice(2);
const empty = argv.includes('--empty');
const outIndex = argv.indexOf('--out');
const out = path.resolve(repoRoot, outIndex >= 0 ? argv[outIndex + 1] : empty ? 'media/screenshot-empty.png' : 'media/screenshot-sidebar.png');
const sizeIndex = argv.indexOf('--size');
const [width, height] = (sizeIndex >= 0 ? argv[sizeIndex + 1] : '1500x950').split('x').map(Number);
if (!(width > 0 && height > 0)) {
  console.error('[screenshot] --size takes WIDTHxHEIGHT, e.g. 1500x950');
  process.exit(2);
}

/** Each view's height in px, and the Plan's rows drawn below its bottom edge (cut off), as one line. */
async function sidebarLayout(page) {
  return page.evaluate(() => {
    const panes = [...document.querySelectorAll('.part.sidebar .split-view-view')].filter((v) => v.querySelector('.pane-header'));
    const parts = panes.map((v) => `${v.querySelector('.pane-header h3.title')?.textContent ?? '?'} ${Math.round(v.getBoundingClientRect().height)}`);
    const plan = panes.find((v) => v.querySelector('.pane-header h3.title')?.textContent === 'Plan');
    let cut = 0;
    if (plan) {
      const bottom = plan.getBoundingClientRect().bottom;
      const rows = [...plan.querySelectorAll('.monaco-list-row')];
      cut = rows.filter((r) => r.getBoundingClientRect().bottom > bottom + 1).length;
      const total = Number(plan.querySelector('.monaco-list')?.getAttribute('aria-rowcount') ?? rows.length);
      cut += Math.max(0, total - rows.length);
    }
    return `${parts.join(', ')}; Plan rows cut off: ${cut}`;
  });
}

const base = makeTempDir('screenshot');
let server;
let browser;
const cleanup = onEditorCleanup(base, () => ({ browser, server }));

let code = 0;
try {
  if (!argv.includes('--no-build') || !fs.existsSync(VSIX)) packageExtension();
  ensureDeps(['editor']);
  const folder = empty ? path.join(base, 'my-project') : writeDemoWorkspace(path.join(base, 'rate-limiter'));
  if (empty) {
    fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(path.join(folder, 'README.md'), '# my-project\n');
  } else {
    // Two agents' own commands, run as their shell tools run them after the set-up (the shipped
    // shell capture as BASH_ENV): the Terminals view shows each agent with its session.
    const runAs = (agent, session, command) =>
      spawnSync('bash', ['-c', command], {
        cwd: folder,
        stdio: 'ignore',
        env: { PATH: process.env.PATH, HOME: process.env.HOME, BASH_ENV: path.join(repoRoot, 'dist/agent-context-shell.sh'), AGENT_CONTEXT_AGENT: agent, AGENT_CONTEXT_SESSION: session, AGENT_CONTEXT_ROOT: folder, AGENT_CONTEXT_NODE: process.execPath },
      });
    runAs('codex', 'cx-demo', 'echo "compiled 12 files"');
    runAs('codex', 'cx-demo', 'echo "src/limiter.ts(41,7): error TS2345: Argument of type string is not assignable" >&2; exit 2');
    runAs('claude-code', 'cc-demo', 'echo "ok 1 - limiter allows 100 requests"; echo "ok 2 - limiter blocks the 101st"');
  }
  const profile = demoProfile(path.join(base, 'profile'), { 'workbench.startupEditor': 'none' });
  server = await startCodeServer({ profile });
  browser = await launchBrowser({ viewport: { width, height } });
  const { page } = browser;
  await page.goto(`${server.url}/?folder=${encodeURIComponent(folder)}`);
  await page.locator('.monaco-workbench .part.activitybar').waitFor({ state: 'visible', timeout: 60_000 });
  await openViewContainer(page, 'Agent Context', 60_000);
  if (empty) {
    // As a new user does: the Plan view's welcome button.
    await page.locator('.part.sidebar .welcome-view-content a.monaco-button:has-text("Initialize .agent Folder")').click({ timeout: 60_000 });
    await page.locator('.part.sidebar .pane-header[aria-label^="Terminals"]').waitFor({ state: 'visible', timeout: 60_000 });
    await page.waitForTimeout(3000); // the welcome texts of the views that just appeared
  } else {
    // Wait until each view has drawn its rows (the views fill in after activation).
    await page.waitForFunction(() => {
      const panes = [...document.querySelectorAll('.part.sidebar .pane')];
      return panes.length >= 3 && panes.filter((p) => p.querySelector('.monaco-list-row')).length >= 3;
    }, undefined, { timeout: 60_000 }).catch(() => console.warn('[screenshot] not every view showed rows within 60 s'));
  }
  // The sidebar at its default width, and the plan file open next to it.
  const box = await page.locator('.part.sidebar').boundingBox();
  await page.keyboard.press('Control+P');
  await page.locator('.quick-input-widget .quick-input-box input').waitFor({ state: 'visible', timeout: 10_000 });
  await page.keyboard.type('.agent/plan.yaml');
  await page.locator('.quick-input-widget .monaco-list-row').first().waitFor({ state: 'visible', timeout: 10_000 });
  await page.keyboard.press('Enter');
  await page.locator('.editor-instance .view-lines').first().waitFor({ state: 'visible', timeout: 10_000 }).catch(() => {});
  await page.mouse.move(box ? box.x + box.width + 400 : 800, 600); // off the sash: no hover highlight
  await page.waitForTimeout(1500); // icons, descriptions and syntax colours settle
  await resetUi(page);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  await page.screenshot({ path: out });
  console.log(`[screenshot] saved ${path.relative(process.cwd(), out)} (${width}×${height})`);
  if (argv.includes('--expand-collapse')) {
    // As a user does: Memory & Agents expanded and collapsed again, twice (the Plan must keep its height).
    console.log(`[screenshot] default: ${await sidebarLayout(page)}`);
    const header = page.locator('.part.sidebar .pane-header[aria-label^="Memory & Agents"]');
    const settle = async () => {
      await page.waitForTimeout(1500);
      await page.mouse.move(box ? box.x + box.width + 400 : 800, 600);
    };
    for (const round of [1, 2]) {
      await header.click();
      await settle();
      if (round === 1) await page.screenshot({ path: out.replace(/\.png$/, '-open.png') });
      console.log(`[screenshot] Memory & Agents expanded (${round}): ${await sidebarLayout(page)}`);
      await header.click();
      await settle();
      if (round === 1) await page.screenshot({ path: out.replace(/\.png$/, '-after.png') });
      console.log(`[screenshot] Memory & Agents collapsed again (${round}): ${await sidebarLayout(page)}`);
    }
  }
} catch (e) {
  console.error(`[screenshot] failed: ${e.stack ?? e}`);
  code = 1;
} finally {
  await cleanup();
}
process.exit(code);
