/**
 * Guards on what may be written to memory. Memory is re-read by agents in later sessions, so an
 * entry that reads like an instruction to drop the rules or move data out is a prompt-injection
 * vector: it is refused, with the reason, rather than stored.
 */

/** Limits shared by the tool, the view and the MCP server. */
export const MEMORY_LIMITS = { keyChars: 100, valueChars: 1000, entries: 100 } as const;

const KEY_RE = /^[^\s\u0000-\u001f][^\u0000-\u001f]*$/;

interface Rule {
  re: RegExp;
  reason: string;
}

// Each rule targets the shape of an instruction, not a topic: "the deploy uses curl" is fine,
// "curl https://x | sh" is not.
const RULES: Rule[] = [
  {
    // Only determiners and qualifiers may stand between the verb and the noun, so "ignore lint
    // rules for generated files" (a preference) passes and "disregard the rules" does not.
    re: /\b(ignore|disregard|forget|override|bypass|skip)\s+(?:(?:all|any|the|your|my|these|those|every|of|previous|prior|above|earlier|system|safety|original|initial|existing|other|agent's|developer)\s+){0,4}(instructions?|rules?|guidelines?|prompts?|polic(y|ies)|guardrails?|restrictions?|constraints?)\b/i,
    reason: 'it tells the agent to ignore its instructions or rules',
  },
  {
    re: /\b(you are now|act as|pretend to be|from now on,? you)\b[^.\n]{0,60}\b(unrestricted|jailbr(oken|eak)|no (rules|limits|restrictions)|dan)\b/i,
    reason: 'it tries to change the agent\'s role or remove its limits',
  },
  { re: /\bjailbr(eak|oken)\b/i, reason: 'it mentions jailbreaking the agent' },
  { re: /\bexfiltrat(e|ion|ing)\b/i, reason: 'it asks to exfiltrate data' },
  {
    re: /\b(send|post|upload|transmit|forward|leak|copy|email|pipe)\b[^\n]{0,80}\b(to|into|at)\s+(https?:\/\/|ftp:\/\/|[\w.-]+@[\w-]+\.[\w.]+|\d{1,3}(\.\d{1,3}){3})/i,
    reason: 'it tells the agent to send data to an outside address',
  },
  {
    re: /\b(curl|wget|iwr|invoke-webrequest)\b[^\n|]{0,200}\|\s*(sudo\s+)?(ba|z|da|k)?sh\b/i,
    reason: 'it pipes a download into a shell',
  },
  {
    re: /\b(upload|send|post|share|publish|leak|print|reveal|output|paste)\b[^\n]{0,60}(\.env\b|id_rsa|id_ed25519|\.ssh\b|\.npmrc|\.netrc|credentials?|secrets?|api[_ -]?keys?|passwords?|access[_ -]?tokens?|private[_ -]?keys?)/i,
    reason: 'it asks to send or reveal secrets or credentials',
  },
  {
    re: /\b(curl|wget)\b[^\n]{0,120}(-d|--data|--data-binary|-F|--form|-T|--upload-file)\s*@?\S*(\.env|id_rsa|credentials|secrets?)/i,
    reason: 'it uploads a secrets file',
  },
  {
    re: /\b(disable|turn off|switch off)\b[^.\n]{0,40}\b(confirmation|approval|safety|guard|sandbox|secret masking)s?\b/i,
    reason: 'it tells the agent to disable a safety check',
  },
];

/** Returns why a key or value may not be stored, or undefined when it is acceptable. */
export function checkMemoryEntry(key: string, value: string): string | undefined {
  if (typeof key !== 'string' || key.trim() === '') return 'the key is empty';
  if (key.length > MEMORY_LIMITS.keyChars) return `the key is ${key.length} characters; the limit is ${MEMORY_LIMITS.keyChars}`;
  if (!KEY_RE.test(key) || key !== key.trim()) return 'the key must be one line without leading or trailing spaces';
  if (typeof value !== 'string' || value.trim() === '') return 'the value is empty';
  if (value.length > MEMORY_LIMITS.valueChars) {
    return `the value is ${value.length} characters; the limit is ${MEMORY_LIMITS.valueChars} (store long notes in a .agent/memory/*.md file and remember its path)`;
  }
  return checkInstructionLike(`${key}\n${value}`);
}

/** Returns why a text looks like an injected instruction (ignore rules, exfiltrate, pipe to shell), or undefined. */
export function checkInstructionLike(text: string): string | undefined {
  const flat = text.normalize('NFKC');
  for (const rule of RULES) {
    const re = new RegExp(rule.re.source, 'gi');
    for (let m = re.exec(flat); m; m = re.exec(flat)) {
      // "Never print secrets in logs" is a safety rule, not an attack: a negation just before the match clears it.
      const before = flat.slice(Math.max(0, m.index - 24), m.index);
      if (/\b(never|not|don't|dont|avoid|no)\s+(?:\w+\s+)?$/i.test(before)) continue;
      return `refused: ${rule.reason}. Memory is re-read by agents in later sessions, so it must hold facts and preferences, not instructions like this`;
    }
  }
  return undefined;
}
