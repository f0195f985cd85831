import * as fs from 'node:fs';
import * as path from 'node:path';
import { AGENT_GITIGNORE } from './agentGitignore';
import { CACHE_DIR } from './cacheFiles';
import { AGENT_DIR, agentDirOf, LAYOUT } from './layout';
import { createExclusive } from '../fs/fsAtomic';
import { isOwnWorkFile } from '../fs/fileLock';
import { err, ok, Result } from '../result';
import { toPosixRelative } from './relativePaths';

export { AGENT_DIR, LAYOUT, agentDirOf, agentPath, agentRel } from './layout';

/** Skill folders relative to a workspace root, in display order. */
export const SKILL_SOURCES = [`${AGENT_DIR}/${LAYOUT.skills}`, '.github/skills', '.claude/skills', '.agents/skills'] as const;
/** Skill folders in the user's home that VS Code's agent (and Copilot CLI / Claude Code) load too. */
export const HOME_SKILL_SOURCES = ['.copilot/skills', '.claude/skills', '.agents/skills'] as const;

/** True when `root/.agent` is a real directory (a symlinked `.agent` counts only if it is a directory). */
export async function hasAgentFolder(root: string): Promise<boolean> {
  try {
    return (await fs.promises.stat(agentDirOf(root))).isDirectory();
  } catch {
    return false;
  }
}

/** Commented example plan written by Initialize; it parses as a valid plan. */
export const EXAMPLE_PLAN = `# The current plan. Agents: re-read this file at the start of each turn and keep it up to date.
# Schema: objective (required), status, steps[] with id (unique), description,
# status (pending | in_progress | completed | blocked | cancelled), optional notes,
# optional evidence (workspace-relative paths that back the step up).
objective: "Describe what this task should achieve"
status: in_progress
steps:
  - id: 1
    description: "Understand the problem and collect context"
    status: in_progress
    notes: "Findings go to .agent/scratch/, not into the chat"
  - id: 2
    description: "Make the change"
    status: pending
  - id: 3
    description: "Verify it (tests, manual check)"
    status: pending
`;

/** README.md written into `.agent/` by Initialize: explains the layout to agents. */
export const AGENT_README = `# .agent/ — overflow memory for coding agents

This folder holds what does not fit in a chat context. Read files from here on demand
instead of keeping their content in the conversation.

| Path | What it holds |
| --- | --- |
| \`plan.yaml\` | The current plan. Re-read it each turn; update step status as you go. |
| \`plan.md\`, \`plans/*.md\` | Markdown plans (e.g. Claude Code's): checklist items \`- [ ]\` are the steps, numbered 1..n in order; the plan tool marks them (\`[x]\`). |
| \`scratch/\` | Transient working files. \`scratch/tool_outputs/\` holds offloaded tool results. Cleaned up automatically (oldest first); pinned files survive. |
| \`terminals/\` | Captured terminal output, one \`N.txt\` per terminal. Grep or read ranges instead of asking for the whole output. |
| \`skills/<name>/SKILL.md\` | Loadable skills. YAML frontmatter with \`name\` and \`description\`; load the body only when needed. |
| \`memory/\` | Persistent learned information (preferences, patterns, decisions). |
| \`agents/<id>/\` | Sub-agent workspaces: each sub-agent writes its findings here. |
| \`history/\` | Append-only records of past sessions. |

## Plan schema (plan.yaml)

\`\`\`yaml
objective: "What the task should achieve"   # required
status: in_progress
steps:
  - id: 1                                   # unique
    description: "What to do"
    status: pending      # pending | in_progress | completed | blocked | cancelled
    notes: "optional"
    evidence: ["src/file.ts"]               # optional, workspace-relative
\`\`\`

scratch/, terminals/ and history/ are kept out of git by .gitignore.
`;

export { AGENT_GITIGNORE } from './agentGitignore';

/** What initializeAgentFolder created; files that already existed are left alone and listed in `kept`. */
export interface InitializeOutcome {
  agentDir: string;
  /** Whether `.agent/` was there before. */
  existed: boolean;
  created: string[];
  kept: string[];
}

/** Creates `.agent/` with an example plan, README.md, .gitignore and the standard folders; never overwrites. */
export async function initializeAgentFolder(root: string): Promise<Result<InitializeOutcome>> {
  const agentDir = agentDirOf(root);
  const created: string[] = [];
  const kept: string[] = [];
  try {
    const st = await fs.promises.lstat(agentDir).catch(() => undefined);
    if (st && !st.isDirectory()) {
      return err({ file: agentDir, message: 'exists but is not a folder; rename or remove it, then initialize again' });
    }
    const existed = st !== undefined;
    for (const dir of [LAYOUT.scratch, LAYOUT.toolOutputs, LAYOUT.terminals, LAYOUT.skills, LAYOUT.memory, LAYOUT.agents, LAYOUT.history]) {
      await fs.promises.mkdir(path.join(agentDir, dir), { recursive: true });
    }
    const files: [string, string][] = [
      [LAYOUT.plan, EXAMPLE_PLAN],
      [LAYOUT.readme, AGENT_README],
      [LAYOUT.gitignore, AGENT_GITIGNORE],
    ];
    for (const [name, content] of files) {
      const file = path.join(agentDir, name);
      if (await createExclusive(file, content)) created.push(file);
      else kept.push(file);
    }
    return ok({ agentDir, existed, created, kept });
  } catch (e) {
    return err({ file: agentDir, message: `could not create: ${(e as Error).message}` });
  }
}

