// The scale generator (bench/scaleGen.ts) writes folders the project's own readers accept: every
// format it produces parses without problems, with the counts it promises.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { generateAgentFolder, scaleCounts } from '../../../bench/scaleGen';
import { readTerminalIndex, listTerminals } from '../../../src/core/terminal/terminalIndex';
import { readProgress } from '../../../src/core/plan/progress';
import { listAgents } from '../../../src/core/agents';
import { checkFeatures } from '../../../src/core/plan/features';
import { readLedger } from '../../../src/core/history/ledger';
import { listNotes } from '../../../src/core/notes/notes';
import { listMemory } from '../../../src/core/memory';
import { scanScratch } from '../../../src/core/scratch/inventory';

test('a generated folder parses with the readers, with the promised counts', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'scalegen-'));
  try {
    const g = await generateAgentFolder(root, 0.1, 7);
    const c = scaleCounts(0.1);
    assert.equal(g.counts.commandsPerTerminal, c.commandsPerTerminal);
    const terms = await listTerminals(g.agentDir);
    assert.ok(terms.ok);
    assert.equal(terms.value.length, c.terminals);
    assert.equal(terms.value.filter((t) => !t.closed).length, c.liveTerminals);
    for (const t of terms.value) {
      const idx = await readTerminalIndex(g.agentDir, t.n);
      assert.ok(idx.ok);
      assert.deepEqual(idx.value.problems, []);
      assert.equal(idx.value.commands.length, c.commandsPerTerminal);
      const last = idx.value.commands[idx.value.commands.length - 1];
      assert.equal(last.exitCode !== 0, g.failedTerminals.includes(t.n));
      // The index points at the command's real lines.
      const lines = fs.readFileSync(path.join(g.agentDir, last.file), 'utf8').split('\n');
      assert.match(lines[last.headerLine - 1], new RegExp(`^>>> command ${last.command} `));
      assert.match(lines[last.lastLine!], new RegExp(`^<<< command ${last.command} \\| exit ${last.exitCode}`));
    }
    assert.equal((await readProgress(g.agentDir)).length, c.progressEntries);
    const agents = await listAgents(g.agentDir);
    assert.equal(agents.length, c.agents);
    assert.ok(agents.every((a) => a.status && a.findings === c.findingsPerAgent));
    const f = await checkFeatures(g.agentDir);
    assert.ok(f.ok && f.value);
    assert.equal(f.value.total, c.features);
    assert.equal(f.value.tampered, false);
    const ledger = await readLedger(g.agentDir);
    assert.equal(ledger.entries.length, c.ledgerLines);
    assert.deepEqual(ledger.badLines, []);
    const notes = await listNotes(root);
    assert.deepEqual(notes.errors, []);
    assert.equal(notes.notes.length, c.notes);
    const mem = await listMemory(g.agentDir);
    assert.ok(mem.ok);
    assert.equal(mem.value.length, c.memoryKeys);
    assert.equal((await scanScratch(g.agentDir)).files.length, c.scratchFiles);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('the terminals dimension: as many terminal files as asked, one long-lived, and the newest failure named as the terminal tool finds it', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'scalegen-t-'));
  try {
    const g = await generateAgentFolder(root, 0.1, 7, new Date(), { terminals: { terminals: 90, longLived: 500 } });
    const terms = await listTerminals(g.agentDir);
    assert.ok(terms.ok);
    assert.equal(terms.value.length, 90);
    assert.deepEqual(terms.value.filter((t) => !t.closed).map((t) => t.n), [1, 89, 90]);
    // The newest failure, from the files: per terminal its last failed command, then the latest end across terminals.
    let best: { n: number; command: number; end: number } | undefined;
    const counts: number[] = [];
    for (const t of terms.value) {
      const idx = await readTerminalIndex(g.agentDir, t.n);
      assert.ok(idx.ok);
      assert.deepEqual(idx.value.problems, []);
      counts.push(idx.value.commands.length);
      const failed = idx.value.commands.filter((c) => c.exitCode !== 0).pop();
      const end = failed ? Date.parse(failed.started) + (failed.durationMs ?? 0) : -1;
      if (failed && (!best || end >= best.end)) best = { n: t.n, command: failed.command, end };
    }
    assert.equal(counts[0], 500);
    assert.equal(counts[1], 300);
    assert.equal(counts[39], 300);
    assert.ok(counts.slice(2, 39).every((k) => k >= 1 && k <= 12));
    assert.deepEqual(g.lastFailure, { terminal: best!.n, command: best!.command });
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
