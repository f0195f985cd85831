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
