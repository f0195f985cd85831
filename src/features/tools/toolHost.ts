import * as vscode from 'vscode';
import { filesExclude, retentionSettings, secretSettings, toolConfig, workspaceFolders } from '../../editor/settings';
import { findRipgrep } from '../../core/search/findRipgrep';
import type { ToolContext } from '../../core/tools/toolContext';

/** Builds the context a tool call runs with, from the editor's state (ripgrep looked up lazily, once). */
export function toolContext(log: vscode.LogOutputChannel, token: vscode.CancellationToken, extra: Partial<ToolContext> = {}): { ctx: ToolContext; dispose(): void } {
  const ac = new AbortController();
  if (token.isCancellationRequested) ac.abort();
  const sub = token.onCancellationRequested(() => ac.abort());
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
    retention: retentionSettings(),
    ...secretSettings(),
    ...extra,
  };
  return { ctx, dispose: () => sub.dispose() };
}
