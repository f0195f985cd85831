// Takes the walkthrough's images from the real editor: the packaged extension in code-server on the
// demo workspace, driven through the UI like a user, cropped to the part each step talks about.
//   node scripts/walkthroughMedia.mjs [--no-build]
// Writes media/walkthrough/{initialize,terminal,note,pin,instructions,cleanup}.png. The "try a tool"
// step keeps its SVG diagram: there is no chat model in the test editor to answer a #-mention.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { launchBrowser } from '../test/runner/browser.mjs';
import { contextMenu, openViewContainer, resetUi, runCommand, terminalType } from '../test/runner/bridge.mjs';
import { startCodeServer } from '../test/runner/codeServer.mjs';
import { demoProfile, packageExtension, VSIX, writeDemoWorkspace } from '../test/runner/demo.mjs';
import { ensureDeps, repoRoot } from '../test/runner/deps.mjs';
import { makeTempDir, onEditorCleanup } from '../test/runner/processes.mjs';

const argv = process.argv.slice(2);
const outDir = path.join(repoRoot, 'media/walkthrough');
const base = makeTempDir('walkthrough-media');
let server;
let browser;
const cleanup = onEditorCleanup(base, () => ({ browser, server }));

/** Screenshot of the union of the given elements' boxes (plus a margin), inside the viewport. */
async function shot(page, name, selectors, margin = 4) {
  const boxes = [];
  for (const s of selectors) {
    const b = await page.locator(s).first().boundingBox();
    if (b) boxes.push(b);
  }
  if (boxes.length === 0) throw new Error(`${name}: none of ${selectors.join(', ')} is visible`);
  const x = Math.max(0, Math.min(...boxes.map((b) => b.x)) - margin);
  const y = Math.max(0, Math.min(...boxes.map((b) => b.y)) - margin);
  const right = Math.max(...boxes.map((b) => b.x + b.width)) + margin;
  const bottom = Math.max(...boxes.map((b) => b.y + b.height)) + margin;
  const file = path.join(outDir, `${name}.png`);
  await page.screenshot({ path: file, clip: { x, y, width: right - x, height: bottom - y } });
  console.log(`[walkthrough-media] saved ${path.relative(repoRoot, file)}`);
}

const pane = (title) => `.part.sidebar .pane:has(.pane-header[aria-label^="${title}"])`;
const row = (title, text) => `${pane(title)} .monaco-list-row:has-text("${text}")`;

