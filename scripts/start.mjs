// npm start: builds and packages Agent Context, installs it into the cached code-server (profile
// under ~/.cache/agent-context/demo), creates or reuses the demo workspace .demo/workspace and
// serves it on 127.0.0.1 (PORT or a free port). Ctrl-C stops code-server and everything it started.
//   node scripts/start.mjs [--no-build] [--port N] [--folder DIR]
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startCodeServer } from '../test/runner/codeServer.mjs';
import { demoBase, demoProfile, packageExtension, VSIX, writeDemoWorkspace } from '../test/runner/demo.mjs';
import { ensureDeps, repoRoot } from '../test/runner/deps.mjs';
import { onCleanup, sweepOrphans } from '../test/runner/processes.mjs';

const argv = process.argv.slice(2);
const arg = (name) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const port = Number(arg('--port') ?? process.env.PORT ?? 0) || undefined;
// AGENT_CONTEXT_DEMO_FOLDER lets scripts/start-check.mjs run `npm start` as written on a workspace of its own.
const folder = path.resolve(arg('--folder') ?? process.env.AGENT_CONTEXT_DEMO_FOLDER ?? path.join(repoRoot, '.demo/workspace'));

try {
  if (!argv.includes('--no-build') || !fs.existsSync(VSIX)) {
    console.log('[start] building and packaging the extension (npm run package)');
    packageExtension();
  }
  ensureDeps(['editor']);
  sweepOrphans((m) => console.log(`[start] ${m}`));
  const reused = fs.existsSync(folder);
  writeDemoWorkspace(folder);
  console.log(`[start] ${reused ? 'reusing' : 'created'} the demo workspace ${path.relative(process.cwd(), folder) || folder}`);
  const base = demoBase();
  console.log(`[start] installing agent-context.vsix into the demo profile ${base}`);
  const profile = demoProfile(base);
  const server = await startCodeServer({ profile, port });
  const stop = onCleanup(() => server.stop());
  server.child.on('exit', async (code, signal) => {
    console.log(`[start] code-server exited (${code ?? signal})`);
    await stop();
    process.exit(code ?? 1);
  });
  console.log('');
  console.log(`  Agent Context demo: ${server.url}/?folder=${encodeURIComponent(folder)}`);
  console.log('');
  console.log('  Open the "Agent Context" entry in the Activity Bar; run ./noisy-build.sh in a terminal.');
  console.log('  Ctrl-C stops the server.');
} catch (e) {
  console.error(`[start] ${e.message ?? e}`);
  process.exit(1);
}
