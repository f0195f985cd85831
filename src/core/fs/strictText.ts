/**
 * Text of a file we may rewrite (a plan, preferences.yaml, features.json), read strictly: bytes that
 * are not UTF-8 fail the read instead of turning into U+FFFD, which the rewrite would then write back
 * over the user's own characters (a Latin-1 `é` in a hand-written memory value, say).
 */
import * as fs from 'node:fs';

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The message for a file that is not UTF-8 (the caller names the file). */
export const NOT_UTF8 = 'is not valid UTF-8 text; save it as UTF-8. Nothing was changed';

/** `bytes` as text, or undefined when they are not UTF-8. */
export function decodeUtf8Strict(bytes: Uint8Array): string | undefined {
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}

/** A file's text; throws what the read met, or an Error with NOT_UTF8 for bytes that are not UTF-8. */
export async function readUtf8Strict(file: string): Promise<string> {
  const text = decodeUtf8Strict(await fs.promises.readFile(file));
  if (text === undefined) throw new Error(NOT_UTF8);
  return text;
}
