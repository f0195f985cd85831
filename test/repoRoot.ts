import * as path from 'node:path';

/** The repository's root folder, from the compiled tests (out/test/) as from the sources. */
export const repoRoot = path.resolve(__dirname, path.basename(path.dirname(__dirname)) === 'out' ? '../..' : '..');
