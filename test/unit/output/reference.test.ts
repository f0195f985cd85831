import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import {
  OutputScanner, buildReference, buildReferenceFromText, cutToBytes, formatReference, issueGrepCommand, REFERENCE_MAX_BYTES,
} from '../../../src/core/output/reference';

const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

function noisyLog(lines: number): string {
  const out: string[] = [];
  for (let i = 1; i <= lines; i++) {
    if (i % 97 === 0) out.push(`src/mod${i}.ts(${i},7): error TS2322: Type 'string' is not assignable to type 'number'.`);
    else if (i % 301 === 0) out.push(`npm WARN deprecated pkg${i}@1.0.0: use something else`);
    else out.push(`  ✓ test case number ${i} passes in ${i % 13} ms`);
  }
  out.push('Fehler: Build fehlgeschlagen', '错误: 构建失败', 'エラー: ビルドに失敗しました', 'ошибка: сборка не удалась', 'erreur : la compilation a échoué', 'Done.');
  return out.join('\n') + '\n';
}

function tmpFile(name: string, text: string | Buffer): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ref-'));
  const f = path.join(dir, name);
  fs.writeFileSync(f, text);
  return f;
}

test('a huge noisy output becomes a reference within 2,048 bytes that names the grep listing every issue', async () => {
  const text = noisyLog(30_000);
  const file = tmpFile('out.txt', text);
  const ref = await buildReference(file, { path: '.agent/scratch/tool_outputs/out.txt', grepPath: file, command: 'npm test', exitCode: 1, durationMs: 4200 });
  assert.ok(bytes(ref) <= REFERENCE_MAX_BYTES, `${bytes(ref)} bytes`);
  assert.match(ref, /exit 1 · 4\.2 s/);
  assert.match(ref, /30,006 lines/);
  const m = /Errors\/warnings \((\d+) lines; (\d+) shown\)/.exec(ref);
  assert.ok(m, ref);
  const grep = /All \d+: (grep .*)$/m.exec(ref)?.[1];
  assert.ok(grep, ref);
  // Run the very command the reference prints: it must list exactly the counted lines.
  const listed = execFileSync('bash', ['-c', grep!], { encoding: 'utf8', maxBuffer: 64 << 20 }).trim().split('\n');
  assert.equal(listed.length, Number(m![1]));
  // Every line the reference shows as L<n> is what grep -n reports for that number.
  const byNo = new Map(listed.map((l) => [Number(l.slice(0, l.indexOf(':'))), l.slice(l.indexOf(':') + 1)]));
  for (const [, n, t] of ref.matchAll(/^L(\d+): (.*)$/gm)) {
    if (byNo.has(Number(n))) assert.ok(byNo.get(Number(n))!.startsWith(t.replace(/…$/, '')), `L${n}`);
  }
  // The multilingual failure lines at the end are all flagged.
  for (const w of ['Fehler', '错误', 'エラー', 'ошибка', 'erreur']) assert.ok(listed.some((l) => l.includes(w)), w);
  assert.match(ref, /Next: read lines \d+–\d+ of \.agent\/scratch\/tool_outputs\/out\.txt/);
});

test('the scan is the same however the stream is chunked, even mid-character and mid-word', () => {
  const text = noisyLog(2000) + 'x'.repeat(5000) + ' panic: boom\nlast';
  const whole = new OutputScanner();
  whole.push(text);
  const a = whole.end();
  const bits = new OutputScanner();
  for (let i = 0; i < text.length; i += 7) bits.push(text.slice(i, i + 7));
  const b = bits.end();
  assert.equal(b.issueCount, a.issueCount);
  assert.equal(b.lines, a.lines);
  assert.equal(b.bytes, bytes(text));
  assert.deepEqual(b.issues.map((l) => l.n), a.issues.map((l) => l.n));
  assert.equal(a.lines, 2008);
});

