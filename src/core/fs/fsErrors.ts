/**
 * What a failed file operation means for the user, in one place: every tool, the capture and the
 * hook say "disk full" (not a bare ENOSPC) and name the file, so an agent can act on the answer.
 */

/** The errno code of an error from `fs`, or undefined. */
export function errnoOf(e: unknown): string | undefined {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** No space left (ENOSPC) or the user's quota is used up (EDQUOT): the same remedy. */
export function isDiskFull(e: unknown): boolean {
  const c = errnoOf(e);
  return c === 'ENOSPC' || c === 'EDQUOT';
}

/** The cause and what to do, without the file: `disk full (ENOSPC): free some space and try again`. */
export function fsCause(e: unknown): string {
  const c = errnoOf(e);
  switch (c) {
    case 'ENOSPC':
      return 'disk full (ENOSPC): free some space and try again';
    case 'EDQUOT':
      return 'disk full: disk quota exceeded (EDQUOT): free some space and try again';
    case 'EROFS':
      return 'read-only file system (EROFS): the folder is mounted read-only';
    case 'EACCES':
    case 'EPERM':
      return `permission denied (${c}): check the permissions of the file and its folder`;
    case 'EFBIG':
      return 'file too large (EFBIG): a file-size limit of this process or file system was reached';
    case 'ENOTDIR':
      return 'a path component is not a folder (ENOTDIR)';
    case 'EISDIR':
      return 'it is a folder, not a file (EISDIR)';
    case 'EIO':
      return 'input/output error (EIO): the disk or file system reported a fault';
    default:
      return (e as Error | undefined)?.message ?? String(e);
  }
}

/**
 * One sentence for a failed write or read of `file` (the path as the user should see it):
 * `disk full (ENOSPC) writing .agent/scratch/x.txt: free some space and try again`.
 */
export function describeFsError(e: unknown, file: string, doing: 'writing' | 'reading' | 'creating' = 'writing'): string {
  const cause = fsCause(e);
  const m = /^(.*?\))(?:: (.*))?$/.exec(cause);
  if (!errnoOf(e) || !m) return `${doing} ${file} failed: ${cause}`;
  return `${m[1]} ${doing} ${file}${m[2] ? `: ${m[2]}` : ''}`;
}

/** Adds the file to an error that lacks it (a write on an open file has no path), so callers can name it. */
export function withPath<E>(e: E, file: string): E {
  const x = e as NodeJS.ErrnoException;
  if (x && typeof x === 'object' && !x.path) x.path = file;
  return e;
}
