/**
 * Secret masking at the tools' one door (invokeTool.ts), for both transports:
 * - the text an agent gives a tool to keep (a plan step, its notes, a progress entry, a memory value,
 *   a finding) is masked before the tool writes it: plan.yaml, progress.md, preferences.yaml and
 *   findings.md are meant to be committed, and each is read back into later contexts;
 * - every answer is masked before the model gets it and the ledger keeps it: a file read or grepped,
 *   a plan or memory entry someone wrote by hand, may hold a secret the agent has no need to see.
 * Commands, patterns and paths are not masked on the way in: they must run and match as given
 * (agentContext_run masks its command line where it shows or records it). Offloaded content goes
 * through the streaming masker of its writer (scratchOutput.ts, historyArchive.ts).
 */
import { maskSecrets, type UserPatterns } from '../secrets';
import type { ToolName } from './toolNames';
import { plural } from '../output/humanize';

/** Per tool, the input fields whose text the tool writes to a file. */
const WRITTEN_FIELDS: Partial<Record<ToolName, readonly string[]>> = {
  agentContext_plan: ['description', 'notes', 'next', 'title'],
  // The key too: a key is found again by the same masking, and it is written beside the value.
  agentContext_memory: ['key', 'value'],
  agentContext_agentWorkspace: ['content'],
};

/** The input with the fields the tool writes to disk masked, and how many secrets were masked. */
export function maskWrittenInput(tool: string, input: unknown, rules: UserPatterns | undefined): { input: unknown; count: number } {
  const fields = WRITTEN_FIELDS[tool as ToolName];
  if (!fields || !input || typeof input !== 'object' || Array.isArray(input)) return { input, count: 0 };
  let count = 0;
  let out: Record<string, unknown> | undefined;
  for (const f of fields) {
    const v = (input as Record<string, unknown>)[f];
    if (typeof v !== 'string' || v === '') continue;
    const m = maskSecrets(v, rules);
    if (m.count === 0) continue;
    out ??= { ...(input as Record<string, unknown>) };
    out[f] = m.text;
    count += m.count;
  }
  return { input: out ?? input, count };
}

/** The line an answer ends with when secrets were masked in its input (what the tool kept or looked up) or in the answer itself. */
export function maskedNote(written: number, answered: number): string | undefined {
  const parts: string[] = [];
  const n = (k: number) => plural(k, 'secret');
  if (written) parts.push(`${n(written)} in your input ${written === 1 ? 'was' : 'were'} masked before the tool used it`);
  if (answered) parts.push(`${n(answered)} in this answer ${answered === 1 ? 'was' : 'were'} masked`);
  return parts.length ? `Note: ${parts.join('; ')} ([MASKED:<kind>] stands in their place; do not store or repeat secrets).` : undefined;
}
