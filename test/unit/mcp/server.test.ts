// What the first real client (Claude Code over MCP) exposed, checked over the real stdio transport
// against the tsc build of the server: a quiet stderr, a .gitignore wherever the server creates
// .agent/, numbers accepted where a string id is expected, and failed commands flagged as errors.
import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { AGENT_GITIGNORE } from '../../../src/core/workspace/agentLayout';
import { mkdirp } from '../../../src/core/fs/fsAtomic';
import { readLedger } from '../../../src/core/history/ledger';

const serverJs = require.resolve('../../../src/mcp/server');

interface Session {
  client: Client;
  stderr: () => string;
  call(name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }>;
}

/** Starts the server on `ws` (with `--root`, or, when `cwd` is set, in that folder without one). */
async function start(ws: string, extra: string[] = [], cwd?: string): Promise<Session> {
  const args = cwd === undefined ? [serverJs, '--root', ws, ...extra] : [serverJs, ...extra];
  const transport = new StdioClientTransport({ command: process.execPath, args, cwd, stderr: 'pipe' });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const client = new Client({ name: 'real-client-fixes', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    stderr: () => err,
    async call(name, args) {
      const r = await client.callTool({ name, arguments: args });
      return { text: (r.content as { text?: string }[]).map((c) => c.text ?? '').join(''), isError: r.isError === true };
    },
  };
}

const tmp = (p: string): string => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), p)));

describe('MCP server, as Claude Code uses it', () => {
  let ws: string;
  let s: Session;
  before(async () => {
    ws = tmp('mcp-real-');
    execFileSync('git', ['init', '-q', ws]);
    fs.writeFileSync(path.join(ws, 'README.md'), 'hello\n');
    s = await start(ws, ['--allow-run']);
  });
  after(async () => {
    await s.client.close();
  });

  test('prints nothing on stderr while all is well', async () => {
    await s.call('agentContext_glob', { pattern: '*.md' });
    assert.equal(s.stderr(), '');
  });

  test('a glob that matches nothing says so, naming the pattern and where it looked', async () => {
    assert.match((await s.call('agentContext_glob', { pattern: '*.nothing' })).text, /^No files match "\*\.nothing" in the workspace folder\.$/);
  });

  test('a command that ran and exited 1 is a result, not a tool error (isError false), its text leading with the exit code; a refused call is a tool error', async () => {
    const r = await s.call('agentContext_run', { command: 'echo failing-step; exit 1' });
    assert.equal(r.isError, false);
    assert.match(r.text, /exit 1/);
    assert.match(r.text, /failing-step/);
    const okRun = await s.call('agentContext_run', { command: 'echo fine' });
    assert.equal(okRun.isError, false);
    const bad = await s.call('agentContext_read', { path: '../outside.txt' });
    assert.equal(bad.isError, true, bad.text);
  });

  test('creating .agent/ over MCP writes the Initialize .gitignore: git add -A leaves scratch and history out', () => {
    assert.equal(fs.readFileSync(path.join(ws, '.agent/.gitignore'), 'utf8'), AGENT_GITIGNORE);
    const added = execFileSync('git', ['add', '-A', '--dry-run'], { cwd: ws, encoding: 'utf8' });
    assert.match(added, /README\.md/);
    assert.doesNotMatch(added, /scratch|history|tools\.jsonl/);
  });

  test('plan stepId given as a number (plan.yaml writes id: 1) updates that step', async () => {
    fs.writeFileSync(path.join(ws, '.agent/plan.yaml'), 'objective: "x"\nsteps:\n  - id: 1\n    description: "a"\n    status: pending\n');
    const r = await s.call('agentContext_plan', { action: 'setStatus', stepId: 1, status: 'completed' });
    assert.equal(r.isError, false, r.text);
    assert.match(fs.readFileSync(path.join(ws, '.agent/plan.yaml'), 'utf8'), /status: completed/);
  });

  test('terminal command given as a number is accepted', async () => {
    const r = await s.call('agentContext_terminal', { terminal: 1, command: 2 });
    assert.doesNotMatch(r.text, /must be a string/);
  });

  test('with --verbose the start-up line is back on stderr', async () => {
    const v = await start(ws, ['--verbose']);
    try {
      await v.call('agentContext_glob', { pattern: '*.md' });
      assert.match(v.stderr(), /\[agent-context\] serving /);
    } finally {
      await v.client.close();
    }
  });
});

describe('without --root (as a user-scope server, e.g. the Copilot runtime\'s mcp-config.json)', () => {
  test('the server serves its working folder: files there are found and the ledger is written there', async () => {
    const ws = tmp('mcp-noroot-');
    fs.writeFileSync(path.join(ws, 'only-here.md'), 'hello\n');
    fs.mkdirSync(path.join(ws, '.agent'));
    const s = await start(ws, [], ws);
    try {
      const r = await s.call('agentContext_glob', { pattern: '*.md' });
      assert.equal(r.isError, false, r.text);
      assert.match(r.text, /only-here\.md/);
      assert.equal(s.stderr(), '');
    } finally {
      await s.client.close();
    }
    const { entries } = await readLedger(path.join(ws, '.agent'));
    assert.deepEqual(entries.map((e) => e.tool), ['agentContext_glob'], 'the call is in the working folder\'s ledger');
  });
});

describe('.agent/.gitignore on creation', () => {
  test('creating .agent/ or one of its ignored folders writes it; a deleted one is not forced back by other writes', async () => {
    const root = tmp('gi-');
    await mkdirp(path.join(root, '.agent/scratch/tool_outputs'));
    assert.equal(fs.readFileSync(path.join(root, '.agent/.gitignore'), 'utf8'), AGENT_GITIGNORE);
    fs.rmSync(path.join(root, '.agent/.gitignore'));
    await mkdirp(path.join(root, '.agent/scratch/other'));
    assert.equal(fs.existsSync(path.join(root, '.agent/.gitignore')), false, 'scratch/ existed: nothing was created that needs ignoring');
    await mkdirp(path.join(root, '.agent/terminals'));
    assert.equal(fs.existsSync(path.join(root, '.agent/.gitignore')), true, 'terminals/ was created');
    fs.writeFileSync(path.join(root, '.agent/.gitignore'), 'mine\n');
    fs.rmSync(path.join(root, '.agent/history'), { recursive: true, force: true });
    await mkdirp(path.join(root, '.agent/history'));
    assert.equal(fs.readFileSync(path.join(root, '.agent/.gitignore'), 'utf8'), 'mine\n', 'an existing .gitignore is never overwritten');
  });
});
