import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { agentsFound, agentsWithRecord, isSetUp, SETUP_ENTRIES, setUpAgent, undoAgent, type AgentSetup, type SettingChange, type SetupOutcome } from '../../core/setup/agents';
import { HOOK_ENV, VSCODE_HOOK_FILE } from '../../core/setup/agents/vscodeAgent';
import { describeSetup, type SettingDone } from '../../core/setup/setupMessages';
import { formatFileError } from '../../core/result';
import { installServerCopy } from './mcpSetup';
import { notify } from '../../editor/notify';
import { diskFolders } from '../../editor/settings';

/** The context key that shows "Undo Agent Set-Up…" in the palette: some agent is set up in an open folder. */
const SET_UP_KEY = 'agentContext.agentSetUp';
/** The setting entries the set-ups added (`<setting>#<key>`, user scope): an undo takes out only these. */
const SETTINGS_ADDED = 'agentContext.setup.settingsAdded';
/** Where an earlier version remembered adding .agent/skills to chat.agentSkillsLocations. */
const LEGACY_SKILLS_ADDED = 'agentContext.vscodeAgent.skillsLocationAdded';

/** What the commands return (tests read it): the outcome, and what the user was told. */
export interface SetupResult extends SetupOutcome {
  agent: string;
  folder: string;
  message: string;
  warning: boolean;
  settingsChanged: SettingDone[];
}

type AgentItem = vscode.QuickPickItem & { agent: AgentSetup; folders: vscode.WorkspaceFolder[] };

/** An entry and what it sets up along with itself (VS Code's agent: both its harnesses). */
const partsOf = (agent: AgentSetup): AgentSetup[] => [agent, ...(agent.with ?? [])];

/** Where a folder list is shown: nothing for a single-folder window, the names otherwise. */
function where(folders: readonly vscode.WorkspaceFolder[], all: readonly vscode.WorkspaceFolder[]): string {
  return all.length <= 1 ? '' : ` in ${folders.map((f) => f.name).join(', ')}`;
}

/**
 * The entries Set Up Agent… offers, from core's SETUP_ENTRIES: the editor's own agents first, then
 * the CLIs found on this machine, then the rest (marked, so none is out of reach); each marked
 * where it is set up already.
 */
function setupItems(folders: readonly vscode.WorkspaceFolder[]): AgentItem[] {
  const found = new Set(agentsFound(SETUP_ENTRIES, os.homedir()).map((a) => a.id));
  const rank = (a: AgentSetup) => (a.inEditor ? 0 : found.has(a.id) ? 1 : 2);
  return [...SETUP_ENTRIES].sort((a, b) => rank(a) - rank(b)).map((agent) => {
    const done = folders.filter((f) => partsOf(agent).some((p) => agentsWithRecord(f.uri.fsPath).includes(p.id)));
    const state = agent.inEditor ? 'this editor' : found.has(agent.id) ? 'found on this machine' : `not found (no ${agent.binary} on PATH, no ~/${agent.homeFolder})`;
    return { label: agent.label, description: `${state}${agent.detail ? `, ${agent.detail}` : ''}${done.length ? ` · set up${where(done, folders)}` : ''}`, agent, folders: [...folders] };
  });
}

/** The entries Undo Agent Set-Up… offers: only agents set up in an open folder, each with those folders. */
async function undoItems(folders: readonly vscode.WorkspaceFolder[]): Promise<AgentItem[]> {
  const items: AgentItem[] = [];
  for (const agent of SETUP_ENTRIES) {
    const done: vscode.WorkspaceFolder[] = [];
    for (const f of folders) {
      for (const p of partsOf(agent)) {
        if (await isSetUp(p, f.uri.fsPath, os.homedir())) {
          done.push(f);
          break;
        }
      }
    }
    if (done.length) items.push({ label: agent.label, description: `set up${where(done, folders)}`, agent, folders: done });
  }
  return items;
}

