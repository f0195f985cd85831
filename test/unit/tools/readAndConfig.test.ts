import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DEFAULT_TOOL_CONFIG, loadAgentConfig, toolConfigFromFile } from '../../../src/core/config';
import { nullLogger } from '../../../src/core/log';
import { invokeTool } from '../../../src/core/tools/invokeTool';
import type { ToolContext } from '../../../src/core/tools/toolContext';

function ws(): { root: string; ctx: ToolContext } {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'read-')));
  fs.mkdirSync(path.join(root, '.agent'));
  const ctx: ToolContext = {
    folders: [{ name: 'w', path: root }], config: DEFAULT_TOOL_CONFIG, signal: new AbortController().signal,
    log: nullLogger, source: 'mcp', trusted: true, allowRun: false,
  };
  return { root, ctx };
}

test('read past the byte budget stops at a line and says how to continue', async () => {
  const { root, ctx } = ws();
  fs.writeFileSync(path.join(root, 'wide.txt'), Array.from({ length: 300 }, (_, i) => `${i + 1} ${'y'.repeat(120)}`).join('\n') + '\n');
  const r = await invokeTool('agentContext_read', { path: 'wide.txt' }, ctx);
  assert.ok(Buffer.byteLength(r.text) <= 6 * 1024);
  const m = /Stopped at line (\d+): lines 1–200 are over the \d+ KB budget\. Continue with offset (\d+) and limit (\d+)/.exec(r.text);
  assert.ok(m, r.text.slice(-300));
  assert.equal(Number(m![2]), Number(m![1]) + 1);
  assert.match(r.text, /wide\.txt: lines 1–\d+ of 300/);
});

test('a single enormous line is cut with its size, and offset past the end is an error naming the length', async () => {
  const { root, ctx } = ws();
  fs.writeFileSync(path.join(root, 'min.js'), 'a'.repeat(3_000_000) + '\nsecond\n');
  const r = await invokeTool('agentContext_read', { path: 'min.js', limit: 1 }, ctx);
  assert.match(r.text, /\[line is 3,000,000 bytes; cut\]/);
  assert.ok(Buffer.byteLength(r.text) < 2000);
  const past = await invokeTool('agentContext_read', { path: 'min.js', offset: 9 }, ctx);
  assert.match(past.text, /^Error: min\.js has 2 lines; offset 9 is past the end/);
  fs.writeFileSync(path.join(root, 'one.txt'), 'only\n');
  assert.match((await invokeTool('agentContext_read', { path: 'one.txt', offset: 3 }, ctx)).text, /^Error: one\.txt has 1 line; offset 3 is past the end/);
});

test('.agent/config.yaml: nested and dotted keys, clamped numbers, errors with line numbers', async () => {
  const { root } = ws();
  const agent = path.join(root, '.agent');
  fs.writeFileSync(path.join(agent, 'config.yaml'), 'offload:\n  thresholdTokens: 500\nrun.allowList: ["npm test"]\nread:\n  defaultLines: 999999\nterminal:\n  other: 1\n');
  const c = await loadAgentConfig(agent);
  assert.ok(c.ok);
  const cfg = toolConfigFromFile(c.value);
  assert.equal(cfg.offloadThresholdTokens, 500);
  assert.deepEqual(cfg.runAllowList, ['npm test']);
  assert.equal(cfg.readDefaultLines, 5000);
  fs.writeFileSync(path.join(agent, 'config.yaml'), 'grep:\n  maxResults: lots\n');
  const bad = await loadAgentConfig(agent);
  assert.ok(!bad.ok && bad.error.line === 2 && /grep\.maxResults must be a whole number/.test(bad.error.message));
  fs.writeFileSync(path.join(agent, 'config.yaml'), 'run: [oops\n');
  const broken = await loadAgentConfig(agent);
  assert.ok(!broken.ok && /invalid YAML/.test(broken.error.message) && broken.error.file === '.agent/config.yaml');
});

test('an unknown tool and a wrong type come back as error text, never as an exception', async () => {
  const { ctx } = ws();
  assert.match((await invokeTool('agentContext_nope', {}, ctx)).text, /^Error: unknown tool "agentContext_nope"/);
  assert.match((await invokeTool('agentContext_read', { path: 'x', limit: 'many' }, ctx)).text, /"limit" must be/);
  assert.match((await invokeTool('agentContext_read', { path: 'x', limit: '5' }, ctx)).text, /no such file/);
});

test('grep beyond its budget returns the head and saves the full list to scratch', async () => {
  const { root, ctx } = ws();
  fs.mkdirSync(path.join(root, 'many'));
  // One file holds a token: the list on disk (and every line the model reads of it) has a marker instead.
  const token = 'ghp_' + 'aKQeHtmOrgMiOt9oYwg0btBdaSuEkmieNzzV';
  for (let i = 0; i < 300; i++) fs.writeFileSync(path.join(root, 'many', `f${String(i).padStart(3, '0')}.txt`), `alpha\nneedle number ${i}${i === 150 ? ` ${token}` : ''}\nomega\n`);
  const r = await invokeTool('agentContext_grep', { pattern: 'needle number \\d+', path: 'many' }, { ...ctx, ripgrep: undefined });
  assert.ok(Buffer.byteLength(r.text) <= 6 * 1024);
  assert.match(r.text, /^300 matches in 300 files for \/needle number \\d\+\/i in many; first \d+ lines shown:\nmany\/f000\.txt:2: needle number 0\n/);
  const full = /Full list: (\S+) \(300 lines/.exec(r.text);
  assert.ok(full, r.text.slice(-400));
  const saved = fs.readFileSync(path.join(root, full![1]), 'utf8').trim().split('\n');
  assert.equal(saved.length, 300);
  assert.equal(saved[299], 'many/f299.txt:2: needle number 299');
  assert.equal(saved[150], 'many/f150.txt:2: needle number 150 [MASKED:github-token]');
});
