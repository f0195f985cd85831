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
import { listAgents, rankAgents } from '../../../src/core/agents';
import { findPlanFiles, loadPlanFile } from '../../../src/core/plan/planFiles';
import { loadSkills } from '../../../src/core/skills/skillsIndex';
import { checkFeatures } from '../../../src/core/plan/featureList';
import { ledgerFiles, ledgerPath, readLedger } from '../../../src/core/history/ledger';
import { listNotes } from '../../../src/core/notes/notes';
import { listMemory } from '../../../src/core/memory';
import { scanScratch } from '../../../src/core/scratch/index/inventory';

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
    assert.deepEqual(g.lastFailure, { terminal: best!.n, command: best!.command, endMs: best!.end });
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('the dimensions of issue 22 §1: each one grown on its own parses with the readers, with the counts asked for', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'scalegen-d-'));
  try {
    const g = await generateAgentFolder(root, 0.1, 7, new Date(), {
      dims: { plans: 7, skills: 9, memoryKeys: 130, notes: 14, progressEntries: 55, features: 33, agents: 8, bigFindings: { agents: 2, bytes: 200_000 }, ledger: { bytes: 300_000, months: 4 } },
    });
    const s = scaleCounts(0.1);
    // Plans: plan.yaml and the 7 in plans/, YAML and Markdown, every one readable with steps.
    const plans = await findPlanFiles(g.agentDir);
    assert.equal(plans.length, 8);
    assert.deepEqual(new Set(plans.slice(1).map((f) => path.extname(f))), new Set(['.yaml', '.md']));
    for (const f of plans) {
      const r = await loadPlanFile(f, f);
      assert.ok(r.ok, f);
      assert.ok(r.value.plan.steps.length >= 3 && r.value.plan.objective, f);
    }
    const skills = await loadSkills(root);
    assert.equal(skills.filter((x) => !x.error).length, 9);
    const mem = await listMemory(g.agentDir);
    assert.ok(mem.ok);
    assert.equal(mem.value.length, 130);
    const notes = await listNotes(root);
    assert.deepEqual(notes.errors, []);
    assert.equal(notes.notes.length, 14);
    assert.equal((await readProgress(g.agentDir)).length, 55);
    const f = await checkFeatures(g.agentDir);
    assert.ok(f.ok && f.value);
    assert.equal(f.value.total, 33);
    assert.equal(f.value.tampered, false);
    // Sub-agents: the two most recently active have the big findings files, with the entries promised.
    const agents = await listAgents(g.agentDir);
    assert.equal(agents.length, 8);
    assert.deepEqual(g.bigFindings.map((b) => b.id), ['agent-00006', 'agent-00007']);
    for (const b of g.bigFindings) {
      const a = agents.find((x) => x.id === b.id)!;
      assert.equal(a.findings, b.entries);
      assert.ok(a.findingsBytes > 180_000 && a.findingsBytes < 220_000, String(a.findingsBytes));
    }
    assert.deepEqual((await rankAgents(g.agentDir)).slice(0, 2).map((a) => a.id), ['agent-00007', 'agent-00006']);
    assert.ok(agents.filter((a) => !g.bigFindings.some((b) => b.id === a.id)).every((a) => a.findings === s.findingsPerAgent));
    // The ledger: monthly files ending with this month, no legacy file, every line an entry.
    const files = (await ledgerFiles(g.agentDir)).map((x) => path.basename(x));
    assert.equal(files.length, 4);
    assert.equal(files[3], path.basename(ledgerPath(g.agentDir)));
    const ledger = await readLedger(g.agentDir);
    assert.deepEqual(ledger.badLines, []);
    assert.equal(ledger.entries.length, g.counts.ledgerLines);
    const bytes = files.reduce((a, x) => a + fs.statSync(path.join(g.agentDir, 'history', x)).size, 0);
    assert.ok(bytes > 250_000 && bytes < 350_000, String(bytes));
    for (const e of ledger.entries.slice(0, 50)) assert.ok(files.includes(path.basename(ledgerPath(g.agentDir, e.time))));
    // What was not asked for stays at the scale given.
    assert.equal(g.counts.scratchFiles, s.scratchFiles);
    assert.equal((await scanScratch(g.agentDir)).files.length, s.scratchFiles);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
