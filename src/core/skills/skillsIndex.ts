import * as fs from 'node:fs';
import * as path from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { HOME_SKILL_SOURCES, SKILL_SOURCES } from '../workspace/agentLayout';
import { err, FileError, ok, Result } from '../result';
import { toPosixRelative } from '../workspace/relativePaths';
import { leadsOutside, outsideLinkMessage } from '../workspace/linkGuard';
import { FileDigests } from '../fs/fileDigests';
import { sameStamp, settledStamp, stampOf } from '../fs/stamps';
import { agentDirOf } from '../workspace/layout';

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
  /** A skill of the workspace whose folder or SKILL.md is a symbolic link leading out of it: where it leads (never read). */
  outside?: string;
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

const isStr = (x: unknown): boolean => typeof x === 'string';

/** A parsed frontmatter (or the error naming its line) as parseSkillFrontmatter produces it. */
function validParsed(v: unknown): v is Result<{ name: string; description: string }> {
  const o = v as { ok?: unknown; value?: { name?: unknown; description?: unknown }; error?: { file?: unknown; message?: unknown; line?: unknown } };
  if (typeof o !== 'object' || o === null) return false;
  if (o.ok === false) return typeof o.error === 'object' && o.error !== null && isStr(o.error.file) && isStr(o.error.message) && (o.error.line === undefined || typeof o.error.line === 'number');
  return o.ok === true && typeof o.value === 'object' && o.value !== null && isStr(o.value.name) && isStr(o.value.description);
}

/** Parsed frontmatters per SKILL.md, kept in `.agent/.cache/skills.json` and checked by a stat per file (fs/fileDigests.ts). */
const SKILL_DIGESTS = { cache: 'skillsDigests', version: 1, valid: validParsed } as const;

/** A skill folder's entry: where its SKILL.md is and how it is shown. */
interface Found {
  source: string;
  folder: string;
  file: string;
  rel: string;
  /** Reached through a symbolic link (the source folder or the skill's folder), in the workspace: checked before it is read. */
  linked?: boolean;
}


/** A source folder that is not there (most workspaces have one or two of the four). */
const NO_SKILLS: readonly Found[] = [];

/** Each skill folder's listing per process, kept while the folder's stamp (inode, mtime, ctime) is the one it was listed at. */
const listings = new Map<string, { ino: number; mtimeMs: number; ctimeMs: number; found: Found[] }>();

/**
 * The skills of one source folder, sorted by folder name: listed again only when a skill folder
 * was added, removed or renamed there since (its stamp changed). A SKILL.md edited in place does
 * not change the listing; the digests' stat of each file sees that.
 */
async function listSource(source: string, dir: string, base: string, prefix: string): Promise<readonly Found[]> {
  const st = fs.statSync(dir, { throwIfNoEntry: false });
  const home = prefix !== '';
  if (!st?.isDirectory()) {
    listings.delete(dir);
    return NO_SKILLS; // the same array each time: sharedSkills can tell nothing changed
  }
  const known = listings.get(dir);
  if (known && sameStamp(known, st)) return known.found;
  const now = Date.now();
  const entries = await fs.promises.readdir(dir, { withFileTypes: true }).catch(() => []);
  const dirLinked = !home && fs.lstatSync(dir, { throwIfNoEntry: false })?.isSymbolicLink() === true;
  const found = entries
    .filter((e) => e.isDirectory() || e.isSymbolicLink())
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((e) => {
      const file = path.join(dir, e.name, 'SKILL.md');
      return { source, folder: e.name, file, rel: prefix + toPosixRelative(base, file), ...(!home && (dirLinked || e.isSymbolicLink()) ? { linked: true } : {}) };
    });
  if (settledStamp(st, now)) listings.set(dir, { ...stampOf(st), found });
  else listings.delete(dir);
  return found;
}

/**
 * Loads every `<source>/<name>/SKILL.md` of a workspace root (and, given `home`, of the home skill
 * folders VS Code's agent loads); broken files are listed with their error. A SKILL.md is read and
 * parsed only when it changed since this or another process last did (a stat per skill); a skill
 * folder is listed again only when its stamp changed.
 */
