// Two processes keep the terminal catalog at once (two MCP servers, or the editor and a server):
// each appends to its own terminals and refreshes (so rewrites) the catalog in a loop. Afterwards the
// catalog file is one whole catalog, and a new process's answers equal a fresh reading of the files.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { generateAgentFolder } from '../../../bench/scaleGen';
import { catalogPath, terminalCatalog } from '../../../src/core/terminal/catalog/terminalCatalog';
import { listTerminals, readTerminalIndex } from '../../../src/core/terminal/terminalIndex';
import { resetProcessState } from '../../../src/core/processState';

const CHILD = `
const fs = require('node:fs'), path = require('node:path');
const cat = require(process.argv[1]);
const { resetProcessState } = require(path.join(path.dirname(process.argv[1]), '../../processState.js'));
const [agentDir, first] = [process.argv[2], Number(process.argv[3])];
(async () => {
  for (let i = 0; i < 40; i++) {
    const n = first + (i % 5);
    const idx = path.join(agentDir, 'terminals', n + '.index.jsonl');
    const k = 1000 + i;
    const rec = { v: 1, command: k, status: 'done', file: n + '.txt', commandLine: 'x', cwd: '/w', started: new Date(Date.UTC(2026, 5, 2, 0, 0, i)).toISOString(), headerLine: 1, firstLine: 2, lastLine: 1, exitCode: i % 3, durationMs: 10, secretsMasked: 0 };
    fs.appendFileSync(idx, JSON.stringify(rec) + '\\n');
    if (i % 7 === 0) resetProcessState();
    const r = await cat.terminalCatalog(agentDir);
    if (!r.ok) throw new Error(r.error.message);
  }
})().catch((e) => { console.error(e); process.exit(1); });
`;

function child(agentDir: string, first: number): Promise<number> {
  const mod = path.resolve(__dirname, '../../../src/core/terminal/catalog/terminalCatalog.js');
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['-e', CHILD, mod, agentDir, String(first)], { stdio: ['ignore', 'ignore', 'inherit'] });
    p.on('close', (code) => resolve(code ?? 1));
  });
}

test('two processes refreshing the catalog at once leave a whole catalog that agrees with the files', async () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ac-catalog-2p-')));
  try {
    const g = await generateAgentFolder(root, 0.1, 5, new Date('2026-06-01T12:00:00Z'), { terminals: { terminals: 300, longLived: 2000 } });
    // Many terminals new to both processes: each writes the catalog at once, again and again.
    const codes = await Promise.all([child(g.agentDir, 10), child(g.agentDir, 20)]);
    assert.deepEqual(codes, [0, 0]);
    const lines = fs.readFileSync(catalogPath(g.agentDir), 'utf8').split('\n');
    const file = JSON.parse(lines[0]) as { format: string; rows: number };
    assert.equal(file.format, 'agent-context/terminal-catalog');
    assert.equal(lines.pop(), '', 'the file ends with its last row');
    assert.equal(lines.length - 1, file.rows, 'every row its header counts, no more');
    resetProcessState();
    const r = await terminalCatalog(g.agentDir);
    assert.ok(r.ok);
    const list = await listTerminals(g.agentDir);
    assert.ok(list.ok);
    assert.deepEqual(r.value.map((x) => x.info), list.value);
    for (const x of r.value) {
      const idx = await readTerminalIndex(g.agentDir, x.info.n);
      assert.ok(idx.ok);
      const cmds = idx.value.commands;
      const failed = cmds.filter((c) => c.exitCode !== null && c.exitCode !== 0).pop();
      assert.equal(x.brief.commands, cmds.length, `terminal ${x.info.n}`);
      assert.equal(x.brief.last?.command, cmds[cmds.length - 1]?.command, `terminal ${x.info.n}`);
      assert.equal(x.brief.lastFailed?.command, failed?.command, `terminal ${x.info.n}`);
    }
  } finally {
    resetProcessState();
    fs.rmSync(root, { recursive: true, force: true });
  }
});
