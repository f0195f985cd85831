import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { countTokens } from '../../../src/core/output/tokens';
import { DEFAULT_TOOL_CONFIG } from '../../../src/core/config';
import { TOOL_DEFINITIONS, toolDefinition } from '../../../src/core/tools/toolDefinitions';
import { TOOL_NAMES } from '../../../src/core/tools/toolNames';
import { TOOL_HANDLERS } from '../../../src/core/tools/invokeTool';
import { repoRoot } from '../../repoRoot';

// out/test/unit/tools → repo root
const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));

test('package.json languageModelTools match toolDefinitions exactly (run scripts/syncToolManifest.mjs after a change)', () => {
  const contributed = pkg.contributes.languageModelTools as Record<string, unknown>[];
  assert.deepEqual(contributed.map((t) => t.name), TOOL_DEFINITIONS.map((d) => d.name));
  for (const d of TOOL_DEFINITIONS) {
    const t = contributed.find((x) => x.name === d.name)!;
    assert.equal(t.toolReferenceName, d.toolReferenceName, d.name);
    assert.equal(t.canBeReferencedInPrompt, true, d.name);
    assert.equal(t.modelDescription, d.description, d.name);
    assert.deepEqual(t.inputSchema, d.inputSchema, d.name);
  }
});

test('every definition has an implementation and the ten issue-5 tools keep their names', () => {
  for (const d of TOOL_DEFINITIONS) assert.equal(typeof TOOL_HANDLERS[d.name], 'function', d.name);
  for (const n of ['run', 'offload', 'read', 'grep', 'glob', 'terminal', 'plan', 'skill', 'memory', 'cleanup']) {
    assert.ok(TOOL_DEFINITIONS.some((d) => d.name === `agentContext_${n}`), n);
  }
  const refs = TOOL_DEFINITIONS.map((d) => d.toolReferenceName);
  assert.equal(new Set(refs).size, refs.length, 'toolReferenceName must be unique');
});

test('every tool is documented in docs/tools.md, and the list of names is the list of definitions', () => {
  const docs = fs.readFileSync(path.join(repoRoot, 'docs/tools.md'), 'utf8');
  assert.deepEqual(TOOL_DEFINITIONS.map((d) => d.name), [...TOOL_NAMES]);
  for (const n of TOOL_NAMES) assert.match(docs, new RegExp(`\\b${n}\\b`), `docs/tools.md does not mention ${n}`);
});

test('only agentContext_run asks before it runs, and it asks for compound commands even when allow-listed', () => {
  const config = { ...DEFAULT_TOOL_CONFIG, runAllowList: ['npm test', 'git *'] };
  for (const d of TOOL_DEFINITIONS) if (d.name !== 'agentContext_run') assert.equal(d.confirmation, undefined, d.name);
  const run = toolDefinition('agentContext_run')!;
  assert.equal(run.confirmation!({ command: 'npm test' }, config), undefined);
  assert.match(run.confirmation!({ command: 'git status && rm -rf x' }, config)!, /contains &&/);
  assert.match(run.confirmation!({ command: 'make' }, config)!, /allow-list/);
});

test('all tool definitions together stay within 1,500 tokens of static context', () => {
  const total = TOOL_DEFINITIONS.reduce(
    (n, d) => n + countTokens(JSON.stringify({ name: d.name, description: d.description, input_schema: d.inputSchema })).tokens,
    0,
  );
  assert.ok(total <= 1500, `${total} tokens`);
});
