// `.agent` that is a file, not a folder (a stray `touch .agent`, another tool's file of that name):
// every writing tool says so, naming what it could not write; nothing reads as "file exists";
// reading tools go on working; the log gets one line per fault, not a stack.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { invokeTool } from '../../../src/core/tools/invokeTool';
import type { ToolContext } from '../../../src/core/tools/toolContext';
import { DEFAULT_TOOL_CONFIG } from '../../../src/core/config';

test('.agent as a file: writes name the file and "not a folder", reads still work, no stack in the log', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-agentfile-'));
  fs.writeFileSync(path.join(root, '.agent'), 'not a folder\n');
  fs.writeFileSync(path.join(root, 'notes.txt'), 'hello\n');
  const errors: string[] = [];
  const warnings: string[] = [];
  const ctx: ToolContext = {
    folders: [{ name: 'w', path: root }], config: DEFAULT_TOOL_CONFIG, signal: new AbortController().signal,
    log: { info() {}, warn: (m: string) => void warnings.push(m), error: (m: string | Error) => void errors.push(String(m)) } as unknown as ToolContext['log'],
    source: 'mcp', trusted: true, allowRun: true,
  };
  const writes: [string, Record<string, unknown>, RegExp][] = [
    ['agentContext_plan', { action: 'logProgress', description: 'did a thing' }, /\.agent\/progress\.md: a path component is not a folder \(ENOTDIR\); nothing was logged/],
    ['agentContext_memory', { action: 'remember', key: 'k', value: 'v' }, /a path component is not a folder \(ENOTDIR\) writing \.agent\/memory/],
    ['agentContext_agentWorkspace', { agentId: 'a1', action: 'writeFinding', content: 'found' }, /a path component is not a folder \(ENOTDIR\) writing \.agent\/agents/],
    ['agentContext_offload', { content: 'x'.repeat(100) }, /a path component is not a folder \(ENOTDIR\)/],
    ['agentContext_run', { command: 'echo hi' }, /a path component is not a folder \(ENOTDIR\)[\s\S]*not run/],
  ];
  for (const [tool, input, expected] of writes) {
    const r = await invokeTool(tool, input, ctx);
    assert.equal(r.isError, true, `${tool}: ${r.text}`);
    assert.match(r.text, expected, tool);
    assert.doesNotMatch(r.text, /EEXIST|file already exists|unexpectedly/, tool);
  }
  assert.deepEqual(errors, []);
  assert.ok(warnings.some((w) => /agentContext_memory failed: a path component is not a folder/.test(w)), warnings.join('\n'));
  const read = await invokeTool('agentContext_read', { path: 'notes.txt' }, ctx);
  assert.match(read.text, /1: hello/);
  const grep = await invokeTool('agentContext_grep', { pattern: 'hello', path: '.' }, ctx);
  assert.match(grep.text, /notes\.txt:1: hello/);
  // The file was never touched.
  assert.equal(fs.readFileSync(path.join(root, '.agent'), 'utf8'), 'not a folder\n');
});
