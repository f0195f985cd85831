import * as path from 'node:path';
import { buildReference, cutToBytes, formatDuration } from '../reference';
import { formatFileError } from '../result';
import { listTerminals, readTerminalIndex, type TerminalCommand } from '../terminal/terminalIndex';
import { EXIT_UNKNOWN, formatExit, noStatusHint, shownCommandLine } from '../terminal/commandExit';
import { defaultFolder, displayPath } from '../workspacePaths';
import { INLINE_MAX_BYTES, toolError, type ToolContext, type ToolOutcome } from './toolContext';
import { formatNotesSection, listNotes, matchNotes } from '../notes';

const RECENT = 3;

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

/** agentContext_terminal: lists captured terminals, or references one command's exact line range. */
export async function terminalTool(input: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutcome> {
  const folder = defaultFolder(ctx.folders);
  if (!folder) return toolError('no workspace folder is open');
  const agentDir = path.join(folder.path, '.agent');
  const show = (relToAgent: string): string => displayPath(ctx.folders, folder, path.join(agentDir, relToAgent));
  const untrusted = ctx.trusted ? '' : 'Terminal capture is off: this workspace is not trusted (trust it to capture new output).\n';
  const list = await listTerminals(agentDir);
  if (!list.ok) return toolError(formatFileError(list.error));
  if (input.terminal === undefined) {
    if (list.value.length === 0) return { text: `${untrusted}No captured terminals in .agent/terminals/ yet.` };
    const out: string[] = [];
    const { notes } = await listNotes(folder.path); // notes from the user (src/core/notes.ts)
    for (const t of list.value) {
      const idx = await readTerminalIndex(agentDir, t.n);
      const cmds = idx.ok ? idx.value.commands : [];
      out.push(`Terminal ${t.n} "${t.name}" (${show(t.file)}, ${t.sizeBytes.toLocaleString('en-US')} bytes${t.closed ? ', closed' : ''}${t.shellIntegration ? '' : ', no shell integration: commands not indexed'}): ${cmds.length} command${cmds.length === 1 ? '' : 's'}`);
      for (const c of cmds.slice(-RECENT)) {
        const file = path.relative(folder.path, path.join(agentDir, c.file)).split(path.sep).join('/');
        const noted = matchNotes(notes, { path: file, startLine: c.headerLine, endLine: c.lastLine ?? Number.MAX_SAFE_INTEGER, terminal: t.n, command: c.command }).length;
        out.push(`  #${c.command} ${status(c)} · ${cutToBytes(shownCommandLine(c.commandLine), 120)} · ${lines(c)}${noted ? ` · ${noted} note${noted === 1 ? '' : 's'} from the user` : ''}`);
      }
    }
    out.push('Details of one: terminal N with command last, lastFailed or #.');
    return { text: cutToBytes(untrusted + out.join('\n'), INLINE_MAX_BYTES - 200) };
  }
  const n = input.terminal as number;
  const t = list.value.find((x) => x.n === n);
  if (!t) return toolError(`no captured terminal ${n}; captured: ${list.value.map((x) => x.n).join(', ') || 'none'}`);
  const idx = await readTerminalIndex(agentDir, n);
  if (!idx.ok) return toolError(formatFileError(idx.error));
  const cmds = idx.value.commands;
  if (cmds.length === 0) return toolError(`terminal ${n} has no indexed commands (shell integration off?); grep ${show(t.file)} instead`);
  const which = String(input.command ?? 'last').trim().replace(/^#/, '');
  let c: TerminalCommand | undefined;
  let unknownNote = '';
  if (which === 'last') c = cmds[cmds.length - 1];
  else if (which === 'lastFailed') {
    c = [...cmds].reverse().find((x) => x.status === 'done' && x.exitCode !== null && x.exitCode !== 0);
    // A later command whose shell reported no status may have failed too: name it rather than hide it.
    const unknown = unknownAfter(cmds, c?.command ?? 0).slice(-RECENT);
    if (unknown.length) {
      const hint = unknown.some((x) => x.exitUnknown === EXIT_UNKNOWN.noStatus) ? noStatusHint(t.shell) : undefined;
      unknownNote = `${c ? 'Later c' : 'C'}ommand${unknown.length === 1 ? '' : 's'} with unknown exit (may have failed): ${unknown.map((x) => `#${x.command} \`${cutToBytes(shownCommandLine(x.commandLine), 80)}\` ${status(x)}`).join('; ')}.${hint ? ` ${hint}.` : ''}`;
    }
    if (!c) return { text: `No failed command in terminal ${n} (${cmds.length} commands; last: #${cmds[cmds.length - 1].command} ${status(cmds[cmds.length - 1])}).${unknownNote ? `\n${unknownNote}` : ''}` };
  } else if (/^\d+$/.test(which)) c = cmds.find((x) => x.command === Number(which));
  else return toolError(`command must be last, lastFailed or a command number, not "${input.command}"`);
  if (!c) return toolError(`terminal ${n} has no command ${which}; it has ${cmds[0].command}–${cmds[cmds.length - 1].command}`);
  // After a rotation the output is split; the reference covers the newest part and names the others.
  const part = c.parts[c.parts.length - 1] ?? { file: c.file, firstLine: c.firstLine, lastLine: c.lastLine };
  const others = c.parts.slice(0, -1).map((p) => `${show(p.file)} lines ${p.firstLine}–${p.lastLine ?? 'end'}`);
  const abs = path.join(agentDir, part.file);
  const end = part.lastLine ?? Number.MAX_SAFE_INTEGER;
  const rel = path.relative(folder.path, abs).split(path.sep).join('/');
  // Notes the user attached to this command (or to lines of it) travel with its reference, inside the byte bound.
  const { notes: all } = await listNotes(folder.path);
  const cmdFile = path.relative(folder.path, path.join(agentDir, c.file)).split(path.sep).join('/');
  const noted = matchNotes(all, { path: cmdFile, startLine: c.headerLine, endLine: c.lastLine ?? Number.MAX_SAFE_INTEGER, terminal: n, command: c.command });
  const notesText = formatNotesSection(noted, Math.floor(ctx.config.referenceMaxBytes / 3));
  const withNotes = (t: string) => (notesText ? `${t}\n${notesText}` : t);
  const meta = {
    title: `Terminal ${n} command #${c.command}`,
    path: show(part.file),
    grepPath: rel,
    command: shownCommandLine(c.commandLine),
    cwd: c.cwd ?? undefined,
    exitCode: c.status === 'running' ? undefined : c.exitCode,
    durationMs: c.durationMs ?? undefined,
    masked: c.secretsMasked,
    note: [
      c.status === 'running' ? `Still running (started ${c.started}).` : '',
      c.status === 'done' && c.exitCode === null ? `Exit status unknown: ${c.exitUnknown ?? 'not recorded'}.${c.exitUnknown === EXIT_UNKNOWN.noStatus ? ` ${noStatusHint(t.shell) ?? ''}` : ''}`.trim() : '',
      others.length ? `Earlier output: ${others.join(', ')}.` : '',
      unknownNote,
    ].filter(Boolean).join(' ') || undefined,
    maxBytes: ctx.config.referenceMaxBytes - (notesText ? Buffer.byteLength(notesText) + 1 : 0),
  };
  if (part.lastLine !== null && part.lastLine < part.firstLine) {
    const extra = [c.status === 'done' && c.exitCode === null && c.exitUnknown === EXIT_UNKNOWN.noStatus ? noStatusHint(t.shell) : undefined, unknownNote].filter(Boolean).join('\n');
    return { text: withNotes(`Terminal ${n} command #${c.command}: ${shownCommandLine(c.commandLine)}\n${status(c)}${c.durationMs !== null ? ` · ${formatDuration(c.durationMs)}` : ''} · no output (${show(part.file)} line ${c.headerLine}).${extra ? `\n${extra}` : ''}`) };
  }
  try {
    const text = await buildReference(abs, { ...meta, range: { start: part.firstLine, end } }, ctx.signal);
    return { text: withNotes(untrusted + text) };
  } catch (e) {
    return toolError(`${show(part.file)}: cannot read: ${(e as Error).message}`);
  }
}
