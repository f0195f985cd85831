// The test driver: when the integration runner starts the editor (AGENT_CONTEXT_BRIDGE and
// AGENT_CONTEXT_TESTS_MODULE in the environment), it loads the tests module, awaits its run()
// and posts the exit code to the bridge. Why not VS Code's own extensionTestsPath? In that mode
// the workbench refuses modal dialogs (prompt() throws, confirm() auto-accepts), so a test could
// never accept or decline a confirmation the way a user does. Here the editor runs as for a user.
const fs = require('node:fs');

async function post(action, body) {
  try {
    await fetch(`${process.env.AGENT_CONTEXT_BRIDGE}/${action}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  } catch {
    // The runner is gone: nothing to report to.
  }
}

const report = (code, message) => post('exit', { code, message });

/** True when the built-in Copilot Chat extension runs in this extension host. */
function chatEnabled() {
  const vscode = require('vscode');
  return Boolean(vscode.extensions.getExtension('GitHub.copilot-chat'));
}

/**
 * A fresh profile has the built-in chat extension disabled ("chat set up is not completed"). The
 * command Chat: Manage Language Models enables it (in this extension host, or in a restarted one,
 * where this driver starts again). Resolves once Copilot Chat runs here.
 */
async function enableChat() {
  if (chatEnabled()) return;
  const vscode = require('vscode');
  await post('log', { line: '(enabling the built-in chat: Chat: Manage Language Models)' });
  const enabled = new Promise((resolve) => {
    const sub = vscode.extensions.onDidChange(() => {
      if (chatEnabled()) {
        sub.dispose();
        resolve();
      }
    });
  });
  await post('runCommand', { title: 'Chat: Manage Language Models', timeout: 30000 });
  await enabled;
  // Close the Language Models editor the command opened.
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
}

/** True in the window on the run's workspace (a folder or a .code-workspace file). */
function isRunWindow() {
  const vscode = require('vscode');
  const want = process.env.AGENT_CONTEXT_WORKSPACE;
  if (!want) return true;
  const here = vscode.workspace.workspaceFile?.scheme === 'file' ? vscode.workspace.workspaceFile.fsPath : vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  return here === want;
}

function activate() {
  if (process.env.AGENT_CONTEXT_ENABLE_CHAT && !chatEnabled()) {
    void enableChat().then(activate);
    return;
  }
  const modulePath = process.env.AGENT_CONTEXT_TESTS_MODULE;
  const results = process.env.AGENT_CONTEXT_TEST_RESULTS;
  if (!process.env.AGENT_CONTEXT_BRIDGE || !modulePath || !results) return;
  // A second window a test opened (another folder, same editor): not the run's, nothing to run here.
  if (!isRunWindow()) return;
  // An extension host that crashed is restarted by the workbench: never run the suites twice.
  const started = `${results}.started`;
  try {
    fs.writeFileSync(started, String(process.pid), { flag: 'wx' });
  } catch {
    void report(1, 'the extension host restarted during the run (it crashed or was killed)');
    return;
  }
  void post('started', { pid: process.pid });
  // Let activation finish first: the suites run in the background of this extension host.
  setTimeout(async () => {
    try {
      await require(modulePath).run();
      await report(0);
    } catch (e) {
      await report(1, String((e && e.message) || e));
    }
  }, 0);
}

module.exports = { activate, deactivate() {} };
