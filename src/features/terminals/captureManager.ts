import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { agentDirOf, hasAgentFolder } from '../../core/workspace/agentLayout';
import { mkdirp } from '../../core/fs/fsAtomic';
import { maskSecrets, type UserPatterns } from '../../core/secrets';
import { userRulesFor } from '../../core/secrets/gitleaks';
import { diskFolders, secretSettings, setting } from '../../editor/settings';
import { TERMINALS_DIR } from '../../core/terminal/terminalFormat';
import { openTerminalCapture, type CommandCapture, type TerminalCapture } from '../../core/terminal/terminalCapture';
import { EXIT_UNKNOWN, resolveExit } from '../../core/terminal/commandExit';
import { isInside } from '../../core/workspace/relativePaths';
import { readWithoutMicrotaskRace } from './shellExecutionRead';
import { notify } from '../../editor/notify';
import { plural } from '../../core/output/humanize';

/** How long a new terminal may take to activate shell integration before its file says it has none. */
export const INTEGRATION_WAIT_MS = 10_000;
/** After an execution's data ends, how long to wait for its end event (exit code); also how long a new command waits for the previous one's end. */
const END_WAIT_MS = 3000;

interface Settings {
  capture: boolean;
  exclude: string[];
  maxFileBytes: number;
  patterns: UserPatterns | undefined;
}

/** What the Terminals view shows about a terminal of this window. */
export interface LiveState {
  agentDir: string;
  n: number;
  live: boolean;
  running: boolean;
}

interface Tracked {
  terminal: vscode.Terminal;
  openedAt: Date;
  capture?: TerminalCapture;
  creating?: Promise<TerminalCapture | undefined>;
  agentDir?: string;
  integrationNoted: boolean;
  waitTimer?: NodeJS.Timeout;
  running: number;
  /** Commands being recorded, oldest first (normally at most one). */
  executions: Execution[];
}

/** One execution being recorded: `stop` cuts it short with a reason, `done` resolves once its record is ended. */
interface Execution {
  stop(reason: string): void;
  done: Promise<void>;
}

const delay = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** After a stop, how long `until` still takes data that is already on its way. */
const STOP_GRACE_MS = 100;

/**
 * Iterates `stream` until it ends, or until STOP_GRACE_MS after `stopped` resolves. VS Code never ends the data stream (nor sends the end event) of a command whose
 * terminal is closed while it runs (checked in 1.139; terminalExitCodes.test.ts fails if it starts
 * to): without this the loop, and the command's record, would wait forever. The grace keeps the
 * data VS Code flushed just before the close event, which is still queued in the stream.
 */
async function* until<T>(stream: AsyncIterable<T>, stopped: Promise<void>): AsyncGenerator<T> {
  const it = stream[Symbol.asyncIterator]();
  const stop = stopped.then(() => delay(STOP_GRACE_MS)).then(() => undefined);
  for (;;) {
    const r = await Promise.race([it.next(), stop]);
    if (!r || r.done) {
      if (!r) void it.return?.();
      return;
    }
    yield r.value;
  }
}

/**
 * Mirrors this window's terminals into `.agent/terminals/` through the editor-free capture core.
 * Only the stable shell-integration API is used: `execution.read()` is called synchronously in
 * the start event (it only yields data written after the call), the end event gives the exit code.
 */
export class CaptureManager implements vscode.Disposable {
  private readonly tracked = new Map<vscode.Terminal, Tracked>();
  private readonly subs: vscode.Disposable[] = [];
  private readonly emitter = new vscode.EventEmitter<void>();
  /** Fires when a terminal's file, command or live state changes. */
  readonly onDidChange = this.emitter.event;
  private settings: Settings;
  private readonly ends = new WeakMap<vscode.TerminalShellExecution, (code: number | undefined) => void>();
  private lastRuleWarning = '';
  /** Terminal files whose capture is paused because the disk is full (one warning while any is). */
  private readonly diskFull = new Set<string>();
  private diskFullWarnedAt = 0;

