// The bench probe extension (bench/editorProbe), packaged once into out/bench-probe/ and again only
// when its files change. Installed into the editors of rows 7a/10 (scripts/benchEditor.mjs) and 16
// (scripts/benchSoak.mjs): it runs the scenario module named by AGENT_CONTEXT_BENCH_SCENARIO.
import * as path from 'node:path';
import { repoRoot } from '../test/runner/deps.mjs';
import { packageVsix } from '../test/runner/integration.mjs';

const PROBE_DIR = path.join(repoRoot, 'bench/editorProbe');
const PROBE_VSIX = path.join(repoRoot, 'out/bench-probe/agent-context-bench-probe.vsix');

/** The probe's .vsix, packaged when missing or older than its sources. */
export function probeVsix() {
  return packageVsix(PROBE_DIR, PROBE_VSIX, 'bench/editorProbe');
}
