import { AGENT_STATUSES, checkAgentId, rankAgents, readRecentFindings, setAgentStatus, summarizeAgent, writeFinding, type AgentSummary, type Finding } from '../agents';
import { cutToBytes } from '../output/reference';
import { formatFileError } from '../result';
import { defaultFolder } from '../workspace/workspacePaths';
import { TOOL_ANSWER_MAX_BYTES, toolError, type ToolContext, type ToolOutcome } from './toolContext';
import { agentDirOf } from '../workspace/agentLayout';
import { plural } from '../output/humanize';

const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');
/** Most agents a listing shows (short lines: about 80 bytes each, so 40 fit the budget). */
const LIST_MAX = 40;
/**
 * Agents summarised at a time while filling the listing: the summaries are read in the order shown
 * and stop once the byte budget is full (with long status details about 19 fit), so agents that
 * would not be shown are never read; 20 at a time keeps the short-line case (40 shown) to two rounds.
 */
const SUMMARY_BATCH = 20;

function agentLine(a: AgentSummary, self: string): string {
  return cutToBytes(
    `${a.id}${a.id === self ? ' (you)' : ''}: ${a.status ? `${a.status.status} ${Math.round(a.status.progress * 100)}%${a.status.details ? ` — ${a.status.details.replace(/\s+/g, ' ')}` : ''}` : a.statusError ? `status unreadable: ${a.statusError}` : 'no status'}; ${plural(a.findings, 'finding')} (${a.folder}/findings.md)${a.files.length ? `; ${plural(a.files.length, 'other file')}` : ''}`,
    300,
  );
}

/** The byte budget of a findings answer: room for its first line and the pointer to earlier findings. */
const FINDINGS_BUDGET = TOOL_ANSWER_MAX_BYTES - 400;
/** The byte budget of the agents list: room for its head and tail lines. */
const LIST_BUDGET = TOOL_ANSWER_MAX_BYTES - 200;

/** Newest findings that fit the byte budget, oldest of them first; earlier ones are pointed to by line. `findings` are the newest `total`. */
function formatFindings(id: string, file: string, findings: Finding[], total: number): string {
  if (total === 0 || findings.length === 0) return `${id} has no findings yet (${file}).`;
  const budget = FINDINGS_BUDGET;
  const shown: string[] = [];
  let used = 0;
  let first = findings.length;
  for (let i = findings.length - 1; i >= 0; i--) {
    const block = `## ${findings[i].time} (line ${findings[i].line})\n${findings[i].text}`;
    const piece = shown.length === 0 ? cutToBytes(block, budget) : block;
    if (used + utf8(piece) > budget) break;
    shown.unshift(piece);
    used += utf8(piece) + 1;
    first = i;
  }
  const earlierCount = total - (findings.length - first);
  const head = `Findings of ${id} (${file}, ${plural(total, 'entry', 'entries')}${earlierCount > 0 ? `; newest ${findings.length - first} shown` : ''}):`;
  const earlier = earlierCount > 0 ? `\nEarlier entries: read lines 1–${findings[first].line - 1} of ${file}` : '';
  return `${head}\n<findings agent="${id}">\n${shown.join('\n\n')}\n</findings>${earlier}`;
}

/** agentContext_agentWorkspace: a sub-agent writes findings, sets its status, or lists/reads peers' findings. */
export async function agentWorkspaceTool(input: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutcome> {
  const folder = defaultFolder(ctx.folders);
  if (!folder) return toolError('no workspace folder is open');
  const agentDir = agentDirOf(folder.path);
  const id = input.agentId;
  const bad = checkAgentId(id);
  if (bad) return toolError(bad);
  const agentId = id as string;
  const action = String(input.action ?? '');
  if (ctx.signal.aborted) return toolError('cancelled; nothing changed');
  const now = ctx.now?.();
  switch (action) {
    case 'writeFinding': {
      if (typeof input.content !== 'string' || !input.content.trim()) return toolError('writeFinding needs content (the finding text)');
      const r = await writeFinding(agentDir, agentId, input.content, { now });
      if (!r.ok) return toolError(formatFileError(r.error));
      return { text: `Appended a finding to ${r.value.path} (## ${r.value.time}).` };
    }
    case 'setStatus': {
      const progress = input.progress === undefined || input.progress === null ? undefined : Number(input.progress);
      const r = await setAgentStatus(agentDir, agentId, { status: input.status as string | undefined, progress, details: typeof input.content === 'string' ? input.content : undefined }, { now });
      if (!r.ok) return toolError(formatFileError(r.error));
      return { text: `${agentId}: ${r.value.status.status}, ${Math.round(r.value.status.progress * 100)}% (${r.value.path}).` };
    }
    case 'list': {
      // Most recently active first; only the agents that fit are read.
      const ranked = await rankAgents(agentDir);
      const total = ranked.length;
      if (total === 0) return { text: 'No sub-agent workspaces yet (.agent/agents/<id>/).' };
      const budget = LIST_BUDGET;
      const lines: string[] = [];
      let used = 0;
      const last = Math.min(LIST_MAX, total);
      fill: for (let i = 0; i < last; i += SUMMARY_BATCH) {
        const batch = await Promise.all(ranked.slice(i, Math.min(last, i + SUMMARY_BATCH)).map((a) => summarizeAgent(agentDir, a.id)));
        for (const a of batch) {
          const line = agentLine(a, agentId);
          if (used + utf8(line) + 1 > budget) break fill;
          lines.push(line);
          used += utf8(line) + 1;
        }
      }
      const more = total - lines.length;
      const head = `${plural(total, 'agent')}, most recently active first${more > 0 ? ` (${lines.length} shown)` : ''}:`;
      const tail = more > 0 ? `… ${more} more not shown (older activity): read one with action read and peer=<id>, or list .agent/agents/.` : 'Read one with action read and peer=<id>.';
      return { text: [head, ...lines, tail].join('\n') };
    }
    case 'read': {
      const peer = typeof input.peer === 'string' && input.peer ? input.peer : agentId;
      // Only the end of a long findings file is read: what the budget can show.
      const r = await readRecentFindings(agentDir, peer, FINDINGS_BUDGET);
      if (!r.ok) return toolError(formatFileError(r.error));
      return { text: formatFindings(peer, r.value.path, r.value.findings, r.value.total) };
    }
    default:
      return toolError(`unknown action "${action}"; use writeFinding, setStatus (status: ${AGENT_STATUSES.join('|')}, progress 0–1), list or read`);
  }
}
