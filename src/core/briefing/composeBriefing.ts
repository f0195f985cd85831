/**
 * The one-call briefing: a compact orientation an agent re-reads after every context reset.
 * Hard cap BRIEFING_MAX_TOKENS (counted with the real tokenizer). It degrades by showing fewer
 * items per section — every shortened list says how many more there are and the path that holds
 * them — and never exceeds the cap.
 */
import { countTokens, countTokensAsync } from '../output/tokens';
import { NOTES_DIR, type ListedNote } from '../notes/noteFile';
import { formatNoteForAgent } from '../notes/noteText';
import { clip } from '../output/text';
import { formatExit } from '../terminal/commandExit';
import { countLabel, plural } from '../output/humanize';

/** The hard bound of a briefing, in o200k tokens. */
export const BRIEFING_MAX_TOKENS = 1500;

/** One plan file as the briefing shows it. */
export interface BriefingPlan {
  path: string;
  objective?: string;
  status?: string;
  done: number;
  total: number;
  /** Every step in progress (in file order), else the first pending one; empty when none is left. */
  current: { id: string; description: string; status: string; line: number }[];
  /** The pending steps not in `current`, in file order. */
  upcoming: { id: string; description: string; line: number }[];
  blocked: { id: string; description: string; line: number }[];
  /** Set when the plan could not be parsed. */
  error?: string;
  /** A Markdown plan without checklist items (e.g. Claude Code's plan mode): nothing to mark. */
  outline?: boolean;
}

/** A terminal whose last command failed, or ended without an exit status (it may have failed). */
export interface BriefingTerminal {
  /** Workspace-relative path of the N.txt file. */
  path: string;
  name?: string;
  /** An agent session's capture: the agent's name (its own shell commands). */
  agent?: string;
  command: string;
  /** Non-zero, or null when the shell reported no status (then `exitUnknown` says why). */
  exitCode: number | null;
  exitUnknown?: string;
  /** 1-based inclusive line range of that command's output in the file. */
  startLine: number;
  endLine: number;
}

/** Everything the briefing is composed from; gathered by gatherBriefing (briefingSources.ts). */
export interface BriefingInput {
  /** Workspace-relative `.agent` folder (e.g. `.agent` or `app/.agent` in multi-root). */
  agentPath: string;
  plans: BriefingPlan[];
  progress: { path: string; total: number; entries: { date: string; title: string; next?: string; line: number }[] };
  features?: { path: string; passing: number; total: number; tampered: boolean; diff: string[]; failing: { index: number; description: string }[]; error?: string };
  /**
   * `failed`: terminals whose last command failed, newest failure first (at least the first
   * MAX_FAILED_TERMINALS_SHOWN of them); `failedTotal` / `failedUnknown` describe all of them when
   * `failed` holds only the first few (default: the list's length / whether any in it has no exit code).
   */
  terminals: { folder: string; failed: BriefingTerminal[]; total: number; failedTotal?: number; failedUnknown?: boolean };
  scratch: { path: string; files: number; bytes: number };
  skills: { name: string; description: string; path: string }[];
  memory: { path: string; keys: string[]; review: string[]; notes: { path: string; title: string }[]; error?: string };
  /** The most recently active agents first; `total` counts all of them (default: the list's length). */
  agents: { path: string; total?: number; list: { id: string; status?: string; progress?: number; findings: number; path: string }[] };
  history: { path: string; sessions: number; latest?: string };
  /** Notes from the user (src/core/notes/notes.ts lists them); paths already prefixed. */
  humanNotes?: ListedNote[];
}

/** Items per list at each detail level; the composer walks down until the text fits. */
const LEVELS = [
  { now: 6, upcoming: 3, progress: 3, failing: 3, diff: 6, terminals: 5, skills: 15, keys: 30, notes: 5, agents: 8, text: 160 },
  { now: 4, upcoming: 2, progress: 2, failing: 2, diff: 4, terminals: 3, skills: 10, keys: 20, notes: 3, agents: 5, text: 120 },
  { now: 3, upcoming: 1, progress: 2, failing: 1, diff: 3, terminals: 3, skills: 6, keys: 12, notes: 2, agents: 3, text: 90 },
  { now: 2, upcoming: 0, progress: 1, failing: 1, diff: 2, terminals: 2, skills: 3, keys: 6, notes: 1, agents: 2, text: 70 },
  { now: 1, upcoming: 0, progress: 1, failing: 0, diff: 1, terminals: 1, skills: 0, keys: 0, notes: 0, agents: 0, text: 60 },
];
type Level = (typeof LEVELS)[number];

/** The most failed terminals any detail level lists (gatherers need not detail more). */
export const MAX_FAILED_TERMINALS_SHOWN = Math.max(...LEVELS.map((l) => l.terminals));
/** The most notes from the user a briefing shows (the newest). */
export const MAX_NOTES_SHOWN = Math.max(1, ...LEVELS.map((l) => l.notes));

function more(total: number, shown: number, where: string): string[] {
  return total > shown ? [`  … ${total - shown} more in ${where}`] : [];
}

