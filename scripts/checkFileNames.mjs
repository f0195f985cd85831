// Fails when two source files under the folders share a file name (index.ts aside): a name says what
// the file holds, and the same name in two folders for two different things is what a newcomer
// trips on (docs/ARCHITECTURE.md "Rules the build enforces": the agents' hook core is
// core/hooks/<agent>Hook.ts, their set-ups core/setup/agents/<agent>.ts).
//   node scripts/checkFileNames.mjs [folder ...]   (default: src)
// Part of `npm run lint` and `npm test`. The .ts files are those checkCycles.mjs walks.
import * as path from 'node:path';
import { sourceFiles } from './checkCycles.mjs';

/** File names that stand for their folder, not for what they hold. */
const FOLDER_NAMES = new Set(['index.ts']);

const folders = process.argv.slice(2);
const byName = new Map();
for (const f of (folders.length ? folders : ['src']).flatMap((d) => sourceFiles(path.resolve(d)))) {
  const name = path.basename(f);
  if (FOLDER_NAMES.has(name)) continue;
  byName.set(name, [...(byName.get(name) ?? []), path.relative(process.cwd(), f)]);
}
const repeated = [...byName].filter(([, files]) => files.length > 1);
if (repeated.length) {
  console.error(`Source files with the same name in different folders:\n  ${repeated.map(([, files]) => files.join(' ~ ')).join('\n  ')}\nName each file for what it holds (for example core/hooks/<agent>Hook.ts beside core/setup/agents/<agent>.ts).`);
  process.exit(1);
}
console.log('no two source files share a name');
