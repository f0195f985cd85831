import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { writeFinding, setAgentStatus, listAgents, readFindings, parseFindings, checkAgentId } from '../../../src/core/agents';
import { agentWorkspaceTool } from '../../../src/core/tools/agentWorkspace';
import { INLINE_MAX_BYTES, type ToolContext } from '../../../src/core/tools/toolContext';
import { DEFAULT_TOOL_CONFIG } from '../../../src/core/config';
import { nullLogger } from '../../../src/core/log';
import { groupDigits } from '../../../src/core/output/humanize';

function tmpAgent(): string {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-agents-'));
  fs.mkdirSync(path.join(ws, '.agent'));
  return path.join(ws, '.agent');
}

test('agent ids are validated: traversal and odd characters are refused', async () => {
  const a = tmpAgent();
  for (const id of ['..', '../x', 'a/b', '', 'x'.repeat(65), 'a b', '.']) {
    const r = await writeFinding(a, id, 'x');
    assert.ok(!r.ok, id);
  }
  assert.equal(checkAgentId('researcher-1.v2_a'), undefined);
  assert.deepEqual(fs.readdirSync(path.dirname(a)), ['.agent']);
  assert.equal(fs.existsSync(path.join(a, 'agents')) ? fs.readdirSync(path.join(a, 'agents')).length : 0, 0);
});

