// The MCP server's first import starts the terminal catalog's first build on a worker, before the
// rest of the server loads (bench row 14i), when it is to serve a folder without a catalog file
// (given by --root, or the working folder without one); never for a set-up, an undo, help or
// arguments the server refuses.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { prebuildAtStart } from '../../../src/mcp/startEarly';
import { catalogWorkerSettled } from '../../../src/core/terminal/catalog/catalogWorker';
import { folder } from '../terminal/catalog/catalogFixtures';
import { resetProcessState } from '../../../src/core/processState';

test('serving a folder with terminals and no catalog file: the first build starts on a worker at once', async () => {
  const { root, agentDir } = await folder(5);
  resetProcessState();
  for (const argv of [['--root', root, '--setup', 'codex'], ['--root', root, '--undo', 'codex'], ['--root', root, '--help'], ['--root', root, '--bogus'], ['--verbose', '--bogus']]) {
    assert.equal(prebuildAtStart(argv), false, argv.join(' '));
    assert.equal(catalogWorkerSettled(agentDir), undefined, `${argv.join(' ')}: no worker`);
  }
  assert.equal(prebuildAtStart(['--root', root, '--allow-run']), true);
  assert.ok(catalogWorkerSettled(agentDir), 'a worker was started for the folder served');
  resetProcessState();
});

test('without --root the working folder is served: its catalog\'s first build starts there', async () => {
  const { root, agentDir } = await folder(5);
  resetProcessState();
  const cwd = process.cwd();
  process.chdir(root);
  try {
    assert.equal(prebuildAtStart(['--allow-run']), true);
    assert.ok(catalogWorkerSettled(agentDir), 'a worker was started for the working folder');
  } finally {
    process.chdir(cwd);
    resetProcessState();
  }
});
