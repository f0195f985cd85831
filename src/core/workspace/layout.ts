import * as path from 'node:path';

/*
 * The names of the `.agent/` folder and of what lives in it: every path into `.agent/` is built from
 * these (agentPath), so a name is spelt once. A leaf module (no imports of ours), so the file-system
 * helpers under core/fs/ can use it as well as the features.
 */

/** The folder name, relative to a workspace folder root. */
export const AGENT_DIR = '.agent';

/** Names inside `.agent/` (relative to it, with `/`). */
export const LAYOUT = {
  plan: 'plan.yaml',
  planMarkdown: 'plan.md',
  plans: 'plans',
  progress: 'progress.md',
  features: 'features.json',
  config: 'config.yaml',
  scratch: 'scratch',
  toolOutputs: 'scratch/tool_outputs',
  terminals: 'terminals',
  /** Agents' own shell commands waiting to be folded into their session captures (core/terminal/agentCommands/). */
  commandSpool: 'terminals/spool',
  skills: 'skills',
  memory: 'memory',
  preferences: 'memory/preferences.yaml',
  agents: 'agents',
  history: 'history',
  human: 'human',
  notes: 'human/notes',
  cache: '.cache',
  pins: 'pins.json',
  gitignore: '.gitignore',
  readme: 'README.md',
} as const;

export type LayoutName = keyof typeof LAYOUT;

/** The `.agent/` folder of a workspace root. */
export function agentDirOf(root: string): string {
  return path.join(root, AGENT_DIR);
}

/** The absolute path of a layout entry of `agentDir` (and of `rest` below it). */
export function agentPath(agentDir: string, name: LayoutName, ...rest: string[]): string {
  return path.join(agentDir, LAYOUT[name], ...rest);
}

/** A layout entry as a workspace-relative path with `/` (`.agent/human/notes`), as globs and messages spell it. */
export function agentRel(name: LayoutName): string {
  return `${AGENT_DIR}/${LAYOUT[name]}`;
}
