// Corrupt or foreign content in .agent/ (issue 22): every case gives a clear message or a rebuild,
// never a crash or a hang. Each runs in a fresh MCP server process (what a new agent session
// meets), with a time limit on every call.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startMcp } from '../../integration/mcpClient';
import { faultWorkspace } from '../../faultKit';
import { generateAgentFolder } from '../../../bench/scaleGen';

const serverJs = require.resolve('../../../src/mcp/server');

/** A generated folder (S history) that a first server has used, so its caches exist. */
async function usedFolder(prefix: string): Promise<{ root: string; agentDir: string }> {
  const { root, agentDir } = faultWorkspace(prefix);
  await generateAgentFolder(root, 5);
  const mcp = await startMcp(serverJs, root);
  try {
    for (const [t, i] of CALLS) await mcp.call(t, i);
  } finally {
    await mcp.close();
  }
  return { root, agentDir };
}

const CALLS: [string, Record<string, unknown>][] = [
  ['agentContext_briefing', {}],
  ['agentContext_terminal', {}],
  ['agentContext_terminal', { command: 'lastFailed' }],
  ['agentContext_terminal', { terminal: 4, command: 'last' }],
  ['agentContext_agentWorkspace', { agentId: 'me', action: 'list' }],
  ['agentContext_cleanup', {}],
  ['agentContext_grep', { pattern: 'Note 5: the' }],
  ['agentContext_glob', { pattern: '**/*.md', path: '.agent' }],
  ['agentContext_plan', { action: 'get' }],
  ['agentContext_memory', { action: 'list' }],
  ['agentContext_skill', {}],
];

/**
 * An answer without what changes as time passes between two calls: glob's relative ages ("42 s
 * ago", "59 min ago" then "1 h ago"). The rest of every answer must be equal.
 */
function timeless(text: string | undefined): string | undefined {
  return text?.replace(/\d+ (?:s|min|h|d) ago/g, '… ago');
}

/**
 * Asserts two answers say the same. A listing cut to a byte budget (glob: "67 shown, 1,230 more")
 * may show a line more or less when its age texts grew ("9 s ago" → "12 s ago"), so for those the
 * counts are left out and the shorter list must be the longer one's start, within 3 lines.
 */
function assertSameAnswer(got: string | undefined, want: string, what: string): void {
  const shown = /; (\d+) shown, [\d,]+ more/;
  const g = timeless(got) ?? '';
  const w = timeless(want) ?? '';
  if (!shown.test(w) || !shown.test(g)) {
    assert.equal(g, w, what);
    return;
  }
  const [gl, wl] = [g.replace(shown, '; … shown').split('\n'), w.replace(shown, '; … shown').split('\n')];
  const n = Math.min(gl.length, wl.length);
  assert.ok(Math.abs(gl.length - wl.length) <= 3, `${what}: ${gl.length} lines against ${wl.length}`);
  assert.deepEqual(gl.slice(0, n), wl.slice(0, n), what);
}

/** Every call answers within `ms` in a fresh server; returns the answers by call. */
async function answers(root: string, ms = 30_000): Promise<Map<string, { text: string; isError: boolean }>> {
  const mcp = await startMcp(serverJs, root);
  const out = new Map<string, { text: string; isError: boolean }>();
  try {
    for (const [t, i] of CALLS) {
      const key = `${t} ${JSON.stringify(i)}`;
      const r = await Promise.race([mcp.call(t, i), new Promise<never>((_, rej) => setTimeout(() => rej(new Error(`${key} did not answer within ${ms} ms`)), ms))]);
      assert.doesNotMatch(r.text, /failed unexpectedly/, `${key}: ${r.text.slice(0, 300)}`);
      out.set(key, r);
    }
  } finally {
    await mcp.close();
  }
  return out;
}

