// Starts code-server (a real VS Code server) hermetically: its own user-data-dir, extensions-dir and
// config file, a free port on 127.0.0.1, detached in its own process group so that the group (and
// every child it starts) can be ended as a whole.
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cleanNpmEnv, ensureDeps } from './deps.mjs';
import { OWNER_VAR, freePort, killGroup, ownerMarker } from './processes.mjs';

/** User settings of the test editor: quiet, deterministic, bash in the terminal. */
export function editorSettings(extra = {}) {
  return {
    'workbench.startupEditor': 'none',
    'workbench.welcomePage.walkthroughs.openOnInstall': false,
    'workbench.tips.enabled': false,
    'workbench.enableExperiments': false,
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    'workbench.editor.untitled.hint': 'hidden',
    'workbench.colorTheme': 'Default Dark Modern',
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'extensions.ignoreRecommendations': true,
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'chat.commandCenter.enabled': false,
    'chat.setupFromDialog': false,
    'chat.agent.enabled': true,
    'github.copilot.enable': { '*': false },
    'git.openRepositoryInParentFolders': 'never',
    'git.autofetch': false,
    'terminal.integrated.defaultProfile.linux': 'bash',
    'terminal.integrated.shellIntegration.enabled': true,
    'terminal.integrated.enablePersistentSessions': false,
    'terminal.integrated.persistentSessionReviveProcess': 'never',
    'terminal.integrated.showExitAlert': false,
    'terminal.integrated.gpuAcceleration': 'off',
    // The machine's ~/.bashrc runs `pyenv init`, whose rehash waits up to 60 s on a lock left by a
    // killed shell: every test terminal would then miss its shell-integration deadline.
    'terminal.integrated.env.linux': { PYENV_REHASH_TIMEOUT: '1' },
    'files.autoSave': 'off',
    'files.hotExit': 'off',
    'security.workspace.trust.startupPrompt': 'never',
    'security.workspace.trust.banner': 'never',
    'window.restoreWindows': 'none',
    ...extra,
  };
}

/** Creates user-data-dir (with settings), extensions-dir and config file under `base`. */
export function prepareProfile(base, settings) {
  const userDataDir = path.join(base, 'user-data');
  const extensionsDir = path.join(base, 'extensions');
  const configFile = path.join(base, 'code-server.yaml');
  fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  fs.mkdirSync(path.join(userDataDir, 'Machine'), { recursive: true });
  fs.mkdirSync(extensionsDir, { recursive: true });
  const json = JSON.stringify(settings, null, 2);
  fs.writeFileSync(path.join(userDataDir, 'User', 'settings.json'), json);
  fs.writeFileSync(configFile, 'auth: none\ncert: false\n');
  return { userDataDir, extensionsDir, configFile };
}

function codeServerEnv(extraEnv) {
  const deps = ensureDeps(['editor']);
  return {
    // Keep the editor's own terminals from inheriting npm's environment (a user's `npm install` in
    // the demo terminal would otherwise run with the outer npm's configuration and Node headers).
    ...cleanNpmEnv(),
    PATH: `${deps.NODE24_DIR}/bin:${process.env.PATH}`,
    [OWNER_VAR]: ownerMarker(),
    ...extraEnv,
  };
}

/** Installs .vsix files into the profile's extensions-dir (code-server --install-extension). */
export function installExtensions(profile, vsixPaths) {
  const deps = ensureDeps(['editor']);
  const r = spawnSync(
    deps.CODE_SERVER_BIN,
    [
      '--config', profile.configFile,
      '--user-data-dir', profile.userDataDir,
      '--extensions-dir', profile.extensionsDir,
      ...vsixPaths.flatMap((v) => ['--install-extension', v]),
      '--force',
    ],
    { encoding: 'utf8', env: codeServerEnv({}) },
  );
  const out = `${r.stdout}${r.stderr}`;
  const installed = (out.match(/successfully installed/gi) ?? []).length;
  if (r.status !== 0 || installed < vsixPaths.length) {
    throw new Error(`installing ${vsixPaths.join(', ')} into code-server failed (exit ${r.status}):\n${out}`);
  }
}

/**
 * Starts code-server and waits until it answers. Returns { url, port, child, stop(), output() }.
 * `trust: false` leaves workspace trust enabled (restricted mode); otherwise it is disabled.
 */
export async function startCodeServer({ profile, trust = true, env = {}, port, onOutput }) {
  const deps = ensureDeps(['editor']);
  port = port ?? (await freePort());
  const args = [
    '--auth', 'none',
    '--bind-addr', `127.0.0.1:${port}`,
    '--config', profile.configFile,
    '--user-data-dir', profile.userDataDir,
    '--extensions-dir', profile.extensionsDir,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-getting-started-override',
    '--ignore-last-opened',
    '--vscode-option', 'enable-smoke-test-driver',
  ];
  if (trust) args.push('--disable-workspace-trust');
  const child = spawn(deps.CODE_SERVER_BIN, args, {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: codeServerEnv(env),
  });
  let log = '';
  const collect = (d) => {
    const s = d.toString();
    log += s;
    if (log.length > 200_000) log = log.slice(-100_000);
    onOutput?.(s);
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const url = `http://127.0.0.1:${port}`;
  const stop = () => killGroup(child);
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`code-server exited early (${child.exitCode ?? child.signalCode}):\n${log}`);
    }
    try {
      const res = await fetch(`${url}/healthz`);
      if (res.ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`code-server did not answer on ${url} within 60 s:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { url, port, child, stop, output: () => log };
}
