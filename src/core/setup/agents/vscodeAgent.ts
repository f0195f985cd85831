/*
 * "Set Up Agent…" for VS Code's own agent (Copilot Chat in the editor): one hook file of ours,
 * `.github/hooks/agent-context-vscode.json` (Copilot CLI reads the same folder: the name keeps the
 * tools' files apart). It holds a PostToolUse hook that adds our reference to a large
 * `run_in_terminal` result (core/hooks/vscodeAgent.ts). The file is meant to be committed, so it
 * holds no path: the extension puts its hook program's location into the environment of the
 * extension host (AGENT_CONTEXT_HOOK_JS, AGENT_CONTEXT_HOOK_NODE), which VS Code's agent passes to
 * its hooks; without Agent Context running the hook does nothing. A shell gate lets every other
 * tool call and every small output through without starting Node.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { mkdirp, writeFileAtomic } from '../../fs/fsAtomic';
import { err, ok, type Result } from '../../result';
import { VSCODE_INLINE_BYTES, VSCODE_TERMINAL_TOOL } from '../../hooks/vscodeAgent';

/** The hook file, relative to the workspace folder. */
export const VSCODE_HOOK_FILE = '.github/hooks/agent-context-vscode.json';
/** Environment variables the extension sets in its extension host for the hook. */
export const HOOK_ENV = { js: 'AGENT_CONTEXT_HOOK_JS', node: 'AGENT_CONTEXT_HOOK_NODE' } as const;

/**
 * The hook's shell command: POSIX sh, no path. Exits at once (no Node) unless Agent Context runs,
 * the tool is run_in_terminal and the payload is over the inline size; never fails the tool call.
 */
export function vscodeHookCommand(): string {
  return [
    `[ -n "$${HOOK_ENV.js}" ] || exit 0`,
    'in=$(cat)',
    `case "$in" in *'"tool_name":"${VSCODE_TERMINAL_TOOL}"'*) ;; *) exit 0 ;; esac`,
    `[ \${#in} -gt ${VSCODE_INLINE_BYTES} ] || exit 0`,
    // The editor's own executable runs as Node with ELECTRON_RUN_AS_NODE (plain Node ignores it).
    `printf '%s' "$in" | ELECTRON_RUN_AS_NODE=1 "\${${HOOK_ENV.node}:-node}" "$${HOOK_ENV.js}" vscode`,
    'exit 0',
  ].join('; ');
}

/** The hook file's content (Copilot's hook format, which VS Code's agent reads). */
export function vscodeHookFileText(): string {
  const file = { version: 1, hooks: { PostToolUse: [{ type: 'command', bash: vscodeHookCommand(), timeoutSec: 15 }] } };
  return `${JSON.stringify(file, null, 2)}\n`;
}

/** Writes the hook file (idempotent). A file of that name that is not ours is refused, never overwritten. */
export async function setUpVscodeAgent(root: string): Promise<Result<{ file: string; changed: boolean }>> {
  const file = path.join(root, VSCODE_HOOK_FILE);
  const want = vscodeHookFileText();
  const have = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
  if (have === want) return ok({ file: VSCODE_HOOK_FILE, changed: false });
  if (have !== undefined && !isOurs(have)) {
    return err({ file: VSCODE_HOOK_FILE, message: 'exists and is not Agent Context\'s hook file; move it away, then run the set-up again. Nothing was changed.' });
  }
  await mkdirp(path.dirname(file));
  await writeFileAtomic(file, want);
  return ok({ file: VSCODE_HOOK_FILE, changed: true });
}

/** Removes the hook file if it is ours (undo of setUpVscodeAgent); leaves the folders. */
export async function undoVscodeAgent(root: string): Promise<Result<{ removed: boolean }>> {
  const file = path.join(root, VSCODE_HOOK_FILE);
  if (!fs.existsSync(file)) return ok({ removed: false });
  if (!isOurs(fs.readFileSync(file, 'utf8'))) return err({ file: VSCODE_HOOK_FILE, message: 'is not Agent Context\'s hook file; left as it is.' });
  await fs.promises.rm(file);
  return ok({ removed: true });
}

function isOurs(text: string): boolean {
  try {
    const v = JSON.parse(text) as { hooks?: Record<string, { bash?: string }[]> };
    return Object.values(v.hooks ?? {}).flat().some((h) => typeof h?.bash === 'string' && h.bash.includes(HOOK_ENV.js));
  } catch {
    return false;
  }
}
