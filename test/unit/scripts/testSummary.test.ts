// scripts/testSummary.mjs, the counts in `npm test`'s last line: read from what node's test runner
// really prints (its spec reporter, as scripts/unit.mjs runs it), skipped tests are counted and named.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../../repoRoot';

interface Counts { passed: number; failed: number; skipped: number; skippedNames: string[]; failedNames: string[] }
interface SummaryModule {
  unitCounts(stdout: string): Counts | undefined;
  summaryLine(totals: { passed: number; failed: number; skipped: number }): string;
}
// A variable specifier keeps tsc from resolving (and type-checking) the .mjs script.
const load = (): Promise<SummaryModule> => import(pathToFileURL(path.join(repoRoot, 'scripts/testSummary.mjs')).href) as Promise<SummaryModule>;

test('npm test counts and names the skipped and the failed unit tests, as node --test reports them', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-test-summary-'));
  try {
    const file = path.join(dir, 'sample.test.js');
    fs.writeFileSync(
      file,
      `const { test, describe } = require('node:test');
test('runs', () => {});
test('fails', () => { throw new Error('no'); });
test('needs root', { skip: 'run as root to check this' }, () => {});
describe('a group', () => {
  test('skipped inside', (t) => t.skip());
  test('also runs', () => {});
});
`,
    );
    // Without NODE_TEST_CONTEXT: inside a test run, a nested runner would report to this one instead of printing.
    const env = { ...process.env };
    delete env.NODE_TEST_CONTEXT;
    const r = spawnSync(process.execPath, ['--test', '--test-reporter=spec', file], { encoding: 'utf8', cwd: dir, env });
    const { unitCounts, summaryLine } = await load();
    const counts = unitCounts(r.stdout);
    assert.ok(counts, r.stdout);
    assert.deepEqual([counts.passed, counts.failed, counts.skipped], [2, 1, 2]);
    assert.deepEqual(counts.skippedNames, ['needs root (run as root to check this)', 'skipped inside']);
    // The failed test is named at the end of a long log, with where it is and its error's first line.
    assert.deepEqual(counts.failedNames, ['fails (sample.test.js:3:1): Error: no']);
    assert.equal(summaryLine({ passed: 2, failed: 1, skipped: 2 }), '2 passed, 1 failed, 2 skipped');
    assert.equal(unitCounts('the runner crashed before its summary\n'), undefined);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
