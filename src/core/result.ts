/** A problem found in a file, with the 1-based line when it is known. */
export interface FileError {
  file: string;
  line?: number;
  message: string;
}

/** What crosses the core boundary instead of an exception: a value, or an error naming file and line. */
export type Result<T, E = FileError> = { ok: true; value: T } | { ok: false; error: E };

/** Wraps a value as a successful Result. */
export function ok<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

/** Wraps an error as a failed Result. */
export function err<E = FileError>(error: E): { ok: false; error: E } {
  return { ok: false, error };
}

/** Formats a FileError the way users read it: `file:line: message`. */
export function formatFileError(e: FileError): string {
  return e.line !== undefined ? `${e.file}:${e.line}: ${e.message}` : `${e.file}: ${e.message}`;
}
