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

/** The file system or the folder does not take writes (EROFS, EACCES, EPERM). */
export function isNotWritable(e: unknown): boolean {
  const c = errnoOf(e);
  return c === 'EROFS' || c === 'EACCES' || c === 'EPERM';
}

/**
 * One sentence for a failed write or read of `file` (the path as the user should see it):
 * `disk full (ENOSPC) writing .agent/scratch/x.txt: free some space and try again`.
 */
export function describeFsError(e: unknown, file: string, doing: 'writing' | 'reading' | 'creating' = 'writing'): string {
  const c = errnoOf(e);
  switch (c) {
    case 'ENOSPC':
      return `disk full (ENOSPC) ${doing} ${file}: free some space and try again`;
    case 'EDQUOT':
      return `disk full: disk quota exceeded (EDQUOT) ${doing} ${file}: free some space and try again`;
    case 'EROFS':
      return `read-only file system (EROFS) ${doing} ${file}: the folder is mounted read-only`;
    case 'EACCES':
    case 'EPERM':
      return `permission denied (${c}) ${doing} ${file}: check the permissions of the file and its folder`;
    case 'EFBIG':
      return `file too large (EFBIG) ${doing} ${file}: a file-size limit of this process or file system was reached`;
    case 'ENOTDIR':
      return `a path component is not a folder (ENOTDIR) ${doing} ${file}`;
    case 'EISDIR':
      return `${file} is a folder, not a file (EISDIR)`;
    case 'EIO':
      return `input/output error (EIO) ${doing} ${file}: the disk or file system reported a fault`;
    default: {
      const m = (e as Error | undefined)?.message ?? String(e);
      return `${doing} ${file} failed: ${m}`;
    }
  }
}
