// The tally each index line carries (src/core/terminal/indexTally.ts): its writers (the capture
// writer, the fold of agent sessions) write it right through rotation and several fold passes, and a
// reader of an index's end (catalogColdRead.ts foldIndexEnd) trusts it only while the index is as they
// wrote it: every change another writer makes (a line added before, a failure's exit code edited in
// place, a line appended without a tally, an index from before tallies) gives what the whole fold gives.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createCaptureWriter } from '../../../src/core/terminal/captureWriter';
import { foldIndexEnd, TAIL_BYTES } from '../../../src/core/terminal/catalog/catalogColdRead';
import { BRIEF_SPEC, briefFrom, type TerminalBrief } from '../../../src/core/terminal/catalog/indexBrief';
import { claimedTally, endTally } from '../../../src/core/terminal/indexTally';
import { writeSpoolRecord, type SpoolRecord } from '../../../src/core/terminal/agentCommands/commandSpool';
import { foldCommandSpool } from '../../../src/core/terminal/agentCommands/sessionFold';

const header = { name: 'bash', shell: '/bin/bash', cwd: '/w', started: new Date('2026-01-02T03:04:05.000Z'), shellIntegration: true };

function tmp(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'ac-tally-'));
}

/**
 * The tallies an index's lines must carry, computed from its bytes alone with JSON.parse (an oracle
 * that shares no code with the writers): each line's start, the commands counted so far (a command
 * above every earlier one counts) and the start of the latest failed line so far.
 */
function expectedTallies(text: string): [number, number, number][] {
  const out: [number, number, number][] = [];
  let at = 0;
  let count = 0;
  let max = 0;
  let failedAt = -1;
  for (const line of text.split('\n').slice(0, -1)) {
    const r = JSON.parse(line) as { command: number; status: string; exitCode: number | null };
    if (r.command > max || count === 0) count++;
    max = Math.max(max, r.command);
    if (r.status === 'done' && r.exitCode !== null && r.exitCode !== 0) failedAt = at;
    out.push([at, count, failedAt]);
    at += Buffer.byteLength(line) + 1;
  }
  return out;
}

/** foldIndexEnd of `file`, and the brief of the whole index's fold (what a reader must get). */
function endAndWhole(file: string): { end: ReturnType<typeof foldIndexEnd>; endBrief: TerminalBrief | undefined; whole: TerminalBrief } {
  const fd = fs.openSync(file, 'r');
  try {
    const end = foldIndexEnd(fd, fs.fstatSync(fd));
    const s = BRIEF_SPEC.init();
    BRIEF_SPEC.lines!(s, fs.readFileSync(file, 'utf8'));
    return { end, endBrief: end === 'whole' ? undefined : briefFrom(end.cp.state, end.from), whole: briefFrom(s) };
  } finally {
    fs.closeSync(fd);
  }
}

/** A capture of `commands` commands (those `fails` picks fail with exit 2), closed. */
async function capture(dir: string, commands: number, fails: (k: number) => boolean, maxFileBytes?: number): Promise<string> {
  const w = await createCaptureWriter(dir, header, { flushMs: 1, ...(maxFileBytes ? { maxFileBytes } : {}) });
  for (let k = 1; k <= commands; k++) {
    w.beginCommand({ started: new Date(Date.UTC(2026, 0, 2, 4, 0, k)), cwd: '/w', commandLine: `make step${k}` });
    w.write(`${'x'.repeat(300)} ${k}\n`.repeat(5));
    w.endCommand(fails(k) ? 2 : 0, 0, new Date(Date.UTC(2026, 0, 2, 4, 0, k, 500)));
    // As a terminal's commands come: the writer's queue runs between them.
    await new Promise((r) => setTimeout(r, 1));
  }
  await w.close();
  return w.indexFile;
}

