import * as vscode from 'vscode';
import { retentionFrom, secretSettingsFrom, toolConfigFrom, type SecretSettings, type ToolConfig } from '../core/config';
import type { RetentionPolicy } from '../core/scratch/retention';
import { settingValue, type SettingKey, type SettingValue } from '../core/settingsTable';
import type { WorkspaceFolderRef } from '../core/workspace/workspacePaths';
import { userRulesFor } from '../core/secrets/gitleaks';
import type { UserPatterns } from '../core/secrets';

/*
 * The editor's workspace folders and `agentContext.*` settings as the core wants them: every
 * feature reads them here, so the `file:` folder filter and each setting's reading live once.
 */

/**
 * The scope of a setting read for no folder in particular: VS Code's "any resource" (null). Left
 * undefined, every read of a resource-scoped setting (agentContext.scratch.*, secrets.gitleaksConfig,
 * files.exclude) logged a warning in the extension's log, several per view refresh.
 */
const ANY_FOLDER = null;

/** The open workspace folders on disk, in workspace order (remote and virtual folders are not ours to touch). */
export function diskFolders(): vscode.WorkspaceFolder[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
}

/** The open workspace folders on disk, as the core takes them. */
export function workspaceFolders(): WorkspaceFolderRef[] {
  return diskFolders().map((f) => ({ name: f.name, path: f.uri.fsPath }));
}

/** The tool settings from `agentContext.*`, and the user's own agent-terminal rules. */
export function toolConfig(): ToolConfig {
  const c = vscode.workspace.getConfiguration('agentContext', ANY_FOLDER);
  // User settings only, as VS Code's agent itself reads them: a workspace may not widen what runs unasked.
  const rules = vscode.workspace.getConfiguration('chat.tools.terminal').inspect<Record<string, unknown>>('autoApprove')?.globalValue;
  return { ...toolConfigFrom((k) => c.get(k)), ...(rules && typeof rules === 'object' ? { terminalAutoApprove: rules } : {}) };
}

/** The user's secret-masking settings (agentContext.terminals.secretPatterns, agentContext.secrets.gitleaksConfig). */
export function secretSettings(): SecretSettings {
  const c = vscode.workspace.getConfiguration('agentContext', ANY_FOLDER);
  return secretSettingsFrom((k) => c.get(k));
}

/** The masker's rules of the user for these folders: their settings and each folder's `.gitleaks.toml` (built-in shapes always apply). */
export function secretRules(roots: string[]): UserPatterns | undefined {
  return userRulesFor({ roots, ...secretSettings() }).rules;
}

/** The scratch retention settings (agentContext.scratch.*), of a workspace folder when given (they are resource-scoped). */
export function retentionSettings(folder?: vscode.Uri): RetentionPolicy {
  const c = vscode.workspace.getConfiguration('agentContext', folder ?? ANY_FOLDER);
  return retentionFrom((k) => c.get(k));
}

/** One `agentContext.*` setting as the core reads it: the table's default and bounds (core/settingsTable.ts). */
export function setting<K extends SettingKey>(key: K, folder?: vscode.Uri): SettingValue<K> {
  return settingValue(key, vscode.workspace.getConfiguration('agentContext', folder ?? ANY_FOLDER).get(key));
}

/** The globs of `files.exclude` that are switched on. */
export function filesExclude(): string[] {
  const ex = vscode.workspace.getConfiguration('files', ANY_FOLDER).get<Record<string, unknown>>('exclude') ?? {};
  return Object.entries(ex).filter(([, v]) => v === true).map(([k]) => k);
}
