import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { invokeTool } from '../../../src/core/tools/invokeTool';
import type { ToolContext } from '../../../src/core/tools/toolContext';
import { DEFAULT_TOOL_CONFIG } from '../../../src/core/config';
import { nullLogger } from '../../../src/core/log';
import { ledgerPath } from '../../../src/core/history/ledger';

test('a secret in the command line is masked in the result, the saved file name and the ledger', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-runsecret-'));
  fs.mkdirSync(path.join(root, '.agent'));
  const ctx: ToolContext = {
    folders: [{ name: 'w', path: root }], config: DEFAULT_TOOL_CONFIG, signal: new AbortController().signal,
    log: nullLogger, source: 'mcp', trusted: true, allowRun: true, secretPatterns: ['ACME-[0-9]{6}'],
  };
  const gh = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
  const r = await invokeTool('agentContext_run', { command: `printf 'key ACME-123456 %s\\n' ${gh}` }, ctx);
  assert.equal(r.isError ?? false, false, r.text);
  assert.doesNotMatch(r.text, /ACME-123456|ghp_a1B2/);
  assert.match(r.text, /\[MASKED:custom\]/);
  const names = fs.readdirSync(path.join(root, '.agent/scratch/tool_outputs'));
  assert.equal(names.length, 1);
  assert.doesNotMatch(names[0], /123456/i);
  const out = fs.readFileSync(path.join(root, '.agent/scratch/tool_outputs', names[0]), 'utf8');
  assert.match(out, /^key \[MASKED:custom\] \[MASKED:github-token\]\n$/);
  const ledger = fs.readFileSync(ledgerPath(path.join(root, '.agent')), 'utf8');
  assert.doesNotMatch(ledger, /ACME-123456|ghp_a1B2/);
});

test('the output is kept as a terminal shows it: colours dropped, a \\r progress bar reduced to its last state, bare newlines start a new line; the live view gets the raw stream, masked', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-runrender-'));
  fs.mkdirSync(path.join(root, '.agent'));
  const live: string[] = [];
  const ctx: ToolContext = {
    folders: [{ name: 'w', path: root }], config: DEFAULT_TOOL_CONFIG, signal: new AbortController().signal,
    log: nullLogger, source: 'mcp', trusted: true, allowRun: true,
    run: { start: () => undefined, data: (t) => void live.push(t), end: () => undefined },
  };
  const gh = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
  // What `npm`, `pytest --color=yes` or curl's meter print into a pipe when told to colour or show progress.
  const command = `printf '\\033[1;31merror\\033[0m: build failed\\n'; for i in $(seq 1 400); do printf '\\r\\033[32m%d%%\\033[0m' $i; done; printf '\\ndone ${gh}\\r\\nlast line'`;
  const r = await invokeTool('agentContext_run', { command }, ctx);
  assert.equal(r.isError ?? false, false, r.text);
  const names = fs.readdirSync(path.join(root, '.agent/scratch/tool_outputs'));
  assert.equal(names.length, 1);
  const saved = fs.readFileSync(path.join(root, '.agent/scratch/tool_outputs', names[0]), 'utf8');
  assert.equal(saved, 'error: build failed\n400%\ndone [MASKED:github-token]\nlast line\n');
  // The model reads the same text, small enough to come back inline.
  assert.match(r.text, /```text\nerror: build failed\n400%\ndone \[MASKED:github-token\]\nlast line\n```/);
  // A search for what the user sees finds it.
  const g = await invokeTool('agentContext_grep', { pattern: 'error: build failed', path: '.agent/scratch/tool_outputs' }, ctx);
  assert.match(g.text, /1 match/);
  // The live view is a terminal: it gets the escapes, never the secret.
  const shown = live.join('');
  assert.match(shown, /\x1b\[1;31merror\x1b\[0m: build failed\n/);
  assert.match(shown, /\r\x1b\[32m400%/);
  assert.ok(!shown.includes(gh), shown);
  assert.match(shown, /done \[MASKED:github-token\]\r\nlast line$/);
});
