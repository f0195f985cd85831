/*
 * Plans that agents keep outside the workspace, mirrored into `.agent/plans/` so the Plan view, the
 * briefing, agentContext_plan and every other agent see them. VS Code's Plan agent (Copilot Chat)
 * keeps its plan as `/memories/session/plan.md`, a file in Copilot's workspace storage that the user
 * never sees and that is cleaned up with the session's memory. The mirror is a copy with a header
 * naming its source: the agent keeps writing its own file, the copy follows it, and a copy stays
 * when the agent's file is cleaned up (nothing the agent planned is lost).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from '../fs/fsAtomic';
import { maskSecrets, type UserPatterns } from '../secrets';
import { err, ok, type Result } from '../result';
import { LAYOUT } from '../workspace/agentLayout';

/** A plan larger than this is not mirrored (the plan reader refuses files over 1 MB). */
export const MIRROR_MAX_BYTES = 1024 * 1024;

/** The mirror's file name: `<agent>-<session>.md`, the session cut to a safe, short name. */
export function mirroredPlanName(agent: string, session: string): string {
  const safe = session.replace(/[^A-Za-z0-9_.-]/g, '_').replace(/^\.+/, '').slice(0, 40) || 'session';
  return `${agent}-${safe}.md`;
}

const MIRROR_PREFIX = '<!-- Mirrored by Agent Context from ';
const MIRROR_REST = '. The agent updates its own file and this copy follows it: edit the plan there, not here. -->';

/** The first line of a mirror: where the plan comes from and where to edit it. */
export function mirrorHeader(source: string): string {
  return `${MIRROR_PREFIX}${source}${MIRROR_REST}\n`;
}

/**
 * The agent whose plan `text` mirrors, from a mirror's first line ("VS Code's Plan agent", "GitHub
 * Copilot CLI"); undefined for any other text. A mirror is read-only: the next copy would undo an edit.
 */
export function mirrorOwner(text: string): string | undefined {
  if (!text.startsWith(MIRROR_PREFIX)) return undefined;
  const eol = text.indexOf('\n');
  const line = eol === -1 ? text : text.slice(0, eol);
  if (!line.endsWith(MIRROR_REST)) return undefined;
  const source = line.slice(MIRROR_PREFIX.length, line.length - MIRROR_REST.length);
  return source.replace(/ \(.*$/, '').replace(/'s plan$/, '') || undefined;
}

/**
 * Writes (or refreshes) the mirror of one agent plan in `<agentDir>/plans/`, atomically, with its
 * secrets masked (`rules`: the user's own; the built-in shapes always apply): the mirror is a file
 * of the project, and the briefing reads it back to every agent. Unchanged text writes nothing.
 * `changed` says whether the file was written.
 */
export async function mirrorPlan(agentDir: string, name: string, text: string, source: string, rules: UserPatterns | undefined): Promise<Result<{ file: string; changed: boolean }>> {
  const file = path.join(agentDir, LAYOUT.plans, name);
  if (Buffer.byteLength(text) > MIRROR_MAX_BYTES) return err({ file, message: `not mirrored: the plan from ${source} is over 1 MB` });
  const want = mirrorHeader(source) + maskSecrets(text, rules).text;
  const have = await fs.promises.readFile(file, 'utf8').catch(() => undefined);
  if (have === want) return ok({ file, changed: false });
  try {
    await writeFileAtomic(file, want);
  } catch (e) {
    return err({ file, message: `cannot write the mirrored plan: ${(e as Error).message}` });
  }
  return ok({ file, changed: true });
}
