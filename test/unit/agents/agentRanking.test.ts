// What the sub-agent ranking checks on each call (src/core/agents/agentRanking.ts): the agents/
// folder's stat, the most recently active agents and others in turn. The count and the set of
// agents are exact at every call; this process's writes and reported file events move an agent at
// once; another process's write within the stated bound (the turn, or the sweep).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
// The module object itself (the namespace import is a read-only copy): its lstatSync can be watched.
import fsModule = require('node:fs');
import * as os from 'node:os';
import * as path from 'node:path';
import { agentActivityChanged, rankAgents, recentAgents, setAgentStatus, settleAgentRanking, writeFinding } from '../../../src/core/agents';
import { agentWorkspaceTool } from '../../../src/core/tools/agentWorkspace';
import { DEFAULT_TOOL_CONFIG } from '../../../src/core/config';
import { nullLogger } from '../../../src/core/log';
import type { ToolContext } from '../../../src/core/tools/toolContext';
import { resetProcessState, tune } from '../../../src/core/processState';

const T0 = Date.parse('2026-06-01T10:00:00Z') / 1000;

/** `n` agents agent-000…, agent-(i) last active at T0 + i minutes (status.json and findings.md), folders 10 s old. */
function folder(n: number): { root: string; agentDir: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-ranking-'));
  const agentDir = path.join(root, '.agent');
  for (let i = 0; i < n; i++) {
    const d = path.join(agentDir, 'agents', `agent-${String(i).padStart(3, '0')}`);
    fs.mkdirSync(d, { recursive: true });
    fs.writeFileSync(path.join(d, 'status.json'), JSON.stringify({ agentId: `agent-${i}`, status: 'done', progress: 1, updated: '' }));
    fs.writeFileSync(path.join(d, 'findings.md'), `\n## 2026-06-01T10:00:00.000Z\n\nfinding ${i}\n`);
    for (const f of ['status.json', 'findings.md']) fs.utimesSync(path.join(d, f), T0 + 60 * i, T0 + 60 * i);
  }
  // The folder's stamp old enough to stand on (a change in the same clock tick is otherwise possible).
  const old = Date.now() / 1000 - 10;
  fs.utimesSync(path.join(agentDir, 'agents'), old, old);
  return { root, agentDir };
}

const ids = async (agentDir: string): Promise<string[]> => (await rankAgents(agentDir)).map((a) => a.id);
const id = (i: number): string => `agent-${String(i).padStart(3, '0')}`;

/** Runs `f` with `top` + `perCall` agents checked per call, in a fresh set of rankings (a new process). */
async function withChecks<T>(top: number, perCall: number, f: () => Promise<T>): Promise<T> {
  resetProcessState();
  const restore = tune({ agentTopChecks: top, agentChecksPerCall: perCall });
  try {
    return await f();
  } finally {
    restore();
    resetProcessState();
  }
}

/** Another process appends a finding to agent i (nothing tells this one), `minutes` from now. */
function appendElsewhere(agentDir: string, i: number, minutes: number): void {
  const f = path.join(agentDir, 'agents', id(i), 'findings.md');
  fs.appendFileSync(f, '\n## 2026-06-02T10:00:00.000Z\n\nlater\n');
  const t = Date.now() / 1000 + 60 * minutes;
  fs.utimesSync(f, t, t);
}

test('a warm listing stats the top agents and a few others in turn, not every agent, and orders them as the files say', () => withChecks(3, 5, async () => {
  const { root, agentDir } = folder(60);
  const real = fsModule.lstatSync;
  let stats = 0;
  try {
    assert.deepEqual((await ids(agentDir)).slice(0, 3), [id(59), id(58), id(57)]);
    await settleAgentRanking(agentDir);
    const watched = fsModule as { lstatSync: typeof real };
    watched.lstatSync = ((...args: Parameters<typeof real>) => {
      if (String(args[0]).includes(`${path.sep}agents${path.sep}`)) stats++;
      return real(...args);
    }) as typeof real;
    const ranked = await rankAgents(agentDir);
    watched.lstatSync = real;
    // Two files of each of 3 top agents and 5 others (60 agents: 120 files).
    assert.ok(stats <= 2 * (3 + 5), `${stats} stats of agent files`);
    assert.equal(ranked.length, 60);
    assert.deepEqual(ranked.map((a) => a.id), Array.from({ length: 60 }, (_, i) => id(59 - i)));
  } finally {
    (fsModule as { lstatSync: typeof real }).lstatSync = real;
    fs.rmSync(root, { recursive: true, force: true });
  }
}));

