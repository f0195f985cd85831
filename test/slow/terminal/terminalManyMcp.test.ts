// Thousands of terminal files (issue 22 §1: a year of agent sessions), over the real MCP server:
// the listing counts every terminal, lastFailed without a terminal finds the newest failure across
// all of them, and the briefing counts the terminals whose last command failed — in a server that
// builds the terminal catalog, in a new server that finds it, in a server that was running while
// other writers appended, rotated, deleted and added terminals (seen by the next call), while
// closed terminals were truncated or appended to in place (seen within the catalog's stated bound),
// and after the catalog file was damaged. Every expected answer is computed here from the files alone.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { generateAgentFolder } from '../../../bench/scaleGen';
import { startMcp, type McpSession } from '../../integration/mcpClient';
import { catalogPath } from '../../../src/core/terminal/catalog/terminalCatalog';
import { tuning } from '../../../src/core/processState';
import { formatCommandFooter, formatCommandHeader, formatHeader, type IndexRecord, type TerminalCommand } from '../../../src/core/terminal/terminalFormat';
import { listTerminals, readTerminalIndex } from '../../../src/core/terminal/terminalIndex';
import { commandEndMs } from '../../../src/core/terminal/terminalSummary';

const serverJs = path.resolve(__dirname, '../../../src/mcp/server.js');
const TERMINALS = 3000;

/** What the three calls must say, from the files alone (every terminal read whole). */
async function expected(agentDir: string): Promise<{ total: number; open: number; closedFailed: number; lastFailed: string; failedLast: number }> {
  const list = await listTerminals(agentDir);
  assert.ok(list.ok);
  let open = 0;
  let closedFailed = 0;
  let failedLast = 0;
  let best: { n: number; c: TerminalCommand } | undefined;
  for (const t of list.value) {
    const idx = await readTerminalIndex(agentDir, t.n);
    assert.ok(idx.ok);
    const cmds = idx.value.commands;
    const last = cmds[cmds.length - 1];
    const lastDone = cmds.filter((c) => c.status === 'done').pop();
    const failed = (c: TerminalCommand | undefined): boolean => c !== undefined && c.status === 'done' && c.exitCode !== null && c.exitCode !== 0;
    if (!t.closed) open++;
    else if (failed(last)) closedFailed++;
    if (failed(lastDone)) failedLast++;
    const f = cmds.filter(failed).pop();
    // Terminals in number order, a later one winning a tie (as the tool compares).
    if (f && (!best || commandEndMs(f) >= commandEndMs(best.c))) best = { n: t.n, c: f };
  }
  return { total: list.value.length, open, closedFailed, failedLast, lastFailed: best ? `Terminal ${best.n} command #${best.c.command}:` : 'No failed command' };
}

async function check(mcp: McpSession, agentDir: string, what: string): Promise<void> {
  const want = await expected(agentDir);
  const list = await mcp.call('agentContext_terminal', {});
  assert.equal(list.isError, false, list.text);
  assert.match(list.text, new RegExp(`^${want.total} captured terminals, ${want.open} open, ${want.closedFailed} closed with a failed last command;`), `${what}: ${list.text.slice(0, 200)}`);
  const lf = await mcp.call('agentContext_terminal', { command: 'lastFailed' });
  assert.ok(lf.text.startsWith(want.lastFailed), `${what}: expected "${want.lastFailed}", got ${lf.text.slice(0, 200)}`);
  const b = await mcp.call('agentContext_briefing', {});
  assert.match(b.text, new RegExp(`Terminals whose last command failed \\(${want.failedLast} of ${want.total}\\):`), `${what}: ${b.text}`);
}

/**
 * check() within the bound for closed terminals changed in place: rounds half a second apart until
 * ceil(terminals / catalogClosedChecksPerCall) calls have been made, and one more (a round whose first
 * answer is wrong makes only that one call).
 */
