// Bundles the extension (dist/extension.js), the MCP server (dist/mcp.js), the agents' hook program
// (dist/agent-hook.js), opencode's plugin (dist/opencode-plugin.mjs), the lazily loaded tokenizer (dist/tokenizer.js, kept out of the main
// bundle so activation stays light), the MCP server's terminal catalog worker (dist/catalog-worker.js), the digest check worker (dist/digest-check.js), the editor's notes worker (dist/notes-worker.js) and the ranked search worker (dist/search-worker.js); copies the hooks' shell side (dist/agent-context-shell.sh,
// dist/agent-hook.sh) and writes the secret prefilter they read (dist/secret-keywords.ere).
import * as esbuild from 'esbuild';
import { pathToFileURL } from 'node:url';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

/**
 * One namespace object per Node built-in (and vscode) for the whole bundle. esbuild turns each
 * `import * as fs from 'node:fs'` into its own `__toESM(require('node:fs'))`, which copies every
 * export of the module onto a new object: 145 such copies in dist/extension.js (46 of node:fs,
 * 29 of the vscode API), done while the extension host loads the bundle, in the same block as
 * activate(). Routed through one re-exporting module each, they are copied once: loading the
 * bundle took ~40 ms of CPU before and ~29 ms after (node 20, vscode stubbed). The namespaces are
 * the same live views of the modules as before.
 * @type {import('esbuild').Plugin}
 */
const sharedBuiltins = {
  name: 'shared-builtins',
  setup(build) {
    build.onResolve({ filter: /^(node:[a-z_/]+|vscode)$/ }, (a) =>
      a.namespace === 'shared-builtin' ? { path: a.path, external: true } : { path: a.path, namespace: 'shared-builtin' },
    );
    build.onLoad({ filter: /.*/, namespace: 'shared-builtin' }, (a) => ({
      contents: `export * from ${JSON.stringify(a.path)}; export { default } from ${JSON.stringify(a.path)};`,
      loader: 'js',
    }));
  },
};

/** @type {import('esbuild').BuildOptions} */
const common = {
  plugins: [sharedBuiltins],
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  minify: production,
  sourcemap: !production,
  sourcesContent: false,
  logLevel: 'warning',
  // The tokenizer tables are large: both bundles require dist/tokenizer.js at first use.
  // tokens.ts falls back to the package itself (tests, benchmarks); keep that out of the bundles.
  // The same for re2js (user secret patterns only): dist/re2.js, and for the search and TOML
  // packages (first grep or glob, a .gitleaks.toml): dist/search-deps.js. Ranked search runs on its
  // worker (dist/search-worker.js), which the caller's thread loads too when the worker cannot run.
  // jsonc-parser's `main` is a UMD build whose requires esbuild cannot follow: its ES module build.
  alias: { 'jsonc-parser': './node_modules/jsonc-parser/lib/esm/main.js' },
  external: ['vscode', './tokenizer.js', 'gpt-tokenizer', 'gpt-tokenizer/*', 're2js', './searchDepsEntry', './searchWorkerEntry'],
};

// Exported for scripts/thirdPartyNotices.mjs, which lists the packages these bundles contain.
export const builds = [
  { ...common, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js' },
  { ...common, entryPoints: ['src/mcp/server.ts'], outfile: 'dist/mcp.js' },
  // The agents' hook program (their own shell tools' output): the same offloading core as agentContext_run.
  { ...common, entryPoints: ['src/hooks/main.ts'], outfile: 'dist/agent-hook.js' },
  // opencode's plugin, imported by opencode's own runtime (Bun): an ES module of Node built-ins only.
  { ...common, plugins: [], format: 'esm', entryPoints: ['src/hooks/opencodePlugin.ts'], outfile: 'dist/opencode-plugin.mjs' },
  { ...common, entryPoints: ['src/core/output/tokenizerEntry.ts'], outfile: 'dist/tokenizer.js', external: ['vscode'] },
  { ...common, entryPoints: ['src/core/secrets/re2Entry.ts'], outfile: 'dist/re2.js', external: ['vscode'] },
  { ...common, entryPoints: ['src/core/search/searchDepsEntry.ts'], outfile: 'dist/search-deps.js', external: ['vscode'] },
  // A terminal catalog's first build on a worker thread (core/terminal/catalogWorker.ts), started by the MCP server.
  { ...common, entryPoints: ['src/core/terminal/catalog/catalogWorkerEntry.ts'], outfile: 'dist/catalog-worker.js', external: ['vscode'] },
  // A large digest cache's first check on a worker thread (core/fs/digestCheck.ts), in the editor and the MCP server.
  { ...common, entryPoints: ['src/core/fs/digestCheckEntry.ts'], outfile: 'dist/digest-check.js', external: ['vscode'] },
  // The editor's listing of the notes on a worker thread (core/notes/notesWorker.ts).
  { ...common, entryPoints: ['src/core/notes/notesWorkerEntry.ts'], outfile: 'dist/notes-worker.js', external: ['vscode'] },
  // Ranked search (agentContext_search) on a worker thread (core/search/ranked/searchService.ts), in the editor and the MCP server.
  { ...common, entryPoints: ['src/core/search/ranked/searchWorkerEntry.ts'], outfile: 'dist/search-worker.js', external: ['vscode', './tokenizer.js', 'gpt-tokenizer', 'gpt-tokenizer/*', 're2js', './searchDepsEntry'] },
];

/** The hooks' shell side (src → dist), each with the one fast path (src/hooks/fastPath.sh) put in. */
export const shellFiles = [
  ['src/hooks/shellCapture.sh', 'dist/agent-context-shell.sh', 0o644],
  ['src/hooks/agentHook.sh', 'dist/agent-hook.sh', 0o755],
];
const FAST_PATH = 'src/hooks/fastPath.sh';

/**
 * Writes the shell side, each script with the fast path put in by the hook program itself
 * (core/hooks/fastPathRules.ts shellWithFastPath: its defaults come from the same settings table),
 * and dist/secret-keywords.ere: the masker's keywords as one regex, printed by the hook program, so
 * the prefilter can never lag behind the rules it stands for.
 */
async function shellSide(fs) {
  const { execFileSync } = await import('node:child_process');
  for (const [from, to, mode] of shellFiles) {
    fs.writeFileSync(to, execFileSync(process.execPath, ['dist/agent-hook.js', 'shell-build', from, FAST_PATH], { encoding: 'utf8' }));
    fs.chmodSync(to, mode);
  }
  fs.writeFileSync('dist/secret-keywords.ere', execFileSync(process.execPath, ['dist/agent-hook.js', 'prefilter'], { encoding: 'utf8' }));
}

async function main() {
  const fs = await import('node:fs');
  const todo = builds.filter((b) => fs.existsSync(b.entryPoints[0]));
  if (watch) {
    for (const b of todo) {
      const ctx = await esbuild.context(b);
      await ctx.watch();
    }
    await shellSide(fs);
    console.log('[esbuild] watching (the shell side is copied once; run node esbuild.mjs after changing it)');
    return;
  }
  await Promise.all(todo.map((b) => esbuild.build(b)));
  await shellSide(fs);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
