/**
 * The hooks' fast path, in one place: when an agent's shell output may reach the model as it is,
 * with no Node start (small, no keyword of the masking rules, no masking rules of the user's own),
 * where the workspace is, and where the shell side reads what `.agent/config.yaml` means for it.
 *
 * The shell side (bash and zsh) has these rules in src/hooks/fastPath.sh, which the build puts into
 * dist/agent-context-shell.sh and dist/agent-hook.sh (shellWithFastPath); opencode's plugin runs in
 * opencode's own process and uses the TypeScript below. test/unit/hooks/fastPath.test.ts runs all
 * three on the same cases.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SETTINGS } from '../settingsTable';
import { cacheFile } from '../workspace/cacheFiles';
import { agentDirOf, agentPath } from '../workspace/layout';
import { surelyFitsBytes } from '../output/inline';

/** Bytes a hook hands over without Node when `.agent/config.yaml` says nothing else. */
export const FAST_PATH_DEFAULT_BYTES = surelyFitsBytes(SETTINGS['offload.thresholdTokens'].default);

/** Where the shell side reads what config.yaml means for its fast path (stale once config.yaml is newer). */
export function fastPathFile(root: string): string {
  return cacheFile(agentDirOf(root), 'shellHook');
}

/** The workspace of a hook: the nearest folder at or above `dir` holding `.agent/` (undefined: none). */
export function agentRootOf(dir: string): string | undefined {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    if (fs.statSync(agentDirOf(d), { throwIfNoEntry: false })?.isDirectory()) return d;
    if (path.dirname(d) === d) return undefined;
  }
}

/** The fast path's settings for a workspace: the bytes a hook may hand over, and whether it may at all (false: the user has masking rules of their own). */
export function fastPathSettings(root: string): { small: number; fast: boolean } {
  if (fs.existsSync(path.join(root, '.gitleaks.toml'))) return { small: FAST_PATH_DEFAULT_BYTES, fast: false };
  const config = fs.statSync(agentPath(agentDirOf(root), 'config'), { throwIfNoEntry: false });
  if (!config) return { small: FAST_PATH_DEFAULT_BYTES, fast: true };
  const conf = fastPathFile(root);
  const st = fs.statSync(conf, { throwIfNoEntry: false });
  if (!st || config.mtimeMs > st.mtimeMs) return { small: FAST_PATH_DEFAULT_BYTES, fast: false };
  const m = /^(\d{1,9})[ \t]+([01])\s*$/.exec(fs.readFileSync(conf, 'utf8').split('\n')[0] ?? '');
  return m ? { small: Number(m[1]), fast: m[2] === '1' } : { small: FAST_PATH_DEFAULT_BYTES, fast: false };
}

/** The keyword prefilter of the masking rules (dist/secret-keywords.ere), compiled once per process. */
const prefilters = new Map<string, RegExp>();

/**
 * True when `text` may reach the model as it is: the fast path is on for the workspace, `text` is
 * at most its byte limit and holds no keyword of the built-in masking rules (the masker would
 * return it unchanged). `ere`: the prefilter file.
 */
export function cleanForFastPath(root: string, text: string, ere: string): boolean {
  const s = fastPathSettings(root);
  if (!s.fast || Buffer.byteLength(text, 'utf8') > s.small) return false;
  return noSecretKeyword(text, ere);
}

/** True when `text` holds no keyword of the built-in masking rules (`ere`: the prefilter file), as the shell's __ac_nokey. */
export function noSecretKeyword(text: string, ere: string): boolean {
  let re = prefilters.get(ere);
  if (!re) {
    re = new RegExp(fs.readFileSync(ere, 'utf8').trim());
    prefilters.set(ere, re);
  }
  // ASCII lower case, as the shell's ${x,,} in the C locale: the keywords are ASCII.
  return !re.test(text.replace(/[A-Z]+/g, (c) => c.toLowerCase()));
}

/** The marker line of a shell script where the build puts src/hooks/fastPath.sh. */
const FAST_PATH_MARK = /^# @fast-path$/m;

/** A shell script of src/hooks/ as dist/ ships it: fastPath.sh's text where it says `# @fast-path`, its defaults filled in. */
export function shellWithFastPath(script: string, fastPath: string): string {
  if (!FAST_PATH_MARK.test(script)) throw new Error('the script has no "# @fast-path" line');
  const lib = fastPath.replace(/@SMALL_DEFAULT@/g, String(FAST_PATH_DEFAULT_BYTES));
  return script.replace(FAST_PATH_MARK, () => lib.trimEnd());
}
