import * as fs from 'node:fs';
import * as path from 'node:path';
import { cutToBytes, formatDuration, formatReference, scanFile } from '../output/reference';
import { formatFileError } from '../result';
import { type TerminalCommand, type TerminalInfo } from '../terminal/terminalFormat';
import { listTerminals, readOneTerminal, readTerminalIndex } from '../terminal/terminalIndex';
import { agentOf, isClosed, terminalCatalog, type CatalogTerminal } from '../terminal/catalog/terminalCatalog';
import { lineOffsetBefore, terminalSummary } from '../terminal/terminalSummary';
import { EXIT_UNKNOWN, formatExit, noStatusHint, shownCommandLine } from '../terminal/commandExit';
import { defaultFolder, displayPath } from '../workspace/workspacePaths';
import { foldCommandSpool } from '../terminal/agentCommands/sessionFold';
import { TOOL_ANSWER_MAX_BYTES, toolError, type ToolContext, type ToolOutcome } from './toolContext';
import { sharedNotes, withCurrentOrphans } from '../notes/notes';
import { formatNotesSection, matchNotes } from '../notes/noteText';
import { agentDirOf, agentPath } from '../workspace/agentLayout';
import { groupDigits } from '../output/humanize';
import { AGENT_NAMES, agentName } from '../hooks/agentNames';
import { isInside, toPosixRelative } from '../workspace/relativePaths';

const RECENT = 3;
/** The `agent` value that picks the integrated terminals (not an agent's own commands). */
const TERMINALS_ONLY = 'terminals';

/** The tool's `agent` input: undefined (everything), TERMINALS_ONLY, an agent id; null when it is none of these. */
function agentFilter(v: unknown): string | undefined | null {
  if (v === undefined || v === null || v === '') return undefined;
  const id = String(v).trim().toLowerCase();
  if (id === TERMINALS_ONLY || id in AGENT_NAMES) return id;
  return null;
}

/** What the answer counts, for the filter in force: "3 captured terminals or agent sessions", "1 session of Codex CLI". */
function scopeNoun(only: string | undefined, count: number): string {
  const s = count === 1 ? '' : 's';
  if (only === undefined) return `${count} captured terminal${s} or agent session${s}`;
  if (only === TERMINALS_ONLY) return `${count} integrated terminal${s}`;
  return `${count} session${s} of ${agentName(only)}`;
}
/** A terminal file larger than this is not one capture wrote (it rotates at 10 MB): references to it are refused. */
const MAX_REFERENCED_FILE_BYTES = 256 * 1024 * 1024;

function status(c: TerminalCommand): string {
  if (c.status === 'running') return 'running';
  return formatExit(c.exitCode, c.exitUnknown);
}

/** Done commands after `after` (or all) whose exit is unknown although they ran to their end: possible failures. */
function unknownAfter(cmds: TerminalCommand[], after: number): TerminalCommand[] {
  return cmds.filter((x) => x.command > after && x.status === 'done' && x.exitCode === null && (x.exitUnknown === EXIT_UNKNOWN.noStatus || x.exitUnknown === EXIT_UNKNOWN.noEndEvent));
}

function lines(c: TerminalCommand): string {
  if (c.lastLine === null) return `lines ${c.firstLine}–`;
  if (c.lastLine < c.firstLine) return 'no output';
  return `lines ${c.firstLine}–${c.lastLine}`;
}

/** A terminal whose brief has a `last` or `lastFailed` command, with that command's end. */
interface Candidate {
  x: CatalogTerminal;
  endMs: number;
  command: number;
}

/** The catalog gives the same array while nothing changed: its candidates' order is worked out once per array and question. */
const recencyOrders = new WeakMap<readonly CatalogTerminal[], Map<'last' | 'lastFailed', Candidate[]>>();

/**
 * The terminals whose brief has a `which` command, the newest (by its end) first; of two that ended
 * at the same time, the later in the catalog's order (the higher number) first. The first one in
 * scope is the answer, so a filter reads the info of the terminals newer than its pick only.
 */
