// SIGKILL of the MCP server mid-write (issue 22): during an offload, a plan edit and a cache write.
// The next process finds whole files or none, no temp file posing as scratch, temps and locks of
// the dead process swept or ignored, and caches that agree with a fresh scan.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startMcp, type McpSession } from '../../integration/mcpClient';
import { faultWorkspace } from '../../faultKit';
import { generateAgentFolder } from '../../../bench/scaleGen';
import { parsePlan } from '../../../src/core/plan/planDocument';

const serverJs = require.resolve('../../../src/mcp/server');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Starts a call, kills the server with SIGKILL after `ms`, and settles the call (its error is expected). */
async function killDuring(mcp: McpSession, ms: number, call: () => Promise<unknown>): Promise<void> {
  const pending = call().catch(() => undefined);
  await sleep(ms);
  if (mcp.pid) process.kill(mcp.pid, 'SIGKILL');
  await pending;
  await mcp.close().catch(() => undefined);
}

function files(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true }).filter((e) => e.isFile()).map((e) => path.join(e.parentPath ?? (e as unknown as { path: string }).path, e.name));
}

test('SIGKILL during 9 MB offloads: every file in scratch is whole, the briefing counts only those, the dead process\'s temp files are swept', async () => {
  const { root, agentDir } = faultWorkspace('ac-kill-offload-');
  const content = 'a line of a large log that the agent keeps out of its context\n'.repeat(150_000); // 9.3 MB
  const size = Buffer.byteLength(content);
  for (const ms of [30, 120, 250, 400, 600, 900, 1300, 2000]) {
    const mcp = await startMcp(serverJs, root);
    await killDuring(mcp, ms, () => mcp.call('agentContext_offload', { content, name: `big-${ms}` }));
  }
  const scratch = files(path.join(agentDir, 'scratch'));
  for (const f of scratch) assert.equal(fs.statSync(f).size, size, `${f} is partial`);
  const mcp = await startMcp(serverJs, root);
  try {
    const r = await mcp.call('agentContext_briefing', {});
    assert.match(r.text, new RegExp(`${scratch.length} files?`), r.text);
    // The next writer sweeps the temp folder of what killed processes left there.
    await mcp.call('agentContext_offload', { content: 'small', name: 'after' });
    assert.deepEqual(fs.readdirSync(path.join(agentDir, '.cache', 'tmp')), []);
  } finally {
    await mcp.close();
  }
});

test('SIGKILL during plan edits: plan.yaml is always the old or the new plan, and the temp files left are swept by the next edit', async () => {
  const { root, agentDir } = faultWorkspace('ac-kill-plan-');
  const steps = Array.from({ length: 300 }, (_, i) => `  - id: ${i + 1}\n    description: "Step ${i + 1}"\n    status: pending\n`).join('');
  const planFile = path.join(agentDir, 'plan.yaml');
  fs.writeFileSync(planFile, `objective: "Survive kills"\nsteps:\n${steps}`);
  let killedWithTemp = 0;
  for (let round = 0; round < 12; round++) {
    const mcp = await startMcp(serverJs, root);
    let stop = false;
    const loop = (async () => {
      for (let i = 0; !stop; i++) await mcp.call('agentContext_plan', { action: 'setStatus', stepId: 1 + (i % 300), status: i % 2 ? 'pending' : 'completed' });
    })().catch(() => undefined);
    await sleep(150 + round * 37);
    if (mcp.pid) process.kill(mcp.pid, 'SIGKILL');
    stop = true;
    await loop;
    await mcp.close().catch(() => undefined);
    const text = fs.readFileSync(planFile, 'utf8');
    const parsed = parsePlan(text, planFile);
    assert.ok(parsed.ok, `plan.yaml is not a whole plan after a kill: ${text.slice(-200)}`);
    assert.equal(parsed.ok && parsed.value.steps.length, 300);
    if (fs.readdirSync(agentDir).some((n) => n.endsWith('.tmp'))) killedWithTemp++;
  }
  const mcp = await startMcp(serverJs, root);
  try {
    const r = await mcp.call('agentContext_plan', { action: 'setStatus', stepId: 1, status: 'completed' });
    assert.equal(r.isError, false, r.text);
    assert.deepEqual(fs.readdirSync(agentDir).filter((n) => n.endsWith('.tmp') || n.endsWith('.lock')), []);
  } finally {
    await mcp.close();
  }
  // Not every kill lands inside a write; say how many did (the assertion above holds either way).
  process.stderr.write(`# plan kills that left a temp file: ${killedWithTemp} of 12\n`);
});

test('SIGKILL while caches are written: the next server answers exactly as one started without any cache', async () => {
  const { root } = faultWorkspace('ac-kill-cache-');
  await generateAgentFolder(root, 5);
  const fresh = path.join(path.dirname(root), `${path.basename(root)}-fresh`);
  // Caches as a finished session leaves them; then the indexes grow, so the next briefing rewrites them.
  const first = await startMcp(serverJs, root);
  await first.call('agentContext_briefing', {});
  await first.close();
  assert.ok(fs.readdirSync(path.join(root, '.agent', '.cache')).some((n) => n.startsWith('terminal-')), 'checkpoints written');
  const tdir = path.join(root, '.agent', 'terminals');
  for (const n of fs.readdirSync(tdir).filter((x) => x.endsWith('.index.jsonl'))) {
    const text = fs.readFileSync(path.join(tdir, n), 'utf8');
    fs.appendFileSync(path.join(tdir, n), text.slice(0, text.lastIndexOf('\n', 300_000) + 1));
  }
  for (const ms of [40, 90, 160, 260, 400]) {
    const mcp = await startMcp(serverJs, root);
    await killDuring(mcp, ms, () => mcp.call('agentContext_briefing', {}));
  }
  // A copy without .cache/: what a fresh scan says.
  // cp -a keeps mtimes (the agents are ordered by them); then the caches go.
  execFileSync('cp', ['-a', root, fresh]);
  fs.rmSync(path.join(fresh, '.agent', '.cache'), { recursive: true, force: true });
  const answers: string[][] = [];
  for (const ws of [root, fresh]) {
    const mcp = await startMcp(serverJs, ws);
    try {
      const out: string[] = [];
      for (const [tool, input] of [['agentContext_briefing', {}], ['agentContext_terminal', {}], ['agentContext_terminal', { command: 'lastFailed' }]] as const) {
        out.push((await mcp.call(tool, input)).text.replaceAll(fresh, root));
      }
      answers.push(out);
    } finally {
      await mcp.close();
    }
  }
  assert.deepEqual(answers[0], answers[1]);
  assert.match(answers[0][2], /^Terminal \d+ command #\d+/);
});
