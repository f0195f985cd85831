// The extensionTestsPath module: VS Code (code-server through the smoke-test driver, or desktop
// through @vscode/test-electron) loads it in the extension host and awaits run(). Mocha runs the
// suite files the runner chose (AGENT_CONTEXT_TEST_FILES), reports each test through the bridge
// log, screenshots failed tests, and writes the totals to AGENT_CONTEXT_TEST_RESULTS.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import Mocha from 'mocha';
import { bridgeAvailable, flushLog, log, runName, ui } from './bridge';

interface Results {
  run: string;
  passed: number;
  failed: number;
  pending: number;
  failures: string[];
  tests: { title: string; state: string; durationMs?: number }[];
}

const results: Results = { run: runName, passed: 0, failed: 0, pending: 0, failures: [], tests: [] };

/**
 * The suites to load: the runner's list, or (launched without the runner, e.g. from launch.json)
 * those of the 'dev' run in test/runner/runs.mjs.
 */
async function suiteFiles(): Promise<string[]> {
  const listed = process.env.AGENT_CONTEXT_TEST_FILES;
  if (listed) return JSON.parse(listed) as string[];
  const runsModule = path.resolve(__dirname, '../../../test/runner/runs.mjs');
  const { runs, suiteFiles: select } = (await import(pathToFileURL(runsModule).href)) as {
    runs: { name: string }[];
    suiteFiles: (run: unknown) => string[];
  };
  return select(runs.find((r) => r.name === 'dev'));
}

function firstLines(text: string, n: number): string {
  return text.split('\n').slice(0, n).join('\n');
}

/** A compact spec-like reporter whose lines go to the runner through the bridge. */
class BridgeReporter extends Mocha.reporters.Base {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    let depth = 0;
    const { EVENT_SUITE_BEGIN, EVENT_SUITE_END, EVENT_TEST_PASS, EVENT_TEST_FAIL, EVENT_TEST_PENDING, EVENT_RUN_END } =
      Mocha.Runner.constants;
    const pad = () => '  '.repeat(depth);
    runner.on(EVENT_SUITE_BEGIN, (suite: Mocha.Suite) => {
      if (suite.title) void log(`${pad()}${suite.title}`);
      depth++;
    });
    runner.on(EVENT_SUITE_END, () => depth--);
    runner.on(EVENT_TEST_PASS, (test: Mocha.Test) => {
      results.passed++;
      results.tests.push({ title: test.fullTitle(), state: 'passed', durationMs: test.duration });
      void log(`${pad()}✔ ${test.title} (${test.duration ?? 0} ms)`);
    });
    runner.on(EVENT_TEST_FAIL, (test: Mocha.Test, err: Error) => {
      results.failed++;
      const message = `${test.fullTitle()}: ${err?.message ?? err}`;
      results.failures.push(message);
      results.tests.push({ title: test.fullTitle(), state: 'failed' });
      void log(`${pad()}✘ ${test.title}`);
      void log(`${pad()}    ${firstLines(String(err?.stack ?? err), 12).replace(/\n/g, `\n${pad()}    `)}`);
    });
    runner.on(EVENT_TEST_PENDING, (test: Mocha.Test) => {
      results.pending++;
      results.tests.push({ title: test.fullTitle(), state: 'pending' });
      void log(`${pad()}- ${test.title} (pending)`);
    });
    runner.on(EVENT_RUN_END, () => {
      void log(`mocha [${runName}]: ${results.passed} passing, ${results.failed} failing${results.pending ? `, ${results.pending} pending` : ''}`);
    });
  }
}

function writeResults(): void {
  const file = process.env.AGENT_CONTEXT_TEST_RESULTS;
  if (file) fs.writeFileSync(file, JSON.stringify(results, null, 2));
}

/** Entry point called by the extension host. Rejects when any test failed. */
export async function run(): Promise<void> {
  const grep = process.env.AGENT_CONTEXT_TEST_GREP;
  const mocha = new Mocha({
    ui: 'bdd',
    timeout: 60_000,
    slow: 10_000,
    color: false,
    reporter: BridgeReporter,
    ...(grep ? { grep } : {}),
    rootHooks: {
      async afterEach(this: Mocha.Context) {
        const test = this.currentTest;
        if (!bridgeAvailable()) return;
        if (test?.state === 'failed') {
          try {
            const file = await ui.screenshot(test.fullTitle());
            void log(`    screenshot: ${file}`);
          } catch (e) {
            void log(`    (no screenshot: ${(e as Error).message})`);
          }
        }
        // A test that failed half-way (or forgot) must not leave a menu or dialog over the next one.
        try {
          const closed = await ui.resetUi();
          if (closed.length && test?.state !== 'failed') void log(`    (closed a left-over ${closed.join(', ')} after this test)`);
        } catch {
          /* the page is gone: the runner reports that */
        }
      },
    },
  });
  try {
    for (const f of await suiteFiles()) mocha.addFile(f);
    const failures = await new Promise<number>((resolve) => mocha.run(resolve));
    // A failing hook counts in `failures` but not as a failed test: keep the totals honest.
    if (failures > results.failed) results.failed = failures;
  } catch (e) {
    results.failed++;
    results.failures.push(`loading the suites failed: ${(e as Error)?.stack ?? e}`);
    void log(`loading the suites failed: ${(e as Error)?.stack ?? e}`);
  }
  writeResults();
  await flushLog();
  if (results.failed > 0) throw new Error(`${results.failed} integration test(s) failed`);
}
