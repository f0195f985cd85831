import * as vscode from 'vscode';
import { notify } from '../../editor/notify';
import { diskFolders } from '../../editor/settings';
import * as os from 'node:os';
import * as path from 'node:path';
import { addNote, type Note, type NoteTarget } from '../../core/notes/noteFile';
import { listNotes, recheckNotes } from '../../core/notes/notes';
import { noteTargetText } from '../../core/notes/noteText';
import { readTerminalIndexTail } from '../../core/terminal/terminalIndex';
import { agentDirOf } from '../../core/workspace/agentLayout';
import { registerNoteDecorations, type NoteDecorationProvider } from './noteDecorations';
import type { AgentFeed } from '../../editor/agentFeed';
import { WALKTHROUGH_SIGNAL_COMMAND } from '../../core/setup/walkthroughSignals';
import { pickNoteTarget } from './noteTargets';
import { toPosixRelative } from '../../core/workspace/relativePaths';

/** A target in editor terms: the file and, optionally, what within it. */
interface UiTarget extends Omit<NoteTarget, 'path'> {
  uri: vscode.Uri;
  label?: string; // how the input box names the target
}

/** Arguments a test or another command can pass to add a note without any prompt. */
export interface AddNoteArgs extends Partial<NoteTarget> {
  text: string;
  author?: string;
  folder?: vscode.Uri; // workspace folder when `path` is relative; default: the first folder
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) ? v : undefined;
}

function asUri(v: unknown): vscode.Uri | undefined {
  if (v instanceof vscode.Uri) return v;
  if (typeof v === 'string' && path.isAbsolute(v)) return vscode.Uri.file(v);
  return undefined;
}

/**
 * Reads a tree element of the Plan, Scratch or Terminals view (their node shapes: planView.ts
 * `{ kind: 'step' }`, scratchView.ts `{ kind: 'file' }`, terminalsView.ts `{ kind: 'command' | 'terminal' }`),
 * or a Uri, into a note target.
 */
export function targetFromElement(el: unknown): UiTarget | undefined {
  if (el instanceof vscode.Uri) return { uri: el };
  if (!el || typeof el !== 'object') return undefined;
  const o = el as Record<string, unknown>;
  const obj = (v: unknown) => (v && typeof v === 'object' ? (v as Record<string, unknown>) : undefined);
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  switch (o.kind) {
    case 'command': {
      // Terminals view: a command of terminal N; its block spans headerLine..lastLine of cmd.file.
      const cmd = obj(o.cmd);
      const info = obj(o.info);
      const agentDir = str(o.agentDir);
      const n = num(info?.n);
      const index = num(cmd?.command);
      const file = str(cmd?.file);
      if (!cmd || !agentDir || n === undefined || index === undefined || !file) return undefined;
      const start = num(cmd.headerLine) ?? num(cmd.firstLine) ?? 1;
      const end = num(cmd.lastLine) ?? start;
      return {
        uri: vscode.Uri.file(path.join(agentDir, file)),
        terminal: n,
        command: index,
        startLine: start,
        endLine: Math.max(start, end),
        label: `command ${index} of terminal ${n} (${str(cmd.commandLine) ?? ''})`,
      };
    }
    case 'terminal': {
      const info = obj(o.info);
      const agentDir = str(o.agentDir);
      const file = str(info?.file);
      if (!agentDir || !file) return undefined;
      return { uri: vscode.Uri.file(path.join(agentDir, file)), label: `terminal ${String(info?.n)}` };
    }
    case 'step': {
      // Plan view: the note follows the step id; the line is where the step is now.
      const step = obj(o.step);
      const file = str(o.file);
      if (!step || !file || (typeof step.id !== 'string' && typeof step.id !== 'number')) return undefined;
      const line = num(step.line);
      return { uri: vscode.Uri.file(file), step: String(step.id), ...(line ? { startLine: line, endLine: line } : {}), label: `plan step ${String(step.id)}` };
    }
    case 'file': {
      const entry = obj(o.entry);
      const p = str(entry?.path);
      return p ? { uri: vscode.Uri.file(p) } : undefined;
    }
    default: {
      const uri = asUri(o.resourceUri) ?? asUri(o.uri);
      return uri ? { uri } : undefined;
    }
  }
}

