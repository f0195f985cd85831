/*
 * When agentContext_run may skip the confirmation: only when the WHOLE command matches an
 * allow-list entry (`*` matches any characters, nothing else is special) and the command has no
 * shell operator that could chain, substitute or redirect. Quotes are not parsed: `grep 'a|b' f`
 * asks too, which is the safe side.
 */

const COMPOUND = /;|&|\||\$\(|`|>|<|\n|\r/;

/** The operator that makes a command compound (`;`, `&&`, `||`, `|`, `$(`, backtick, `&`, a redirect, a newline), if any. */
export function compoundOperator(command: string): string | undefined {
  const m = COMPOUND.exec(command);
  if (!m) return undefined;
  const rest = command.slice(m.index, m.index + 2);
  if (rest === '&&' || rest === '||' || rest === '$(' || rest === '>>') return rest;
  if (m[0] === '\n' || m[0] === '\r') return 'a line break';
  return m[0];
}

function entryRegex(entry: string): RegExp {
  const norm = entry.trim().replace(/\s+/g, ' ');
  const body = norm.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*');
  return new RegExp(`^${body}$`);
}

/** The allow-list entry the whole command matches, or undefined (compound commands never match). */
export function allowListMatch(command: string, allowList: readonly string[]): string | undefined {
  if (compoundOperator(command) !== undefined) return undefined;
  const norm = command.trim().replace(/\s+/g, ' ');
  return allowList.find((e) => e.trim() !== '' && entryRegex(e).test(norm));
}

/** Why a command may not run without asking, or undefined when the allow-list covers it. */
export function runNeedsConfirmation(command: string, allowList: readonly string[]): string | undefined {
  const op = compoundOperator(command);
  if (op) return `it contains ${op}, so it always asks`;
  if (!allowListMatch(command, allowList)) return 'it is not on the allow-list (agentContext.run.allowList)';
  return undefined;
}