const INIT_FILE_NAMES: Record<string, string> = { [LAYOUT.plan]: 'an example plan (plan.yaml)', [LAYOUT.readme]: 'README.md', [LAYOUT.gitignore]: '.gitignore' };

function listed(items: string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** What Initialize did, as the user reads it: which files it created and which existing ones it kept untouched. */
export function describeInitialize(o: InitializeOutcome, folderName: string): string {
  const created = o.created.map((f) => INIT_FILE_NAMES[path.basename(f)] ?? path.basename(f));
  const kept = o.kept.map((f) => path.basename(f));
  if (!o.existed) return `Created .agent/ in ${folderName} with ${listed(created)}.`;
  if (created.length === 0) return `.agent/ in ${folderName} already has ${listed(kept)}; nothing was changed.`;
  return `Added ${listed(created)} to the existing .agent/ in ${folderName}${kept.length ? `; kept the existing ${listed(kept)} unchanged` : ''}.`;
}

/**
 * What part of a workspace folder a changed path belongs to, so each view, decoration and status
 * item refreshes only when it matters; `agent` is `.agent/` itself or one of its top-level entries
 * (everything may have changed).
 */
export type ChangeArea = 'plan' | 'scratch' | 'skills' | 'terminals' | 'memory' | 'agents' | 'notes' | 'history' | 'agent';

/** How a path changed, as a file watcher reports it. */
export type ChangeKind = 'created' | 'changed' | 'deleted';

/** Sub-folders of `.agent/` whose every change belongs to one area. */
const AREA_FOLDERS: readonly [string, ChangeArea][] = [
  [LAYOUT.memory, 'memory'],
  [LAYOUT.agents, 'agents'],
  [LAYOUT.human, 'notes'],
  [LAYOUT.history, 'history'],
];

/**
 * Classifies a changed path under a workspace root: plan files, scratch (and pins.json), skill
 * folders (and `.github`/`.claude` themselves), a terminal mirror appearing or going (not its
 * appends: the window's own capture reports those, and an append must never refresh a view),
 * memory, sub-agents, notes from the user, history (the tool ledger), or `agent` for `.agent/` and
 * its top-level entries. The rest of the workspace gives no area.
 */
export function classifyAgentPath(root: string, file: string, isPlan: (agentDir: string, file: string) => boolean, kind: ChangeKind = 'changed'): ChangeArea[] {
  const rel = toPosixRelative(root, file);
  if (rel === AGENT_DIR) return ['agent'];
  // Our own lock and temp files (`.plan.yaml.lock`, `.sessions.json.<pid>-<host>.<time>.<n>.tmp`),
  // wherever they are: the file they guard reports its own change when renamed into place. Taken for
  // a change, the top-level ones made every view re-read, and the agent-command spool's
  // (terminals/spool/) refreshed the Terminals view, whose fold took the lock again: a refresh every
  // half second for as long as the editor ran.
  if (isOwnWorkFile(path.basename(file))) return [];
  if (SKILL_SOURCES.some((s) => rel.startsWith(`${s}/`) || rel === s || s.startsWith(`${rel}/`))) return ['skills'];
  if (!rel.startsWith(`${AGENT_DIR}/`)) return isPlan(agentDirOf(root), file) ? ['plan'] : [];
  const areas: ChangeArea[] = [];
  if (isPlan(agentDirOf(root), file)) areas.push('plan');
  if (rel.startsWith(`${AGENT_DIR}/${LAYOUT.scratch}/`) || rel === `${AGENT_DIR}/${LAYOUT.scratch}` || rel === `${AGENT_DIR}/${LAYOUT.pins}`) areas.push('scratch');
  if (areas.length > 0) return areas;
  // The progress log and the feature list show in the Plan view only: an appended progress entry
  // must not make every view re-read (the Scratch view re-scanning 100,000 files, say).
  if (rel === `${AGENT_DIR}/${LAYOUT.progress}` || rel === `${AGENT_DIR}/${LAYOUT.features}`) return ['plan'];
  const parts = rel.split('/');
  // Our caches (`.agent/.cache/`) are no view's content: the folder appearing when a first cache is
  // written made every view re-read (and redraw mid-render) at the first start on a folder.
  if (parts[1] === CACHE_DIR) return [];
  if (parts.length === 2) return ['agent'];
  if (parts[1] === LAYOUT.terminals) return kind === 'changed' ? [] : ['terminals'];
  const folder = AREA_FOLDERS.find(([f]) => parts[1] === f);
  return folder ? [folder[1]] : [];
}

