// The catalog over captures made the real way: the capture pipeline (openTerminalCapture) fed the
// recorded output of real programs (test/fixtures/recordings: apt, npm, gcc, jest, vim, top…), with
// rotations, failures, open and closed terminals; compared with plainTerminals.ts, an oracle that
// shares no code with the catalog or terminalIndex.ts.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openTerminalCapture, type TerminalCapture } from '../../../../src/core/terminal/terminalCapture';
import { terminalCatalog } from '../../../../src/core/terminal/catalog/terminalCatalog';
import { resetProcessState } from '../../../../src/core/processState';
import { loadRecordings } from '../screen/recordings';
import { plainTerminals } from './plainTerminals';

async function runRecorded(cap: TerminalCapture, commandLine: string, output: string, exit: number, at: number): Promise<void> {
  const c = cap.beginCommand({ commandLine, cwd: '/w', started: new Date(at) });
  c.write('\x1b]633;C\x07' + output);
  c.end(exit, new Date(at + 1500));
  // On disk before anyone reads: the writer writes in the background, and the catalog and the oracle
  // must read the same files (under load they read them while the writer was still at it).
  await cap.writer.flush();
}

async function sameAsOracle(agentDir: string, what: string): Promise<void> {
  for (const need of ['all', 'lastFailed', 'last'] as const) {
    const r = await terminalCatalog(agentDir, { need });
    assert.ok(r.ok, what);
    const got = r.value.map((t) => ({ info: t.info, brief: need === 'all' ? t.brief : { last: t.brief.last, lastDone: t.brief.lastDone } }));
    const want = (plainTerminals(agentDir) as { info: unknown; brief: { last: unknown; lastDone: unknown } }[]).map((t) => ({ info: t.info, brief: need === 'all' ? t.brief : { last: t.brief.last, lastDone: t.brief.lastDone } }));
    assert.deepEqual(got, want, `${what} (need ${need})`);
  }
}

test('captures of real programs\' output, rotated, failed, open and closed: the catalog says what the files say, in this process and in a new one', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-catalog-real-'));
  const agentDir = path.join(root, '.agent');
  const dir = path.join(agentDir, 'terminals');
  const recordings = loadRecordings();
  const t0 = Date.parse('2026-11-30T10:00:00Z');
  const gcc = recordings.find((r) => r.name === 'gcc-errors')!;
  try {
    const open: TerminalCapture[] = [];
    // Four terminals, the recordings dealt round; a small rotation size so the long ones rotate.
    for (let t = 0; t < 4; t++) {
      const cap = await openTerminalCapture(dir, { name: `bash ${t + 1}`, shell: '/bin/bash', cwd: '/w', started: new Date(t0 + t), shellIntegration: true }, { settleMs: 0, maxFileBytes: 64 * 1024 });
      for (let i = t; i < recordings.length; i += 4) await runRecorded(cap, recordings[i].command, recordings[i].text, i % 3 === 0 ? 0 : i, t0 + i * 60_000);
      // A long build log (the compiler's real errors, many times over) past the rotation size in two terminals.
      if (t < 2) await runRecorded(cap, 'make -k', gcc.text.repeat(Math.ceil((200 * 1024) / gcc.text.length)), 2, t0 + 1_800_000 + t);
      if (t % 2 === 0) await cap.close(new Date(t0 + 3_600_000));
      else open.push(cap);
    }
    await sameAsOracle(agentDir, 'first build');
    // More output in an open terminal (a failure), seen by the next call of the same process.
    await runRecorded(open[0], 'make', gcc.text, 2, t0 + 7_200_000);
    await sameAsOracle(agentDir, 'after a failure in an open terminal');
    await open[1].close(new Date(t0 + 7_300_000));
    await sameAsOracle(agentDir, 'after a terminal closed');
    // A new process: from the catalog file, checked against the files.
    resetProcessState();
    await open[0].close(new Date(t0 + 7_400_000));
    await sameAsOracle(agentDir, 'a new process');
    assert.ok(fs.readdirSync(dir).some((f) => /^\d+\.1\.txt$/.test(f)), `a capture rotated: ${fs.readdirSync(dir).map((f) => f + ' ' + fs.statSync(path.join(dir, f)).size).join(', ')}`);
  } finally {
    resetProcessState();
    fs.rmSync(root, { recursive: true, force: true });
  }
});
