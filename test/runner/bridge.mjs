// The bridge: a small JSON-over-HTTP server on 127.0.0.1 through which tests running inside the
// extension host ask the Playwright side to act on the workbench page. POST /<action> with a JSON
// body; the answer is {"ok":true,"value":...} or {"ok":false,"error":"..."}. Selectors are
// Playwright selectors (CSS plus :has-text(), :text-is(), >> chaining, ...).
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { repoRoot } from './deps.mjs';

export const RESULTS_DIR = path.join(repoRoot, 'test-results');
const DEFAULT_TIMEOUT = 10_000;

/** Turns a free-form name into a safe file name (no directories, no odd characters). */
export function safeName(name) {
  return String(name).replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 150) || 'screenshot';
}

/** Saves a screenshot of the page to test-results/<name>.png; returns its path. */
export async function saveScreenshot(page, name) {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `${safeName(name)}.png`);
  await page.screenshot({ path: file });
  return file;
}

/** Opens the view container whose Activity Bar entry has this title (no-op if already open). */
export async function openViewContainer(page, title, timeout = DEFAULT_TIMEOUT) {
  const entry = page.locator(`.part.activitybar .action-item:has(a.action-label[aria-label^="${cssString(title)}"])`).first();
  await entry.waitFor({ state: 'visible', timeout });
  const selected = (await entry.getAttribute('aria-selected')) === 'true' || /\bchecked\b/.test((await entry.getAttribute('class')) ?? '');
  if (!selected) await entry.locator('a.action-label').click({ timeout });
  await page.locator(`.part.sidebar .composite.title h2:text-is("${cssString(title)}"), .part.sidebar .composite.title h2[title="${cssString(title)}"]`)
    .first().waitFor({ state: 'visible', timeout }).catch(() => {});
  return true;
}

