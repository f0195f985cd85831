// npm test: lint, strict type check, core unit tests, then the integration suite in the real editor.
import { spawnSync } from 'node:child_process';

const steps = [
  ['lint', 'npx', ['eslint', 'src', 'test', 'scripts']],
  ['typecheck + compile tests', 'npx', ['tsc', '-p', '.']],
  ['unit tests', process.execPath, ['scripts/unit.mjs']],
];
for (const [name, cmd, args] of steps) {
  console.log(`\n=== ${name} ===`);
  const r = spawnSync(cmd, args, { stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`\n${name} failed (exit ${r.status})`);
    process.exit(r.status ?? 1);
  }
}
