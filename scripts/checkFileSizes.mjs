// Fails when a source file is over MAX_LINES lines and its header comment does not say why it must
// be one unit (docs/ARCHITECTURE.md "Rules the build enforces"): a long file is a sign that a
// behaviour should have a file, and folder, of its own.
//   node scripts/checkFileSizes.mjs [folder ...]   (default: src)
// Part of `npm run lint` and `npm test`. The header is the file's first comment; "one unit" in it is the reason.
// The .ts files are those checkCycles.mjs walks.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sourceFiles } from './checkCycles.mjs';

const MAX_LINES = 600;

/** The file's first comment (a block comment, or a run of line comments), before any code. */
function header(text) {
  const m = /^\s*(\/\*[\s\S]*?\*\/|(?:\/\/[^\n]*\n\s*)+)/.exec(text);
  return m ? m[1] : '';
}

const folders = process.argv.slice(2);
const over = [];
for (const f of (folders.length ? folders : ['src']).flatMap((d) => sourceFiles(path.resolve(d)))) {
  const text = fs.readFileSync(f, 'utf8');
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  if (lines > MAX_LINES && !/\bone unit\b/i.test(header(text))) over.push(`${path.relative(process.cwd(), f)}: ${lines} lines`);
}
if (over.length) {
  console.error(`Over ${MAX_LINES} lines without a header that says why the file must be one unit:\n  ${over.join('\n  ')}\nSplit the file by what it does, or say in its first comment why it is one unit.`);
  process.exit(1);
}
console.log(`no source file over ${MAX_LINES} lines without a reason`);
