import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { HOOK_ENV, setUpVscodeAgent, undoVscodeAgent, VSCODE_HOOK_FILE } from '../../core/setup/agents/vscodeAgent';
import { setUpAgent, undoAgent } from '../../core/setup/agents';
import { vscodeCopilotSetup } from '../../core/setup/agents/vscodeCopilot';
import type { SetupOutcome } from '../../core/setup/agents/configFiles';
import { formatFileError, type FileError, type Result } from '../../core/result';
import { notify } from '../../editor/notify';
import { agentRel } from '../../core/workspace/layout';
import { installServerCopy } from './mcpSetup';

/**
 * VS Code's Copilot harness (1.140+: core/setup/agents/vscodeCopilot.ts): the Copilot runtime's user
 * hooks and MCP server, pointing at the scripts' copy in global storage (paths that survive updates)
 * run by this editor's own executable as Node (a user of VS Code may have no `node` on PATH).
 */
async function copilotHarness(context: vscode.ExtensionContext, root: string, undo: boolean): Promise<Result<SetupOutcome, FileError>> {
  if (undo) return undoAgent(vscodeCopilotSetup, root, os.homedir());
  const dist = path.dirname(await installServerCopy(context));
  return setUpAgent(vscodeCopilotSetup, root, os.homedir(), { node: process.execPath, electron: process.versions.electron !== undefined, dist });
}

/**
 * VS Code's own agent (Copilot Chat): the hook file of core/setup/agents/vscodeAgent.ts, and the two
 * environment variables its hook reads. Hooks run as children of this extension host and inherit its
 * environment, so the committed hook file needs no path; in a Restricted Mode window they stay unset
 * and the hook does nothing.
 */
export function registerVscodeAgentSetup(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): void {
  const exportHookEnv = (): void => {
    if (!vscode.workspace.isTrusted) return;
    process.env[HOOK_ENV.js] = path.join(context.extensionPath, 'dist', 'agent-hook.js');
    process.env[HOOK_ENV.node] = process.execPath;
  };
  exportHookEnv();
  context.subscriptions.push(
    vscode.workspace.onDidGrantWorkspaceTrust(exportHookEnv),
    vscode.commands.registerCommand('agentContext.setupVscodeAgent', async () => {
      const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file');
      if (!folder) return void notify.error('open a folder first, then set up VS Code\'s agent.');
      if (!vscode.workspace.isTrusted) return void notify.warn('this workspace is in Restricted Mode; trust it to set up VS Code\'s agent (the set-up adds a hook).');
      const r = await setUpVscodeAgent(folder.uri.fsPath);
      if (!r.ok) {
        log.error(`Set Up VS Code Agent: ${formatFileError(r.error)}`);
        return void notify.error(`VS Code's agent was not set up: ${formatFileError(r.error)}`);
      }
      // Both harnesses: a user may be on either (the Copilot harness is VS Code 1.140+'s default for many).
      const harness = await copilotHarness(context, folder.uri.fsPath, false).catch((e: unknown): Result<SetupOutcome, FileError> => ({ ok: false, error: { file: context.globalStorageUri.fsPath, message: (e as Error).message } }));
      if (!harness.ok) {
        log.error(`Set Up VS Code Agent (Copilot harness): ${formatFileError(harness.error)}`);
        void notify.warn(`VS Code's agent was set up for its Local harness, not for the Copilot harness: ${formatFileError(harness.error)}`);
      } else log.info(`Set Up VS Code Agent (Copilot harness): changed ${harness.value.changed.join(', ') || 'nothing'}; unchanged ${harness.value.unchanged.join(', ') || 'nothing'}${harness.value.notes.length ? `; ${harness.value.notes.join(' ')}` : ''}`);
      const skills = await addSkillsLocation(context);
      log.info(`Set Up VS Code Agent in ${folder.uri.fsPath}: ${r.value.changed ? 'wrote' : 'unchanged'} ${r.value.file}; ${skills ? 'added' : 'kept'} "${SKILLS_LOCATION}" in chat.${SKILLS_SETTING} (user settings)`);
      // The file is written either way; say in one line why the agent will not use it yet.
      const off = hooksOff();
      if (off) {
        const warning = `Agent Context: wrote ${VSCODE_HOOK_FILE}, but ${off}.`;
        void notify.warn(warning);
        return { ...r.value, warning };
      }
      void notify.info(r.value.changed
        ? `Agent Context: wrote ${VSCODE_HOOK_FILE}. A large run_in_terminal output now reaches the model with our reference (error lines with their numbers), and the agent loads the skills in ${SKILLS_LOCATION}. Undo: "Agent Context: Remove VS Code Agent Hook".`
        : `Agent Context: VS Code's agent was already set up (${VSCODE_HOOK_FILE}, skills from ${SKILLS_LOCATION}).`);
      return { ...r.value, skillsLocationAdded: skills };
    }),
    vscode.commands.registerCommand('agentContext.undoVscodeAgent', async () => {
      const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file');
      if (!folder) return undefined;
      const r = await undoVscodeAgent(folder.uri.fsPath);
      if (!r.ok) return void notify.error(`Agent Context: ${formatFileError(r.error)}`);
      const harness = await copilotHarness(context, folder.uri.fsPath, true);
      if (!harness.ok) void notify.error(`Agent Context: ${formatFileError(harness.error)}`);
      else log.info(`Undo VS Code Agent (Copilot harness): removed ${harness.value.changed.join(', ') || 'nothing'}${harness.value.notes.length ? `; ${harness.value.notes.join(' ')}` : ''}`);
      await removeSkillsLocation(context);
      void notify.info(r.value.removed ? `Agent Context: removed ${VSCODE_HOOK_FILE}.` : `Agent Context: there was no ${VSCODE_HOOK_FILE}.`);
      return r.value;
    }),
  );
}