test('agents created or removed by another process are counted at the very next call', () => withChecks(3, 5, async () => {
  const { root, agentDir } = folder(60);
  try {
    await rankAgents(agentDir);
    await settleAgentRanking(agentDir);
    fs.mkdirSync(path.join(agentDir, 'agents', 'newcomer'));
    fs.writeFileSync(path.join(agentDir, 'agents', 'newcomer', 'status.json'), '{"status":"working"}');
    fs.rmSync(path.join(agentDir, 'agents', id(59)), { recursive: true });
    const r = await rankAgents(agentDir);
    assert.equal(r.length, 60);
    assert.equal(r[0].id, 'newcomer');
    assert.ok(!r.some((a) => a.id === id(59)));
    const tool = await agentWorkspaceTool({ agentId: 'me', action: 'list' }, ctxFor(root));
    assert.match(tool.text, /^60 agents, most recently active first/);
    assert.match(tool.text.split('\n')[1], /^newcomer: working/);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}));

test('what this process writes, and what file events report, moves the agent first at the next call', () => withChecks(3, 0, async () => {
  const { root, agentDir } = folder(60);
  try {
    await rankAgents(agentDir);
    await settleAgentRanking(agentDir);
    // Each write a clock tick after the one before: two files written in the same tick have equal
    // mtimes, and equal times rank by id (the coarse kernel clock made this test flaky).
    const tick = () => new Promise((r) => setTimeout(r, 30));
    await writeFinding(agentDir, id(0), 'found it');
    assert.equal((await ids(agentDir))[0], id(0));
    await tick();
    await setAgentStatus(agentDir, id(1), { status: 'working' });
    assert.equal((await ids(agentDir))[0], id(1));
    // Another process's write the editor's watcher reported.
    appendElsewhere(agentDir, 2, 1);
    agentActivityChanged(agentDir, [path.join(agentDir, 'agents', id(2), 'findings.md')]);
    assert.equal((await ids(agentDir))[0], id(2));
    // A batch too big to name its paths: everything is checked.
    appendElsewhere(agentDir, 3, 2);
    agentActivityChanged(agentDir);
    assert.equal((await ids(agentDir))[0], id(3));
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}));

test('another process\'s write moves its agent within ceil(agents / checks per call) calls, or at the sweep', () => withChecks(3, 5, async () => {
  const { root, agentDir } = folder(60);
  try {
    await rankAgents(agentDir);
    await settleAgentRanking(agentDir);
    appendElsewhere(agentDir, 10, 1);
    let calls = 0;
    while ((await ids(agentDir))[0] !== id(10)) {
      calls++;
      assert.ok(calls <= Math.ceil(60 / 5), `still not first after ${calls} calls`);
    }
    // In a new process, the sweep that follows the first call checks every agent.
    resetProcessState();
    await rankAgents(agentDir);
    appendElsewhere(agentDir, 20, 2);
    await settleAgentRanking(agentDir);
    assert.equal((await ids(agentDir))[0], id(20));
    // The Agents view's page and the briefing's list read the same ranking.
    const page = await recentAgents(agentDir, 2);
    assert.equal(page.total, 60);
    assert.deepEqual(page.agents.map((a) => a.id), [id(20), id(10)]);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}));

function ctxFor(root: string): ToolContext {
  return { folders: [{ name: 'ws', path: root }], config: DEFAULT_TOOL_CONFIG, signal: new AbortController().signal, log: nullLogger, source: 'mcp', trusted: true, allowRun: false };
}

test('a first ranking of many agents is stat\'ed on the check worker, in the same order; a worker that fails leaves it to this thread', () => withChecks(3, 5, async () => {
  const restore = tune({ activityOffThreadMinIds: 0, digestCheckScript: undefined });
  const failing = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ac-ranking-')), 'fail.js');
  fs.writeFileSync(failing, 'throw new Error("broken worker");\n');
  const { root, agentDir } = folder(40);
  // One agent with neither file: its folder's own mtime counts.
  const bare = path.join(agentDir, 'agents', 'agent-bare');
  fs.mkdirSync(bare);
  fs.utimesSync(bare, T0 + 60 * 100, T0 + 60 * 100);
  const old = Date.now() / 1000 - 10;
  fs.utimesSync(path.join(agentDir, 'agents'), old, old);
  const expected = ['agent-bare', ...Array.from({ length: 40 }, (_, i) => id(39 - i))];
  const real = fsModule.lstatSync;
  const watched = fsModule as { lstatSync: typeof real };
  try {
    for (const script of [undefined, failing]) {
      resetProcessState(); // a new process
      tune({ digestCheckScript: script });
      let stats = 0;
      watched.lstatSync = ((...args: Parameters<typeof real>) => {
        if (/agents[\\/]agent-[^\\/]+[\\/]/.test(String(args[0]))) stats++;
        return real(...args);
      }) as typeof real;
      const ranked = await rankAgents(agentDir);
      watched.lstatSync = real;
      assert.deepEqual(ranked.map((a) => a.id), expected, `order (worker ${script ? 'failing' : 'real'})`);
      assert.equal(ranked[0].activeMs, (T0 + 60 * 100) * 1000);
      if (script) assert.ok(stats >= 80, `the failing worker's agents are stat'ed here (${stats})`);
      else assert.equal(stats, 0, 'no agent file stat\'ed on this thread');
    }
  } finally {
    watched.lstatSync = real;
    restore();
    fs.rmSync(root, { recursive: true, force: true });
  }
}));
