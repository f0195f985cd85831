const ID_RE = /^[A-Za-z0-9._-]{1,64}$/;

/** Returns why an agent id is not acceptable, or undefined. */
export function checkAgentId(id: unknown): string | undefined {
  if (typeof id !== 'string' || !ID_RE.test(id)) return `agent id must be 1–64 characters of A–Z a–z 0–9 . _ - (got ${JSON.stringify(id)?.slice(0, 80)})`;
  if (id === '.' || id === '..') return 'agent id cannot be "." or ".."';
  return undefined;
}
