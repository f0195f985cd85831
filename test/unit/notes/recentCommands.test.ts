// The note picker's terminal commands ("Add Note for the Agent…" from the palette or the walkthrough):
// the newest 10 commands of each of the 5 newest terminals, read from captures the real writer made.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NOTE_PICK_COMMANDS_PER_TERMINAL, NOTE_PICK_TERMINALS, recentTerminalCommands } from '../../../src/core/notes/recentCommands';
import { openTerminalCapture } from '../../../src/core/terminal/terminalCapture';

test('the note picker offers the newest 10 commands of each of the 5 newest terminals, newest first, not only each terminal\'s last', async (ctx) => {
  const agent = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-notepick-'));
  ctx.after(() => fs.rmSync(agent, { recursive: true, force: true }));
  const dir = path.join(agent, 'terminals');
  const t0 = new Date('2026-03-01T10:00:00.000Z');
  // 7 terminals of 12 commands each (the 2 oldest terminals and each terminal's 2 oldest commands fall out).
  for (let t = 1; t <= 7; t++) {
    const cap = await openTerminalCapture(dir, { name: `bash ${t}`, shell: '/bin/bash', cwd: '/w', started: t0, shellIntegration: true }, { settleMs: 0 });
    for (let k = 1; k <= 12; k++) {
      const c = cap.beginCommand({ commandLine: `echo t${t}-c${k}`, cwd: '/w', started: new Date(t0.getTime() + t * 60_000 + k * 1000) });
      c.write(`\x1b]633;C\x07t${t}-c${k}\r\n`);
      c.end(k === 5 ? 2 : 0, new Date(t0.getTime() + t * 60_000 + k * 1000 + 10));
    }
    await cap.close(new Date(t0.getTime() + t * 60_000 + 30_000));
  }
  assert.deepEqual([NOTE_PICK_TERMINALS, NOTE_PICK_COMMANDS_PER_TERMINAL], [5, 10]);
  const got = await recentTerminalCommands(agent);
  const expected: string[] = [];
  for (let t = 7; t >= 3; t--) for (let k = 12; k >= 3; k--) expected.push(`${t}:${k}:echo t${t}-c${k}`);
  assert.deepEqual(got.map(({ info, cmd }) => `${info.n}:${cmd.command}:${cmd.commandLine}`), expected);
  const failed = got.find(({ info, cmd }) => info.n === 4 && cmd.command === 5);
  assert.equal(failed?.cmd.exitCode, 2, 'each command carries its own exit code');
});