  constructor(private readonly log: vscode.LogOutputChannel) {
    this.settings = this.readSettings();
    const w = vscode.window;
    this.subs.push(
      w.onDidOpenTerminal((t) => this.track(t)),
      w.onDidCloseTerminal((t) => void this.finish(t, 'terminal closed')),
      w.onDidChangeTerminalShellIntegration((e) => this.integrationActive(e.terminal)),
      w.onDidStartTerminalShellExecution((e) => this.started(e)),
      w.onDidEndTerminalShellExecution((e) => this.ends.get(e.execution)?.(e.exitCode)),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.attachAll()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('agentContext.terminals') || e.affectsConfiguration('agentContext.secrets')) this.configChanged();
      }),
    );
    // A workspace .gitleaks.toml adds masking rules: follow its edits.
    const gl = vscode.workspace.createFileSystemWatcher('**/.gitleaks.toml');
    this.subs.push(gl, gl.onDidCreate(() => this.configChanged()), gl.onDidChange(() => this.configChanged()), gl.onDidDelete(() => this.configChanged()));
    this.attachAll();
  }

  /** Live state per captured terminal of this window, for the view. */
  liveStates(): LiveState[] {
    const out: LiveState[] = [];
    for (const t of this.tracked.values()) {
      if (t.capture && t.agentDir) out.push({ agentDir: t.agentDir, n: t.capture.n, live: true, running: t.running > 0 });
    }
    return out;
  }

  /** Files of terminals open in this window: cleanup must never remove them. */
  protectedPaths(): string[] {
    const out: string[] = [];
    for (const t of this.tracked.values()) {
      const w = t.capture?.writer;
      if (w) out.push(w.file, w.indexFile, path.join(w.dir, `${w.n}.1.txt`));
    }
    return out;
  }

  /** The capture of a terminal once its file exists (tests and commands). */
  async captureOf(terminal: vscode.Terminal): Promise<TerminalCapture | undefined> {
    const t = this.tracked.get(terminal);
    return t ? (t.capture ?? (await t.creating)) : undefined;
  }

  private enabled(): boolean {
    return vscode.workspace.isTrusted && this.settings.capture;
  }

  private readSettings(): Settings {
    const roots = diskFolders().map((f) => f.uri.fsPath);
    const { rules: patterns, errors } = userRulesFor({ roots, ...secretSettings() });
    const warning = errors.join('\n');
    if (errors.length > 0 && warning !== this.lastRuleWarning) {
      for (const e of errors) this.log.warn(`secret masking: ${e}`);
      void notify.warn(`${plural(errors.length, 'secret masking rule')} ${errors.length === 1 ? 'was' : 'were'} ignored (the others apply): ${errors[0]}`);
    }
    this.lastRuleWarning = warning;
    return {
      capture: setting('terminals.capture'),
      exclude: setting('terminals.exclude'),
      maxFileBytes: setting('terminals.maxFileMB') * 1024 * 1024,
      patterns,
    };
  }

  private configChanged(): void {
    const was = this.settings.capture;
    this.settings = this.readSettings();
    for (const t of this.tracked.values()) t.capture?.setUserPatterns(this.settings.patterns);
    if (was && !this.settings.capture) for (const t of [...this.tracked.keys()]) void this.finish(t, 'capture turned off in settings');
    else if (!was && this.settings.capture) this.attachAll();
  }

  private attachAll(): void {
    if (!this.enabled()) return;
    for (const t of vscode.window.terminals) this.track(t);
  }

  private excluded(t: vscode.Terminal): boolean {
    // Extension terminals (a Pseudoterminal) never have shell integration: their owner logs them.
    if ('pty' in t.creationOptions) return true;
    return this.settings.exclude.some((name) => name === t.name);
  }

  private track(terminal: vscode.Terminal): Tracked | undefined {
    if (!this.enabled() || this.excluded(terminal)) return undefined;
    let t = this.tracked.get(terminal);
    if (t) return t;
    t = { terminal, openedAt: new Date(), integrationNoted: false, running: 0, executions: [] };
    this.tracked.set(terminal, t);
    if (terminal.shellIntegration) void this.ensureCapture(t);
    else {
      const tt = t;
      t.waitTimer = setTimeout(() => void this.ensureCapture(tt), INTEGRATION_WAIT_MS);
    }
    return t;
  }

  private integrationActive(terminal: vscode.Terminal): void {
    const t = this.track(terminal);
    if (!t) return;
    if (t.capture && !t.integrationNoted) {
      // The file was created saying "not active"; record that it came on.
      t.integrationNoted = true;
      t.capture.note(`shell integration became active at ${new Date().toISOString()}`);
    }
    void this.ensureCapture(t);
  }

  /** Creates the terminal's N.txt once (in the `.agent/` of the folder it runs in). */
  private ensureCapture(t: Tracked): Promise<TerminalCapture | undefined> {
    if (t.capture) return Promise.resolve(t.capture);
    if (t.creating) return t.creating;
    if (t.waitTimer) clearTimeout(t.waitTimer);
    t.creating = this.create(t).then(
      (cap) => {
        t.capture = cap;
        if (cap && t.terminal.shellIntegration) t.integrationNoted = true;
        this.emitter.fire();
        return cap;
      },
      (e: unknown) => {
        this.log.error(`Terminal capture for "${t.terminal.name}" could not create its file: ${(e as Error).message}`);
        return undefined;
      },
    );
    return t.creating;
  }

  private async create(t: Tracked): Promise<TerminalCapture | undefined> {
    const cwd = this.cwdOf(t.terminal);
    const root = await this.rootFor(cwd);
    if (!root || !this.tracked.has(t.terminal)) return undefined;
    const agentDir = agentDirOf(root);
    const dir = path.join(agentDir, TERMINALS_DIR);
    if (!(await this.safeDir(root, dir))) return undefined;
    t.agentDir = agentDir;
    const opts = t.terminal.creationOptions as vscode.TerminalOptions;
    const cap = await openTerminalCapture(
      dir,
      {
        name: t.terminal.name,
        shell: opts.shellPath ?? vscode.env.shell,
        cwd,
        started: t.openedAt,
        shellIntegration: t.terminal.shellIntegration !== undefined,
      },
      { maxFileBytes: this.settings.maxFileBytes, userPatterns: this.settings.patterns, logger: this.log, onDiskFull: (e) => this.diskFullChanged(e) },
    );
    this.log.info(`Capturing terminal "${t.terminal.name}" into ${cap.writer.file}`);
    return cap;
  }

  /** One warning when the disk fills up, however many terminals and chunks meet it; a log line when capture resumes. */
  private diskFullChanged(e: { file: string; resumed: boolean; lostLines: number }): void {
    const wasFull = this.diskFull.size > 0;
    if (e.resumed) this.diskFull.delete(e.file);
    else this.diskFull.add(e.file);
    // One warning per full disk, not per chunk, terminal or brief recovery (at most one in 10 minutes).
    if (!wasFull && this.diskFull.size > 0 && Date.now() - this.diskFullWarnedAt > 600_000) {
      this.diskFullWarnedAt = Date.now();
      void notify.warn(`the disk is full, so terminal output is not being saved (${path.dirname(e.file)}). Capture resumes by itself when space is freed, and marks the gap with "[capture paused: disk full]".`);
    }
    if (wasFull && this.diskFull.size === 0) this.log.info('Terminal capture resumed: disk space is available again.');
  }

  private cwdOf(terminal: vscode.Terminal): string | undefined {
    const si = terminal.shellIntegration?.cwd;
    if (si?.scheme === 'file') return si.fsPath;
    const c = (terminal.creationOptions as vscode.TerminalOptions).cwd;
    if (typeof c === 'string') return c;
    if (c?.scheme === 'file') return c.fsPath;
    return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  }

  /** The workspace folder with `.agent/` that contains cwd, else the first folder that has one. */
  private async rootFor(cwd: string | undefined): Promise<string | undefined> {
    const roots = diskFolders().map((f) => f.uri.fsPath);
    const owner = cwd ? roots.filter((r) => r === cwd || isInside(r, cwd)).sort((a, b) => b.length - a.length)[0] : undefined;
    if (owner && (await hasAgentFolder(owner))) return owner;
    for (const r of roots) if (await hasAgentFolder(r)) return r;
    return undefined;
  }

  /** The terminals folder must stay inside the workspace folder (no symlink out of it). */
  private async safeDir(root: string, dir: string): Promise<boolean> {
    try {
      await mkdirp(dir);
      const [realRoot, realDir] = await Promise.all([fs.promises.realpath(root), fs.promises.realpath(dir)]);
      if (isInside(realRoot, realDir)) return true;
      this.log.warn(`Terminal capture is off for ${root}: ${dir} resolves to ${realDir}, outside the workspace folder. Make .agent/terminals a plain folder.`);
    } catch (e) {
      this.log.warn(`Terminal capture is off for ${root}: cannot create ${dir}: ${(e as Error).message}`);
    }
    return false;
  }

  private started(e: vscode.TerminalShellExecutionStartEvent): void {
    if (!this.enabled()) return;
    const t = this.track(e.terminal);
    if (!t) return;
    // read() only yields data written after its first call: call it now, consume it later.
    const stream = readWithoutMicrotaskRace(e.execution);
    const startedAt = new Date();
    let endEvent: { exitCode: number | undefined } | undefined;
    let endedAt: Date | undefined;
    let resolveEnd!: () => void;
    const ended = new Promise<void>((r) => (resolveEnd = r));
    this.ends.set(e.execution, (code) => {
      endEvent = { exitCode: code };
      endedAt = new Date();
      resolveEnd();
    });
    let cutShort: string | undefined;
    let resolveStop!: () => void;
    const stopped = new Promise<void>((r) => (resolveStop = r));
    let resolveDone!: () => void;
    const me: Execution = {
      stop: (reason) => {
        cutShort ??= reason;
        resolveStop();
      },
      done: new Promise<void>((r) => (resolveDone = r)),
    };
    const previous = t.executions[t.executions.length - 1];
    t.executions.push(me);
    t.running++;
    void (async () => {
      let cmd: CommandCapture | undefined;
      try {
        // Records stay in order: the previous command's end normally reached us before this start
        // (two lines typed fast), its record just has not been closed yet. Give it END_WAIT_MS, then
        // cut it short; this command's data waits in the stream meanwhile.
        if (previous && !(await Promise.race([previous.done.then(() => true), delay(END_WAIT_MS).then(() => false)]))) {
          previous.stop(EXIT_UNKNOWN.superseded);
          await previous.done;
        }
        const cap = await this.ensureCapture(t);
        if (cap && cutShort === undefined) {
          cmd = cap.beginCommand({ commandLine: e.execution.commandLine.value, cwd: e.execution.cwd?.fsPath ?? this.cwdOf(e.terminal), started: startedAt });
          this.emitter.fire();
        }
        const raw = process.env.AGENT_CONTEXT_DEBUG_TERMINAL_RAW === '1';
        for await (const data of until(stream, stopped)) {
          if (raw) this.log.info(`terminal raw (secrets masked) ${JSON.stringify(maskSecrets(data).text)}`);
          if (cmd && !cmd.write(data)) await cmd.drain();
        }
        if (!endEvent && cutShort === undefined) await Promise.race([ended, delay(END_WAIT_MS), stopped]);
        // The data never carries the status (read() stops before the shell's command-finished
        // sequence): the end event's exitCode is the only source. commandExit.ts says why it can be missing.
        const exit = resolveExit({ endEvent, cutShort });
        if (exit.exitCode === null) this.log.info(`Terminal "${e.terminal.name}": "${e.execution.commandLine.value}" recorded as exit ? (${exit.reason})`);
        // Every command's data starts with the OSC 633;C marker. Nothing at all means VS Code lost it:
        // in 1.139 an execution's data that reaches the extension host in the same batch as its start
        // event is dropped before read()'s iterator subscribes. Say so instead of recording "no output".
        cmd?.end(exit, endedAt ?? new Date(), cmd.missing);
      } catch (err) {
        this.log.error(`Terminal capture of "${e.execution.commandLine.value}" failed: ${(err as Error).message}`);
        cmd?.end({ exitCode: null, reason: EXIT_UNKNOWN.captureFailed });
      } finally {
        t.running--;
        t.executions.splice(t.executions.indexOf(me), 1);
        this.ends.delete(e.execution);
        resolveDone();
        this.emitter.fire();
      }
    })();
  }

  /**
   * Closing a terminal (or turning capture off, or the extension stopping) finalises its file: a
   * command still running is ended with the reason, so no record stays "running".
   */
  private async finish(terminal: vscode.Terminal, why: string): Promise<void> {
    const t = this.tracked.get(terminal);
    if (!t) return;
    this.tracked.delete(terminal);
    if (t.waitTimer) clearTimeout(t.waitTimer);
    const reason = why === 'terminal closed' ? EXIT_UNKNOWN.terminalClosed : EXIT_UNKNOWN.captureStopped(why);
    // Let each running command write what it already received and its closing line (with its exit
    // code if the end event did come), but do not wait on VS Code: it sends nothing more.
    const running = [...t.executions];
    for (const x of running) x.stop(reason);
    await Promise.race([Promise.all(running.map((x) => x.done)), delay(END_WAIT_MS)]);
    const cap = t.capture ?? (await t.creating);
    if (cap) {
      const at = new Date();
      cap.running?.end({ exitCode: null, reason }, at);
      if (why !== 'terminal closed') cap.note(why);
      await cap.close(at, reason);
      this.log.info(`Terminal "${terminal.name}" capture finalised (${why}): ${cap.writer.file}`);
    }
    this.emitter.fire();
  }

  /** Finalises every terminal's file and waits until it is on disk (extension deactivation). */
  async shutdown(why = 'window closed or extension stopped'): Promise<void> {
    await Promise.all([...this.tracked.keys()].map((t) => this.finish(t, why)));
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
    void this.shutdown();
    this.emitter.dispose();
  }
}
