/*
 * The user's command inside the `-c` string an agent's shell was started with (what the shell
 * capture sees as BASH_EXECUTION_STRING): each agent wraps the command its own way. Only used to
 * name the command in a reference and the ledger; when no known wrapping is found, the whole
 * string is the command.
 */

/** Reads one shell word at `i` (single quotes, double quotes, backslashes, bare text); undefined when it is not a plain word. */
export function readShellWord(s: string, i: number): { word: string; end: number } | undefined {
  let out = '';
  let j = i;
  while (j < s.length && !/[\s;&|<>()]/.test(s[j])) {
    const c = s[j];
    if (c === "'") {
      const close = s.indexOf("'", j + 1);
      if (close < 0) return undefined;
      out += s.slice(j + 1, close);
      j = close + 1;
    } else if (c === '"') {
      j++;
      while (j < s.length && s[j] !== '"') {
        if (s[j] === '\\' && j + 1 < s.length && '"\\$`\n'.includes(s[j + 1])) {
          if (s[j + 1] !== '\n') out += s[j + 1];
          j += 2;
        } else if (s[j] === '$' || s[j] === '`') {
          return undefined; // an expansion: not a literal word
        } else out += s[j++];
      }
      if (j >= s.length) return undefined;
      j++;
    } else if (c === '\\') {
      if (j + 1 < s.length && s[j + 1] !== '\n') out += s[j + 1];
      j += 2;
    } else if (c === '$' || c === '`') {
      return undefined;
    } else out += s[j++];
  }
  return j > i ? { word: out, end: j } : undefined;
}

/** The command the user (the model) gave, from the `-c` string of the agent's shell. */
export function commandFromExecString(s: string): string {
  // Claude Code: `<snapshot> && <env file>\n: && … && eval '<command>' < /dev/null && pwd -P >| <file>`.
  const claude = /(?:^|&& )eval (?=\S)/g;
  let m: RegExpExecArray | null;
  let last: { word: string; end: number } | undefined;
  while ((m = claude.exec(s))) {
    const w = readShellWord(s, m.index + m[0].length);
    if (w && /^\s*(?:<\s*\/dev\/null\s*)?&& pwd -P >\|/.test(s.slice(w.end))) last = w;
  }
  if (last) return last.word;
  // Gemini CLI: `shopt …; _bgpids_file=…\n(\n  trap 'jobs -p > "$_bgpids_file"' EXIT\n<command>\n)\n__code=$?\nexit $__code`.
  const gemini = /\n\(\n {2}trap 'jobs -p > "\$_bgpids_file"' EXIT\n([\s\S]*)\n\)\n__code=\$\?\nexit \$__code\s*$/.exec(s);
  if (gemini) return gemini[1];
  // Codex: a snapshot wrapper that ends by exec'ing the shell with the command (its inner shell
  // usually captures instead, with the command alone).
  const codex = /\nexec '[^']+' -c ('(?:[^']|'\\'')*')\s*$/.exec(s);
  if (codex && s.includes('__CODEX_SNAPSHOT_')) return readShellWord(codex[1], 0)?.word ?? s;
  return s;
}
