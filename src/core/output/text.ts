/** Folds whitespace to single spaces and cuts to at most n characters, ending with … when cut. */
export function clip(s: string, n: number): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > n ? one.slice(0, n - 1) + '…' : one;
}
