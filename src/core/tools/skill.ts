import * as fs from 'node:fs';
import { fenceData } from '../output/fence';
import { cutToBytes } from '../output/reference';
import { linesWithin } from '../output/linesWithin';
import { formatFileError } from '../result';
import { loadSkills } from '../skills/skillsIndex';
import { outsideLinkMessage } from '../workspace/linkGuard';
import { defaultFolder } from '../workspace/workspacePaths';
import { TOOL_ANSWER_MAX_BYTES, toolError, type ToolContext, type ToolOutcome } from './toolContext';
import { plural } from '../output/humanize';

/** What a long skill's answer puts around its first lines: the data fence with its label and the "Read on" line. */
const HEAD_FRAME_BYTES = 700;

/** agentContext_skill: the skill index, or one SKILL.md (fenced as data; long ones point to read). */
export async function skillTool(input: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutcome> {
  const folder = defaultFolder(ctx.folders);
  if (!folder) return toolError('no workspace folder is open');
  const skills = await loadSkills(folder.path);
  const name = typeof input.name === 'string' ? input.name.trim() : '';
  if (!name) {
    const usable = skills.filter((s) => !s.error);
    const broken = skills.filter((s) => s.error).map((s) => `unusable: ${formatFileError(s.error!)}`);
    if (skills.length === 0) return { text: 'No skills. Add .agent/skills/<name>/SKILL.md with name and description in YAML frontmatter.' };
    return { text: skillIndexText(usable, broken, TOOL_ANSWER_MAX_BYTES) };
  }
  const skill = skills.find((s) => s.name === name) ?? skills.find((s) => s.name.toLowerCase() === name.toLowerCase());
  if (!skill) return toolError(`no skill "${name}". Skills: ${skills.map((s) => s.name).join(', ') || 'none'}`);
  if (ctx.signal.aborted) return toolError('cancelled');
  if (skill.outside) return toolError(`${skill.rel}: ${outsideLinkMessage(skill.outside)}`);
  const text = await fs.promises.readFile(skill.file, 'utf8');
  const label = `Skill ${skill.name} (${skill.rel})`;
  const whole = fenceData(label, text, 'markdown');
  if (Buffer.byteLength(whole, 'utf8') <= TOOL_ANSWER_MAX_BYTES) return { text: whole };
  // A long skill: its start, and where to read on.
  const lines = text.split('\n');
  let head = '';
  let n = 0;
  for (const l of lines) {
    if (Buffer.byteLength(head + l, 'utf8') > TOOL_ANSWER_MAX_BYTES - HEAD_FRAME_BYTES) break;
    head += l + '\n';
    n++;
  }
  return { text: `${fenceData(`${label}, lines 1–${n} of ${lines.length}`, head, 'markdown')}\nRead on with agentContext_read path ${skill.rel} offset ${n + 1}.` };
}

/** The index within `budget` bytes: a line per skill while they fit, then how many more and their names (output/linesWithin.ts). */
export function skillIndexText(usable: readonly { name: string; description: string; rel: string }[], broken: readonly string[], budget: number): string {
  const head = [`${plural(usable.length, 'skill')}; load one with name:`, ...broken.map((b) => cutToBytes(b, 300))];
  const lines = usable.map((s) => `${s.name}: ${s.description} (${s.rel})`);
  return linesWithin(head, lines, budget, (left, from, room) => {
    const intro = `… ${left} more (load one with name; each is <folder>/<name>/SKILL.md): `;
    return intro + cutToBytes(usable.slice(from).map((s) => s.name).join(', '), room - Buffer.byteLength(intro));
  });
}
