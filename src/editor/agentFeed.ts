import * as path from 'node:path';
import * as vscode from 'vscode';
import { AGENT_DIR, agentDirOf, classifyAgentPath, hasAgentFolder, LAYOUT, type ChangeArea, type ChangeKind } from '../core/workspace/agentLayout';
import { AGENT_PLAN_FOLDERS, isPlanPath, PLAN_FOLDERS } from '../core/plan/planFiles';
import { debounce } from './debounce';
import { FolderWatch } from '../core/fs/folderWatch';
import { NOTES_DIR } from '../core/notes/noteFile';
import { isInside } from '../core/workspace/relativePaths';
import { diskFolders } from './settings';

/** A workspace folder that has an `.agent/` folder (not a sub-agent's folder, core/agents/, nor an agent CLI's). */
export interface AgentContextFolder {
  folder: vscode.WorkspaceFolder;
  /** The workspace folder's name (its group's label when the views group by folder). */
  name: string;
  root: string;
  agentDir: string;
}

export type { ChangeArea };

/** What changed in one such folder, as the feed publishes it. */
export interface FeedChange {
  root: string;
  areas: ReadonlySet<ChangeArea>;
  /**
   * The changed paths (absolute), so a view can update just those; undefined when unknown (a
   * command's refresh, a folder added) or too many (over MAX_PATHS in one batch). With `agent`
   * among the areas, views re-read everything whatever the paths.
   */
  paths?: ReadonlySet<string>;
}

/** More changed paths than this in one debounced batch: views re-read instead of updating path by path. */
export const MAX_PATHS = 500;

/** Context key: true while some workspace folder has `.agent/` (the welcome view shows otherwise). */
export const HAS_AGENT_FOLDER_KEY = 'agentContext.hasAgentFolder';

const DEBOUNCE_MS = 200;
// Every pattern starts at the folder root: a pattern such as `.claude/skills/**` missed events when
// `.claude/` was created after the watcher (its base did not exist yet). `*/skills/**` covers
// `.github/skills` and `.claude/skills`; classifyAgentPath drops any other `skills` folder.
const WATCH_GLOBS = [AGENT_DIR, `${AGENT_DIR}/**`, '*/skills/**', '.github', '.claude', ...AGENT_PLAN_FOLDERS.map((f) => `${f.dir}/*`)];
/**
 * Folders (relative to the workspace root) also watched by the extension itself, non-recursively
 * (core/fs/folderWatch.ts): VS Code's recursive watcher, which serves the patterns above, was seen to
 * stay blind to a folder deleted and re-created under it (delete `.agent/`, Initialize: the Scratch view
 * froze for the session) and skips what `files.watcherExclude` names. Direct entries only: files
 * deeper down rely on the recursive watcher, except in folders created under scratch/ and agents/
 * while the editor runs (DEEP_WATCH_FOLDERS). One inotify watch each; on Linux only.
 */
const DIRECT_WATCH_FOLDERS: readonly string[] = [
  AGENT_DIR,
  ...[LAYOUT.scratch, LAYOUT.toolOutputs, LAYOUT.terminals, LAYOUT.commandSpool, LAYOUT.memory, LAYOUT.agents, LAYOUT.human, LAYOUT.history, LAYOUT.skills, ...PLAN_FOLDERS].map((d) => `${AGENT_DIR}/${d}`),
  NOTES_DIR,
  ...AGENT_PLAN_FOLDERS.map((f) => f.dir),
];
/** Of those, the folders whose new subfolders are watched too (folderWatch.ts `deep`): scratch and the sub-agents' folders. */
const DEEP_WATCH_FOLDERS = [`${AGENT_DIR}/${LAYOUT.scratch}`, `${AGENT_DIR}/${LAYOUT.agents}`];

/** Classifies a changed path (see classifyAgentPath in the core). */
export function changeAreas(root: string, file: string, kind?: ChangeKind): ChangeArea[] {
  return classifyAgentPath(root, file, isPlanPath, kind);
}

/**
 * The one change feed of the sidebar: the workspace folders, which of them have `.agent/`, and one
 * set of FileSystemWatchers per folder (`.agent/**` and the skill folders) whose events are
 * classified by area (plan, scratch, skills, terminals, memory, agents, notes, history) and
 * published in one debounced batch. Every view, the note decorations, the status bar and the
 * walkthrough subscribe here instead of watching on their own; folders added or removed while the
 * editor runs get their watchers at once.
 */
