import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { writeFinding, setAgentStatus, listAgents, readFindings, parseFindings, checkAgentId } from '../../src/core/agents';

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
  const mod = path.join(__dirname, '../../src/core/agents/index.js');
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
