import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openTerminalCapture } from '../../../src/core/terminal/terminalCapture';
import { readTerminalIndex } from '../../../src/core/terminal/terminalIndex';
import { terminalTool } from '../../../src/core/tools/terminal';
import { addNote } from '../../../src/core/notes/noteFile';
import { DEFAULT_TOOL_CONFIG } from '../../../src/core/config';
import { nullLogger } from '../../../src/core/log';
import type { ToolContext } from '../../../src/core/tools/toolContext';

async function capturedWorkspace(): Promise<{ root: string; ctx: ToolContext }> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-noteterm-'));
  const cap = await openTerminalCapture(path.join(root, '.agent/terminals'), { name: 'bash', shell: '/bin/bash', cwd: root, started: new Date(), shellIntegration: true }, { settleMs: 0 });
  const t0 = new Date();
  const a = cap.beginCommand({ commandLine: 'npm test', cwd: root, started: t0 });
  a.write('\x1b]633;C\x07ok 1\r\nnot ok 2 network timeout\r\n');
  a.end(1, t0);
  const b = cap.beginCommand({ commandLine: 'echo done', cwd: root, started: t0 });
  b.write('done\r\n');
  b.end(0, t0);
  await cap.close(t0);
  const ctx: ToolContext = { folders: [{ name: 'w', path: root }], config: DEFAULT_TOOL_CONFIG, signal: new AbortController().signal, log: nullLogger, source: 'vscode', trusted: true, allowRun: false };
  return { root, ctx };
}

test('agentContext_terminal: the reference to a noted command carries the note, other commands do not', async () => {
  const { root, ctx } = await capturedWorkspace();
  const idx = await readTerminalIndex(path.join(root, '.agent'), 1);
  assert.ok(idx.ok);
  const [first, second] = idx.value.commands;
  const added = await addNote(root, {
    path: `.agent/${first.file}`, startLine: first.headerLine, endLine: first.lastLine ?? first.firstLine, terminal: 1, command: first.command,
    author: 'alice', text: 'this failure is a flaky network, ignore it',
  });
  assert.ok(added.ok);

  const noted = await terminalTool({ terminal: 1, command: String(first.command) }, ctx);
  assert.ok(!noted.isError, noted.text);
  assert.match(noted.text, /Notes from the user \(follow them\):\n- alice, .* on terminal 1 command \d+: "this failure is a flaky network, ignore it"/);
  assert.ok(Buffer.byteLength(noted.text) <= DEFAULT_TOOL_CONFIG.referenceMaxBytes, `${Buffer.byteLength(noted.text)} bytes`);

  const other = await terminalTool({ terminal: 1, command: String(second.command) }, ctx);
  assert.doesNotMatch(other.text, /flaky network/);

  const failed = await terminalTool({ terminal: 1, command: 'lastFailed' }, ctx);
  assert.match(failed.text, /flaky network/);

  const list = await terminalTool({}, ctx);
  assert.match(list.text, new RegExp(`#${first.command} exit 1 · npm test · .* · 1 note from the user`));
  assert.doesNotMatch(list.text, new RegExp(`#${second.command} exit 0 · echo done · .*note`));

  // A note on the command's lines alone (no terminal/command keys) counts too; one on another
  // terminal's file, or naming another terminal, does not.
  assert.ok((await addNote(root, { path: `.agent/${first.file}`, startLine: first.headerLine, endLine: first.headerLine, author: 'bob', text: 'lines only' })).ok);
  assert.ok((await addNote(root, { path: '.agent/terminals/2.txt', startLine: first.headerLine, endLine: first.headerLine, author: 'bob', text: 'other file' })).ok);
  assert.ok((await addNote(root, { path: 'src/a.ts', terminal: 2, command: first.command, author: 'bob', text: 'other terminal' })).ok);
  const again = await terminalTool({}, ctx);
  assert.match(again.text, new RegExp(`#${first.command} exit 1 · npm test · .* · 2 notes from the user`));
  assert.doesNotMatch(again.text, new RegExp(`#${second.command} exit 0 · echo done · .*note`));
});
