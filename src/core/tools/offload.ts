import { formatReference } from '../output/reference';
import { archiveToHistory } from './historyArchive';
import { newScratchFile, ScratchWriter } from './scratchOutput';
import { secretRulesOf, toolError, type ToolContext, type ToolOutcome } from './toolContext';

/** Largest content accepted in one call (it came through the model's context anyway). */
export const MAX_CONTENT_BYTES = 20 * 1024 * 1024;

function looksLikeJson(text: string): boolean {
  const t = text.trim();
  if (!/^[[{]/.test(t)) return false;
  try {
    JSON.parse(t);
    return true;
  } catch {
    return false;
  }
}

/** agentContext_offload: saves text or JSON under .agent/scratch/ (masked), returns a reference. */
export async function offloadTool(input: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutcome> {
  const content = String(input.content ?? '');
  const bytes = Buffer.byteLength(content, 'utf8');
  if (bytes > MAX_CONTENT_BYTES) return toolError(`content is ${(bytes / 1048576).toFixed(1)} MB, over the 20 MB one offload takes; nothing was saved. Split it into several offloads`);
  if (input.to === 'history') return archiveToHistory(content, typeof input.name === 'string' ? input.name : undefined, ctx);
  const hint = typeof input.name === 'string' && input.name.trim() ? input.name.replace(/\.(json|txt|md)$/i, '') : content.slice(0, 40);
  const ext = looksLikeJson(content) ? '.json' : /\.md$/i.test(String(input.name ?? '')) ? '.md' : '.txt';
  if (ctx.signal.aborted) return toolError('cancelled; nothing was saved');
  const target = newScratchFile(ctx.folders, 'scratch', hint, ext);
  const writer = new ScratchWriter(target, secretRulesOf(ctx));
  writer.writeText(content);
  let done: Awaited<ReturnType<ScratchWriter['finish']>>;
  try {
    done = await writer.finish();
  } catch (e) {
    // Nothing is left in scratch: the file appears only when complete (AtomicFileStream).
    return toolError(`${(e as Error).message}; nothing was saved.`);
  }
  const { scan, masked } = done;
  const text = formatReference(scan, { title: 'Saved', path: target.display, grepPath: target.rel, masked, maxBytes: ctx.config.referenceMaxBytes });
  return { text, outputPath: target.display, rawTokens: scan.tokens.tokens };
}
