// What `npm test` (scripts/test.mjs) counts: passed, failed and skipped tests, and the names of those
// skipped, so a test that did not run (a root-only fault test run as another user, a suite whose tool
// is missing) is seen in the last line instead of passing silently.

/**
 * The counts of node's test runner, read from its spec reporter's output: `ℹ pass N`, `ℹ fail N`,
 * `ℹ skipped N`, and each skipped test's line `﹣ <title> (<ms>ms) # <reason>`. Undefined when the
 * output has no summary (the runner did not get that far).
 */
export function unitCounts(stdout) {
  const num = (label) => {
    const m = new RegExp(`^\\S*\\s*${label} (\\d+)$`, 'm').exec(stdout);
    return m ? Number(m[1]) : undefined;
  };
  const passed = num('pass');
  const failed = num('fail');
  if (passed === undefined || failed === undefined) return undefined;
  const skippedNames = [];
  for (const line of stdout.split('\n')) {
    const m = /^\s*﹣ (.*?) \([\d.]+m?s\)(?: # (.*))?$/.exec(line);
    // "# SKIP" is what the runner prints for a skip without a reason.
    if (m) skippedNames.push(m[2] && m[2] !== 'SKIP' ? `${m[1]} (${m[2]})` : m[1]);
  }
  return { passed, failed, skipped: num('skipped') ?? skippedNames.length, skippedNames, failedNames: failedNames(stdout) };
}

/**
 * The failing tests the spec reporter lists after "✖ failing tests:", each as
 * "name (file:line): first line of its error", so the summary at the end of a long log names them.
 */
export function failedNames(stdout) {
  const at = stdout.lastIndexOf('✖ failing tests:');
  if (at < 0) return [];
  const lines = stdout.slice(at).split('\n');
  const out = [];
  let where = '';
  for (let i = 1; i < lines.length; i++) {
    const loc = /^test at (.+)$/.exec(lines[i].trim());
    if (loc) where = loc[1];
    const m = /^✖ (.*?) \([\d.]+m?s\)$/.exec(lines[i].trim());
    if (!m) continue;
    const error = lines.slice(i + 1, i + 4).map((l) => l.trim()).find((l) => l !== '') ?? '';
    out.push(`${m[1]}${where ? ` (${where})` : ''}${error ? `: ${error.slice(0, 200)}` : ''}`);
    where = '';
  }
  return out;
}

/** The last line of `npm test`: "N passed, M failed, K skipped". */
export function summaryLine({ passed, failed, skipped }) {
  return `${passed} passed, ${failed} failed, ${skipped} skipped`;
}
