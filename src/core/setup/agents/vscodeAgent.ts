/*
 * "Set Up Agent…" for VS Code's own agent (Copilot Chat in the editor): one hook file of ours,
 * `.github/hooks/agent-context-vscode.json` (Copilot CLI reads the same folder: the name keeps the
 * tools' files apart). It holds a PostToolUse hook that adds our reference to a large
 * `run_in_terminal` result (core/hooks/vscodeAgentHook.ts). The file is meant to be committed, so it
 * holds no path: the extension puts its hook program's location into the environment of the
 * extension host (AGENT_CONTEXT_HOOK_JS, AGENT_CONTEXT_HOOK_NODE), which VS Code's agent passes to
 * its hooks; without Agent Context running the hook does nothing. A shell gate lets every other
 * tool call and every small output through without starting Node.
 */
import * as path from 'node:path';
import { err, ok } from '../../result';
import type { AgentSetup } from './agentSetup';
import { vscodeCopilotSetup } from './vscodeCopilot';
import { readText } from './configFiles';
import { VSCODE_INLINE_BYTES, VSCODE_TERMINAL_TOOL } from '../../hooks/vscodeAgentHook';

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

/** VS Code's setting of extra skill folders (user scope), and the entry that lets its agent load .agent/skills natively. */
export const SKILLS_SETTING = 'chat.agentSkillsLocations';
export const SKILLS_LOCATION = '.agent/skills';

/**
 * VS Code's own agent, as "Set Up Agent…" lists it: the hook file (a file of ours; one of that name
 * that is not ours is refused, never overwritten), and `".agent/skills": true` in the user's
 * chat.agentSkillsLocations (user scope: nothing committed, no workspace trust needed, merged with
 * VS Code's default skill folders; the editor applies it, see SettingChange). VS Code marks that
 * setting as going away with its Local harness; until then it is the only route for a folder of
 * the workspace. The undo removes the hook file if it is ours, and the setting's entry if the
 * set-up added it.
 */
export const vscodeAgentSetup: AgentSetup = {
  id: 'vscode',
  // Not in hooks/agentNames.ts: that list names agents whose own shell commands are recorded (the
  // terminal tool's `agent` ids); this agent's commands run in the integrated terminals.
  label: 'VS Code\'s agent (Copilot Chat)',
  binary: '',
  homeFolder: '',
  inEditor: true,
  detail: 'both harnesses: Local (.github/hooks/agent-context-vscode.json) and Copilot (~/.copilot/hooks, mcp-config.json)',
  // A user may be on either harness (the Copilot harness is VS Code 1.140+'s default for many).
  with: [vscodeCopilotSetup],
  async plan(root, _home, paths) {
    const file = path.join(root, VSCODE_HOOK_FILE);
    const r = await readText(file);
    if (!r.ok) return r;
    const have = r.value;
    const settings = [{ setting: SKILLS_SETTING, key: SKILLS_LOCATION, value: paths ? true : undefined }];
    if (paths) {
      if (have !== undefined && have !== vscodeHookFileText() && !isOurs(have)) {
        return err({ file, message: 'exists and is not Agent Context\'s hook file; move it away, then run the set-up again. Nothing was changed.' });
      }
      return ok({
        edits: [{ file, before: have, after: vscodeHookFileText() }],
        keys: [],
        shared: [VSCODE_HOOK_FILE],
        settings,
        requires: [
          { setting: 'chat.disableAIFeatures', off: true, why: 'chat is turned off (chat.disableAIFeatures), so VS Code\'s agent does not run' },
          { setting: 'chat.useHooks', off: false, why: 'VS Code\'s agent runs no hooks while chat.useHooks is off' },
        ],
        notes: [],
      });
    }
    if (have === undefined) return ok({ edits: [], keys: [], settings, notes: [] });
    if (!isOurs(have)) return ok({ edits: [], keys: [], settings, notes: [`${VSCODE_HOOK_FILE} is not Agent Context's hook file; left as it is.`] });
    return ok({ edits: [{ file, before: have, after: undefined }], keys: [], settings, notes: [] });
  },
};

function isOurs(text: string): boolean {
  try {
    const v = JSON.parse(text) as { hooks?: Record<string, { bash?: string }[]> };
    return Object.values(v.hooks ?? {}).flat().some((h) => typeof h?.bash === 'string' && h.bash.includes(HOOK_ENV.js));
  } catch {
    return false;
  }
}