export class AgentFeed implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<FeedChange[]>();
  /** Fires about 200 ms after the last file event, with every folder that changed. */
  readonly onDidChange = this.emitter.event;
  private present = new Map<string, AgentContextFolder>();
  private watchers: vscode.Disposable[] = [];
  private pending = new Map<string, Set<ChangeArea>>();
  /** Changed paths per root; null once unknown or too many for this batch. */
  private pendingPaths = new Map<string, Set<string> | null>();
  private readonly flushSoon = debounce(() => void this.flush(), DEBOUNCE_MS);
  private readonly subs: vscode.Disposable[] = [];
  /** Resolves once the first look at the workspace folders is done. */
  readonly ready: Promise<void>;

  constructor(private readonly log: vscode.LogOutputChannel) {
    this.subs.push(vscode.workspace.onDidChangeWorkspaceFolders(() => void this.rebuild()));
    this.ready = this.rebuild();
  }

  /** Folders with `.agent/`, in workspace order: what every view, command and decoration works on. */
  get folders(): AgentContextFolder[] {
    return diskFolders().map((f) => this.present.get(f.uri.fsPath)).filter((f): f is AgentContextFolder => f !== undefined);
  }

  /**
   * Whether views group by folder: when more than one folder has `.agent/` (one group alone would
   * only add a level). The one answer for Plan, Scratch, Skills, Memory, Agents, Terminals and the
   * commands that name a folder.
   */
  get grouped(): boolean {
    return this.folders.length > 1;
  }

  /**
   * The folders with `.agent/` as they are on disk now (a command must not act on a list a watcher
   * has yet to update: `.agent/` created a moment ago); a change found is published to the views.
   */
  async current(): Promise<AgentContextFolder[]> {
    await this.ready;
    let flipped = false;
    for (const f of diskFolders()) if (await this.check(f)) flipped = true;
    if (flipped) {
      await this.publish();
      this.emitter.fire(diskFolders().map((f) => ({ root: f.uri.fsPath, areas: new Set<ChangeArea>(['agent']) })));
    }
    return this.folders;
  }

  /** The folder with `.agent/` that holds a file, if any. */
  folderOf(file: string): AgentContextFolder | undefined {
    return this.folders.find((f) => isInside(f.root, file));
  }

  private async rebuild(): Promise<void> {
    for (const w of this.watchers) w.dispose();
    this.watchers = [];
    const roots = diskFolders();
    for (const folder of roots) {
      const on = (kind: ChangeKind) => (uri: vscode.Uri) => this.queue(folder.uri.fsPath, changeAreas(folder.uri.fsPath, uri.fsPath, kind), uri.fsPath);
      for (const glob of WATCH_GLOBS) {
        const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, glob));
        this.watchers.push(w, w.onDidCreate(on('created')), w.onDidChange(on('changed')), w.onDidDelete(on('deleted')));
      }
      const root = folder.uri.fsPath;
      // Linux only, where it was tested (and inotify watches hold no handle: on Windows a watched
      // folder's handle can keep its parent from being renamed).
      if (process.platform !== 'linux') continue;
      const direct = new FolderWatch(
        DIRECT_WATCH_FOLDERS.map((d) => path.join(root, d)),
        // A folder watched anew: what changed in it meanwhile is unknown, its views re-read it.
        (file, kind) => (kind === 'rewatched' ? this.queue(root, changeAreas(root, file, 'created')) : this.queue(root, changeAreas(root, file, kind), file)),
        { deep: DEEP_WATCH_FOLDERS.map((d) => path.join(root, d)), onError: (dir, e) => this.log.warn(`cannot watch ${dir}: ${e.message}`) },
      );
      this.watchers.push(direct);
    }
    this.present.clear();
    await Promise.all(roots.map((f) => this.check(f)));
    await this.publish();
    this.emitter.fire(roots.map((f) => ({ root: f.uri.fsPath, areas: new Set<ChangeArea>(['agent']) })));
  }

  private async check(folder: vscode.WorkspaceFolder): Promise<boolean> {
    const root = folder.uri.fsPath;
    const had = this.present.has(root);
    if (await hasAgentFolder(root)) this.present.set(root, { folder, name: folder.name, root, agentDir: agentDirOf(root) });
    else this.present.delete(root);
    return had !== this.present.has(root);
  }

  private async publish(): Promise<void> {
    await vscode.commands.executeCommand('setContext', HAS_AGENT_FOLDER_KEY, this.present.size > 0);
  }

  /** Queues a refresh of a folder (used by commands after they write, so views need not wait for the watcher). */
  queue(root: string, areas: readonly ChangeArea[], changedPath?: string): void {
    if (areas.length === 0) return;
    const set = this.pending.get(root) ?? new Set<ChangeArea>();
    for (const a of areas) set.add(a);
    this.pending.set(root, set);
    const paths = this.pendingPaths.has(root) ? this.pendingPaths.get(root)! : new Set<string>();
    if (paths && changedPath !== undefined && paths.size < MAX_PATHS) paths.add(changedPath);
    this.pendingPaths.set(root, paths && changedPath !== undefined && paths.size < MAX_PATHS ? paths : null);
    this.flushSoon();
  }

  private async flush(): Promise<void> {
    const batch = [...this.pending];
    const batchPaths = new Map(this.pendingPaths);
    this.pending.clear();
    this.pendingPaths.clear();
    let flipped = false;
    for (const [root, areas] of batch) {
      const folder = diskFolders().find((f) => f.uri.fsPath === root);
      if (!folder) continue;
      if (await this.check(folder)) {
        flipped = true;
        areas.add('agent');
        this.log.info(`${root}: .agent/ ${this.present.has(root) ? 'appeared' : 'is gone'}`);
      }
    }
    if (flipped) await this.publish();
    this.emitter.fire(batch.map(([root, areas]) => ({ root, areas, paths: batchPaths.get(root) ?? undefined })));
  }

  /** Calls `listener` with the batches that touch one of `areas` (or the whole `.agent/` folder). */
  on(areas: readonly ChangeArea[], listener: (changes: FeedChange[]) => void): vscode.Disposable {
    return this.onDidChange((changes) => {
      const mine = changes.filter((c) => c.areas.has('agent') || areas.some((a) => c.areas.has(a)));
      if (mine.length > 0) listener(mine);
    });
  }

  dispose(): void {
    this.flushSoon.dispose();
    for (const d of [...this.watchers, ...this.subs, this.emitter]) d.dispose();
  }
}

/** True when a change batch touches `area` (or the whole `.agent/` folder). */
export function touches(changes: readonly FeedChange[], area: ChangeArea): boolean {
  return changes.some((c) => c.areas.has(area) || c.areas.has('agent'));
}

