// Every file the code writes under `.agent/.cache/` is one the registry (workspace/cacheFiles.ts)
// names: the fixture workspace, after every tool has run on it (and a few more calls that keep
// caches), holds nothing else there. A new cache written without a registry entry fails here.
import { after, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { repoRoot } from '../../repoRoot';
import { toolContext } from '../../faultKit';
import { invokeTool } from '../../../src/core/tools/invokeTool';
import { CACHE_FILES, cacheFile } from '../../../src/core/workspace/cacheFiles';
import { setUpAgent } from '../../../src/core/setup/agents';
import { claudeCodeSetup } from '../../../src/core/setup/agents/claudeCode';
import { featuresSummary } from '../../../src/core/plan/featureList';
import { addNote } from '../../../src/core/notes/noteFile';
import { listNotes } from '../../../src/core/notes/notes';
import { resetProcessState } from '../../../src/core/processState';
import { stopSearchWorker } from '../../../src/core/search/ranked/searchService';
import { settleTerminalCatalog } from '../../../src/core/terminal/catalog/terminalCatalog';

const made: string[] = [];
after(async () => {
  // Writers that outlive the calls (the search worker, catalog saves, deferred reads) stop before the folder goes:
  // one still writing made the removal fail with ENOTEMPTY at load 6-7.
  resetProcessState();
  await stopSearchWorker();
  for (const d of made) fs.rmSync(d, { recursive: true, force: true, maxRetries: 5 });
});

/** Each registry entry as a pattern of paths under .cache/ (a key is any name). */
const patterns = Object.entries(CACHE_FILES).map(([name, spec]) => {
  const marker = 'KEY0MARKER';
  const shape = (spec.file as (k: string) => string)(marker).replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(marker, '[A-Za-z0-9._-]+');
  return { name, re: new RegExp(`^${shape}(/.*)?$`) };
});

function cacheContents(agentDir: string): string[] {
  const dir = path.join(agentDir, '.cache');
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => !e.isDirectory()).map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
}

test('every file under .agent/.cache/ after all tools ran is named in the registry', async () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ac-cache-files-')));
  made.push(root);
  fs.cpSync(path.join(repoRoot, 'test/fixtures/workspace'), root, { recursive: true });
  const agentDir = path.join(root, '.agent');
  const ctx = toolContext(root);
  const calls: [string, Record<string, unknown>][] = [
    ['agentContext_run', { command: 'seq 1 20000' }],
    ['agentContext_offload', { content: 'x'.repeat(100), name: 'note' }],
    ['agentContext_offload', { content: 'kept', to: 'history' }],
    ['agentContext_read', { path: 'src/items.ts' }],
    ['agentContext_grep', { pattern: 'item' }],
    ['agentContext_search', { query: 'rate limiter notes' }],
    ['agentContext_glob', { pattern: '**/*.ts' }],
    ['agentContext_terminal', {}],
    ['agentContext_plan', {}],
    ['agentContext_skill', {}],
    ['agentContext_memory', { action: 'list' }],
    ['agentContext_agentWorkspace', { action: 'write', agent: 'helper', finding: 'found it' }],
    ['agentContext_agentWorkspace', { action: 'list' }],
    ['agentContext_briefing', {}],
    ['agentContext_cleanup', { dryRun: true }],
  ];
  for (const [name, input] of calls) await invokeTool(name, input, ctx);
  const note = await addNote(root, { path: 'src/items.ts', startLine: 1, text: 'look here', author: 'me' });
  assert.ok(note.ok);
  await listNotes(root);
  fs.writeFileSync(path.join(agentDir, 'features.json'), JSON.stringify({ features: [{ id: 'a', description: 'a', passes: false }] }));
  await featuresSummary(agentDir);
  const setup = await setUpAgent(claudeCodeSetup, root, fs.mkdtempSync(path.join(root, 'home-')), { node: '/usr/bin/node', dist: '/opt/ac' });
  assert.ok(setup.ok);

  // The writes the calls left for later (the terminal catalog's save) are made first: they are cache files too.
  await settleTerminalCatalog(agentDir);
  const files = cacheContents(agentDir);
  assert.ok(files.length >= 5, `the calls left caches: ${files.join(', ')}`);
  const unnamed = files.filter((f) => !patterns.some((p) => p.re.test(f)));
  assert.deepEqual(unnamed, [], 'cache files without a registry entry in core/workspace/cacheFiles.ts');
  assert.ok(fs.existsSync(cacheFile(agentDir, 'setup', 'claude-code')));
});
