import * as fs from 'node:fs';
import * as path from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { HOME_SKILL_SOURCES, SKILL_SOURCES } from '../workspace/agentLayout';
import { err, FileError, ok, Result } from '../result';
import { toPosixRelative } from '../workspace/relativePaths';

/** A skill found in one of the skill folders; `error` is set when its frontmatter is missing or broken. */
export interface Skill {
  /** From frontmatter, or the folder name when the frontmatter is unusable. */
  name: string;
  description: string;
  /** Absolute path of SKILL.md. */
  file: string;
  /** Workspace-relative path with forward slashes (`~/…` for a skill in the home folder). */
  rel: string;
  /** The folder it came from: `.agent/skills`, `.github/skills`, `.claude/skills`, `.agents/skills`, or `~/.copilot/skills`… */
  source: string;
  error?: FileError;
}

/** Parses SKILL.md frontmatter (`---` YAML `---`) for `name` and `description`. */
export function parseSkillFrontmatter(text: string, file: string): Result<{ name: string; description: string }> {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const lines = body.split(/\r?\n/);
  if (lines[0]?.trim() !== '---') {
    return err({ file, line: 1, message: 'no YAML frontmatter: the file must start with a --- line, then name: and description:, then ---' });
  }
  const close = lines.findIndex((l, i) => i > 0 && l.trim() === '---');
  if (close < 0) return err({ file, line: 1, message: 'the frontmatter is not closed: add a --- line after the name and description' });
  const lc = new LineCounter();
  const doc = parseDocument(lines.slice(1, close).join('\n'), { lineCounter: lc, prettyErrors: false });
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    return err({ file, line: lc.linePos(e.pos[0]).line + 1, message: `invalid YAML in frontmatter: ${e.message.split('\n')[0]}` });
  }
  const data = doc.toJS() as Record<string, unknown> | null;
  if (!data || typeof data !== 'object' || Array.isArray(data)) return err({ file, line: 2, message: 'the frontmatter must be a mapping with name and description' });
  const name = data.name;
  const description = data.description;
  if (typeof name !== 'string' || name.trim() === '') return err({ file, line: 2, message: 'the frontmatter has no "name"' });
  if (typeof description !== 'string' || description.trim() === '') return err({ file, line: 2, message: 'the frontmatter has no "description"' });
  return ok({ name: name.trim(), description: description.trim().replace(/\s+/g, ' ') });
}

/**
 * Loads every `<source>/<name>/SKILL.md` of a workspace root (and, given `home`, of the home skill
 * folders VS Code's agent loads); broken files are listed with their error.
 */
export async function loadSkills(workspaceRoot: string, opts: { home?: string } = {}): Promise<Skill[]> {
  const out: Skill[] = [];
  const sources: { source: string; dir: string; base: string; prefix: string }[] = [
    ...SKILL_SOURCES.map((source) => ({ source, dir: path.join(workspaceRoot, source), base: workspaceRoot, prefix: '' })),
    ...(opts.home ? HOME_SKILL_SOURCES.map((s) => ({ source: `~/${s}`, dir: path.join(opts.home!, s), base: opts.home!, prefix: '~/' })) : []),
  ];
  for (const { source, dir, base, prefix } of sources) {
    const entries = await fs.promises.readdir(dir, { withFileTypes: true }).catch(() => []);
    const names = entries.filter((e) => e.isDirectory() || e.isSymbolicLink()).map((e) => e.name).sort();
    const found = await Promise.all(
      names.map(async (folder): Promise<Skill | undefined> => {
        const file = path.join(dir, folder, 'SKILL.md');
        let text: string;
        try {
          text = await fs.promises.readFile(file, 'utf8');
        } catch {
          return undefined; // a folder without SKILL.md is not a skill
        }
        const rel = prefix + toPosixRelative(base, file);
        const fm = parseSkillFrontmatter(text, rel);
        return fm.ok ? { ...fm.value, file, rel, source } : { name: folder, description: '', file, rel, source, error: fm.error };
      }),
    );
    out.push(...found.filter((s): s is Skill => s !== undefined));
  }
  return out;
}

/** The compact index an agent keeps in context: one `name: description (path)` line per usable skill. */
export function formatSkillIndex(skills: readonly Skill[]): string {
  return skills
    .filter((s) => !s.error)
    .map((s) => `${s.name}: ${s.description} (${s.rel})`)
    .join('\n');
}
