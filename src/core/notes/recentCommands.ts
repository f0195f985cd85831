import { listTerminalsPage, readTerminalIndexTail } from '../terminal/terminalIndex';
import type { TerminalCommand, TerminalInfo } from '../terminal/terminalFormat';

/** How many terminals, and commands of each, a note can be attached to without opening the Terminals view. */
export const NOTE_PICK_TERMINALS = 5;
export const NOTE_PICK_COMMANDS_PER_TERMINAL = 10;

/**
 * The commands a note picker offers: the newest `perTerminal` commands (newest first) of each of the
 * newest `terminals` captures (the catalog's order: live terminals first, then newest). Reads only
 * the end of each index, so the cost does not grow with history. A terminal whose index cannot be
 * read is left out.
 */
export async function recentTerminalCommands(
  agentDir: string,
  opts: { terminals?: number; perTerminal?: number } = {},
): Promise<{ info: TerminalInfo; cmd: TerminalCommand }[]> {
  const page = await listTerminalsPage(agentDir, { count: opts.terminals ?? NOTE_PICK_TERMINALS });
  if (!page.ok) return [];
  const out: { info: TerminalInfo; cmd: TerminalCommand }[] = [];
  for (const info of page.value.terminals) {
    const tail = await readTerminalIndexTail(agentDir, info.n, { count: opts.perTerminal ?? NOTE_PICK_COMMANDS_PER_TERMINAL });
    if (!tail.ok) continue;
    for (const cmd of [...tail.value.commands].reverse()) out.push({ info, cmd });
  }
  return out;
}
