/**
 * Text of a file we may rewrite (a plan, preferences.yaml, features.json), read strictly: bytes that
 * are not UTF-8 fail the read instead of turning into U+FFFD, which the rewrite would then write back
 * over the user's own characters (a Latin-1 `é` in a hand-written memory value, say).
 */
import * as fs from 'node:fs';
import { err, ok, type Result } from '../result';
import { leadsOutside, outsideLinkMessage } from '../workspace/linkGuard';

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

/**
 * The text of a file of `.agent/` that a tool rewrites (preferences.yaml, features.json): undefined
 * when it does not exist; the reason, for the caller to put after the file's name, when it is a link
 * out of the workspace `root`, is not UTF-8, or cannot be read.
 */
export async function readOwnText(root: string, file: string): Promise<Result<string | undefined, string>> {
  const out = await leadsOutside(root, file);
  if (out) return err(outsideLinkMessage(out));
  try {
    return ok(await readUtf8Strict(file));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return ok(undefined);
    const m = (e as Error).message;
    return err(m === NOT_UTF8 ? m : `cannot read: ${m}`);
  }
}
