// Bundles the extension (dist/extension.js), the MCP server (dist/mcp.js), the Claude Code hook
// (dist/claude-hook.js) and the lazily loaded
// tokenizer (dist/tokenizer.js, kept out of the main bundle so activation stays light).
import * as esbuild from 'esbuild';
import { pathToFileURL } from 'node:url';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

/** @type {import('esbuild').BuildOptions} */
const common = {
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
  // packages (first grep or glob, a .gitleaks.toml): dist/search-deps.js.
  external: ['vscode', './tokenizer.js', 'gpt-tokenizer', 'gpt-tokenizer/*', 're2js', './searchDepsEntry'],
};

// Exported for scripts/thirdPartyNotices.mjs, which lists the packages these bundles contain.
export const builds = [
  { ...common, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js' },
  { ...common, entryPoints: ['src/mcp/server.ts'], outfile: 'dist/mcp.js' },
  // Claude Code's hook program (PreToolUse/PostToolUse on Bash): the same offloading core as agentContext_run.
  { ...common, entryPoints: ['src/claudeHook/main.ts'], outfile: 'dist/claude-hook.js' },
  { ...common, entryPoints: ['src/core/tokenizerEntry.ts'], outfile: 'dist/tokenizer.js', external: ['vscode'] },
  { ...common, entryPoints: ['src/core/re2Entry.ts'], outfile: 'dist/re2.js', external: ['vscode'] },
  { ...common, entryPoints: ['src/core/searchDepsEntry.ts'], outfile: 'dist/search-deps.js', external: ['vscode'] },
];

async function main() {
  const fs = await import('node:fs');
  const todo = builds.filter((b) => fs.existsSync(b.entryPoints[0]));
  if (watch) {
    for (const b of todo) {
      const ctx = await esbuild.context(b);
      await ctx.watch();
    }
    console.log('[esbuild] watching');
    return;
  }
  await Promise.all(todo.map((b) => esbuild.build(b)));
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