function cssString(s) {
  return String(s).replace(/\\/g, '\\\\').replace(/"/g, '\\"');
}

/** Runs a command through the command palette by its title (with or without its category). */
export async function runCommand(page, title, timeout = DEFAULT_TIMEOUT) {
  const input = page.locator('.quick-input-widget .quick-input-box input');
  // A quick input left open (by a test or an extension) would swallow F1.
  if (await input.isVisible()) {
    await page.keyboard.press('Escape');
    await input.waitFor({ state: 'hidden', timeout: 2000 }).catch(() => {});
  }
  await page.keyboard.press('F1');
  await input.waitFor({ state: 'visible', timeout });
  // Keyboard input rather than fill(): fill() waits for the input to be "editable", which the
  // quick input is not while it animates in, and then hangs for the default 30 s.
  await input.focus({ timeout });
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(`>${title}`);
  // An editor opening meanwhile (a command's result) takes the keyboard: the text went there, so again.
  if ((await input.inputValue().catch(() => '')) !== `>${title}`) {
    if (!(await input.isVisible())) await page.keyboard.press('F1');
    await input.focus({ timeout });
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText(`>${title}`);
  }
  const deadline = Date.now() + timeout;
  let labels = [];
  for (;;) {
    labels = await page.locator('.quick-input-widget .quick-input-list .monaco-list-row').evaluateAll((rows) =>
      rows.map((r) => (r.querySelector('.label-name')?.textContent ?? r.getAttribute('aria-label') ?? '').trim()),
    );
    const want = title.toLowerCase();
    const index = labels.findIndex((l) => l.toLowerCase() === want || l.toLowerCase().endsWith(`: ${want}`));
    if (index >= 0) {
      await page.locator('.quick-input-widget .quick-input-list .monaco-list-row').nth(index).click({ timeout });
      await input.waitFor({ state: 'hidden', timeout }).catch(() => {});
      return labels[index];
    }
    if (Date.now() > deadline) break;
    await page.waitForTimeout(150);
  }
  await page.keyboard.press('Escape');
  await input.waitFor({ state: 'hidden', timeout: 2000 }).catch(() => {});
  throw new Error(`no command titled "${title}" in the command palette; it listed: ${labels.slice(0, 10).join(' | ') || '(nothing)'}`);
}

/** Waits for a modal dialog and clicks the button with this label; returns the dialog's text. */
export async function answerDialog(page, button, timeout = DEFAULT_TIMEOUT) {
  const dialog = page.locator('.monaco-dialog-box').first();
  await dialog.waitFor({ state: 'visible', timeout });
  const message = (await dialog.locator('.dialog-message-text').first().textContent().catch(() => '')) ?? '';
  const detail = (await dialog.locator('.dialog-message-detail').first().textContent().catch(() => '')) ?? '';
  const buttons = dialog.locator('.dialog-buttons .monaco-button');
  const labels = (await buttons.allTextContents()).map((t) => t.trim());
  const index = labels.findIndex((l) => l.toLowerCase() === String(button).toLowerCase());
  if (index < 0) {
    throw new Error(`the dialog "${message}" has no button "${button}"; its buttons: ${labels.join(' | ')}`);
  }
  await buttons.nth(index).click({ timeout });
  await dialog.waitFor({ state: 'hidden', timeout }).catch(() => {});
  return { message: message.trim(), detail: detail.trim(), buttons: labels };
}

/** Focuses the active terminal and types text into it (then Enter unless enter === false). */
export async function terminalType(page, text, enter = true, timeout = DEFAULT_TIMEOUT) {
  const textarea = page.locator('.terminal-wrapper.active .xterm-helper-textarea, .terminal .xterm.focus .xterm-helper-textarea').first();
  const any = page.locator('.xterm-helper-textarea').last();
  const target = (await textarea.count()) ? textarea : any;
  await target.waitFor({ state: 'attached', timeout });
  await target.focus();
  if (text) await page.keyboard.type(text, { delay: 5 });
  if (enter) await page.keyboard.press('Enter');
  return true;
}

/**
 * Right-clicks the element, then clicks the context-menu item with this label. VS Code's menu items
 * listen for mouse-up only 100 ms after they render (a RunOnceScheduler in the menu action item, so
 * the right-click's own mouse-up cannot pick an item): a click sooner closes the menu and runs
 * nothing. So before clicking, a page-side timer of MENU_SETTLE_MS (> 100 ms, set after the menu
 * rendered, so it fires after the menu's own timer however busy the page is) must have run, and
 * the menu must still be open (else it is opened again); after the click the menu must close.
 */
export async function contextMenu(page, selector, item, timeout = DEFAULT_TIMEOUT) {
  const deadline = Date.now() + timeout;
  const entry = page.getByRole('menuitem', { name: item, exact: true }).first();
  for (let attempt = 1; ; attempt++) {
    await page.locator(selector).first().click({ button: 'right', timeout: Math.max(1000, deadline - Date.now()) });
    try {
      await entry.waitFor({ state: 'visible', timeout: Math.max(1000, deadline - Date.now()) });
    } catch {
      const items = await page.getByRole('menuitem').allInnerTexts().catch(() => []);
      await page.keyboard.press('Escape');
      throw new Error(`the context menu of ${selector} has no item "${item}"; it has: ${items.map((t) => t.split('\n')[0].trim()).join(' | ') || '(no menu opened)'}`);
    }
    await page.evaluate((ms) => new Promise((resolve) => setTimeout(resolve, ms)), MENU_SETTLE_MS);
    if (await entry.isVisible()) break;
    if (attempt >= 5 || Date.now() > deadline) {
      throw new Error(`the context menu of ${selector} closed by itself ${attempt} times before "${item}" could be clicked (the view kept re-rendering)`);
    }
    console.log(`  [bridge] the context menu of ${selector} closed by itself before "${item}" was clicked; opening it again`);
  }
  await entry.click({ timeout: Math.max(1000, deadline - Date.now()) });
  await entry.waitFor({ state: 'hidden', timeout: Math.max(1000, deadline - Date.now()) });
  return true;
}

/** Page time a freshly opened context menu must be open before contextMenu() clicks in it (VS Code: 100 ms). */
const MENU_SETTLE_MS = 250;

/**
 * Closes what a test may have left open (context menu, quick input, modal dialog, notification
 * centre) so the next test starts from a quiet workbench. Returns what it closed.
 */
export async function resetUi(page) {
  const closed = [];
  for (let i = 0; i < 4; i++) {
    const open = await page.evaluate(() => {
      const visible = (sel) => [...document.querySelectorAll(sel)].some((e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden');
      const menu = [...document.querySelectorAll('.context-view, .monaco-menu-container')].some((e) =>
        e.shadowRoot ? e.shadowRoot.querySelector('.monaco-menu') : e.querySelector('.monaco-menu'));
      if (visible('.monaco-dialog-box')) return 'dialog';
      if (menu || visible('.monaco-menu')) return 'context menu';
      if (visible('.quick-input-widget')) return 'quick input';
      if (visible('.notifications-center.visible')) return 'notification centre';
      return '';
    });
    if (!open) break;
    closed.push(open);
    await page.keyboard.press('Escape');
    await page.waitForTimeout(100);
  }
  return closed;
}

/** The action table: name -> (page, body) => value. */
export function actions() {
  return {
    click: async (page, b) => {
      await page.locator(b.selector).first().click({ timeout: b.timeout ?? DEFAULT_TIMEOUT, button: b.button ?? 'left', clickCount: b.clickCount ?? 1, force: b.force === true });
      return true;
    },
    waitForSelector: async (page, b) => {
      await page.locator(b.selector).first().waitFor({ state: b.state ?? 'visible', timeout: b.timeout ?? DEFAULT_TIMEOUT });
      return true;
    },
    text: async (page, b) => {
      const loc = page.locator(b.selector).first();
      await loc.waitFor({ state: 'attached', timeout: b.timeout ?? DEFAULT_TIMEOUT });
      return (await loc.innerText()).trim();
    },
    texts: async (page, b) => (await page.locator(b.selector).allInnerTexts()).map((t) => t.trim()),
    // Webviews (a Markdown preview, a walkthrough's media) render inside nested iframes that page
    // selectors do not reach: the innerText of every match in every frame of the page.
    frameTexts: async (page, b) => {
      const out = [];
      for (const frame of page.frames()) {
        if (frame === page.mainFrame()) continue;
        out.push(...(await frame.locator(b.selector).allInnerTexts().catch(() => [])).map((t) => t.trim()));
      }
      return out;
    },
    attribute: async (page, b) => page.locator(b.selector).first().getAttribute(b.name, { timeout: b.timeout ?? DEFAULT_TIMEOUT }),
    count: async (page, b) => page.locator(b.selector).count(),
    press: async (page, b) => {
      if (b.selector) await page.locator(b.selector).first().focus({ timeout: b.timeout ?? DEFAULT_TIMEOUT });
      await page.keyboard.press(b.keys);
      return true;
    },
    type: async (page, b) => {
      await page.keyboard.type(b.text, { delay: b.delay ?? 5 });
      return true;
    },
    runCommand: (page, b) => runCommand(page, b.title, b.timeout ?? DEFAULT_TIMEOUT),
    contextMenu: (page, b) => contextMenu(page, b.selector, b.item, b.timeout ?? DEFAULT_TIMEOUT),
    resetUi: (page) => resetUi(page),
    openViewContainer: (page, b) => openViewContainer(page, b.title, b.timeout ?? DEFAULT_TIMEOUT),
    dialog: (page, b) => answerDialog(page, b.button, b.timeout ?? DEFAULT_TIMEOUT),
    terminalType: (page, b) => terminalType(page, b.text, b.enter !== false, b.timeout ?? DEFAULT_TIMEOUT),
    screenshot: async (page, b) => saveScreenshot(page, b.name),
    evaluate: async (page, b) => page.evaluate(b.expression),
  };
}

/**
 * Starts the bridge for a page. `onLog(line)` receives lines the extension host sends to /log
 * (the mocha report); `onExit(code, message)` the driver's end of the run. `openWindow(folder)`
 * (optional) opens another editor window on a folder and resolves to its page: the action
 * `openWindow` answers its number, and any action with `"window": n` acts on that window instead
 * of the first (`closeWindow` closes it). Returns { url, close() }.
 */
export async function startBridge(getPage, { onLog, onExit, onStarted, namePrefix = '', openWindow } = {}) {
  const table = actions();
  /** Windows opened by tests: number → page (0 is getPage()'s). */
  const windows = new Map();
  let nextWindow = 1;
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d) => (body += d));
    req.on('end', async () => {
      const name = (req.url ?? '/').replace(/^\/+/, '').split('?')[0];
      const reply = (status, obj) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(obj));
      };
      let parsed = {};
      try {
        parsed = body ? JSON.parse(body) : {};
      } catch {
        return reply(400, { ok: false, error: 'request body is not JSON' });
      }
      if (req.method === 'POST' && name === 'log') {
        onLog?.(String(parsed.line ?? ''));
        return reply(200, { ok: true, value: true });
      }
      if (req.method === 'POST' && name === 'started') {
        onStarted?.();
        return reply(200, { ok: true, value: true });
      }
      if (req.method === 'POST' && name === 'exit') {
        reply(200, { ok: true, value: true });
        return onExit?.(Number(parsed.code ?? 1), parsed.message);
      }
      if (req.method === 'POST' && name === 'openWindow') {
        if (!openWindow) return reply(200, { ok: false, error: 'this editor cannot open another window for a test' });
        try {
          const n = nextWindow++;
          windows.set(n, await openWindow(String(parsed.folder)));
          return reply(200, { ok: true, value: n });
        } catch (e) {
          return reply(200, { ok: false, error: String(e?.message ?? e) });
        }
      }
      if (req.method === 'POST' && name === 'closeWindow') {
        const p = windows.get(parsed.window);
        windows.delete(parsed.window);
        await p?.close().catch(() => {});
        return reply(200, { ok: true, value: !!p });
      }
      const fn = table[name];
      if (req.method !== 'POST' || !fn) {
        return reply(404, { ok: false, error: `unknown bridge action "${name}"; known: log, started, exit, openWindow, closeWindow, ${Object.keys(table).join(', ')}` });
      }
      const page = parsed.window ? windows.get(parsed.window) : getPage();
      if (!page) return reply(503, { ok: false, error: parsed.window ? `no window ${parsed.window} is open` : 'the workbench page is not open' });
      try {
        if (name === 'screenshot' && namePrefix) parsed = { ...parsed, name: `${namePrefix}${parsed.name}` };
        reply(200, { ok: true, value: (await fn(page, parsed)) ?? null });
      } catch (e) {
        reply(200, { ok: false, error: String(e?.message ?? e).split('\n').slice(0, 6).join('\n') });
      }
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve());
    }),
  };
}
