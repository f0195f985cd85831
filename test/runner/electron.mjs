// The desktop editor for `npm run test:electron`: VS Code downloaded by @vscode/test-electron (or
// VSCODE_EXECUTABLE), started with its own profile and --remote-debugging-port so that Playwright
// attaches to the Electron window over CDP and serves the same bridge. Same driver, same suites.
// Needs internet (or a cached download) and a display (xvfb-run on a headless Linux).
import { spawn, spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { chromium } from 'playwright-core';
import { downloadAndUnzipVSCode, resolveCliPathFromVSCodeExecutablePath } from '@vscode/test-electron';
import { repoRoot } from './deps.mjs';
import { OWNER_VAR, freePort, killGroup, ownerMarker } from './processes.mjs';

/** An editor (see codeServerEditor in integration.mjs) backed by VS Code desktop. */
export function electronEditor({ version = process.env.VSCODE_VERSION ?? 'stable', executable = process.env.VSCODE_EXECUTABLE } = {}) {
  let exe = executable;
  const vscodeExecutable = async () => {
    exe ??= await downloadAndUnzipVSCode({ version, cachePath: path.join(repoRoot, '.vscode-test') });
    return exe;
  };
  return {
    name: 'VS Code desktop',
    async install(profile, vsixes) {
      const cli = resolveCliPathFromVSCodeExecutablePath(await vscodeExecutable());
      const r = spawnSync(cli, [
        '--user-data-dir', profile.userDataDir,
        '--extensions-dir', profile.extensionsDir,
        ...vsixes.flatMap((v) => ['--install-extension', v]),
        '--force',
      ], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`installing ${vsixes.join(', ')} into VS Code failed (exit ${r.status}):\n${r.stdout}${r.stderr}`);
    },
    async launch({ profile, trust, env, ws, devPath, preparePage, onGone }) {
      const port = await freePort();
      const args = [
        ws.path,
        '--user-data-dir', profile.userDataDir,
        '--extensions-dir', profile.extensionsDir,
        `--remote-debugging-port=${port}`,
        '--skip-welcome', '--skip-release-notes', '--disable-updates', '--disable-gpu', '--new-window',
        ...(trust ? ['--disable-workspace-trust'] : []),
        ...(devPath ? [`--extensionDevelopmentPath=${devPath}`] : []),
      ];
      let log = '';
      const child = spawn(await vscodeExecutable(), args, {
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, ...env, [OWNER_VAR]: ownerMarker() },
      });
      const collect = (d) => {
        log = (log + d.toString()).slice(-100_000);
      };
      child.stdout.on('data', collect);
      child.stderr.on('data', collect);
      child.on('exit', (code, signal) => onGone(`VS Code exited (${code ?? signal})`));
      let browser;
      const stop = async () => {
        await browser?.close().catch(() => {});
        await killGroup(child);
      };
      try {
        const deadline = Date.now() + 90_000;
        for (;;) {
          try {
            browser = await chromium.connectOverCDP(`http://127.0.0.1:${port}`);
            break;
          } catch (e) {
            if (Date.now() > deadline) throw new Error(`could not attach to VS Code on port ${port}: ${e.message}\n${log}`);
            await new Promise((r) => setTimeout(r, 500));
          }
        }
        let page;
        while (!page) {
          page = browser.contexts().flatMap((c) => c.pages()).find((p) => p.url().includes('workbench'));
          if (!page) {
            if (Date.now() > deadline) throw new Error('VS Code opened no workbench window');
            await new Promise((r) => setTimeout(r, 500));
          }
        }
        await preparePage(page);
        return { page, stop, output: () => log };
      } catch (e) {
        await stop();
        throw e;
      }
    },
  };
}