function newestFirst(items: readonly CatalogTerminal[], which: 'last' | 'lastFailed'): Candidate[] {
  let byWhich = recencyOrders.get(items);
  if (!byWhich) recencyOrders.set(items, (byWhich = new Map()));
  let list = byWhich.get(which);
  if (!list) {
    const at: (Candidate & { i: number })[] = [];
    items.forEach((x, i) => {
      const b = which === 'lastFailed' ? x.brief.lastFailed : x.brief.last;
      if (b) at.push({ x, endMs: b.endMs, command: b.command, i });
    });
    at.sort((a, b) => b.endMs - a.endMs || b.i - a.i);
    list = at.map(({ x, endMs, command }) => ({ x, endMs, command }));
    byWhich.set(which, list);
  }
  return list;
}

/** agentContext_terminal: lists captured terminals, or references one command's exact line range. */
export async function terminalTool(input: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutcome> {
  const folder = defaultFolder(ctx.folders);
  if (!folder) return toolError('no workspace folder is open');
  const agentDir = agentDirOf(folder.path);
  const show = (relToAgent: string): string => displayPath(ctx.folders, folder, path.join(agentDir, relToAgent));
  const untrusted = ctx.trusted ? '' : 'Terminal capture is off: this workspace is not trusted (trust it to capture new output).\n';
  const which = String(input.command ?? 'last').trim().replace(/^#/, '');
  const only = agentFilter(input.agent);
  if (only === null) return toolError(`agent must be an agent's id (${Object.keys(AGENT_NAMES).join(', ')}) or "terminals" (the integrated terminals), not "${input.agent}"`);
  // Without a filter every terminal is in scope, and `info` is not looked at (a lazy catalog reads N.txt when it is; agentOf reads it only when the index's closing record does not say).
  const mine = (x: CatalogTerminal): boolean => only === undefined || (only === TERMINALS_ONLY ? !agentOf(x) : agentOf(x) === only);
  if (input.terminal === undefined && input.command === undefined) {
    // Which terminals there are and how they rank come from the catalog; only the ones shown are read in detail.
    // The listing ranks by the last command; N.txt is read for the terminals shown, and for the others only where their index's closing record does not say whether they are closed and whose they are (lazyInfo).
    const cat = await terminalCatalog(agentDir, { need: 'last', lazyInfo: true });
    if (!cat.ok) return toolError(formatFileError(cat.error));
    const items = only === undefined ? cat.value : cat.value.filter(mine); // the catalog's own array when unfiltered (listingOrder keeps its order by it)
    if (items.length === 0) return { text: `${untrusted}No ${scopeNoun(only, 0).replace(/^0 /, '')} in .agent/terminals/ yet.` };
    const { notes } = await sharedNotes(folder.path, { marks: false }); // notes from the user (src/core/notes/notes.ts); counted, not shown
    return { text: untrusted + (await formatListing(items, notes, show, folder.path, agentDir, TOOL_ANSWER_MAX_BYTES - Buffer.byteLength(untrusted))) };
  }
  let n: number;
  let c: TerminalCommand | undefined;
  let cmds: TerminalCommand[] | undefined;
  let unknownNote = '';
  let shell: string | null = null;
  let info: TerminalInfo | undefined;
  if (input.terminal === undefined) {
    // No terminal given: the most recent failure (or command) across all terminals, found in the catalog, then read from that terminal.
    if (which !== 'lastFailed' && which !== 'last') return toolError(`command ${input.command} needs terminal (the N of .agent/terminals/N.txt); without it, use last or lastFailed`);
    const need = which === 'lastFailed' ? 'lastFailed' : 'last';
    // Only the terminals looked at in newest-first order until one is in scope have their N.txt read
    // (lazyInfo; `info` reads it): without a filter the newest alone, with one those newer than the pick.
    let cat = await terminalCatalog(agentDir, { need, lazyInfo: true });
    let best: Candidate | undefined;
    let found: TerminalCommand | undefined;
    for (let attempt = 0; ; attempt++) {
      if (!cat.ok) return toolError(formatFileError(cat.error));
      best = newestFirst(cat.value, need).find((k) => mine(k.x));
      const sum = best && (await terminalSummary(agentDir, best.x.n));
      found = sum && (which === 'lastFailed' ? sum.lastFailed : sum.last);
      // The terminal's index says otherwise than the catalog's brief (changed since it was checked): check it now and pick again.
      if (!best || found?.command === best.command || attempt === 2) break;
      cat = await terminalCatalog(agentDir, { check: [best.x.n], need, lazyInfo: true });
    }
    if (!best || !found) {
      const count = cat.ok ? cat.value.filter(mine).length : 0;
      return { text: `${untrusted}${which === 'lastFailed' ? 'No failed command' : 'No command'} in any of the ${scopeNoun(only, count)}.` };
    }
    info = best.x.info;
    n = info.n;
    c = found;
    shell = info.shell;
  } else {
    n = input.terminal as number;
    // An agent session's newest commands may still be in the spool (the catalog folds them for the other branches).
    await foldCommandSpool(agentDir).catch(() => undefined);
    const t = Number.isInteger(n) && n >= 0 ? await readOneTerminal(agentDir, n) : undefined;
    if (!t) {
      const list = await listTerminals(agentDir);
      if (!list.ok) return toolError(formatFileError(list.error));
      return toolError(`no captured terminal ${n}; captured: ${list.value.map((x) => x.n).join(', ') || 'none'}`);
    }
    if (t.error) return toolError(`${show(t.file)} ${t.error}`);
    shell = t.shell;
    info = t;
    const sum = await terminalSummary(agentDir, n);
    if (sum.commands === 0) return toolError(`terminal ${n} has no indexed commands (shell integration off?); grep ${show(t.file)} instead`);
    if (which === 'last') c = sum.last;
    else if (which === 'lastFailed') {
      c = sum.lastFailed;
      // A later command whose shell reported no status may have failed too: name it rather than hide it.
      const unknown = unknownAfter(sum.recent, c?.command ?? 0).slice(-RECENT);
      if (unknown.length) {
        const hint = unknown.some((x) => x.exitUnknown === EXIT_UNKNOWN.noStatus) ? noStatusHint(t.shell) : undefined;
        unknownNote = `${c ? 'Later c' : 'C'}ommand${unknown.length === 1 ? '' : 's'} with unknown exit (may have failed): ${unknown.map((x) => `#${x.command} \`${cutToBytes(shownCommandLine(x.commandLine), 80)}\` ${status(x)}`).join('; ')}.${hint ? ` ${hint}.` : ''}`;
      }
      if (!c) return { text: `No failed command in terminal ${n} (${sum.commands} commands; last: #${sum.last!.command} ${status(sum.last!)}).${unknownNote ? `\n${unknownNote}` : ''}` };
    } else if (/^\d+$/.test(which)) {
      c = sum.recent.find((x) => x.command === Number(which));
      if (!c) {
        // An older command: only then is the whole index read.
        const idx = await readTerminalIndex(agentDir, n);
        if (!idx.ok) return toolError(formatFileError(idx.error));
        cmds = idx.value.commands;
        c = cmds.find((x) => x.command === Number(which));
      }
    } else return toolError(`command must be last, lastFailed or a command number, not "${input.command}"`);
    if (!c) return toolError(`terminal ${n} has no command ${which}; it has ${cmds?.[0]?.command ?? 1}–${sum.last?.command ?? sum.commands}`);
  }
  // After a rotation the output is split; the reference covers the newest part and names the others.
  const part = c.parts[c.parts.length - 1] ?? { file: c.file, firstLine: c.firstLine, lastLine: c.lastLine };
  const others = c.parts.slice(0, -1).map((p) => `${show(p.file)} lines ${p.firstLine}–${p.lastLine ?? 'end'}`);
  const abs = path.join(agentDir, part.file);
  // Capture rotates its files at 10 MB: one far larger was not written by it, and reading it line by line could take minutes.
  const size = (await fs.promises.stat(abs).catch(() => undefined))?.size ?? 0;
  if (size > MAX_REFERENCED_FILE_BYTES) {
    return toolError(`${show(part.file)} is ${(size / 1048576).toFixed(0)} MB, far beyond the 10 MB at which terminal capture starts a new file, so it was not written by Agent Context and its line numbers cannot be trusted: read it with agentContext_read (offset/limit) or grep it`);
  }
  const end = part.lastLine ?? Number.MAX_SAFE_INTEGER;
  const rel = toPosixRelative(folder.path, abs);
  // Notes the user attached to this command (or to lines of it) travel with its reference, inside the byte bound.
  const { notes: all } = await sharedNotes(folder.path, { marks: false });
  const cmdFile = toPosixRelative(folder.path, path.join(agentDir, c.file));
  // Only terminal N's notes can match one of its commands (its number, or a path among its files).
  const ofTerminal = notesByTerminal(all, toPosixRelative(folder.path, agentPath(agentDir, 'terminals'))).get(n) ?? [];
  const noted = await withCurrentOrphans(folder.path, matchNotes(ofTerminal, { path: cmdFile, startLine: c.headerLine, endLine: c.lastLine ?? Number.MAX_SAFE_INTEGER, terminal: n, command: c.command }));
  const notesText = formatNotesSection(noted, Math.floor(ctx.config.referenceMaxBytes / 3));
  const withNotes = (t: string) => (notesText ? `${t}\n${notesText}` : t);
  const title = info?.agent ? `${info.name} (terminal ${n}) command #${c.command}` : `Terminal ${n} command #${c.command}`;
  // An agent's command whose output its hook offloaded: the block holds the reference the agent read; the answer refers to the whole output.
  const full = c.saved ? path.join(agentDir, c.saved) : undefined;
  if (full && isInside(agentDir, full) && (await fs.promises.stat(full).catch(() => undefined))?.isFile()) {
    try {
      const scan = await scanFile(full, undefined, ctx.signal);
      const text = formatReference(scan, {
        title,
        path: displayPath(ctx.folders, folder, full),
        grepPath: toPosixRelative(folder.path, full),
        command: shownCommandLine(c.commandLine),
        cwd: c.cwd ?? undefined,
        exitCode: c.exitCode,
        durationMs: c.durationMs ?? undefined,
        masked: c.secretsMasked,
        note: `The agent read a reference to this output: ${show(c.file)} lines ${c.headerLine}–${(c.lastLine ?? c.headerLine) + 1}.${unknownNote ? ` ${unknownNote}` : ''}`,
        maxBytes: ctx.config.referenceMaxBytes - (notesText ? Buffer.byteLength(notesText) + 1 : 0),
      });
      return { text: withNotes(untrusted + text), rawTokens: scan.tokens.tokens };
    } catch {
      // the saved output is gone or unreadable: the block the agent read is referenced below
    }
  }
  const meta = {
    title,
    path: show(part.file),
    grepPath: rel,
    command: shownCommandLine(c.commandLine),
    cwd: c.cwd ?? undefined,
    exitCode: c.status === 'running' ? undefined : c.exitCode,
    durationMs: c.durationMs ?? undefined,
    masked: c.secretsMasked,
    note: [
      c.status === 'running' ? `Still running (started ${c.started}).` : '',
      c.status === 'done' && c.exitCode === null ? `Exit status unknown: ${c.exitUnknown ?? 'not recorded'}.${c.exitUnknown === EXIT_UNKNOWN.noStatus ? ` ${noStatusHint(shell) ?? ''}` : ''}`.trim() : '',
      others.length ? `Earlier output: ${others.join(', ')}.` : '',
      c.diskFull ? 'Part of its output was lost while the disk was full (see the [capture paused: disk full] line).' : '',
      unknownNote,
    ].filter(Boolean).join(' ') || undefined,
    maxBytes: ctx.config.referenceMaxBytes - (notesText ? Buffer.byteLength(notesText) + 1 : 0),
  };
  if (part.lastLine !== null && part.lastLine < part.firstLine) {
    const extra = [c.status === 'done' && c.exitCode === null && c.exitUnknown === EXIT_UNKNOWN.noStatus ? noStatusHint(shell) : undefined, unknownNote].filter(Boolean).join('\n');
    return { text: withNotes(`${title}: ${shownCommandLine(c.commandLine)}\n${status(c)}${c.durationMs !== null ? ` · ${formatDuration(c.durationMs)}` : ''} · no output (${show(part.file)} line ${c.headerLine}).${extra ? `\n${extra}` : ''}`) };
  }
  try {
    const range = { start: part.firstLine, end };
    const scan = await scanFile(abs, range, ctx.signal, await lineOffsetBefore(agentDir, part.file, part.firstLine));
    // The referenced output is what the model would otherwise have read: its tokens are the raw size.
    return { text: withNotes(untrusted + formatReference(scan, { ...meta, range })), rawTokens: scan.tokens.tokens };
  } catch (e) {
    return toolError(`${show(part.file)}: cannot read: ${(e as Error).message}`);
  }
}

type Noted = Awaited<ReturnType<typeof sharedNotes>>['notes'];

/**
 * Terminals that matter now come first: live ones (newest activity first), then those whose last
 * command failed, then the rest by recency. One whose index's closing record says it is closed is
 * ranked without its N.txt (a lazy catalog's); if that N.txt cannot be read, its line says so where it is shown.
 */
function rank(a: CatalogTerminal): number {
  if (!a.brief.closed && a.info.error) return -1; // a terminal file that cannot be read: one short line, said first, never cut off by the budget
  if (!isClosed(a)) return 0;
  const last = a.brief.last;
  if (last && last.status === 'done' && last.exitCode !== null && last.exitCode !== 0) return 1;
  return 2;
}

/**
 * The notes that can match a command of terminal N (their `terminal` is N, or their target is one of
 * N's files), by N: the listing matches each shown command against its terminal's notes only, not
 * against every note in the folder (thousands, for a heavy user).
 */
function notesByTerminal(notes: Noted, terminalsRel: string): Map<number, Noted> {
  // The listing is the same array while no note changed: grouped once (10,000 notes took ~7 ms a call).
  const memo = groupedNotes.get(notes);
  if (memo?.terminalsRel === terminalsRel) return memo.by;
  const by = new Map<number, Noted[number][]>();
  groupedNotes.set(notes, { terminalsRel, by });
  const add = (k: number, n: Noted[number]): void => {
    const list = by.get(k);
    if (!list) by.set(k, [n]);
    else if (list[list.length - 1] !== n) list.push(n);
  };
  for (const n of notes) {
    if (n.terminal !== undefined) add(n.terminal, n);
    if (n.path.startsWith(`${terminalsRel}/`)) {
      const m = /^(\d+)\./.exec(n.path.slice(terminalsRel.length + 1));
      if (m) add(Number(m[1]), n);
    }
  }
  return by;
}

const groupedNotes = new WeakMap<Noted, { terminalsRel: string; by: Map<number, Noted> }>();

/** The catalog gives the same array while nothing changed: its ordering is worked out once (10,000 terminals take milliseconds to sort). */
const orders = new WeakMap<readonly CatalogTerminal[], { ordered: CatalogTerminal[]; live: number; failing: number; sessions: number }>();

function listingOrder(items: readonly CatalogTerminal[]): { ordered: CatalogTerminal[]; live: number; failing: number; sessions: number } {
  let o = orders.get(items);
  if (!o) {
    const recency = (x: CatalogTerminal): number => x.brief.last?.endMs ?? 0;
    const ranks = new Map(items.map((x) => [x, rank(x)]));
    o = {
      ordered: [...items].sort((a, b) => ranks.get(a)! - ranks.get(b)! || recency(b) - recency(a) || b.n - a.n),
      live: items.filter((x) => !isClosed(x)).length,
      failing: items.filter((x) => ranks.get(x) === 1).length,
      sessions: items.filter((x) => agentOf(x)).length,
    };
    orders.set(items, o);
  }
  return o;
}

/** The no-argument listing, within `budget` bytes; what does not fit is counted and named. Only the terminals shown are read in detail. */
async function formatListing(items: readonly CatalogTerminal[], notes: Noted, show: (rel: string) => string, root: string, agentDir: string, budget: number): Promise<string> {
  const { ordered, live, failing, sessions } = listingOrder(items);
  const what = sessions === 0 ? `${items.length} captured terminal${items.length === 1 ? '' : 's'}` : sessions === items.length ? `${sessions} agent session${sessions === 1 ? '' : 's'} (their own shell commands)` : `${items.length - sessions} captured terminal${items.length - sessions === 1 ? '' : 's'} and ${sessions} agent session${sessions === 1 ? '' : 's'} (their own shell commands)`;
  const head = `${what}, ${live} open, ${failing} closed with a failed last command; open ones first, newest activity first:`;
  const tail = 'Details of one: terminal N with command last, lastFailed or #; without terminal, command lastFailed finds the latest failure anywhere (agent: one agent\'s sessions only).';
  const out: string[] = [head];
  let used = Buffer.byteLength(head) + Buffer.byteLength(tail) + 200;
  let shown = 0;
  const notesOf = notesByTerminal(notes, toPosixRelative(root, agentPath(agentDir, 'terminals')));
  for (const x of ordered) {
    const t = x.info; // read here (a lazy catalog's N.txt) for the terminals shown only
    const block: string[] = [];
    if (t.error) {
      block.push(`Terminal ${t.n}: ${show(t.file)} ${t.error}`);
      const text = block.join('\n');
      if (used + Buffer.byteLength(text) + 1 > budget) break;
      out.push(text);
      used += Buffer.byteLength(text) + 1;
      shown++;
      continue;
    }
    const s = await terminalSummary(agentDir, t.n);
    block.push(`Terminal ${t.n} "${t.name}" (${show(t.file)}, ${groupDigits(t.sizeBytes)} bytes${isClosed(x) ? ', closed' : ', open'}${t.agent ? `, ${t.agent}'s own commands` : t.shellIntegration ? '' : ', no shell integration: commands not indexed'}): ${groupDigits(s.commands)} command${s.commands === 1 ? '' : 's'}`);
    const recent = s.recent.slice(-RECENT);
    for (const c of recent) {
      const file = toPosixRelative(root, path.join(agentDir, c.file));
      const noted = matchNotes(notesOf.get(t.n) ?? [], { path: file, startLine: c.headerLine, endLine: c.lastLine ?? Number.MAX_SAFE_INTEGER, terminal: t.n, command: c.command }).length;
      block.push(`  #${c.command} ${status(c)} · ${cutToBytes(shownCommandLine(c.commandLine), 120)} · ${lines(c)}${noted ? ` · ${noted} note${noted === 1 ? '' : 's'} from the user` : ''}`);
    }
    if (s.commands > recent.length) block.push(`  … ${groupDigits(s.commands - recent.length)} earlier command${s.commands - recent.length === 1 ? '' : 's'} (terminal ${t.n}, command #)`);
    if (s.lastFailed && !recent.some((c) => c.command === s.lastFailed!.command)) block.push(`  last failure: #${s.lastFailed.command} ${status(s.lastFailed)} · ${cutToBytes(shownCommandLine(s.lastFailed.commandLine), 80)}`);
    const text = block.join('\n');
    const b = Buffer.byteLength(text) + 1;
    if (used + b > budget) break;
    out.push(text);
    used += b;
    shown++;
  }
  if (shown < ordered.length) {
    const rest = ordered.slice(shown).map((x) => x.n).sort((a, b) => a - b);
    const names = rest.length > 30 ? `${rest.slice(0, 30).join(', ')}, …` : rest.join(', ');
    out.push(`… ${rest.length} more terminal${rest.length === 1 ? '' : 's'} not shown (${names}): call with terminal N, or grep ${show('terminals')}/.`);
  }
  out.push(tail);
  return out.join('\n');
}
