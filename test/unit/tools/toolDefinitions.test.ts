import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { countTokens } from '../../../src/core/output/tokens';
import { TOOL_DEFINITIONS } from '../../../src/core/tools/toolDefinitions';
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

test('all tool definitions together stay within 1,500 tokens of static context', () => {
  const total = TOOL_DEFINITIONS.reduce(
    (n, d) => n + countTokens(JSON.stringify({ name: d.name, description: d.description, input_schema: d.inputSchema })).tokens,
    0,
  );
  assert.ok(total <= 1500, `${total} tokens`);
});
