/**
 * The catalog's terminals as the Terminals view shows them once agents' own commands are recorded:
 * one group per agent (newest activity first), its sessions newest first, and the integrated
 * terminals apart. Whether a folder has an agent-command history at all is one stat: the spool
 * folder exists once any hook has recorded a command (a folder without it keeps the plain list).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { agentName } from '../../hooks/agentNames';
import { agentOf, isClosed, type CatalogTerminal } from '../catalog/terminalCatalog';
import { SPOOL_DIR } from './commandSpool';

/** One agent's sessions. */
export interface AgentGroup {
  agent: string;
  /** The name a user reads. */
  label: string;
  /** Newest activity first. */
  sessions: CatalogTerminal[];
  /** When its newest command ended (ms since epoch; 0 when none is known). */
  lastMs: number;
  /** Sessions still open (its agent still running, or active within the idle time). */
  open: number;
}

/** When a terminal's last command ended (0 when it has none). */
export function lastActivityMs(t: CatalogTerminal): number {
  return t.brief.last?.endMs ?? 0;
}

type Grouped = { agents: AgentGroup[]; terminals: CatalogTerminal[] };

/** The grouping of each catalog answer: the catalog hands out the same array while nothing changed, and the view is refreshed on every command. */
const groupedMemo = new WeakMap<readonly CatalogTerminal[], Grouped>();

/** Splits the catalog into agent groups and the integrated terminals (in the catalog's order). Callers do not change what it returns. */
export function groupByAgent(items: readonly CatalogTerminal[]): Grouped {
  const known = groupedMemo.get(items);
  if (known) return known;
  const byAgent = new Map<string, CatalogTerminal[]>();
  const terminals: CatalogTerminal[] = [];
  // agentOf/isClosed and `n`, never `info` here: a lazy catalog reads N.txt for an info looked at, and this loop sees every terminal (10,000 at a heavy user's).
  for (const t of items) {
    const a = agentOf(t);
    if (!a) {
      terminals.push(t);
      continue;
    }
    const list = byAgent.get(a);
    if (list) list.push(t);
    else byAgent.set(a, [t]);
  }
  const agents: AgentGroup[] = [];
  for (const [agent, list] of byAgent) {
    const sessions = [...list].sort((a, b) => lastActivityMs(b) - lastActivityMs(a) || b.n - a.n);
    agents.push({ agent, label: agentName(agent), sessions, lastMs: lastActivityMs(sessions[0]), open: sessions.filter((s) => !isClosed(s)).length });
  }
  agents.sort((a, b) => b.lastMs - a.lastMs || a.label.localeCompare(b.label));
  const out = { agents, terminals };
  groupedMemo.set(items, out);
  return out;
}

/** True when some agent's own commands were ever recorded in this `.agent/` folder (one stat). */
export function hasAgentHistory(agentDir: string): boolean {
  return fs.statSync(path.join(agentDir, SPOOL_DIR), { throwIfNoEntry: false })?.isDirectory() ?? false;
}
