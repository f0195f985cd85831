// The packages of dist/search-deps.js (src/core/search/searchDepsEntry.ts), loaded on first use. In the
// bundles that file sits beside extension.js, mcp.js and agent-hook.js; tests and benchmarks run
// from out/ and load the packages themselves.
import * as path from 'node:path';

type SearchDeps = typeof import('./searchDepsEntry');

let deps: SearchDeps | undefined;

/** fast-glob, ignore and smol-toml's parse, loaded at the first call. */
export function searchDeps(): SearchDeps {
  if (!deps) {
    try {
      deps = require(path.join(__dirname, 'search-deps.js')) as SearchDeps;
    } catch (bundled) {
      try {
        deps = require('./searchDepsEntry') as SearchDeps;
      } catch {
        throw new Error(`cannot load the search packages: ${(bundled as Error).message.split('\n')[0]} (dist/search-deps.js belongs beside ${path.basename(__filename)}; reinstall the extension)`);
      }
    }
  }
  return deps;
}