test('findings are appended with timestamp headings and read back in order', async () => {
  const a = tmpAgent();
  const r1 = await writeFinding(a, 'scout', 'The parser lives in src/core/plan.', { now: new Date('2026-11-29T10:00:00Z') });
  assert.ok(r1.ok);
  assert.equal(r1.value.path, '.agent/agents/scout/findings.md');
  await writeFinding(a, 'scout', 'Second finding\n## 2026-01-01T00:00:00Z fake heading inside', { now: new Date('2026-11-29T11:00:00Z') });
  const r = await readFindings(a, 'scout');
  assert.ok(r.ok);
  assert.deepEqual(r.value.findings.map((f) => f.time), ['2026-11-29T10:00:00.000Z', '2026-11-29T11:00:00.000Z']);
  assert.equal(r.value.findings[0].text, 'The parser lives in src/core/plan.');
  assert.match(r.value.findings[1].text, /### 2026-01-01/);
  const text = fs.readFileSync(path.join(a, 'agents', 'scout', 'findings.md'), 'utf8');
  assert.equal(text.split('\n')[r.value.findings[0].line - 1], '## 2026-11-29T10:00:00.000Z');
});

test('status is written atomically and validated; list shows status, findings and files', async () => {
  const a = tmpAgent();
  assert.ok((await setAgentStatus(a, 'b', { status: 'working', progress: 0.5, details: 'halfway' })).ok);
  const bad = await setAgentStatus(a, 'b', { status: 'sleeping' });
  assert.ok(!bad.ok);
  assert.match(bad.error.message, /use one of idle, working, blocked, done, failed/);
  const badP = await setAgentStatus(a, 'b', { status: 'working', progress: 2 });
  assert.ok(!badP.ok);
  await writeFinding(a, 'a', 'one');
  await writeFinding(a, 'a', 'two');
  fs.mkdirSync(path.join(a, 'agents', 'a', 'notes'));
  fs.writeFileSync(path.join(a, 'agents', 'a', 'notes', 'x.txt'), 'x');
  fs.writeFileSync(path.join(a, 'agents', 'c'), 'not a folder');
  const list = await listAgents(a);
  assert.deepEqual(list.map((x) => [x.id, x.status?.status, x.status?.progress, x.findings, x.files]), [
    ['a', undefined, undefined, 2, ['notes/x.txt']],
    ['b', 'working', 0.5, 0, []],
  ]);
  assert.deepEqual(fs.readdirSync(path.join(a, 'agents', 'b')), ['status.json']);
});

test('a symlinked agent folder is refused rather than written through', async () => {
  const a = tmpAgent();
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-outside-'));
  fs.mkdirSync(path.join(a, 'agents'));
  fs.symlinkSync(outside, path.join(a, 'agents', 'evil'));
  const r = await writeFinding(a, 'evil', 'x');
  assert.ok(!r.ok);
  assert.match(r.error.message, /symlink/);
  assert.deepEqual(fs.readdirSync(outside), []);
});

test('parseFindings ignores a preamble and handles CRLF', () => {
  const f = parseFindings('# Findings\r\n\r\n## 2026-11-29T10:00:00.000Z\r\n\r\nhello\r\n');
  assert.deepEqual(f, [{ time: '2026-11-29T10:00:00.000Z', line: 3, text: 'hello' }]);
});

test('two processes appending findings and rewriting status at once corrupt nothing', async () => {
  const a = tmpAgent();
  const mod = require.resolve('../../../src/core/agents');
  const N = 150;
  const script = `
    const m = require(${JSON.stringify(mod)});
    const [dir, tag, n] = process.argv.slice(1);
    (async () => {
      const big = 'x'.repeat(3000);
      for (let i = 0; i < Number(n); i++) {
        const r = await m.writeFinding(dir, 'shared', tag + ' ' + i + ' ' + big + ' end-' + tag + '-' + i);
        if (!r.ok) throw new Error(r.error.message);
        const s = await m.setAgentStatus(dir, 'shared', { status: 'working', progress: i / Number(n), details: tag });
        if (!s.ok) throw new Error(s.error.message);
      }
    })().catch((e) => { console.error(e); process.exit(1); });`;
  const run = (tag: string) =>
    new Promise<number>((resolve) => {
      const p = spawn(process.execPath, ['-e', script, a, tag, String(N)], { stdio: ['ignore', 'inherit', 'inherit'] });
      p.on('exit', (code) => resolve(code ?? 1));
    });
  const codes = await Promise.all([run('A'), run('B')]);
  assert.deepEqual(codes, [0, 0]);
  const r = await readFindings(a, 'shared');
  assert.ok(r.ok);
  assert.equal(r.value.findings.length, 2 * N);
  for (const f of r.value.findings) assert.match(f.text, /^([AB]) (\d+) x{3000} end-\1-\2$/);
  for (const tag of ['A', 'B']) {
    const seen: number[] = r.value.findings.filter((f) => f.text.startsWith(tag + ' ')).map((f) => Number(f.text.split(' ')[1]));
    assert.deepEqual(seen, Array.from({ length: N }, (_, i) => i), `${tag} entries all present and in order`);
  }
  const status = JSON.parse(fs.readFileSync(path.join(a, 'agents', 'shared', 'status.json'), 'utf8'));
  assert.equal(status.status, 'working');
  assert.deepEqual(fs.readdirSync(path.join(a, 'agents', 'shared')).sort(), ['findings.md', 'status.json']);
});

/** The list tool's text for the workspace holding `agentDir`. */
async function listText(agentDir: string, self = 'me'): Promise<string> {
  const ctx: ToolContext = { folders: [{ name: 'w', path: path.dirname(agentDir) }], config: DEFAULT_TOOL_CONFIG, signal: new AbortController().signal, log: nullLogger, source: 'mcp', trusted: true, allowRun: false };
  return (await agentWorkspaceTool({ agentId: self, action: 'list' }, ctx)).text;
}

const ids = (text: string): string[] => text.split('\n').slice(1, -1).map((l) => l.split(/[: ]/)[0]);

test('list order follows files written directly, not only through our writers: an in-place append or rewrite leaves the folder mtime alone', async () => {
  const a = tmpAgent();
  const old = new Date(Date.now() - 3600_000);
  for (const id of ['a', 'b', 'c']) {
    assert.ok((await setAgentStatus(a, id, { status: 'working' })).ok);
    assert.ok((await writeFinding(a, id, `first of ${id}`)).ok);
    for (const f of ['status.json', 'findings.md', '.']) fs.utimesSync(path.join(a, 'agents', id, f), old, old);
  }
  // b's findings.md appended in place by the agent's own editor, a minute later than the rest.
  const later = new Date(old.getTime() + 60_000);
  fs.appendFileSync(path.join(a, 'agents', 'b', 'findings.md'), '\n## 2026-11-30T10:00:00.000Z\n\nwritten directly\n');
  fs.utimesSync(path.join(a, 'agents', 'b', 'findings.md'), later, later);
  let text = await listText(a);
  assert.deepEqual(ids(text), ['b', 'a', 'c']);
  assert.match(text.split('\n')[1], /^b: working 0%; 2 findings/);
  // c's status.json rewritten in place (same inode, the folder untouched), later still.
  const folderMtime = fs.statSync(path.join(a, 'agents', 'c')).mtimeMs;
  const fd = fs.openSync(path.join(a, 'agents', 'c', 'status.json'), 'r+');
  fs.ftruncateSync(fd, 0);
  fs.writeSync(fd, JSON.stringify({ agentId: 'c', status: 'blocked', progress: 0.25, updated: '' }), 0);
  fs.closeSync(fd);
  const latest = new Date(old.getTime() + 120_000);
  fs.utimesSync(path.join(a, 'agents', 'c', 'status.json'), latest, latest);
  assert.equal(fs.statSync(path.join(a, 'agents', 'c')).mtimeMs, folderMtime);
  text = await listText(a);
  assert.deepEqual(ids(text), ['c', 'b', 'a']);
  assert.match(text.split('\n')[1], /^c: blocked 25%; 1 finding \(/);
  // Through our writers again: a finding by a is the newest activity.
  assert.ok((await writeFinding(a, 'a', 'second of a')).ok);
  assert.deepEqual(ids(await listText(a)), ['a', 'c', 'b']);
  // A truncated findings.md (rotated by hand, a second later) still counts as activity, and its
  // count follows. The time is set: two writes within one tick of the file system's clock tie.
  fs.writeFileSync(path.join(a, 'agents', 'b', 'findings.md'), '');
  const rotated = new Date(fs.statSync(path.join(a, 'agents', 'a', 'findings.md')).mtimeMs + 1000);
  fs.utimesSync(path.join(a, 'agents', 'b', 'findings.md'), rotated, rotated);
  const text2 = await listText(a);
  assert.deepEqual(ids(text2), ['b', 'a', 'c']);
  assert.match(text2.split('\n')[1], /^b: working 0%; 0 findings/);
});

test('list with long status details shows fewer agents, newest first, within the inline budget, and counts the rest', async () => {
  const a = tmpAgent();
  const base = Date.now() - 3600_000;
  for (let i = 0; i < 60; i++) {
    const id = `w-${String(i).padStart(2, '0')}`;
    assert.ok((await setAgentStatus(a, id, { status: 'working', progress: 0.5, details: `${id} ${'detail '.repeat(60)}` })).ok);
    // w-00 the newest, then older with the number.
    const t = new Date(base - i * 1000);
    fs.utimesSync(path.join(a, 'agents', id, 'status.json'), t, t);
  }
  const text = await listText(a, 'w-03');
  const lines = text.split('\n');
  const shown = Number(/^60 agents, most recently active first \((\d+) shown\):$/.exec(lines[0])?.[1]);
  assert.ok(shown > 5 && shown < 40, `shown ${shown}`);
  assert.deepEqual(ids(text), Array.from({ length: shown }, (_, i) => `w-${String(i).padStart(2, '0')}`));
  assert.match(lines[4], /^w-03 \(you\): working 50% — w-03 detail detail/);
  for (const l of lines.slice(1, -1)) assert.ok(Buffer.byteLength(l) <= 300, l);
  assert.equal(lines.at(-1), `… ${60 - shown} more not shown (older activity): read one with action read and peer=<id>, or list .agent/agents/.`);
  assert.ok(Buffer.byteLength(text) <= INLINE_MAX_BYTES, `${Buffer.byteLength(text)} bytes`);
});

test('a status.json that is not a small regular file is reported in the listing, never read or waited on', async () => {
  const a = tmpAgent();
  assert.ok((await setAgentStatus(a, 'big', { status: 'working' })).ok);
  fs.writeFileSync(path.join(a, 'agents', 'big', 'status.json'), `{"status":"working","pad":"${'x'.repeat(70_000)}"}`);
  assert.ok((await setAgentStatus(a, 'bad', { status: 'working' })).ok);
  fs.writeFileSync(path.join(a, 'agents', 'bad', 'status.json'), '{"status": ');
  const listed = new Map((await listAgents(a)).map((x) => [x.id, x]));
  assert.match(listed.get('big')!.statusError!, /status\.json is 70\d{3} bytes/);
  assert.match(listed.get('bad')!.statusError!, /not valid JSON/);
  if (process.platform !== 'win32') {
    fs.mkdirSync(path.join(a, 'agents', 'fifo'));
    spawnSync('mkfifo', [path.join(a, 'agents', 'fifo', 'status.json')]);
    assert.ok(fs.statSync(path.join(a, 'agents', 'fifo', 'status.json')).isFIFO());
    const text = await listText(a);
    assert.match(text, /^fifo: status unreadable: status\.json is not a regular file; 0 findings/m);
  }
});

test('a big findings file: read shows the same newest entries, count and line numbers as a whole read, from its end only, and follows appends and a rewrite', async () => {
  const agentDir = tmpAgent();
  const dir = path.join(agentDir, 'agents', 'big');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'findings.md');
  // About 2 MB: 4,000 entries of varied length (some multi-line, some long), then the newest few.
  const entries = Array.from({ length: 4000 }, (_, i) => `\n## ${new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString()}\n\nFinding ${i}: ${'x'.repeat((i * 37) % 900)}${i % 5 === 0 ? '\nsecond line\n\nthird' : ''}\n`);
  fs.writeFileSync(file, entries.join(''));
  const ctx: ToolContext = { folders: [{ name: 'w', path: path.dirname(agentDir) }], config: DEFAULT_TOOL_CONFIG, signal: new AbortController().signal, log: nullLogger, source: 'mcp', trusted: true, allowRun: false };
  const read = async (): Promise<string> => (await agentWorkspaceTool({ agentId: 'me', action: 'read', peer: 'big' }, ctx)).text;
  /** What the answer must be: from a whole read and parse of the file. */
  const expected = (): { count: number; lastShownLine: number } => {
    const all = parseFindings(fs.readFileSync(file, 'utf8'));
    return { count: all.length, lastShownLine: all[all.length - 1].line };
  };
  for (const step of ['first', 'again', 'appended', 'rewritten', 'one-entry']) {
    if (step === 'appended') assert.ok((await writeFinding(agentDir, 'big', 'appended finding')).ok);
    if (step === 'rewritten') fs.writeFileSync(file, entries.slice(0, 3000).join(''));
    if (step === 'one-entry') fs.writeFileSync(file, `\n## 2026-01-01T00:00:00.000Z\n\n${'y'.repeat(30_000)}\n`);
    const text = await read();
    const e = expected();
    assert.match(text, new RegExp(`^Findings of big \\(\\.agent/agents/big/findings\\.md, ${groupDigits(e.count)} entr`), step);
    assert.ok(text.includes(`(line ${e.lastShownLine})`), `${step}: newest entry with its line`);
    const shown = [...text.matchAll(/^## (\S+) \(line (\d+)\)$/gm)];
    const all = parseFindings(fs.readFileSync(file, 'utf8'));
    for (const m of shown) assert.ok(all.some((f) => f.time === m[1] && f.line === Number(m[2])), `${step}: ${m[0]} is at that line`);
    if (e.count > shown.length) {
      const first = all.find((f) => f.time === shown[0][1])!;
      assert.ok(text.endsWith(`Earlier entries: read lines 1–${first.line - 1} of .agent/agents/big/findings.md`), step);
      assert.ok(text.includes(`newest ${shown.length} shown`), step);
    }
    assert.ok(Buffer.byteLength(text) <= INLINE_MAX_BYTES, step);
  }
  assert.equal((await readFindings(agentDir, 'big')).ok, true);
});
