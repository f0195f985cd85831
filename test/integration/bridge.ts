// Extension-host side of the UI bridge (see test/runner/bridge.mjs and docs/TESTING.md): lets a
// mocha test running inside the extension host ask Playwright to act on the workbench page.
// The bridge URL reaches the extension host through the AGENT_CONTEXT_BRIDGE environment variable
// of the code-server process; without it (e.g. under @vscode/test-electron without a debug port)
// every ui.* call fails with a clear message and bridgeAvailable() is false.

const bridgeUrl = process.env.AGENT_CONTEXT_BRIDGE;

/** The run this extension host belongs to ('dev', 'vsix', 'restricted', ...; 'electron' under test-electron). */
export const runName: string = process.env.AGENT_CONTEXT_RUN ?? 'electron';

/** True when a Playwright bridge is attached to this editor window. */
export function bridgeAvailable(): boolean {
  return Boolean(bridgeUrl);
}

async function call<T>(action: string, body: Record<string, unknown> = {}): Promise<T> {
  if (!bridgeUrl) {
    throw new Error(`ui.${action} needs the Playwright bridge (AGENT_CONTEXT_BRIDGE is not set): run the suite with npm test`);
  }
  const res = await fetch(`${bridgeUrl}/${action}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { ok: boolean; value?: T; error?: string };
  if (!json.ok) throw new Error(`ui.${action}(${JSON.stringify(body)}) failed: ${json.error}`);
  return json.value as T;
}

let logChain: Promise<unknown> = Promise.resolve();

/** Prints a line in the runner's output (in order), or on the console when there is no bridge. */
export function log(line: string): Promise<unknown> {
  if (!bridgeUrl) {
    console.log(line);
    return Promise.resolve();
  }
  logChain = logChain.then(() => call('log', { line }).catch(() => console.log(line)));
  return logChain;
}

/** Resolves when every line passed to log() has reached the runner. */
export function flushLog(): Promise<unknown> {
  return logChain;
}

interface Timeout {
  /** Milliseconds before the action gives up (bridge default 10 s). */
  timeout?: number;
}

/** The UI actions on one window: the first (the run's) or one a test opened with ui.openWindow. */
function windowUi(extra: Record<string, unknown>) {
  const c = <T>(action: string, body: Record<string, unknown> = {}) => call<T>(action, { ...body, ...extra });
  return {
    /** Clicks the first element matching the selector (button 'right' opens context menus; force: through an overlay). */
    click: (selector: string, opts: Timeout & { button?: 'left' | 'right' | 'middle'; clickCount?: number; force?: boolean } = {}) =>
      c<true>('click', { selector, ...opts }),
    /** Waits until the first match is in this state (default 'visible'). */
    waitForSelector: (selector: string, opts: Timeout & { state?: 'visible' | 'hidden' | 'attached' | 'detached' } = {}) =>
      c<true>('waitForSelector', { selector, ...opts }),
    /** innerText of the first match (waits for it to be attached). */
    text: (selector: string, opts: Timeout = {}) => c<string>('text', { selector, ...opts }),
    /** innerText of every match, in document order (no waiting). */
    texts: (selector: string) => c<string[]>('texts', { selector }),
    /** innerText of every match inside the page's frames (webviews such as a Markdown preview), no waiting. */
    frameTexts: (selector: string) => c<string[]>('frameTexts', { selector }),
    /** An attribute of the first match, or null. */
    attribute: (selector: string, name: string, opts: Timeout = {}) => c<string | null>('attribute', { selector, name, ...opts }),
    /** Number of matches right now (no waiting). */
    count: (selector: string) => c<number>('count', { selector }),
    /** Presses a key chord, e.g. 'Control+Shift+P', 'Escape'; focuses `selector` first if given. */
    press: (keys: string, opts: Timeout & { selector?: string } = {}) => c<true>('press', { keys, ...opts }),
    /** Types text into whatever has focus. */
    type: (text: string, opts: { delay?: number } = {}) => c<true>('type', { text, ...opts }),
    /** Runs a command through the command palette by its title ('Agent Context: Initialize .agent Folder' or without category). */
    runCommand: (title: string, opts: Timeout = {}) => c<string>('runCommand', { title, ...opts }),
    /** Right-clicks the first match and clicks the context-menu item with this label (e.g. 'Mark Completed'). */
    contextMenu: (selector: string, item: string, opts: Timeout = {}) => c<true>('contextMenu', { selector, item, ...opts }),
    /** Closes a left-over context menu, quick input, modal dialog or notification centre; returns what it closed. */
    resetUi: () => c<string[]>('resetUi'),
    /** Opens a view container by clicking its Activity Bar entry (no-op if it is already open). */
    openViewContainer: (title: string, opts: Timeout = {}) => c<true>('openViewContainer', { title, ...opts }),
    /** Waits for a modal dialog and clicks the button with this label; returns its message, detail and buttons. */
    dialog: (button: string, opts: Timeout = {}) =>
      c<{ message: string; detail: string; buttons: string[] }>('dialog', { button, ...opts }),
    /** Focuses the active terminal and types text into it, then Enter (unless enter: false). */
    terminalType: (text: string, opts: Timeout & { enter?: boolean } = {}) => c<true>('terminalType', { text, ...opts }),
    /** Saves a screenshot to test-results/<run>--<name>.png; returns the file path. */
    screenshot: (name: string) => c<string>('screenshot', { name }),
    /** Evaluates a JavaScript expression in the workbench page and returns its JSON value. */
    evaluate: <T = unknown>(expression: string) => c<T>('evaluate', { expression }),
  };
}

/**
 * UI actions on the workbench page. Selectors are Playwright selectors: CSS plus `:has-text("x")`,
 * `:text-is("x")`, `>>` chaining. Every call throws with the bridge's error message on failure.
 */
export const ui = {
  ...windowUi({}),
  /**
   * Opens another window of the same editor (same profile, as a user's second window) on a folder
   * and waits for its workbench; returns its number for ui.window(n). Its own extension host runs
   * the extension; the suites keep running in this one.
   */
  openWindow: (folder: string) => call<number>('openWindow', { folder }),
  /** Closes a window opened with openWindow. */
  closeWindow: (n: number) => call<boolean>('closeWindow', { window: n }),
  /** The UI actions on window n (ui.window(n).click(...) acts there). */
  window: (n: number) => windowUi({ window: n }),
};

/**
 * Polls `predicate` until it returns a truthy value (returned) or the timeout passes (throws with
 * `message` and the last error the predicate threw, if any). Default: 10 s timeout, 100 ms interval.
 */
export async function waitFor<T>(
  predicate: () => T | Promise<T>,
  opts: { timeout?: number; interval?: number; message?: string } = {},
): Promise<NonNullable<T>> {
  const timeout = opts.timeout ?? 10_000;
  const interval = opts.interval ?? 100;
  const deadline = Date.now() + timeout;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await predicate();
      if (value) return value as NonNullable<T>;
      lastError = undefined;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() >= deadline) {
      const why = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`${opts.message ?? 'condition not met'} within ${timeout} ms${why}`);
    }
    await new Promise((r) => setTimeout(r, interval));
  }
}
