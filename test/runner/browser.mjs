// Debian's Chromium driven by playwright-core (never a downloaded browser), with a fresh profile.
import { chromium } from 'playwright-core';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ensureDeps } from './deps.mjs';
import { OWNER_VAR, ownerMarker } from './processes.mjs';

export const VIEWPORT = { width: 1400, height: 900 };

/** Launches Chromium headless; returns { browser, context, page, close() }. */
export async function launchBrowser({ headless = true } = {}) {
  const deps = ensureDeps();
  const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-context-chromium-'));
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: deps.CHROMIUM_BIN,
    headless,
    viewport: VIEWPORT,
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
    fs.rmSync(profileDir, { recursive: true, force: true });
  };
  return { context, page, close };
}