test('the capture writer tallies every index line as the index is on disk, through rotations; the end of the index then says the whole fold\'s count and last failure', async () => {
  const root = tmp();
  try {
    const dir = path.join(root, 'terminals');
    // 64 KB files: the 120 commands' 190 KB of output rotate N.txt, and the index is rewritten each time.
    const file = await capture(dir, 120, (k) => k % 7 === 0, 64 * 1024);
    assert.ok(fs.existsSync(path.join(dir, '1.1.txt')), 'rotated');
    const text = fs.readFileSync(file, 'utf8');
    const lines = text.split('\n').slice(0, -1);
    assert.deepEqual(lines.map((l) => claimedTally(l)), expectedTallies(text));
    assert.ok(Buffer.byteLength(text) > 2 * TAIL_BYTES, `the index (${Buffer.byteLength(text)} bytes, ${lines.length} lines) is larger than what is read of its end`);
    const { end, endBrief, whole } = endAndWhole(file);
    assert.notEqual(end, 'whole');
    assert.equal(end !== 'whole' && end.from, 0, 'known whole from its end');
    assert.deepEqual(endBrief, whole);
    assert.equal(whole.lastFailed?.exitCode, 2);
    assert.equal((whole.lastFailed?.command ?? 1) % 7, 0);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('an index changed by another writer is not taken from its tally: a line added before, a failure edited to success in place, a line appended without a tally, an index from before tallies', async () => {
  const root = tmp();
  try {
    const dir = path.join(root, 'terminals');
    const file = await capture(dir, 60, (k) => k === 10);
    const text = fs.readFileSync(file, 'utf8');
    const lines = text.split('\n').slice(0, -1);
    const records = lines.map((l) => JSON.parse(l) as { status: string; exitCode: number });
    let lastFail = records.length - 1;
    while (!(records[lastFail].status === 'done' && records[lastFail].exitCode === 2)) lastFail--;
    // The last failure (command 10) is more than the 4 KB read of the end before it: found through its tally.
    assert.ok(Buffer.byteLength(lines.slice(lastFail).join('\n')) > 4096);
    const cases: [string, string][] = [
      ['a line added before', `${lines[0]}\n${text}`],
      ['the last failure edited to success, same length', [...lines.slice(0, lastFail), lines[lastFail].replace('"exitCode":2', '"exitCode":0'), ...lines.slice(lastFail + 1)].join('\n') + '\n'],
      ['a line appended without a tally', `${text}${lines[lines.length - 1].replace(/,"tally":\[[^\]]*\]/, '')}\n`],
      ['an index from before tallies', text.replace(/,"tally":\[[^\]]*\]/g, '')],
    ];
    // In an index without a failure, a line of a higher command added before: only the tally's `at` tells.
    const clean = await capture(path.join(root, 'clean'), 60, () => false);
    const cleanText = fs.readFileSync(clean, 'utf8');
    const higher = cleanText.split('\n')[1].replace('"command":1,', '"command":999,').replace(/,"tally":\[[^\]]*\]/, '');
    fs.writeFileSync(clean, `${higher}\n${cleanText}`);
    const h = endAndWhole(clean);
    assert.deepEqual(h.endBrief ?? h.whole, h.whole, 'a higher command before: the whole fold\'s answer');
    for (const [what, changed] of cases) {
      fs.writeFileSync(file, changed);
      const { end, endBrief, whole } = endAndWhole(file);
      if (end === 'whole') continue; // folded whole by the reader
      assert.ok(end.from > 0, `${what}: taken as whole from its end`);
      // Only the end was folded: what it says of the last commands is the whole fold's, the rest is not claimed.
      assert.deepEqual([endBrief!.last, endBrief!.lastDone], [whole.last, whole.lastDone], what);
      assert.ok(endBrief!.commands < whole.commands, `${what}: a lower bound`);
      assert.equal(endBrief!.lastFailed, undefined, `${what}: its last failure is not known from its end`);
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

const spooled = (k: number, over: Partial<SpoolRecord> = {}): SpoolRecord => ({
  agent: 'codex', session: 's-1', startedMs: Date.UTC(2026, 11, 1, 10, 0, k), endedMs: Date.UTC(2026, 11, 1, 10, 0, k, 500),
  exitCode: k % 5 === 0 ? 1 : 0, cwd: '/w', command: `npm test ${k}`, enc: 'raw', output: `ok ${k}\n`, ...over,
});

test('the fold of agent sessions continues the tally from the index\'s last line across passes, and writes none after a line whose tally does not hold', async () => {
  const agentDir = tmp();
  try {
    const file = path.join(agentDir, 'terminals', '1.index.jsonl');
    for (let pass = 0; pass < 3; pass++) {
      for (let k = pass * 10 + 1; k <= pass * 10 + 10; k++) await writeSpoolRecord(agentDir, spooled(k));
      const out = await foldCommandSpool(agentDir, { now: Date.UTC(2026, 11, 1, 10, 1) });
      assert.deepEqual([out.folded, out.problems], [10, []]);
    }
    const text = fs.readFileSync(file, 'utf8');
    assert.equal(text.split('\n').length - 1, 30);
    assert.deepEqual(text.split('\n').slice(0, -1).map((l) => claimedTally(l)), expectedTallies(text));
    const t = await endTally(file, 30);
    assert.deepEqual(t, { at: Buffer.byteLength(text), count: 30, maxCommand: 30, failedAt: expectedTallies(text)[29][2] });
    const { end, endBrief, whole } = endAndWhole(file);
    assert.equal(end !== 'whole' && end.from, 0);
    assert.deepEqual(endBrief, whole);

    // Another writer's line at the end: the fold's next lines carry no tally, and the reader folds them whole.
    fs.appendFileSync(file, text.split('\n')[0].replace(/,"tally":\[[^\]]*\]/, '') + '\n');
    assert.equal(await endTally(file, 30), undefined);
    await writeSpoolRecord(agentDir, spooled(35));
    await foldCommandSpool(agentDir, { now: Date.UTC(2026, 11, 1, 10, 1) });
    const after = fs.readFileSync(file, 'utf8').split('\n').slice(0, -1);
    assert.equal(claimedTally(after[after.length - 1]), undefined);
    const again = endAndWhole(file);
    assert.ok(again.end === 'whole' || again.end.from > 0, 'not taken from a tally');
  } finally {
    fs.rmSync(agentDir, { recursive: true, force: true });
  }
});
