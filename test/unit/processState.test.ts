// The one place of a process's state: tune() changes a tunable and gives back how to undo it;
// resetProcessState() forgets every registered cache (a new process) and leaves the tunables alone.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { onProcessReset, processCache, processSet, resetProcessState, tune, tuning } from '../../src/core/processState';
import { catalogPath, settleTerminalCatalog, terminalCatalog } from '../../src/core/terminal/catalog/terminalCatalog';
import { appendCommand, catalog, folder, fresh } from './terminal/catalog/catalogFixtures';

test('tune changes the tunables named and its undo puts back what they were, whatever was tuned in between', () => {
  const before = { ...tuning };
  const restore = tune({ catalogClosedChecksPerCall: 3, notesWorkerScript: '/x/fail.js' });
  assert.equal(tuning.catalogClosedChecksPerCall, 3);
  assert.equal(tuning.notesWorkerScript, '/x/fail.js');
  assert.equal(tuning.agentChecksPerCall, before.agentChecksPerCall, 'the others stay');
  tune({ notesWorkerScript: undefined });
  tune({ catalogLazyInfoMin: -5.5 });
  assert.equal(tuning.catalogLazyInfoMin, 0, 'a count below 0 counts as 0');
  tune({ catalogLazyInfoMin: before.catalogLazyInfoMin });
  tune({ digestOffThreadMinBytes: Number.POSITIVE_INFINITY });
  assert.equal(tuning.digestOffThreadMinBytes, Number.POSITIVE_INFINITY, 'infinity means never');
  tune({ digestOffThreadMinBytes: before.digestOffThreadMinBytes });
  restore();
  assert.deepEqual({ ...tuning }, before);
});

test('resetProcessState forgets every registered cache, calling each value\'s forget first, and leaves the tunables as tuned', () => {
  const forgotten: string[] = [];
  const cache = processCache<string, { name: string }>((v) => forgotten.push(v.name));
  const set = processSet<string>();
  let hooks = 0;
  onProcessReset(() => hooks++);
  cache.set('a', { name: 'a' });
  cache.set('b', { name: 'b' });
  set.add('x');
  const restore = tune({ agentTopChecks: 7 });
  try {
    resetProcessState();
    assert.deepEqual(forgotten.sort(), ['a', 'b']);
    assert.equal(cache.size, 0);
    assert.equal(set.size, 0);
    assert.equal(hooks, 1);
    assert.equal(tuning.agentTopChecks, 7);
  } finally {
    restore();
  }
});

test('after resetProcessState the terminal catalog is built again from the files, as in a new process (the in-memory catalog is forgotten)', async () => {
  const restore = tune({ catalogClosedChecksPerCall: 0 });
  const { root, agentDir } = await folder(10);
  try {
    const first = await terminalCatalog(agentDir);
    assert.ok(first.ok);
    await settleTerminalCatalog(agentDir); // its file written
    const closed = first.value.find((t) => t.info.closed);
    assert.ok(closed, 'a closed terminal');
    // A closed terminal changed by someone else: this process checks it only at its turn (none here) or its sweep.
    appendCommand(agentDir, closed.info.n, 900, 7);
    assert.notDeepEqual(await catalog(agentDir), await fresh(agentDir), 'the kept catalog has not seen it');
    resetProcessState();
    fs.rmSync(catalogPath(agentDir), { force: true });
    assert.deepEqual(await catalog(agentDir), await fresh(agentDir), 'a new process builds it from the files');
  } finally {
    restore();
    resetProcessState();
    fs.rmSync(root, { recursive: true, force: true });
  }
});
