/**
 * How a captured command's exit status is decided, and why it is unknown when it is.
 *
 * What VS Code 1.139 delivers (measured in the real editor with bash, test/integration/suites/
 * terminalExitCodes.test.ts): the end event's `exitCode` is the status from the shell's
 * command-finished sequence (OSC 633;D;<status>); `execution.read()` stops before that sequence, so
 * the data never carries the status itself. bash's shell-integration script only learns a command
 * line from its DEBUG trap, which does not fire for a line that starts with a subshell (`(exit 3)`,
 * `(cd sub && make)`): it then sends 633;D with no status, and the end event's exitCode is
 * undefined. Nothing else in the stable API carries the status, so such a command is recorded as
 * `exit ? (no status from the shell)`, never as a silent unknown.
 */

/** Why a command has no exit code. Each is written after `exit ?` in N.txt and as `exitUnknown` in the index. */
export const EXIT_UNKNOWN = {
  /** The end event came without a status: the shell sent its command-finished sequence without one. */
  noStatus: 'no status from the shell',
  /** The command's data ended but VS Code never sent the end event. */
  noEndEvent: 'no end event from VS Code',
  /** The terminal was closed (or its shell exited) while the command ran. */
  terminalClosed: 'terminal closed while it ran',
  /** The next command started and this one's end was still not reported. */
  superseded: 'next command started before its end was reported',
  /** Capture of the terminal stopped while it ran (settings, window closing, extension stopping). */
  captureStopped: (why: string) => `capture stopped while it ran: ${why}`,
  /** Capturing this command failed; the Agent Context log has the error. */
  captureFailed: 'capture failed (see the Agent Context log)',
  /** An agent's own command whose exit code its hook was not given (Copilot CLI's large outputs, a record cut short). */
  notReported: 'not reported by the agent',
  /** A caller ended the command without saying why (kept so the file never shows a bare `exit ?`). */
  unspecified: 'not reported',
} as const;

/** What the editor told us about a command's end. */
export interface ExitEvidence {
  /** The end event arrived, with the shell's status or undefined. Absent: no end event. */
  endEvent?: { exitCode: number | undefined };
  /** Set when the command was cut short before its end was reported (an EXIT_UNKNOWN reason). */
  cutShort?: string;
}

/** The recorded outcome: a code, or null with the reason it is unknown. */
export type RecordedExit = { exitCode: number; reason?: undefined } | { exitCode: null; reason: string };

/** Decides the recorded exit from the evidence: the shell's status when it reported one, else why not. */
export function resolveExit(e: ExitEvidence): RecordedExit {
  const code = e.endEvent?.exitCode;
  if (typeof code === 'number' && Number.isInteger(code)) return { exitCode: code };
  if (e.endEvent) return { exitCode: null, reason: EXIT_UNKNOWN.noStatus };
  return { exitCode: null, reason: e.cutShort ?? EXIT_UNKNOWN.noEndEvent };
}

/** Every way a command can stand, for views that give each its own icon (a Record over this type). */
export type ExitKind = 'running' | 'succeeded' | 'failed' | 'closedByExit' | 'terminalClosed' | 'captureStopped' | 'captureFailed' | 'noStatus';

/**
 * How a command stands: a command that closed its own terminal (`exit`, `logout`) ends with the
 * terminal, which is its success, not an unknown status.
 */
export function exitKind(c: { status: 'running' | 'done'; exitCode: number | null; exitUnknown: string | null; commandLine: string }): ExitKind {
  if (c.status === 'running') return 'running';
  if (c.exitCode === 0) return 'succeeded';
  if (c.exitCode !== null) return 'failed';
  const why = c.exitUnknown ?? '';
  if (why === EXIT_UNKNOWN.terminalClosed) return /^\s*(exit|logout)(\s+\d+)?\s*;?\s*$/.test(c.commandLine) ? 'closedByExit' : 'terminalClosed';
  if (why.startsWith(EXIT_UNKNOWN.captureStopped(''))) return 'captureStopped';
  if (why === EXIT_UNKNOWN.captureFailed) return 'captureFailed';
  return 'noStatus';
}

/** `exit 3`, or `exit ? (<reason>)`: the text used in N.txt's closing line and by the tools. */
export function formatExit(exitCode: number | null | undefined, reason?: string | null): string {
  if (exitCode !== null && exitCode !== undefined) return `exit ${exitCode}`;
  return reason ? `exit ? (${reason})` : 'exit ?';
}

/**
 * A hint for a command whose shell reported no status, or undefined. In bash that happens exactly
 * when the line starts with a subshell, and then the subshell's output was printed before the
 * command's start marker, so VS Code did not deliver it either.
 */
export function noStatusHint(shell: string | null | undefined): string | undefined {
  if (!shell || !/(^|[\\/])bash(\.exe)?$/.test(shell.trim())) return undefined;
  return 'bash reports no status, and VS Code delivers no output, for a line that starts with a subshell "( … )": run it as "true && ( … )" to capture both';
}

/**
 * A command line for display. VS Code reads the line of a command whose shell reported no status
 * from the screen, so it can be empty (or carry the subshell's output after a line break).
 */
export function shownCommandLine(commandLine: string): string {
  // Trimmed: VS Code's agent starts its commands with a space (kept out of the shell history).
  return commandLine.trim() === '' ? '(command line not reported by VS Code)' : commandLine.trim();
}