function compose(b: BriefingInput, L: Level, maxPlans: number): string {
  const out: string[] = [`# Briefing (${b.agentPath}/) — re-read after a context reset; open the paths for details`];
  if (b.plans.length === 0) out.push(`Plan: none. Create ${b.agentPath}/plan.yaml (objective, steps) before long work.`);
  for (const p of b.plans.slice(0, maxPlans)) {
    if (p.error) {
      out.push(`Plan ${p.path}: cannot be read — ${clip(p.error, L.text)}`);
      continue;
    }
    if (p.outline) {
      out.push(`Plan ${p.path} (Markdown, no checklist): ${clip(p.objective ?? '', L.text)}`);
      continue;
    }
    out.push(`Plan ${p.path}: ${p.done}/${p.total} done${p.status ? `, ${p.status}` : ''} — ${clip(p.objective ?? '', L.text)}`);
    // Every step in progress is named: the one left out may be the one carrying the user's note.
    for (const s of p.current.slice(0, L.now)) out.push(`  Now: step ${s.id} [${s.status}] ${clip(s.description, L.text)} (${p.path}:${s.line})`);
    out.push(...more(p.current.length, Math.min(L.now, p.current.length), `${p.path} (in progress)`));
    if (p.current.length === 0 && p.total > 0) out.push('  No pending step left.');
    for (const s of p.blocked.slice(0, 2)) out.push(`  Blocked: step ${s.id} ${clip(s.description, L.text)} (${p.path}:${s.line})`);
    for (const s of p.upcoming.slice(0, L.upcoming)) out.push(`  Then: step ${s.id} ${clip(s.description, L.text)} (${p.path}:${s.line})`);
  }
  if (b.plans.length > maxPlans) out.push(`  … ${b.plans.length - maxPlans} more plan files under ${b.agentPath}/plans/`);

  // Notes from the user outrank everything below the plan: at least one is always shown.
  const hn = b.humanNotes ?? [];
  if (hn.length) {
    out.push(`Notes from the user (${hn.length}; follow them):`);
    const shown = hn.slice(-Math.max(1, L.notes));
    for (const n of shown) out.push(`  ${formatNoteForAgent(n, L.text).slice(2)}`);
    out.push(...more(hn.length, shown.length, `${b.agentPath.replace(/\.agent$/, '')}${NOTES_DIR}/`));
  }

  if (b.progress.total === 0) out.push(`Progress log: empty (${b.progress.path}); log each session with the plan tool, action logProgress.`);
  else {
    out.push(`Progress (${b.progress.path}, ${plural(b.progress.total, 'entry', 'entries')}, latest last):`);
    const shown = b.progress.entries.slice(-Math.max(1, L.progress));
    for (const e of shown) out.push(`  ${e.date} — ${clip(e.title, L.text)}${e.next ? ` | Next: ${clip(e.next, L.text)}` : ''} (line ${e.line})`);
  }

  const f = b.features;
  if (f?.error) out.push(`Features ${f.path}: cannot be read — ${clip(f.error, L.text)}`);
  else if (f) {
    out.push(`Features ${f.path}: ${f.passing}/${f.total} passing.`);
    if (f.tampered) {
      out.push('  WARNING: changed outside setPasses since last accepted; setPasses refused until the user runs "Agent Context: Accept Feature List":');
      for (const d of f.diff.slice(0, L.diff)) out.push(`  ${clip(d, L.text + 40)}`);
      out.push(...more(f.diff.length, Math.min(L.diff, f.diff.length), `${b.agentPath}/history/features.accepted.jsonl vs ${f.path}`));
    }
    const fail = f.failing.slice(0, L.failing);
    if (fail.length) out.push(`  Not passing: ${fail.map((x) => `#${x.index} ${clip(x.description, L.text / 2)}`).join('; ')}${f.failing.length > fail.length ? `; +${f.failing.length - fail.length} more` : ''}`);
  }

  const t = b.terminals;
  const failedTotal = t.failedTotal ?? t.failed.length;
  if (failedTotal) {
    const unknown = t.failedUnknown ?? t.failed.some((x) => x.exitCode === null);
    out.push(`Terminals whose last command failed${unknown ? ' or has no exit status' : ''} (${failedTotal} of ${t.total}):`);
    for (const x of t.failed.slice(0, L.terminals)) out.push(`  ${x.path} lines ${x.startLine}-${x.endLine}: ${formatExit(x.exitCode, x.exitUnknown)} \`${clip(x.command, L.text / 2)}\`${x.agent ? ` (${x.agent})` : ''}`);
    out.push(...more(failedTotal, Math.min(L.terminals, t.failed.length), `${t.folder}/ (terminal tool, command lastFailed)`));
  } else if (t.total) out.push(`Terminals: ${t.total} captured in ${t.folder}/, none whose last command failed.`);

  out.push(`Scratch ${b.scratch.path}/: ${countLabel(b.scratch.files, b.scratch.bytes, ', ')}.`);

  if (b.skills.length) {
    out.push(`Skills (${b.skills.length}; load one with the skill tool):`);
    for (const s of b.skills.slice(0, L.skills)) out.push(`  ${s.name}: ${clip(s.description, L.text / 2)} (${s.path})`);
    out.push(...more(b.skills.length, Math.min(L.skills, b.skills.length), 'the skill index (skill tool without a name)'));
  }

  const m = b.memory;
  if (m.error) out.push(`Memory ${m.path}: cannot be read — ${clip(m.error, L.text)}`);
  else if (m.keys.length || m.notes.length) {
    const keys = m.keys.slice(0, L.keys);
    const rest = m.keys.length - keys.length;
    out.push(`Memory ${m.path} (${plural(m.keys.length, 'key')}; recall with the memory tool)${keys.length ? ': ' + keys.map((k) => clip(k, 40)).join(', ') : ''}${rest > 0 ? `, +${rest} more` : ''}`);
    if (m.review.length) out.push(`  To review (value contradicted an earlier one): ${m.review.slice(0, 5).map((k) => clip(k, 40)).join(', ')}${m.review.length > 5 ? ` +${m.review.length - 5}` : ''}`);
    for (const n of m.notes.slice(0, L.notes)) out.push(`  Note ${n.path}${n.title ? `: ${clip(n.title, L.text / 2)}` : ''}`);
    out.push(...more(m.notes.length, Math.min(L.notes, m.notes.length), `${b.agentPath}/memory/`));
  }

  const a = b.agents.list;
  const agentTotal = Math.max(b.agents.total ?? 0, a.length);
  if (a.length) {
    out.push(`Sub-agents (${agentTotal}, most recently active first; ${b.agents.path}/<id>/findings.md):`);
    for (const x of a.slice(0, L.agents)) out.push(`  ${x.id}: ${x.status ?? 'no status'}${x.progress !== undefined ? ` ${Math.round(x.progress * 100)}%` : ''}, ${plural(x.findings, 'finding')}`);
    out.push(...more(agentTotal, Math.min(L.agents, a.length), `${b.agents.path}/`));
  }
  if (b.history.sessions) out.push(`History ${b.history.path}/: ${plural(b.history.sessions, 'archived session')}${b.history.latest ? `, latest ${b.history.latest}` : ''}.`);
  return out.join('\n');
}

/**
 * The briefing's candidate texts, most detailed first: each is yielded with its token count sent
 * back; the first that fits is returned. Shared by the two drivers below (sync: the hooks' short
 * processes; async: the tool and command, which count off the thread).
 */
function* candidates(input: BriefingInput, maxTokens: number): Generator<string, { text: string; tokens: number }, number> {
  for (const maxPlans of [3, 1]) {
    for (const L of LEVELS) {
      const text = compose(input, L, maxPlans);
      const tokens = yield text;
      if (tokens <= maxTokens) return { text, tokens };
    }
  }
  // Last resort (pathological inputs such as huge names): cut whole lines from the end.
  const lines = compose(input, LEVELS[LEVELS.length - 1], 1).split('\n');
  const tail = `… briefing cut to fit ${maxTokens} tokens; see ${input.agentPath}/`;
  while (lines.length > 1) {
    lines.pop();
    const text = [...lines, tail].join('\n');
    const tokens = yield text;
    if (tokens <= maxTokens) return { text, tokens };
  }
  return { text: tail, tokens: yield tail };
}

/** Composes the briefing text within `maxTokens` (default 1,500), dropping detail until it fits. */
export function composeBriefing(input: BriefingInput, maxTokens = BRIEFING_MAX_TOKENS): { text: string; tokens: number } {
  const g = candidates(input, maxTokens);
  let r = g.next();
  while (!r.done) r = g.next(countTokens(r.value).tokens);
  return r.value;
}

/**
 * composeBriefing counting with countTokensAsync (never loads the tokenizer on this thread when a
 * worker is in use). A candidate is first sized by its lines' counts, remembered from earlier calls
 * (a briefing's lines mostly repeat: at a heavy user's size the detailed candidates do not fit and
 * each whole-text count cost ~3 ms): the sum, plus a token per line break, is never below the
 * text's count, since splitting a text only separates tokens. Clearly under the budget: taken;
 * clearly over: passed; close to it: counted whole. `exact`: the returned count is the text's own
 * (the Show Briefing command prints it), else it may be that upper bound (the tool uses the text only).
 */
export async function composeBriefingAsync(input: BriefingInput, maxTokens = BRIEFING_MAX_TOKENS, opts: { exact?: boolean } = {}): Promise<{ text: string; tokens: number }> {
  const g = candidates(input, maxTokens);
  let r = g.next();
  while (!r.done) {
    const bound = await linesBound(r.value);
    const sure = bound <= maxTokens * 0.98 || bound > maxTokens * 1.1;
    r = g.next(sure ? bound : (await countTokensAsync(r.value)).tokens);
  }
  return opts.exact === false ? r.value : { text: r.value.text, tokens: (await countTokensAsync(r.value.text)).tokens };
}

/** The sum of `text`'s lines' token counts (remembered by countTokensAsync) plus one per line break: at least the text's own count. */
async function linesBound(text: string): Promise<number> {
  const lines = text.split('\n');
  let n = lines.length - 1;
  for (const line of lines) if (line) n += (await countTokensAsync(line)).tokens;
  return n;
}