function editorTarget(uri?: vscode.Uri): UiTarget | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!editor || (uri && editor.document.uri.toString() !== uri.toString())) return uri ? { uri } : undefined;
  const sel = editor.selection;
  if (sel.isEmpty) return { uri: editor.document.uri };
  // A selection ending at column 0 of a line does not include that line.
  const endLine = sel.end.character === 0 && sel.end.line > sel.start.line ? sel.end.line : sel.end.line + 1;
  return { uri: editor.document.uri, startLine: sel.start.line + 1, endLine };
}

function describe(t: UiTarget, rel: string): string {
  if (t.label) return t.label;
  return t.startLine !== undefined ? `${rel}:${t.startLine}${t.endLine !== t.startLine ? `-${t.endLine}` : ''}` : rel;
}

async function add(provider: NoteDecorationProvider, log: vscode.LogOutputChannel, arg: unknown): Promise<Note | undefined> {
  let target: UiTarget | undefined;
  let text: string | undefined;
  let author = os.userInfo().username || 'user';
  if (arg && typeof arg === 'object' && typeof (arg as AddNoteArgs).text === 'string') {
    const a = arg as AddNoteArgs;
    const folder = a.folder ?? vscode.workspace.workspaceFolders?.[0]?.uri;
    if (!a.path || !folder) throw new Error('agentContext.notes.add: `path` (and an open folder) are required with `text`');
    target = { ...a, uri: path.isAbsolute(a.path) ? vscode.Uri.file(a.path) : vscode.Uri.joinPath(folder, a.path) };
    text = a.text;
    author = a.author ?? author;
  } else {
    target = arg === undefined || arg instanceof vscode.Uri ? editorTarget(arg) : targetFromElement(arg);
  }
  /** The target picker, still open: the note box takes its place (see pickNoteTarget). */
  let picker: vscode.Disposable | undefined;
  if (!target && arg === undefined) {
    // From the palette or the walkthrough, with no editor: ask which item the note is about.
    const picked = await pickNoteTarget(diskFolders());
    if (picked === undefined) return undefined;
    if (picked === 'none') {
      void notify.info('Agent Context: there is nothing to add a note to yet. Notes attach to a plan step, a scratch file, a terminal command or lines in an editor: create one of those first.');
      return undefined;
    }
    picker = picked.picker;
    target = targetFromElement(picked.element);
  }
  try {
    return await addTo(provider, log, target, text, author, picker);
  } finally {
    picker?.dispose();
  }
}

/** Asks for the note's text (unless given) and saves it on the target. */
async function addTo(provider: NoteDecorationProvider, log: vscode.LogOutputChannel, target: UiTarget | undefined, text: string | undefined, author: string, picker: vscode.Disposable | undefined): Promise<Note | undefined> {
  if (!target) {
    void notify.error('Agent Context: select a plan step, scratch file, terminal command or lines in an editor, then add the note.');
    return undefined;
  }
  const folder = vscode.workspace.getWorkspaceFolder(target.uri);
  if (!folder) {
    void notify.error(`Agent Context: ${target.uri.fsPath} is not inside an open workspace folder; notes live in a folder's .agent/.`);
    return undefined;
  }
  const rel = toPosixRelative(folder.uri.fsPath, target.uri.fsPath);
  if (text === undefined) {
    text = await askNoteText(`Note for the agent on ${describe(target, rel)}`);
    picker?.dispose();
    if (text === undefined) return undefined;
  }
  const { uri: _uri, label: _label, ...where } = target;
  const r = await addNote(folder.uri.fsPath, { ...where, path: rel, text, author });
  if (!r.ok) {
    void notify.error(`Agent Context: the note was not saved: ${r.error}`);
    return undefined;
  }
  log.info(`note ${r.value.file} added on ${describe(target, rel)}`);
  // The new file alone is read (the change feed will name it too, a moment later).
  recheckNotes(folder.uri.fsPath, [path.join(folder.uri.fsPath, r.value.file)]);
  await provider.refresh();
  return r.value;
}

