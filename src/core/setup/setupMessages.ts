/*
 * What "Set Up Agent…" and "Undo Agent Set-Up…" tell the user: a notification of one or two
 * sentences naming every file and setting changed (paths as the user knows them: from the
 * workspace folder, or ~/ for the home folder), and log lines with the full paths and the notes.
 */
import type { SetupOutcome } from './agents/configFiles';
import { isInside, toPosixRelative } from '../workspace/relativePaths';

/** An editor setting entry the editor changed (it adds only what is missing, takes out only what it added). */
export interface SettingDone {
  setting: string;
  key: string;
  /** true: added; false: taken out. */
  added: boolean;
}

export interface SetupMessageInput {
  undo: boolean;
  /** The agent's label ("Claude Code"), and how it is found (for "not found"). */
  label: string;
  binary: string;
  homeFolder: string;
  inEditor?: boolean;
  /** Whether the agent was found on this machine (binary on PATH or its folder in HOME). */
  found: boolean;
  /** The workspace folder: its name (in the message) and path. */
  folderName: string;
  root: string;
  home: string;
  outcome: SetupOutcome;
  settings: readonly SettingDone[];
  /** Why the agent will not use the set-up yet (a required setting is off), if so. */
  off: readonly string[];
  /** Parts set up along with the entry that failed (`<label>: <why>`): the rest was done. */
  failed?: readonly string[];
}

export interface SetupMessage {
  /** The notification: one or two sentences. */
  text: string;
  /** Shown as a warning: the set-up will not be used as things are. */
  warning: boolean;
  /** For the log: every file with its full path, every setting, every note. */
  log: string[];
}

/** A path as the user knows it: from the workspace folder, ~/ for the home folder, else whole. */
export function shownPath(file: string, root: string, home: string): string {
  if (isInside(root, file)) return toPosixRelative(root, file);
  if (home && isInside(home, file)) return `~/${toPosixRelative(home, file)}`;
  return file;
}

/** "a", "a and b", "a, b and c". */
export function listWords(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** The notification and log lines of a set-up or an undo. */
export function describeSetup(i: SetupMessageInput): SetupMessage {
  const o = i.outcome;
  const show = (f: string) => shownPath(f, i.root, i.home);
  const created = o.created ?? [];
  const deleted = o.deleted ?? [];
  const edited = o.changed.filter((f) => !created.includes(f) && !deleted.includes(f));
  const folders = (o.removedFolders ?? []).map((d) => `${show(d)}/`);
  const parts: string[] = [];
  if (created.length) parts.push(`created ${listWords(created.map(show))}`);
  if (deleted.length) parts.push(`removed ${listWords(deleted.map(show))}`);
  if (edited.length) parts.push(`changed ${listWords(edited.map(show))}`);
  if (folders.length) parts.push(`removed the empty ${folders.length === 1 ? 'folder' : 'folders'} ${listWords(folders)}`);
  for (const s of i.settings) parts.push(s.added ? `added ${s.key} to your user setting ${s.setting}` : `removed ${s.key} from your user setting ${s.setting}`);
  const what = parts.join('; ');

  const log = [`${i.undo ? 'Undo Agent Set-Up' : 'Set Up Agent'}: ${i.label} in ${i.root}${!i.undo && !i.found ? ` (not found on this machine: no ${i.binary} on PATH, no ~/${i.homeFolder})` : ''}`];
  for (const f of created) log.push(`  created ${f}`);
  for (const f of deleted) log.push(`  removed ${f}`);
  for (const f of edited) log.push(`  changed ${f}`);
  for (const d of o.removedFolders ?? []) log.push(`  removed the empty folder ${d}`);
  for (const f of o.unchanged) log.push(`  unchanged ${f}`);
  for (const s of i.settings) log.push(`  user setting ${s.setting}: ${s.added ? 'added' : 'removed'} "${s.key}"`);
  for (const w of i.off) log.push(`  not used yet: ${w}`);
  for (const f of i.failed ?? []) log.push(`  not done: ${f}`);
  for (const n of o.notes) log.push(`  note: ${n}`);

  let text: string;
  if (i.undo) {
    text = parts.length === 0 ? `${i.label} was not set up in ${i.folderName}; nothing was changed.` : `Undid the set-up of ${i.label} in ${i.folderName}: ${what}.`;
  } else if (parts.length === 0) {
    text = `${i.label} was already set up in ${i.folderName}; nothing was changed.`;
  } else if (!i.found) {
    text = `${i.label} was not found on this machine (no ${i.binary} on PATH, no ~/${i.homeFolder}), so its set-up for ${i.folderName} was written anyway: ${what}. It takes effect once ${i.label} is installed.`;
  } else {
    text = `Set up ${i.label} in ${i.folderName}: ${what}.${i.inEditor ? '' : ` Restart ${i.label} to pick it up.`}`;
  }
  if (!i.undo && i.off.length) text += ` It will not be used yet: ${listWords(i.off)}.`;
  if (i.failed?.length) text += ` Not ${i.undo ? 'undone' : 'done'} for ${listWords(i.failed.map((f) => f.split(':')[0]))} (see the log).`;
  return { text, warning: (!i.undo && i.off.length > 0) || !!i.failed?.length, log };
}
