import * as path from 'node:path';
import { archiveText } from '../history/archive';
import { buildReference } from '../output/reference';
import { formatFileError } from '../result';
import { maskSecrets } from '../secrets';
import { defaultFolder } from '../workspace/workspacePaths';
import { secretRulesOf, toolError, type ToolContext, type ToolOutcome } from './toolContext';
import { agentDirOf } from '../workspace/agentLayout';

/** agentContext_offload with `to: "history"`: archives text (secrets masked) as history/session-<ULID>.md, returns a reference. */
export async function archiveToHistory(content: string, name: string | undefined, ctx: ToolContext): Promise<ToolOutcome> {
  const folder = defaultFolder(ctx.folders);
  if (!folder) return toolError('no workspace folder is open');
  if (ctx.signal.aborted) return toolError('cancelled; nothing was archived');
  const agentDir = agentDirOf(folder.path);
  const masked = maskSecrets(content, secretRulesOf(ctx));
  const r = await archiveText(agentDir, masked.text, { title: name, source: `agentContext_offload (${ctx.source})`, now: ctx.now?.() });
  if (!r.ok) return toolError(formatFileError(r.error));
  const text = await buildReference(path.join(folder.path, r.value.path), {
    path: r.value.path,
    title: 'Archived (append-only, never rewritten)',
    masked: masked.count,
    maxBytes: ctx.config.referenceMaxBytes,
  });
  return { text, outputPath: r.value.path };
}
