import * as vscode from 'vscode';
import type { TrashOptions } from '../core/fs/trash';

/**
 * The trash as the editor moves files there: the core's own (freedesktop on Linux, ~/.Trash on
 * macOS) and, where the core writes none (Windows' recycle bin), VS Code's `useTrash`
 * (core/fs/trash.ts `hostTrash`).
 */
export const EDITOR_TRASH: TrashOptions = {
  hostTrash: (abs) =>
    Promise.resolve(vscode.workspace.fs.delete(vscode.Uri.file(abs), { recursive: true, useTrash: true })).then(
      () => true,
      () => false,
    ),
};
