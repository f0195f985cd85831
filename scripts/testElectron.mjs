// npm run test:electron: the integration runs in VS Code desktop (downloaded by @vscode/test-electron,
// or VSCODE_EXECUTABLE) instead of code-server: same driver, suites, fixtures and bridge. Expects
// out/ and dist/ built (the npm script does that). Needs internet or a cached VS Code, and a display
// (on headless Linux: xvfb-run -a npm run test:electron). Cannot run on the project's own machines.
//   node scripts/testElectron.mjs [--run dev,restricted,vsix] [--grep pattern] [--keep]
import { spawnSync } from 'node:child_process';
import { cleanNpmEnv, repoRoot } from '../test/runner/deps.mjs';
import { electronEditor } from '../test/runner/electron.mjs';
import { runIntegration } from '../test/runner/integration.mjs';
import { runs } from '../test/runner/runs.mjs';

const argv = process.argv.slice(2);
const value = (name) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const names = (value('--run') ?? 'dev,restricted,vsix').split(',');
// Real-client runs (Claude Code) need no editor: they run in npm test only.
const selected = runs.filter((r) => names.includes(r.name) && !r.client);
if (selected.length === 0) {
  console.error(`no run named ${names.join(', ')}; runs: ${runs.map((r) => r.name).join(', ')}`);
  process.exit(2);
}
if (selected.some((r) => r.extension === 'vsix')) {
  const r = spawnSync('npm', ['run', '--silent', 'package'], { cwd: repoRoot, stdio: 'inherit', env: cleanNpmEnv() });
  if (r.status !== 0) process.exit(1);
}
const editor = electronEditor();
let passed = 0;
let failed = 0;
for (const run of selected) {
  console.log(`\n--- run ${run.name} in VS Code desktop`);
  const res = await runIntegration(run, { editor, grep: value('--grep'), keep: argv.includes('--keep') });
  passed += res.passed;
  failed += res.failed;
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
