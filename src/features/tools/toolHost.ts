import * as vscode from 'vscode';
import { retentionFrom, toolConfigFrom, type ToolConfig } from '../../core/config';
import { findRipgrep } from '../../core/search/findRipgrep';
import type { ToolContext } from '../../core/tools/toolContext';
import type { WorkspaceFolderRef } from '../../core/workspace/workspacePaths';

/** The open workspace folders on disk, as the core wants them. */
export function workspaceFolders(): WorkspaceFolderRef[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => ({ name: f.name, path: f.uri.fsPath }));
}

/** The tool settings from `agentContext.*`. */
export function toolConfig(): ToolConfig {
  const c = vscode.workspace.getConfiguration('agentContext');
  return toolConfigFrom((k) => c.get(k));
}

function filesExclude(): string[] {
  const ex = vscode.workspace.getConfiguration('files').get<Record<string, unknown>>('exclude') ?? {};
  return Object.entries(ex).filter(([, v]) => v === true).map(([k]) => k);
}

/** Builds the context a tool call runs with, from the editor's state (ripgrep looked up lazily, once). */
export function toolContext(log: vscode.LogOutputChannel, token: vscode.CancellationToken, extra: Partial<ToolContext> = {}): { ctx: ToolContext; dispose(): void } {
  const ac = new AbortController();
  if (token.isCancellationRequested) ac.abort();
  const sub = token.onCancellationRequested(() => ac.abort());
  const patterns = vscode.workspace.getConfiguration('agentContext').get<unknown>('terminals.secretPatterns');
  const ctx: ToolContext = {
    folders: workspaceFolders(),
    config: toolConfig(),
    signal: ac.signal,
    log,
    source: 'vscode',
    trusted: vscode.workspace.isTrusted,
    allowRun: true,
    ripgrep: findRipgrep(vscode.env.appRoot),
    filesExclude: filesExclude(),
    retention: retentionFrom((k) => vscode.workspace.getConfiguration('agentContext').get(k)),
    secretPatterns: Array.isArray(patterns) ? patterns.filter((p): p is string => typeof p === 'string') : undefined,
    gitleaksConfig: vscode.workspace.getConfiguration('agentContext').get<string>('secrets.gitleaksConfig') || undefined,
    ...extra,
  };
  return { ctx, dispose: () => sub.dispose() };
}