async function checkWithin(mcp: McpSession, agentDir: string, what: string): Promise<void> {
  const rounds = Math.ceil((TERMINALS + 1) / tuning.catalogClosedChecksPerCall) + 1;
  for (let round = 1; ; round++) {
    try {
      return await check(mcp, agentDir, `${what} (round ${round})`);
    } catch (e) {
      if (round >= rounds) throw e;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/** Appends one finished command to terminal n as the capture writer does (text, then its two index records). */
function appendCommand(agentDir: string, n: number, k: number, exit: number, started: Date): void {
  const txt = path.join(agentDir, 'terminals', `${n}.txt`);
  const lines = fs.readFileSync(txt, 'utf8').split('\n').length - 1;
  fs.appendFileSync(txt, `${formatCommandHeader(k, started, '/w', `make step${k}`)}\nboom\n${formatCommandFooter(k, exit, 1000, 0)}\n`);
  const base: IndexRecord = { v: 1, command: k, status: 'running', file: `${n}.txt`, commandLine: `make step${k}`, cwd: '/w', started: started.toISOString(), headerLine: lines + 1, firstLine: lines + 2, lastLine: null, exitCode: null, durationMs: null, secretsMasked: 0 };
  const idx = path.join(agentDir, 'terminals', `${n}.index.jsonl`);
  fs.appendFileSync(idx, JSON.stringify(base) + '\n');
  fs.appendFileSync(idx, JSON.stringify({ ...base, status: 'done', lastLine: lines + 2, exitCode: exit, durationMs: 1000 }) + '\n');
}

test(`${TERMINALS.toLocaleString('en-US')} terminal files over MCP: counts and the newest failure stay exact through new servers, other writers and a damaged catalog`, async () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ac-many-terminals-')));
  const sessions: McpSession[] = [];
  const start = async (): Promise<McpSession> => {
    const s = await startMcp(serverJs, root);
    sessions.push(s);
    return s;
  };
  try {
    const g = await generateAgentFolder(root, 0.1, 22, new Date(Date.now() - 3_600_000), { terminals: { terminals: TERMINALS, longLived: 2000 } });
    const agentDir = g.agentDir;
    const dir = path.join(agentDir, 'terminals');
    // The generator's own record of the newest failure agrees with the files.
    assert.equal((await expected(agentDir)).lastFailed, `Terminal ${g.lastFailure.terminal} command #${g.lastFailure.command}:`);

    const a = await start();
    await check(a, agentDir, 'a server that builds the catalog');
    // Saved once the N.txt its first (lazy) calls left unread are read, just after their answers (terminalCatalog.ts completeInfoSoon).
    for (let waited = 0; !fs.existsSync(catalogPath(agentDir)) && waited < 20_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
    assert.ok(fs.existsSync(catalogPath(agentDir)), 'the catalog was saved within 20 s of the calls');
    await check(await start(), agentDir, 'a new server that finds the catalog');

    // Another window's capture while server a runs: a failure newer than any other, in an open terminal. Seen by the next call.
    const live = TERMINALS - 1;
    const idxLive = await readTerminalIndex(agentDir, live);
    assert.ok(idxLive.ok);
    const kLive = idxLive.value.commands.length + 1;
    appendCommand(agentDir, live, kLive, 4, new Date(Date.now() - 60_000));
    assert.equal((await expected(agentDir)).lastFailed, `Terminal ${live} command #${kLive}:`);
    await check(a, agentDir, 'the first server, after an append to an open terminal');
    // What else capture and cleanup do, each seen by the next call: the terminal of the generated newest failure deleted, a rotation, a new terminal.
    const gone = g.lastFailure.terminal === live ? 18 : g.lastFailure.terminal;
    for (const f of [`${gone}.txt`, `${gone}.index.jsonl`]) fs.rmSync(path.join(dir, f), { force: true });
    fs.renameSync(path.join(dir, '41.txt'), path.join(dir, '41.1.txt'));
    fs.writeFileSync(path.join(dir, '41.txt'), formatHeader({ name: 'bash 41', n: 41, shell: '/bin/bash', cwd: '/w', started: new Date(), shellIntegration: true, continued: true }));
    const idx41 = path.join(dir, '41.index.jsonl');
    // As the capture writer rotates an open terminal's files: its command records, now in 41.1.txt (a closing record, had there been one, is not a command's).
    const rotated = fs.readFileSync(idx41, 'utf8').split('\n').filter((l) => l && !l.startsWith('{"v":1,"closed":')).map((l) => JSON.stringify({ ...JSON.parse(l), file: '41.1.txt' })).join('\n') + '\n';
    fs.rmSync(idx41);
    fs.writeFileSync(idx41, rotated);
    const fresh = TERMINALS + 1;
    fs.writeFileSync(path.join(dir, `${fresh}.txt`), formatHeader({ name: 'agent', n: fresh, shell: '/bin/bash', cwd: '/w', started: new Date(), shellIntegration: true }));
    appendCommand(agentDir, fresh, 1, 0, new Date(Date.now() - 30_000));
    appendCommand(agentDir, fresh, 2, 1, new Date(Date.now() - 20_000));
    // The failure of the new terminal ends last of all: lastFailed must name it, whatever the catalog held.
    assert.equal((await expected(agentDir)).lastFailed, `Terminal ${fresh} command #2:`);
    await check(a, agentDir, 'the first server, after other writers');
    await check(await start(), agentDir, 'a new server, after other writers');

    // Closed terminals changed in place by another program (capture never writes one again): an
    // index cut to nothing, a failure appended after the closing note. Seen within the stated bound:
    // once the server's sweep ran (just after a new server's first call), or after
    // ceil(terminals / catalogClosedChecksPerCall) calls (32 here).
    fs.writeFileSync(path.join(dir, '40.index.jsonl'), '');
    const idx17 = await readTerminalIndex(agentDir, 17);
    assert.ok(idx17.ok);
    const k17 = idx17.value.commands.length + 1;
    appendCommand(agentDir, 17, k17, 4, new Date(Date.now() - 10_000));
    assert.equal((await expected(agentDir)).lastFailed, `Terminal 17 command #${k17}:`);
    await checkWithin(a, agentDir, 'the first server, after changes in place');
    await checkWithin(await start(), agentDir, 'a new server, after changes in place');

    // The catalog damaged: garbage, then cut in half, then from another version.
    const good = fs.readFileSync(catalogPath(agentDir), 'utf8');
    for (const [what, text] of [['garbage', '\u0000\u00ffnot json'], ['cut in half', good.slice(0, good.length >> 1)], ['another version', good.replace(/"v":\d+,/, '"v":99,')]] as const) {
      fs.writeFileSync(catalogPath(agentDir), text);
      await check(await start(), agentDir, `a new server, catalog ${what}`);
    }
  } finally {
    for (const s of sessions) await s.close().catch(() => undefined);
    fs.rmSync(root, { recursive: true, force: true });
  }
});
