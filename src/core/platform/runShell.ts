/**
 * The shell agentContext_run runs a command in, per platform (one module per platform concern;
 * the platform is injectable so every branch is unit-tested here, on Linux):
 * - Linux, macOS and the BSDs: `bash -c`, stderr merged into stdout by the shell (`exec 2>&1`, so the
 *   file keeps the arrival order), in its own process group (`detached`) so the whole tree can be
 *   ended (processTree.ts).
 * - Windows (not tested on Windows yet): Windows PowerShell, no profile, non-interactive; stdout and
 *   stderr come as two pipes (a PowerShell `2>&1` wraps native stderr in error records), and the
 *   tree is ended with taskkill (a Windows process has no group to signal). Not `detached`: that
 *   would open a console window.
 */

/** How to start the command. */
export interface ShellLaunch {
  /** The shell's name in messages ("could not start bash"). */
  name: string;
  file: string;
  args: string[];
  /** Its own process group (POSIX). */
  detached: boolean;
  /** Whether stderr reaches the same pipe as stdout by the shell itself; false: read both pipes. */
  mergesStderr: boolean;
  windowsHide?: boolean;
}

/** The launch of `command` on `platform` (process.platform by default). */
export function runShell(command: string, platform: NodeJS.Platform = process.platform): ShellLaunch {
  if (platform === 'win32') {
    return { name: 'PowerShell', file: 'powershell.exe', args: ['-NoLogo', '-NoProfile', '-NonInteractive', '-Command', command], detached: false, mergesStderr: false, windowsHide: true };
  }
  // `exec 2>&1` merges stderr into the same pipe, so the file keeps the arrival order.
  return { name: 'bash', file: 'bash', args: ['-c', `exec 2>&1\n${command}`], detached: true, mergesStderr: true };
}