test('caches that are truncated, garbage, empty, from another version or a folder: rebuilt, the same answers as without them', async () => {
  const { root, agentDir } = await usedFolder('ac-corrupt-cache-');
  const cache = path.join(agentDir, '.cache');
  const names = fs.readdirSync(cache).filter((n) => n.endsWith('.json'));
  assert.ok(names.length > 0, 'the first server wrote caches');
  const clean = await answers(root);
  const damage: ((f: string) => void)[] = [
    (f) => fs.truncateSync(f, Math.floor(fs.statSync(f).size / 2)),
    (f) => fs.writeFileSync(f, Buffer.from([0xff, 0x00, 0x13, 0x37, 0xde, 0xad])),
    (f) => fs.writeFileSync(f, ''),
    (f) => fs.writeFileSync(f, JSON.stringify({ v: 999, spec: 999, format: 'from a newer version' })),
    (f) => fs.writeFileSync(f, '[1,2,3]'),
    (f) => fs.writeFileSync(f, 'null'),
  ];
  for (const [k, d] of damage.entries()) {
    for (const n of names) if (fs.existsSync(path.join(cache, n))) d(path.join(cache, n));
    const got = await answers(root);
    for (const [key, r] of clean) assertSameAnswer(got.get(key)?.text, r.text, `damage ${k}: ${key}`);
  }
  // A cache file replaced by a folder.
  for (const n of names) {
    fs.rmSync(path.join(cache, n), { force: true, recursive: true });
    fs.mkdirSync(path.join(cache, n));
  }
  await answers(root);
});

test('an index line that is not JSON, a status.json that is an array, a terminal file replaced by a folder: clear answers', async () => {
  const { root, agentDir } = await usedFolder('ac-corrupt-files-');
  const idx = path.join(agentDir, 'terminals', '4.index.jsonl');
  fs.appendFileSync(idx, 'this is not JSON\n{"command":\n');
  fs.writeFileSync(path.join(agentDir, 'agents', 'agent-00001', 'status.json'), '[1, 2, 3]\n');
  fs.rmSync(path.join(agentDir, 'terminals', '7.txt'));
  fs.mkdirSync(path.join(agentDir, 'terminals', '7.txt'));
  const got = await answers(root);
  const t4 = got.get('agentContext_terminal {"terminal":4,"command":"last"}')!;
  assert.equal(t4.isError, false, t4.text);
  const list = got.get('agentContext_agentWorkspace {"agentId":"me","action":"list"}')!;
  assert.match(list.text, /agent-00001: .*status\.json/, list.text);
  const terms = got.get('agentContext_terminal {}')!;
  assert.match(terms.text, /^20 captured terminals/, terms.text);
  assert.match(terms.text, /Terminal 7: \.agent\/terminals\/7\.txt cannot be read: it is a folder, not a file \(EISDIR\)/, terms.text);
});

test('a 2 GB N.txt (sparse) and a symlink loop in scratch/: answers, no hang', async () => {
  const { root, agentDir } = await usedFolder('ac-corrupt-big-');
  const big = path.join(agentDir, 'terminals', '3.txt');
  const head = fs.readFileSync(big, 'utf8').slice(0, 4096);
  fs.writeFileSync(big, head);
  fs.truncateSync(big, 2 * 1024 * 1024 * 1024);
  // Still open, as its N.txt (no closing note) says: its index loses its closing record too, so the listing shows it first.
  const idx = path.join(agentDir, 'terminals', '3.index.jsonl');
  fs.writeFileSync(idx, fs.readFileSync(idx, 'utf8').split('\n').filter((l) => !l.startsWith('{"v":1,"closed":')).join('\n'));
  fs.symlinkSync('loop-b', path.join(agentDir, 'scratch', 'loop-a'));
  fs.symlinkSync('loop-a', path.join(agentDir, 'scratch', 'loop-b'));
  fs.symlinkSync('.', path.join(agentDir, 'scratch', 'self'));
  const got = await answers(root, 60_000);
  assert.match(got.get('agentContext_terminal {}')!.text, /2,147,483,648 bytes/);
  // The file's own command references stay bounded.
  const mcp = await startMcp(serverJs, root);
  try {
    const r = await mcp.call('agentContext_terminal', { terminal: 3, command: 'last' });
    assert.match(r.text, /^Error: \.agent\/terminals\/3\.txt is 2048 MB, far beyond the 10 MB at which terminal capture starts a new file/);
  } finally {
    await mcp.close();
  }
  execFileSync('rm', ['-f', big]);
});
