import { cleanupScratch } from '../scratch/scratchCleanup';
import { formatBytes, plural } from '../output/humanize';
import { DEFAULT_RETENTION } from '../scratch/retention';
import { cutToBytes } from '../output/reference';
import { formatFileError } from '../result';
import { defaultFolder } from '../workspace/workspacePaths';
import { TOOL_ANSWER_MAX_BYTES, toolError, type ToolContext, type ToolOutcome } from './toolContext';

/** Files listed by name; the rest are counted. */
const SHOWN = 40;

const WHY = { age: 'older than the age limit', count: 'over the file-count limit', size: 'over the size limit' } as const;

/** agentContext_cleanup: dry-runs (default) or applies the scratch retention policy. */
export async function cleanupTool(input: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutcome> {
  const folder = defaultFolder(ctx.folders);
  if (!folder) return toolError('no workspace folder is open');
  const apply = input.apply === true;
  if (apply && !ctx.trusted) return toolError('this workspace is not trusted; cleanup only reports. Trust the workspace to remove files.');
  if (ctx.signal.aborted) return toolError('cancelled; nothing removed');
  const policy = ctx.retention ?? DEFAULT_RETENTION;
  const r = await cleanupScratch({ workspaceRoot: folder.path, policy, dryRun: !apply, listLimit: SHOWN });
  if (!r.ok) return toolError(formatFileError(r.error));
  const rep = r.value;
  const out = [
    `${rep.summary}.`,
    `Policy: files older than ${policy.maxAgeHours} h, beyond ${policy.maxFiles} files or ${policy.maxTotalMB} MB go (oldest first); pinned files, plans and their evidence stay.`,
  ];
  for (const x of rep.removed.slice(0, SHOWN)) out.push(`${apply ? 'removed' : 'would remove'} .agent/scratch/${x.rel} (${formatBytes(x.size)}, ${WHY[x.reason]})`);
  if (rep.removedCount > SHOWN) out.push(`… and ${rep.removedCount - SHOWN} more`);
  for (const f of rep.failed.slice(0, 10)) out.push(`failed: ${f.path}: ${f.message}`);
  if (rep.noTrash.length) out.push(`${plural(rep.noTrash.length, 'file')} kept: no trash is available here; remove them with the "Clean Up Scratch" command, which asks before deleting permanently.`);
  if (!apply && rep.removedCount) out.push('Run again with apply: true to move them to the trash.');
  return { text: cutToBytes(out.join('\n'), TOOL_ANSWER_MAX_BYTES) };
}