test('ERR counts after a blank, a line start or punctuation, not inside base64 or hex runs; every chunking agrees with the printed grep', () => {
  const long = 'q'.repeat(40);
  const lines = ['ERR at start', 'xERRy', 'npm ERR! code', 'abc+ERR', '[ERROR] x', `${long}ERR`, `${long} ERR`, 'ZipERRXsj/8kq+yDiD4lDR', 'E', 'ERR_INVALID_ARG_TYPE', 'ok line'];
  const text = lines.join('\n') + '\n';
  const flagged = [1, 3, 5, 7, 10];
  for (const step of [1, 2, 3, 5, 7, text.length]) {
    const s = new OutputScanner();
    for (let i = 0; i < text.length; i += step) s.push(text.slice(i, i + step));
    assert.deepEqual(s.end().issues.map((l) => l.n), flagged, `chunks of ${step}`);
  }
  const file = tmpFile('err.txt', text);
  const listed = execFileSync('bash', ['-c', `${issueGrepCommand(file)} | cut -d: -f1`], { encoding: 'utf8' }).trim().split('\n').map(Number);
  assert.deepEqual(listed, flagged);
});

test('a single enormous line is scanned without being kept, and an error at its end still counts', () => {
  const s = new OutputScanner();
  for (let i = 0; i < 100; i++) s.push('{"k":"' + 'v'.repeat(10_000) + '"},');
  s.push('"Exception":1}\n');
  const r = s.end();
  assert.equal(r.issueCount, 1);
  assert.ok(r.issues[0].text.length <= 400);
  const ref = formatReference(r, { path: 'a.json' });
  assert.ok(bytes(ref) <= REFERENCE_MAX_BYTES);
});

test('output over 1 MB gets an estimated token count marked ≈', () => {
  const ref = buildReferenceFromText('all good here, nothing to see\n'.repeat(60_000), { path: 'x.txt' });
  assert.match(ref, /≈[\d,]+ tokens/);
  assert.match(ref, /No error or warning lines/);
});

test('a line range (one command of a terminal file) is numbered in the file and its grep lists the same lines', async () => {
  const lines = Array.from({ length: 500 }, (_, i) => (i === 120 || i === 420 ? `line ${i + 1} ERROR here` : `line ${i + 1}`));
  const file = tmpFile('t.txt', lines.join('\n') + '\n');
  const ref = await buildReference(file, { path: 't.txt', range: { start: 101, end: 200 }, maxBytes: 2048 });
  assert.match(ref, /L121: line 121 ERROR here/);
  assert.doesNotMatch(ref, /L421/);
  assert.match(ref, /100 lines/);
  const cmd = issueGrepCommand(file, { start: 101, end: 200 });
  assert.equal(execFileSync('bash', ['-c', cmd], { encoding: 'utf8' }).trim(), '121:line 121 ERROR here');
});

test('cuts never split a character and a tiny budget is still honoured', () => {
  const s = '错误'.repeat(100);
  const c = cutToBytes(s, 50);
  assert.ok(bytes(c) <= 50);
  assert.equal(Buffer.from(c, 'utf8').toString('utf8'), c);
  const ref = buildReferenceFromText('エラー\n'.repeat(3000), { path: 'ユニコード/出力.txt', command: 'x'.repeat(5000), maxBytes: 300 });
  assert.ok(bytes(ref) <= 300, `${bytes(ref)}`);
  assert.ok(!ref.includes('\uFFFD'));
});

test('numbered failures (mocha) and apt E: lines count only at the start of a line, as the printed grep does', async () => {
  const lines = ['  1) adds numbers', 'see step 2) below', 'E: Unable to locate package x', 'WE: not this', ...Array.from({ length: 300 }, (_, i) => `ok ${i}`)];
  const file = tmpFile('m.txt', lines.join('\n') + '\n');
  const ref = await buildReference(file, { path: 'm.txt' });
  assert.match(ref, /Errors\/warnings \(2 lines\):\nL1: {3}1\) adds numbers\nL3: E: Unable to locate package x\n/);
  assert.equal(execFileSync('bash', ['-c', issueGrepCommand(file)], { encoding: 'utf8' }), '1:  1) adds numbers\n3:E: Unable to locate package x\n');
});

test('an empty output says so', () => {
  const ref = buildReferenceFromText('', { path: 'e.txt', command: 'true', exitCode: 0, durationMs: 5 });
  assert.match(ref, /0 bytes · 0 lines/);
  assert.match(ref, /empty/);
});
