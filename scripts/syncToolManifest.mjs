// Writes package.json's contributes.languageModelTools from src/core/tools/toolDefinitions.ts
// (compiled to out/ by `tsc -p .`), the single source of tool names, descriptions and schemas.
// test/unit/tools/toolDefinitions.test.ts fails until this has been run after a definition changes.
// Only that one key is rewritten; the rest of package.json is kept as it is.
import * as fs from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { TOOL_DEFINITIONS } = require('../out/src/core/tools/toolDefinitions.js');

const pkgPath = new URL('../package.json', import.meta.url);
const text = fs.readFileSync(pkgPath, 'utf8');
const pkg = JSON.parse(text);
pkg.contributes.languageModelTools = TOOL_DEFINITIONS.map((d) => ({
  name: d.name,
  toolReferenceName: d.toolReferenceName,
  displayName: d.displayName,
  modelDescription: d.description,
  userDescription: d.description,
  canBeReferencedInPrompt: true,
  icon: '$(tools)',
  inputSchema: d.inputSchema,
}));
fs.writeFileSync(pkgPath, JSON.stringify(pkg, null, 2) + (text.endsWith('\n') ? '\n' : ''));
console.log(`package.json: ${TOOL_DEFINITIONS.length} languageModelTools`);
