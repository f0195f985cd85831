/*
 * When agentContext_run may skip the confirmation: only when the WHOLE command matches an
 * allow-list entry (`*` matches any characters, nothing else is special) and the command has no
 * shell operator that could chain, substitute or redirect. Quotes are not parsed: `grep 'a|b' f`
 * asks too, which is the safe side.
 */

import type { TerminalRules } from '../config';

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

/** The rule of `chat.tools.terminal.autoApprove` deciding `command`: deny wins over approve; undefined when none matches. */
export function terminalRuleDecision(command: string, rules: TerminalRules | undefined): { approve: boolean; rule: string } | undefined {
  if (!rules || typeof rules !== 'object') return undefined;
  const norm = command.trim().replace(/\s+/g, ' ');
  let approved: string | undefined;
  for (const [key, raw] of Object.entries(rules)) {
    const approve = typeof raw === 'boolean' ? raw : raw && typeof raw === 'object' && typeof (raw as { approve?: unknown }).approve === 'boolean' ? (raw as { approve: boolean }).approve : undefined;
    if (approve === undefined || !ruleMatches(key, norm)) continue;
    if (!approve) return { approve: false, rule: key };
    approved ??= key;
  }
  return approved === undefined ? undefined : { approve: true, rule: approved };
}

function ruleMatches(key: string, command: string): boolean {
  const re = /^\/(.+)\/([dgimsuy]*)$/.exec(key);
  if (re) {
    try {
      return new RegExp(re[1], re[2].replace('g', '')).test(command);
    } catch {
      return false; // a rule VS Code cannot use either
    }
  }
  const k = key.trim().replace(/\s+/g, ' ');
  // VS Code's rule semantics: a command prefix (its sub-commands and arguments follow a space).
  return k !== '' && (command === k || command.startsWith(`${k} `));
}

/**
 * Why a command may not run without asking, or undefined when an allow-list covers it: our
 * `agentContext.run.allowList` or an approving rule of the user's `chat.tools.terminal.autoApprove`.
 * Compound commands and commands a terminal rule denies always ask.
 */
export function runNeedsConfirmation(command: string, allowList: readonly string[], terminalRules?: TerminalRules): string | undefined {
  const op = compoundOperator(command);
  if (op) return `it contains ${op}, so it always asks`;
  const rule = terminalRuleDecision(command, terminalRules);
  if (rule && !rule.approve) return `your chat.tools.terminal.autoApprove rule "${rule.rule}" denies it`;
  if (allowListMatch(command, allowList) || rule?.approve) return undefined;
  return 'it is not on the allow-list (agentContext.run.allowList, or an approving chat.tools.terminal.autoApprove rule)';
}
