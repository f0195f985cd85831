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

/**
 * The fast path's settings for a workspace, as fastPath.sh's __ac_settings reads them: the bytes a
 * hook may hand over, whether it may at all (false: the user has masking rules of their own), and
 * `okRoot`: the workspace's path when shell-hook.conf's line 2 says the masker cleared that very path.
 */
export function fastPathSettings(root: string): { small: number; fast: boolean; okRoot?: string } {
  const conf = fastPathFile(root);
  const st = fs.statSync(conf, { throwIfNoEntry: false });
  const lines = st?.isFile() ? fs.readFileSync(conf, 'utf8').split('\n') : [];
  const okRoot = lines.length > 1 && lines[1] === `${ROOT_CLEARED} ${root}` ? root : undefined;
  if (fs.existsSync(path.join(root, '.gitleaks.toml'))) return { small: FAST_PATH_DEFAULT_BYTES, fast: false, okRoot };
  const config = fs.statSync(agentPath(agentDirOf(root), 'config'), { throwIfNoEntry: false });
  if (!config) return { small: FAST_PATH_DEFAULT_BYTES, fast: true, okRoot };
  if (!st || config.mtimeMs > st.mtimeMs) return { small: FAST_PATH_DEFAULT_BYTES, fast: false, okRoot };
  const m = /^(\d{1,9})[ \t]+([01])\s*$/.exec(lines[0] ?? '');
  return m ? { small: Number(m[1]), fast: m[2] === '1', okRoot } : { small: FAST_PATH_DEFAULT_BYTES, fast: false, okRoot };
}

/** shell-hook.conf's line 2 starts with this when the masker leaves the workspace's path as it is (then a space and the path). */
export const ROOT_CLEARED = '1';

/**
 * The part of a command's folder the keyword check looks at: what is below `okRoot` (from its "/"
 * on; '' for okRoot itself), else the whole folder. fastPath.sh's __ac_below is the shell twin; both
 * compare strings exactly as given (no case folding, no resolving), so a folder spelled otherwise
 * than the verdict's path is checked whole, the conservative side.
 */
export function folderToCheck(okRoot: string | undefined, cwd: string): string {
  if (okRoot === undefined || okRoot === '') return cwd;
  if (cwd === okRoot) return '';
  // Not relativeInside: the shell compares bytes, and the rule must give the same answer there.
  return cwd.length > okRoot.length && cwd[okRoot.length] === '/' && cwd.slice(0, okRoot.length) === okRoot ? cwd.slice(okRoot.length) : cwd;
}

/** The keyword prefilter of the masking rules (dist/secret-keywords.ere), compiled once per process. */
const prefilters = new Map<string, RegExp>();

/**
 * True when `text` may reach the model as it is, as fastPath.sh's __ac_clean: the fast path is on
 * for the workspace, `text` is at most its byte limit, and neither it, nor `command`, nor the part
 * of `cwd` folderToCheck gives holds a keyword of the built-in masking rules (the masker would
 * return them unchanged). `ere`: the prefilter file.
 */
export function cleanForFastPath(root: string, text: string, ere: string, command = '', cwd = ''): boolean {
  const s = fastPathSettings(root);
  if (!s.fast || Buffer.byteLength(text, 'utf8') > s.small) return false;
  // One text, as the shell joins its arguments (no keyword holds a line break).
  return noSecretKeyword(`${text}\n${command}\n${folderToCheck(s.okRoot, cwd)}`, ere);
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
