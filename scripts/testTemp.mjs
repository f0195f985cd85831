// npm test's own temp folder. Every process of the run (the unit tiers, the editors and their
// extension hosts, the agent CLIs) gets it as TMPDIR, so whatever is left in it at the end was left
// by this run, not by another run on the same machine. The tests name their temp folders `ac-…`
// (ac-it-… in the editor suites): one of those still there means a test did not clean up after
// itself. An editor suite's (ac-it-…) fails the run, named; another test's is named as a warning
// (the slow tier still leaves some; they are removed with the folder). Everything else in the folder
// (what editors and CLIs keep in their temp dirs) is removed with it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { makeTempDir, removeTempDir } from '../test/runner/processes.mjs';

/** The prefix of every temp folder a test makes. */
export const TEST_TEMP_PREFIX = 'ac-';
/** The prefix of an editor suite's temp folders: one left fails the run. */
export const EDITOR_TEST_TEMP_PREFIX = 'ac-it-';

/** Which leftovers (testLeftovers) fail the run, and which are only named. */
export function judgeLeftovers(left) {
  const failing = left.filter((d) => path.basename(d).startsWith(EDITOR_TEST_TEMP_PREFIX));
  return { failing, warned: left.filter((d) => !failing.includes(d)) };
}

/**
 * Makes the run's temp folder (under the machine's temp dir, removed at exit or by a later run's
 * sweep if this one dies). Sticky and open to all like /tmp: tests run programs as `nobody`.
 */
export function makeRunTemp() {
  const dir = makeTempDir('tmp');
  fs.chmodSync(dir, 0o1777);
  return dir;
}

/** The test temp folders left in `dir`, sorted (what the run's summary names). */
export function testLeftovers(dir) {
  let entries;
  try {
    entries = fs.readdirSync(dir);
  } catch {
    return [];
  }
  return entries.filter((e) => e.startsWith(TEST_TEMP_PREFIX)).sort().map((e) => path.join(dir, e));
}

/** Removes the run's temp folder and everything in it. */
export function removeRunTemp(dir) {
  removeTempDir(dir);
}