async function pickFolder(folders: readonly vscode.WorkspaceFolder[], title: string): Promise<vscode.WorkspaceFolder | undefined> {
  if (folders.length <= 1) return folders[0];
  const pick = await vscode.window.showQuickPick(folders.map((f) => ({ label: f.name, description: f.uri.fsPath, folder: f })), {
    title,
    placeHolder: 'Which workspace folder does the agent work in?',
  });
  return pick?.folder;
}

/** True when some agent is set up in an open folder (a record of its set-up, or VS Code's hook file from before records). */
function anySetUp(): boolean {
  return diskFolders().some((f) => agentsWithRecord(f.uri.fsPath).length > 0 || fs.existsSync(path.join(f.uri.fsPath, VSCODE_HOOK_FILE)));
}

/**
 * "Agent Context: Set Up Agent…" and "Undo Agent Set-Up…", one pair for every agent core lists
 * (SETUP_ENTRIES): our MCP server, the shell hook and the plan folder in the agent's own (local,
 * uncommitted) configuration for one folder, VS Code's hook file and skills setting for VS Code's
 * agent. Each says which files and settings it changed. The scripts run from a copy in global
 * storage, so the paths written survive extension updates.
 */
export function registerAgentSetup(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): void {
  const refreshKey = (): void => void vscode.commands.executeCommand('setContext', SET_UP_KEY, anySetUp());

  /** Adds (set-up) or takes out (undo, only what a set-up added) the editor setting entries of an outcome. */
  const applySettings = async (changes: readonly SettingChange[], undo: boolean): Promise<SettingDone[]> => {
    const done: SettingDone[] = [];
    const added = new Set(context.globalState.get<string[]>(SETTINGS_ADDED) ?? []);
    if (context.globalState.get<boolean>(LEGACY_SKILLS_ADDED)) added.add('chat.agentSkillsLocations#.agent/skills');
    const config = vscode.workspace.getConfiguration();
    for (const c of changes) {
      const id = `${c.setting}#${c.key}`;
      const user = config.inspect<Record<string, unknown>>(c.setting)?.globalValue;
      const has = !!user && Object.prototype.hasOwnProperty.call(user, c.key);
      if (!undo && c.value !== undefined && !has) {
        await config.update(c.setting, { ...(user ?? {}), [c.key]: c.value }, vscode.ConfigurationTarget.Global);
        added.add(id);
        done.push({ setting: c.setting, key: c.key, added: true });
      } else if (undo && added.has(id)) {
        // The user's own entry for the key (one they changed since) stays theirs.
        if (has) {
          const rest = Object.fromEntries(Object.entries(user!).filter(([k]) => k !== c.key));
          await config.update(c.setting, Object.keys(rest).length ? rest : undefined, vscode.ConfigurationTarget.Global);
          done.push({ setting: c.setting, key: c.key, added: false });
        }
        added.delete(id);
      }
    }
    await context.globalState.update(SETTINGS_ADDED, [...added]);
    await context.globalState.update(LEGACY_SKILLS_ADDED, undefined);
    return done;
  };

  const run = async (undo: boolean, preset?: string): Promise<SetupResult | undefined> => {
    const title = undo ? 'Undo Agent Set-Up' : 'Set Up Agent';
    const folders = diskFolders();
    if (folders.length === 0) {
      void notify.error(`open a folder first, then run "${title}".`);
      return undefined;
    }
    if (!undo && !vscode.workspace.isTrusted) {
      void notify.warn('this workspace is in Restricted Mode; trust it to set up an agent (the set-up adds a hook that runs with the agent\'s shell commands).');
      return undefined;
    }
    const items = undo ? await undoItems(folders) : setupItems(folders);
    if (undo && items.length === 0) {
      refreshKey();
      void notify.info(`no agent is set up in ${folders.map((f) => f.name).join(', ')}; there is nothing to undo.`);
      return undefined;
    }
    const item = preset !== undefined ? items.find((i) => i.agent.id === preset) : await vscode.window.showQuickPick(items, { title, placeHolder: undo ? 'Which agent\'s set-up to undo?' : 'Which agent?' });
    if (!item) {
      if (preset !== undefined) void notify.error(undo ? `"${preset}" is not set up here; nothing to undo.` : `no agent "${preset}"; known: ${SETUP_ENTRIES.map((a) => a.id).join(', ')}.`);
      return undefined;
    }
    const folder = await pickFolder(item.folders, title);
    if (!folder) return undefined;
    const { agent } = item;
    const root = folder.uri.fsPath;
    const home = os.homedir();
    let dist: string | undefined;
    if (!undo) {
      try {
        dist = path.dirname(await installServerCopy(context));
      } catch (e) {
        void notify.error(`could not copy the hook and MCP server to ${context.globalStorageUri.fsPath}: ${(e as Error).message}`);
        return undefined;
      }
    }
    // The entry, then what goes with it; the outcomes add up. Only the entry's own failure stops it.
    const outcome: Required<SetupOutcome> = { changed: [], created: [], deleted: [], unchanged: [], removedFolders: [], settings: [], requires: [], notes: [] };
    const failed: string[] = [];
    for (const part of partsOf(agent)) {
      // An agent CLI runs our scripts with `node` from PATH (its hooks and MCP servers start in the
      // user's shell environment); the editor's own agents with the editor's executable as Node (a
      // user of VS Code may have no node on PATH).
      const paths = agent.inEditor ? { node: process.execPath, electron: process.versions.electron !== undefined, dist: dist! } : { node: 'node', dist: dist! };
      const r = undo ? await undoAgent(part, root, home) : await setUpAgent(part, root, home, paths);
      if (!r.ok) {
        log.error(`${title} (${part.label}) in ${root}: ${formatFileError(r.error)}`);
        if (part === agent) {
          refreshKey();
          void notify.error(`${agent.label} was not ${undo ? 'restored' : 'set up'}: ${formatFileError(r.error)}`);
          return undefined;
        }
        failed.push(`${part.label}: ${formatFileError(r.error)}`);
        continue;
      }
      for (const k of Object.keys(outcome) as (keyof SetupOutcome)[]) (outcome[k] as unknown[]).push(...((r.value[k] as unknown[] | undefined) ?? []));
    }
    refreshKey();
    const settingsChanged = await applySettings(outcome.settings, undo);
    const config = vscode.workspace.getConfiguration();
    const off = outcome.requires.filter((q) => config.get(q.setting) === q.off).map((q) => q.why);
    const found = agentsFound([agent], home).length > 0;
    const m = describeSetup({ undo, label: agent.label, binary: agent.binary, homeFolder: agent.homeFolder, inEditor: agent.inEditor, found, folderName: folder.name, root, home, outcome, settings: settingsChanged, off, failed });
    for (const line of m.log) log.info(line);
    const showLog = 'Show Log';
    // Notes (what was left out and why) are in the log: the button leads there.
    const buttons = outcome.notes.length || failed.length ? [showLog] : [];
    void (m.warning ? notify.warn(m.text, ...buttons) : notify.info(m.text, ...buttons)).then((b) => {
      if (b === showLog) log.show(true);
    });
    return { ...outcome, agent: agent.id, folder: root, message: m.text, warning: m.warning, settingsChanged };
  };

  // VS Code's agent runs its hooks as children of this extension host, with its environment: the
  // committed hook file needs no path. In a Restricted Mode window they stay unset and the hook does nothing.
  const exportHookEnv = (): void => {
    if (!vscode.workspace.isTrusted) return;
    process.env[HOOK_ENV.js] = path.join(context.extensionPath, 'dist', 'agent-hook.js');
    process.env[HOOK_ENV.node] = process.execPath;
  };
  exportHookEnv();
  refreshKey();
  context.subscriptions.push(
    vscode.workspace.onDidGrantWorkspaceTrust(exportHookEnv),
    vscode.workspace.onDidChangeWorkspaceFolders(refreshKey),
    // A set-up made outside the editor (mcp.js --setup in a terminal) shows when the user comes back.
    vscode.window.onDidChangeWindowState((s) => s.focused && refreshKey()),
    vscode.commands.registerCommand('agentContext.setupAgent', (preset?: string) => run(false, preset)),
    vscode.commands.registerCommand('agentContext.undoAgentSetup', (preset?: string) => run(true, preset)),
  );
}