export async function loadSkills(workspaceRoot: string, opts: { home?: string } = {}): Promise<Skill[]> {
  return [...(await sharedSkills(workspaceRoot, opts))];
}

/**
 * loadSkills' answer itself, not a copy: the same array from one call to the next while no skill
 * folder or SKILL.md changed, so a caller can keep what it derives from it (keyed by the array).
 * Never to be modified.
 */
export async function sharedSkills(workspaceRoot: string, opts: { home?: string } = {}): Promise<readonly Skill[]> {
  const sources: { source: string; dir: string; base: string; prefix: string }[] = [
    ...SKILL_SOURCES.map((source) => ({ source, dir: path.join(workspaceRoot, source), base: workspaceRoot, prefix: '' })),
    ...(opts.home ? HOME_SKILL_SOURCES.map((s) => ({ source: `~/${s}`, dir: path.join(opts.home!, s), base: opts.home!, prefix: '~/' })) : []),
  ];
  const lists: (readonly Found[])[] = [];
  for (const { source, dir, base, prefix } of sources) lists.push(await listSource(source, dir, base, prefix));
  // Skills reached through a symbolic link: those leading out of the workspace are listed as such, never read.
  const all = lists.flat();
  const outside = new Map<Found, string>();
  for (const f of all) {
    if (!f.linked) continue;
    const where = await leadsOutside(workspaceRoot, f.file);
    if (where) outside.set(f, where);
  }
  const found = outside.size ? all.filter((f) => !outside.has(f)) : all;
  let relOf: Map<string, string> | undefined; // made only when a file is read
  const { values } = await FileDigests.of(agentDirOf(workspaceRoot), SKILL_DIGESTS).get(found.map((f) => f.file), async (file) => {
    relOf ??= new Map(found.map((f) => [f.file, f.rel]));
    return parseSkillFrontmatter(await fs.promises.readFile(file, 'utf8'), relOf.get(file)!);
  });
  // Nothing listed or parsed anew since the last call (the same listings, the same digests: the
  // same map, fs/fileDigests.ts): its answer stands.
  const key = `${workspaceRoot}\0${opts.home ?? ''}`;
  const last = answers.get(key);
  const sameLists = !!last && last.lists.length === lists.length && last.lists.every((l, i) => l === lists[i]);
  if (last && sameLists && last.values === values) return last.out;
  const parsed = found.map((f) => values.get(f.file));
  if (last && sameLists && !parsed.includes(undefined) && last.parsed.length === parsed.length && last.parsed.every((p, i) => p === parsed[i])) {
    last.values = values;
    return last.out;
  }
  const out: Skill[] = [];
  for (const [f, where] of outside) {
    out.push({ name: f.folder, description: '', file: f.file, rel: f.rel, source: f.source, outside: where, error: { file: f.rel, message: outsideLinkMessage(where) } });
  }
  for (const { source, folder, file, rel } of found) {
    let fm = values.get(file);
    if (!fm) {
      // Unreadable, missing (a folder without SKILL.md is not a skill) or a symlink: read as before, never remembered.
      const where = rel.startsWith('~/') ? undefined : await leadsOutside(workspaceRoot, file);
      if (where) {
        out.push({ name: folder, description: '', file, rel, source, outside: where, error: { file: rel, message: outsideLinkMessage(where) } });
        continue;
      }
      try {
        fm = parseSkillFrontmatter(await fs.promises.readFile(file, 'utf8'), rel);
      } catch {
        continue;
      }
    }
    out.push(fm.ok ? { ...fm.value, file, rel, source } : { name: folder, description: '', file, rel, source, error: fm.error });
  }
  if (parsed.includes(undefined)) answers.delete(key);
  else answers.set(key, { lists, parsed, values, out });
  return out;
}

/** The last answer per root (and home), with the listings and digests it was made of. */
const answers = new Map<string, { lists: (readonly Found[])[]; parsed: unknown[]; values: Map<string, unknown>; out: Skill[] }>();

/** The compact index an agent keeps in context: one `name: description (path)` line per usable skill. */
export function formatSkillIndex(skills: readonly Skill[]): string {
  return skills
    .filter((s) => !s.error)
    .map((s) => `${s.name}: ${s.description} (${s.rel})`)
    .join('\n');
}
