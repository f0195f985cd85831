import * as vscode from 'vscode';
import { noticeDetail, noticeText } from '../core/output/text';

type Rest<T extends string> = [vscode.MessageOptions, ...T[]] | T[];

function show<T extends string>(fn: typeof vscode.window.showInformationMessage, text: string, rest: Rest<T>): Thenable<T | undefined> {
  const [first, ...more] = rest;
  if (first !== undefined && typeof first === 'object') {
    const opts: vscode.MessageOptions = { ...first, ...(first.detail !== undefined ? { detail: noticeDetail(first.detail) } : {}) };
    return fn(noticeText(text, { modal: first.modal }), opts, ...(more as T[])) as Thenable<T | undefined>;
  }
  return fn(noticeText(text), ...(rest as T[])) as Thenable<T | undefined>;
}

/**
 * Notifications through one door, so the rule of noticeText (plain text, one "Agent Context:"
 * prefix on toasts) holds everywhere. The arguments are those of vscode.window.show*Message.
 */
export const notify = {
  info: <T extends string>(text: string, ...rest: Rest<T>) => show<T>(vscode.window.showInformationMessage, text, rest),
  warn: <T extends string>(text: string, ...rest: Rest<T>) => show<T>(vscode.window.showWarningMessage, text, rest),
  error: <T extends string>(text: string, ...rest: Rest<T>) => show<T>(vscode.window.showErrorMessage, text, rest),
};
