// The bench probe extension (bench/editorProbe), packaged once into out/bench-probe/ and again only
// when its files change. Installed into the editors of rows 7a/10 (scripts/benchEditor.mjs) and 16
// (scripts/benchSoak.mjs): it runs the scenario module named by AGENT_CONTEXT_BENCH_SCENARIO.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from '../test/runner/deps.mjs';

const PROBE_DIR = path.join(repoRoot, 'bench/editorProbe');
const PROBE_VSIX = path.join(repoRoot, 'out/bench-probe/agent-context-bench-probe.vsix');

/** The probe's .vsix, packaged when missing or older than its sources. */
export function probeVsix() {
  const newest = Math.max(...fs.readdirSync(PROBE_DIR).map((f) => fs.statSync(path.join(PROBE_DIR, f)).mtimeMs));
  if (fs.existsSync(PROBE_VSIX) && fs.statSync(PROBE_VSIX).mtimeMs > newest) return PROBE_VSIX;
  fs.mkdirSync(path.dirname(PROBE_VSIX), { recursive: true });
  const r = spawnSync(path.join(repoRoot, 'node_modules/.bin/vsce'),
    ['package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '-o', PROBE_VSIX],
    { cwd: PROBE_DIR, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`packaging bench/editorProbe failed:\n${r.stdout}${r.stderr}`);
  return PROBE_VSIX;
}