/** VS Code's setting of extra skill folders, resolved against each workspace folder (chat.agentSkillsLocations). */
const SKILLS_SETTING = 'agentSkillsLocations';
const SKILLS_LOCATION = agentRel('skills');
/** Set when the set-up added SKILLS_LOCATION, so the undo removes only what it added. */
const SKILLS_ADDED = 'agentContext.vscodeAgent.skillsLocationAdded';

type Locations = Record<string, boolean>;

/**
 * Lets VS Code's agent load `.agent/skills` natively: `".agent/skills": true` in the user's
 * chat.agentSkillsLocations. User scope, so nothing is committed and no workspace trust is needed
 * (the setting is restricted in a workspace); VS Code merges it with its default folders
 * (.github/skills, .claude/skills…). The user's own entry for the folder, true or false, is kept.
 * VS Code marks the setting as going away with its "Local agent harness"; until then it is the
 * only route for a folder of the workspace (chatSkills takes only files inside the extension).
 */
async function addSkillsLocation(context: vscode.ExtensionContext): Promise<boolean> {
  const chat = vscode.workspace.getConfiguration('chat');
  const user = chat.inspect<Locations>(SKILLS_SETTING)?.globalValue;
  if (user && Object.prototype.hasOwnProperty.call(user, SKILLS_LOCATION)) return false;
  await chat.update(SKILLS_SETTING, { ...(user ?? {}), [SKILLS_LOCATION]: true }, vscode.ConfigurationTarget.Global);
  await context.globalState.update(SKILLS_ADDED, true);
  return true;
}

/** Undo of addSkillsLocation: the entry goes only when the set-up added it and it is still true. */
async function removeSkillsLocation(context: vscode.ExtensionContext): Promise<void> {
  if (!context.globalState.get<boolean>(SKILLS_ADDED)) return;
  const chat = vscode.workspace.getConfiguration('chat');
  const user = chat.inspect<Locations>(SKILLS_SETTING)?.globalValue;
  if (user?.[SKILLS_LOCATION] === true) {
    const rest = Object.fromEntries(Object.entries(user).filter(([k]) => k !== SKILLS_LOCATION));
    await chat.update(SKILLS_SETTING, Object.keys(rest).length ? rest : undefined, vscode.ConfigurationTarget.Global);
  }
  await context.globalState.update(SKILLS_ADDED, undefined);
}

/** Why VS Code's agent would not run the hook now (chat turned off, hooks off), or undefined. */
function hooksOff(): string | undefined {
  const chat = vscode.workspace.getConfiguration('chat');
  if (chat.get<boolean>('disableAIFeatures') === true) return 'chat is turned off (chat.disableAIFeatures), so VS Code\'s agent does not run';
  if (chat.get<boolean>('useHooks') === false) return 'VS Code\'s agent runs no hooks while chat.useHooks is off';
  return undefined;
}
