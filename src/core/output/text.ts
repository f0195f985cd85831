/** Folds whitespace to single spaces and cuts to at most n characters, ending with … when cut. */
export function clip(s: string, n: number): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > n ? one.slice(0, n - 1) + '…' : one;
}

/**
 * Escapes Markdown syntax so `text` renders literally. Unlike VS Code's MarkdownString.appendText it
 * keeps spaces as spaces: appendText turns each into `&nbsp;`, so a sentence cannot wrap and a
 * narrow chat panel cuts it off.
 */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>~]/g, '\\$&');
}

/** The prefix every notification toast starts with, once (VS Code shows toasts from all extensions together). */
export const NOTICE_PREFIX = 'Agent Context: ';

/**
 * The one rule for notification text: toasts and dialogs render no Markdown, so code spans lose
 * their backticks (`.agent/` reads .agent/); a toast starts with "Agent Context: " exactly once,
 * while a modal dialog (a question about the action the user just chose) has no prefix; the
 * message after it starts with a capital letter.
 */
export function noticeText(text: string, opts: { modal?: boolean } = {}): string {
  const plain = noticeDetail(text);
  const bare = capitalizeSentence(plain.startsWith(NOTICE_PREFIX) ? plain.slice(NOTICE_PREFIX.length) : plain);
  return opts.modal ? bare : NOTICE_PREFIX + bare;
}

/**
 * A dialog's detail under the rule: plain text (code spans lose their backticks), its case kept —
 * a detail often starts with the user's own data (a memory value, a command, a file name).
 */
export function noticeDetail(text: string): string {
  return text.replace(/`([^`\n]+)`/g, '$1');
}

/**
 * A message starts as a sentence ("Moved …", "Created …", never "moved …" beside "Added …"): the first
 * letter goes up when the first word is a plain lowercase word. A name that must keep its case
 * (`chat.useHooks`, `.agent/`, `npm`-like words with dots, slashes or digits) is left alone.
 */
function capitalizeSentence(s: string): string {
  return /^[a-z]+(?=[\s,;:.!?]|$)/.test(s) && !/^[a-z]+\.[A-Za-z]/.test(s) ? s.charAt(0).toUpperCase() + s.slice(1) : s;
}
