// A Node call of a hook reads the workspace's settings once: .agent/config.yaml, the user's gitleaks
// file and .agent/.cache/shell-hook.conf at most once each per call (the call's own work and the
// fast path's settings it leaves for the shell share one reading), for every agent's Node path.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cleanTmp, fakeDist } from './hookDist';

const dist = fakeDist();

/** Preloaded into the hook's Node: counts reads of the three settings files, written to COUNT_FILE at exit. */
const COUNTER = `
const fs = require('node:fs');
const names = ['config.yaml', '.gitleaks.toml', 'shell-hook.conf'];
const counts = {};
const note = (p) => { const n = names.find((x) => String(p).endsWith('/' + x)); if (n) counts[n] = (counts[n] || 0) + 1; };
for (const [obj, fn] of [[fs, 'readFileSync'], [fs.promises, 'readFile'], [fs, 'readFile']]) {
  const orig = obj[fn];
  obj[fn] = function (p, ...rest) { note(p); return orig.call(this, p, ...rest); };
}
process.on('exit', () => fs.appendFileSync(process.env.COUNT_FILE, JSON.stringify(counts) + '\\n'));
`;

function workspace(): string {
  const ws = cleanTmp('ac-once-ws-');
  fs.mkdirSync(path.join(ws, '.agent'));
  // A masking rule of the user's own: the shell's fast path is off, every output goes through Node.
  fs.writeFileSync(path.join(ws, '.agent', 'config.yaml'), 'terminals.secretPatterns:\n  - "zebra[0-9]+"\n');
  fs.writeFileSync(path.join(ws, '.gitleaks.toml'), '[[rules]]\nid = "zebra"\nregex = \'\'\'zebra[0-9]+\'\'\'\n');
  return ws;
}

/** Runs one hook call as the agent does; the reads the Node it started made (one entry per Node start). */
function readsOf(args: string[], input: string, ws: string, env: Record<string, string> = {}): Record<string, number>[] {
  const dir = cleanTmp('ac-once-');
  const counter = path.join(dir, 'count.cjs');
  const countFile = path.join(dir, 'counts.jsonl');
  fs.writeFileSync(counter, COUNTER);
  const r = spawnSync('bash', [path.join(dist, 'agent-hook.sh'), ...args], {
    cwd: ws,
    input,
    encoding: 'utf8',
    env: { PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`, HOME: ws, NODE_OPTIONS: `--require ${counter}`, COUNT_FILE: countFile, ...env },
  });
  assert.equal(r.status, 0, r.stderr);
  const lines = fs.existsSync(countFile) ? fs.readFileSync(countFile, 'utf8').trim().split('\n').filter(Boolean) : [];
  fs.rmSync(dir, { recursive: true, force: true });
  return lines.map((l) => JSON.parse(l) as Record<string, number>);
}

const small = 'zebra123 is fine\n';
const calls: { name: string; args: string[]; input: (ws: string) => string; env?: (ws: string) => Record<string, string> }[] = [
  { name: 'Copilot CLI postToolUse', args: ['copilot-cli', 'postToolUse'], input: (ws) => JSON.stringify({ sessionId: 's', timestamp: 1, cwd: ws, toolName: 'bash', toolArgs: { command: 'make', description: 'd' }, toolResult: { resultType: 'success', textResultForLlm: `${small}<shellId: 0 completed with exit code 0>` } }) },
  { name: 'Copilot CLI sessionStart', args: ['copilot-cli', 'sessionStart'], input: (ws) => JSON.stringify({ source: 'new', cwd: ws }) },
  { name: 'Gemini CLI AfterTool', args: ['gemini', 'AfterTool'], input: (ws) => JSON.stringify({ session_id: 's', cwd: ws, hook_event_name: 'AfterTool', tool_name: 'run_shell_command', tool_input: { command: 'make' }, tool_response: { llmContent: small, returnDisplay: small } }) },
  { name: 'Gemini CLI SessionStart', args: ['gemini', 'SessionStart'], input: (ws) => JSON.stringify({ session_id: 's', cwd: ws, source: 'startup' }) },
  { name: 'Codex SessionStart', args: ['codex', 'SessionStart'], input: () => JSON.stringify({ source: 'startup' }) },
  { name: 'Qwen Code PostToolUse', args: ['qwen-code', 'PostToolUse'], input: (ws) => JSON.stringify({ session_id: 'q', cwd: ws, hook_event_name: 'PostToolUse', tool_name: 'run_shell_command', tool_input: { command: 'make' }, tool_response: { llmContent: small, returnDisplay: {} } }), env: (ws) => ({ QWEN_PROJECT_DIR: ws }) },
  { name: 'Qwen Code SessionStart', args: ['qwen-code', 'SessionStart'], input: () => JSON.stringify({ source: 'startup' }), env: (ws) => ({ QWEN_PROJECT_DIR: ws }) },
  { name: 'Cline PostToolUse', args: ['cline', 'PostToolUse'], input: () => JSON.stringify({ taskId: 't', tool_result: { name: 'run_commands', input: { commands: ['make'] }, output: [{ query: 'make', result: small, success: true }] } }) },
  { name: 'Claude Code SessionStart', args: ['claude-code', 'SessionStart'], input: () => JSON.stringify({ session_id: 'c', source: 'startup' }), env: (ws) => ({ CLAUDE_ENV_FILE: path.join(ws, 'claude-env'), CLAUDE_PROJECT_DIR: ws }) },
];

test('every Node call of a hook reads config.yaml, the gitleaks file and shell-hook.conf at most once each (and left the fast path its settings)', () => {
  const seen: string[] = [];
  for (const c of calls) {
    const ws = workspace();
    const reads = readsOf(c.args, c.input(ws), ws, c.env?.(ws) ?? {});
    assert.equal(reads.length, 1, `${c.name}: ${reads.length} Node starts`);
    const [n] = reads;
    // It did read them (the count would not prove anything otherwise), once.
    assert.equal(n['config.yaml'], 1, `${c.name}: ${JSON.stringify(n)}`);
    assert.equal(n['.gitleaks.toml'], 1, `${c.name}: ${JSON.stringify(n)}`);
    assert.ok((n['shell-hook.conf'] ?? 0) <= 1, `${c.name}: ${JSON.stringify(n)}`);
    // The shell's next call finds the settings this call left (user rules of its own: no fast path).
    assert.match(fs.readFileSync(path.join(ws, '.agent/.cache/shell-hook.conf'), 'utf8'), /^\d+ 0\n/, c.name);
    seen.push(c.name);
    fs.rmSync(ws, { recursive: true, force: true });
  }
  assert.equal(seen.length, calls.length);
});
