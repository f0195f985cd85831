import { formatFileError } from '../result';
import { forgetMemory, listMemory, preferencesRelPath, recallMemory, rememberMemory, type MemoryEntry } from '../memory';
import { defaultFolder } from '../workspace/workspacePaths';
import { TOOL_ANSWER_MAX_BYTES, toolError, type ToolContext, type ToolOutcome } from './toolContext';
import { cutToBytes } from '../output/reference';
import { linesWithin } from '../output/linesWithin';
import { agentDirOf } from '../workspace/agentLayout';
import { plural } from '../output/humanize';

function show(e: MemoryEntry): string {
  const meta = [e.source && `by ${e.source}`, e.updated && `updated ${e.updated}`, e.review && 'NEEDS REVIEW (contradicted an earlier value)'].filter(Boolean).join(', ');
  return `${e.key}: ${e.value}${meta ? `  (${meta})` : ''}`;
}

/** agentContext_memory: remember / recall / forget / list entries of .agent/memory/preferences.yaml. */
export async function memoryTool(input: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutcome> {
  const folder = defaultFolder(ctx.folders);
  if (!folder) return toolError('no workspace folder is open');
  const agentDir = agentDirOf(folder.path);
  const action = String(input.action);
  const key = typeof input.key === 'string' ? input.key : undefined;
  const file = preferencesRelPath(agentDir);
  if (action !== 'list' && !key) return toolError(`action "${action}" needs a key`);
  if (ctx.signal.aborted) return toolError('cancelled; nothing changed');
  switch (action) {
    case 'remember': {
      if (typeof input.value !== 'string') return toolError('remember needs a value (text, at most 1,000 characters)');
      const r = await rememberMemory(agentDir, key!, input.value, { source: ctx.source === 'mcp' ? 'agent (mcp)' : 'agent' });
      if (!r.ok) return toolError(formatFileError(r.error));
      const o = r.value;
      if (o.kind === 'replaced') return { text: `Replaced ${key} in ${file} (was: ${cutToBytes(o.previous ?? '', 300)}). The old value is kept in its history and the entry is flagged for the user to review.` };
      return { text: `${o.kind === 'created' ? 'Remembered' : 'Already remembered'} ${key} in ${file}:${o.entry.line || ''}` };
    }
    case 'recall': {
      const r = await recallMemory(agentDir, key!);
      if (!r.ok) return toolError(formatFileError(r.error));
      if (!r.value) return { text: `Nothing remembered under "${key}". Use action list to see all keys.` };
      return { text: `${show(r.value)}\n(${file}:${r.value.line})` };
    }
    case 'forget': {
      const r = await forgetMemory(agentDir, key!);
      if (!r.ok) return toolError(formatFileError(r.error));
      return { text: r.value ? `Forgot ${key} (kept in .agent/history/memory-forgotten.jsonl).` : `Nothing remembered under "${key}".` };
    }
    case 'list': {
      const r = await listMemory(agentDir);
      if (!r.ok) return toolError(formatFileError(r.error));
      if (r.value.length === 0) return { text: `No memory entries yet (${file}).` };
      const lines = r.value.map((e) => cutToBytes(show(e), 400));
      const head = [`${plural(r.value.length, 'entry', 'entries')} in ${file}:`];
      return {
        text: linesWithin(head, lines, TOOL_ANSWER_MAX_BYTES, (left, from, room) => {
          const intro = `… ${left} more (recall one with key; all in ${file}): `;
          return intro + cutToBytes(r.value.slice(from).map((e) => e.key).join(', '), room - Buffer.byteLength(intro));
        }),
      };
    }
    default:
      return toolError(`unknown action "${action}"; use remember, recall, forget or list`);
  }
}
