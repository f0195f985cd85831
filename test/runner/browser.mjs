// Debian's Chromium driven by playwright-core (never a downloaded browser), with a fresh profile.
import { chromium } from 'playwright-core';
import { ensureDeps } from './deps.mjs';
import { OWNER_VAR, makeTempDir, ownerMarker, removeTempDir } from './processes.mjs';

export const VIEWPORT = { width: 1400, height: 900 };

/** Launches Chromium headless (window size VIEWPORT unless `viewport` is given); returns { browser, context, page, close() }. */
export async function launchBrowser({ headless = true, viewport = VIEWPORT } = {}) {
  const deps = ensureDeps(['editor']);
  const profileDir = makeTempDir('chromium');
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: deps.CHROMIUM_BIN,
    headless,
    viewport,
    env: { ...process.env, [OWNER_VAR]: ownerMarker() },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  // The workbench reads and writes the clipboard (copy/paste in tests).
  await context.grantPermissions(['clipboard-read', 'clipboard-write']).catch(() => {});
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await context.close().catch(() => {});
    removeTempDir(profileDir);
  };
  return { context, page, close };
}