/**
 * The note's text, in an input box shown in place of the target picker when there is one (the
 * keyboard stays in the quick input: see pickNoteTarget). Undefined when cancelled.
 */
function askNoteText(title: string): Promise<string | undefined> {
  const box = vscode.window.createInputBox();
  box.title = title;
  box.prompt = 'Agents see this note whenever a tool shows them this item, and in the briefing.';
  box.placeholder = 'e.g. this failure is a flaky network, ignore it';
  box.ignoreFocusOut = true; // a half-written note survives a click elsewhere
  return new Promise<string | undefined>((resolve) => {
    box.onDidChangeValue((v) => (box.validationMessage = v.trim() === '' && box.validationMessage ? 'Write what the agent should know.' : undefined));
    box.onDidAccept(() => {
      if (box.value.trim() === '') {
        box.validationMessage = 'Write what the agent should know.';
        return;
      }
      resolve(box.value);
      box.hide();
    });
    box.onDidHide(() => {
      resolve(undefined);
      box.dispose();
    });
    box.show();
  });
}

/** A terminal command note's command line (` \`make\``), read from that one command's index record; '' for other notes. */
async function commandLineOf(root: string, n: Note): Promise<string> {
  if (n.terminal === undefined || n.command === undefined) return '';
  const tail = await readTerminalIndexTail(agentDirOf(root), n.terminal, { count: 1, before: n.command + 1 });
  const line = tail.ok ? tail.value.commands.find((c) => c.command === n.command)?.commandLine : undefined;
  if (!line) return '';
  const one = line.replace(/\s+/g, ' ').trim();
  return ` \`${one.length > 60 ? `${one.slice(0, 59)}…` : one}\``;
}

/** Registers the note decorations and the commands "Add Note for the Agent…" and "Show Notes for the Agent". */
export function registerNotes(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, feed: AgentFeed): void {
  const provider = registerNoteDecorations(context, log, feed);
  context.subscriptions.push(
    vscode.commands.registerCommand('agentContext.notes.add', async (arg?: unknown) => {
      try {
        const note = await add(provider, log, arg);
        // The walkthrough's "Leave a note" step: complete it at once (only when a note was saved);
        // the change feed still covers notes written by other processes.
        if (note) void vscode.commands.executeCommand(WALKTHROUGH_SIGNAL_COMMAND, 'noted');
        return note;
      } catch (e) {
        log.error(`adding a note failed: ${String(e)}`);
        void notify.error(`Agent Context: the note was not saved: ${(e as Error).message}`);
        return undefined;
      }
    }),
    vscode.commands.registerCommand('agentContext.notes.show', async () => {
      const items: (vscode.QuickPickItem & { uri: vscode.Uri })[] = [];
      for (const folder of vscode.workspace.workspaceFolders ?? []) {
        const { notes } = await listNotes(folder.uri.fsPath);
        for (const n of notes) {
          items.push({
            label: n.text.split('\n')[0].slice(0, 80),
            // What the note is on, as the agent reads it ("terminal 2 command 4 `make`", "step "5" of …"), not a file:line.
            description: `on ${noteTargetText(n)}${await commandLineOf(folder.uri.fsPath, n)}${n.orphaned ? ' (orphaned)' : ''}`,
            detail: `${n.author}, ${n.created.slice(0, 16).replace('T', ' ')} UTC`,
            uri: vscode.Uri.joinPath(folder.uri, n.file),
          });
        }
      }
      if (items.length === 0) {
        void notify.info('Agent Context: no notes yet. Right-click a plan step, scratch file or terminal command to add one.');
        return;
      }
      const pick = await vscode.window.showQuickPick(items.reverse(), { placeHolder: 'Notes for the agent (newest first): pick one to open it' });
      if (pick) await vscode.window.showTextDocument(pick.uri);
    }),
  );
}