let code = 0;
try {
  if (!argv.includes('--no-build') || !fs.existsSync(VSIX)) packageExtension();
  ensureDeps(['editor']);
  const folder = writeDemoWorkspace(path.join(base, 'rate-limiter'));
  const profile = demoProfile(path.join(base, 'profile'), { 'workbench.startupEditor': 'none', 'notifications.showExtensionsNotifications': true });
  server = await startCodeServer({ profile });
  browser = await launchBrowser();
  const { page } = browser;
  await page.goto(`${server.url}/?folder=${encodeURIComponent(folder)}`);
  await page.locator('.monaco-workbench .part.activitybar').waitFor({ state: 'visible', timeout: 60_000 });
  await openViewContainer(page, 'Agent Context', 60_000);
  await page.locator(row('Plan', 'rate')).first().waitFor({ state: 'visible', timeout: 60_000 }).catch(() => {});
  await page.waitForTimeout(1500);
  await resetUi(page);

  // 1. The sidebar the .agent folder fills (mouse off the Activity Bar: no hover tooltip).
  await page.mouse.move(900, 450);
  await page.waitForTimeout(800);
  await shot(page, 'initialize', ['.part.sidebar']);

  // 2. A real terminal and its capture in the Terminals view.
  await runCommand(page, 'Terminal: Create New Terminal');
  await page.locator('.terminal-wrapper.active .xterm-rows').waitFor({ state: 'visible', timeout: 30_000 });
  await page.waitForTimeout(3000); // shell integration
  // A short prompt: the default `user@host:/tmp/…/rate-limiter$` wrapped the command lines into a garble.
  await terminalType(page, "PS1='$ '; clear");
  await page.waitForTimeout(500);
  await terminalType(page, 'echo "fetching registry..."; echo "error: ECONNRESET while fetching lodash"; false');
  await terminalType(page, 'git --version');
  const termRow = `${pane('Terminals')} .monaco-list-row[aria-level="1"]`;
  await page.locator(termRow).first().waitFor({ state: 'visible', timeout: 30_000 });
  if ((await page.locator(termRow).first().getAttribute('aria-expanded')) !== 'true') await page.locator(termRow).first().click();
  const failedRow = `${pane('Terminals')} .monaco-list-row[aria-level="2"]:has-text("ECONNRESET")`;
  await page.locator(failedRow).first().waitFor({ state: 'visible', timeout: 30_000 });
  await page.mouse.move(900, 300);
  await page.waitForTimeout(800);
  await shot(page, 'terminal', [pane('Terminals'), '.part.panel']);

  // 3. A note on the failed command, from its context menu.
  await contextMenu(page, failedRow, 'Add Note for the Agent…');
  await page.locator('.quick-input-widget .quick-input-box input').waitFor({ state: 'visible', timeout: 10_000 });
  await page.keyboard.type('this failure is a flaky network, ignore it');
  await page.waitForTimeout(300);
  await shot(page, 'note', [pane('Terminals'), '.quick-input-widget']);
  await page.keyboard.press('Enter');
  await page.locator(`${failedRow}:has-text("note")`).first().waitFor({ state: 'visible', timeout: 15_000 }).catch(() => {});

  // 4. Pinning a scratch file.
  await runCommand(page, 'View: Close Panel').catch(() => {});
  await page.locator(row('Scratch', 'limiter-notes.md')).first().click({ button: 'right' });
  await page.locator('.monaco-menu .action-item:has-text("Pin")').first().waitFor({ state: 'visible', timeout: 10_000 });
  await page.locator('.monaco-menu .action-item:has-text("Pin")').first().hover();
  await page.waitForTimeout(300);
  await shot(page, 'pin', [pane('Scratch'), '.context-view .monaco-menu']);
  await page.locator('.monaco-menu .action-item:has-text("Pin")').first().click();

  // 5. The instruction block in AGENTS.md.
  await runCommand(page, 'Agent Context: Add Agent Instructions');
  await page.waitForTimeout(1000);
  await page.keyboard.press('Control+P');
  await page.locator('.quick-input-widget .quick-input-box input').waitFor({ state: 'visible', timeout: 10_000 });
  await page.keyboard.type('AGENTS.md');
  await page.locator('.quick-input-widget .monaco-list-row').first().waitFor({ state: 'visible', timeout: 10_000 });
  await page.keyboard.press('Enter');
  await page.locator('.editor-instance .view-lines').first().waitFor({ state: 'visible', timeout: 10_000 });
  await page.mouse.move(700, 850);
  await page.waitForTimeout(1500);
  await resetUi(page);
  await shot(page, 'instructions', ['.part.editor .editor-instance']);

  // 6. Cleanup and its report.
  await runCommand(page, 'Agent Context: Clean Up Scratch Now (No Preview)');
  let report = '.notification-toast';
  try {
    await page.locator(report).first().waitFor({ state: 'visible', timeout: 8_000 });
  } catch {
    // Extension toasts can be off in a profile; the report is then in the notification centre.
    report = '.notifications-center';
    await runCommand(page, 'Notifications: Show Notifications');
    await page.locator(`${report} .notification-list-item`).first().waitFor({ state: 'visible', timeout: 10_000 });
  }
  await page.waitForTimeout(500);
  await shot(page, 'cleanup', [pane('Scratch'), report]);
} catch (e) {
  console.error(`[walkthrough-media] failed: ${e.stack ?? e}`);
  code = 1;
} finally {
  await cleanup();
}
process.exit(code);
