import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { builtinGrep, compileQuery, type GrepQuery } from '../../../src/core/search/grepEngine';

// The built-in engine reads files in 4 MB blocks: these files put matches at block boundaries,
// in CRLF and unicode lines, on a last line without \n and on one line longer than a block.
function tree(): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'grepblocks-')));
  const big: string[] = [];
  let bytes = 0;
  for (let i = 0; bytes < 9.5 * 1024 * 1024; i++) {
    const line = i % 997 === 0 ? `x needle ${i} y` : i % 1499 === 0 ? `needle at start ${i}` : `filler line ${i} ${'abcdefgh'.repeat(i % 17)}`;
    big.push(line);
    bytes += line.length + 1;
  }
  const files: Record<string, string> = {
    'big.txt': big.join('\n') + '\n',
    'crlf.txt': Array.from({ length: 200_000 }, (_, i) => (i % 333 === 0 ? `needle crlf ${i}` : `crlf filler ${i}`)).join('\r\n') + '\r\n',
    'unicode.txt': Array.from({ length: 50_000 }, (_, i) => (i % 101 === 0 ? `ünïcödé 数据 needle ${i} ✓` : `数据 filler ${i} ü`)).join('\n') + '\n',
    'notrailing.txt': 'needle first\nmiddle\nlast needle no newline',
    'longline.txt': `short\n${'z'.repeat(5 * 1024 * 1024)} needle in a long line\nneedle after\n`,
    'empty.txt': '',
    'blanklines.txt': '\n\nneedle\n\n\nneedle\n',
  };
  for (const [f, t] of Object.entries(files)) fs.writeFileSync(path.join(root, f), t);
  return root;
}

function query(root: string, pattern: string, literal: boolean, context: number): GrepQuery {
  return {
    pattern, literal, caseSensitive: true, regex: compileQuery(pattern, literal, true) as RegExp, root, exclude: [],
    useIgnoreFiles: false, ignoreGlobs: [], context, signal: new AbortController().signal,
  };
}

async function ours(q: GrepQuery): Promise<string[]> {
  const out: string[] = [];
  for await (const h of builtinGrep(q)) out.push(`${path.basename(h.file)}${h.context ? '-' : ':'}${h.line}`);
  return out.sort();
}

function gnu(root: string, pattern: string, literal: boolean, context: number): string[] {
  const args = ['-rn', literal ? '-F' : '-E', ...(context ? ['-C', String(context)] : []), '-e', pattern, '.'];
  const r = spawnSync('grep', args, { cwd: root, env: { ...process.env, LC_ALL: 'C' }, maxBuffer: 1 << 28, encoding: 'utf8' });
  assert.ok(r.status === 0 || r.status === 1, `grep failed: ${r.stderr}`);
  return r.stdout.split('\n').filter((l) => l && l !== '--').map((l) => {
    const m = /^\.\/([a-z]+\.txt)([:-])(\d+)[:-]/.exec(l);
    assert.ok(m, `unexpected grep line ${l.slice(0, 80)}`);
    return `${m[1]}${m[2]}${m[3]}`;
  }).sort();
}

test('the built-in engine finds the same lines as GNU grep across block boundaries, CRLF, unicode and a missing final newline', async () => {
  const root = tree();
  try {
    for (const [pattern, literal] of [['needle', true], ['ünïcödé 数据 needle', true], ['ne+dle [0-9]+', false], ['^needle', false], ['needle$', false], ['[0-9]9 y', false], ['needles? at', false], ['x needle 9{2}', false]] as [string, boolean][]) {
      for (const context of [0, 2]) {
        const expected = gnu(root, pattern, literal, context);
        assert.ok(expected.some((l) => l.includes(':')), `grep finds /${pattern}/`);
        assert.deepEqual(await ours(query(root, pattern, literal, context)), expected, `/${pattern}/ context ${context}`);
      }
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('CRLF lines come back without the \\r and a pattern anchored at the line end matches them', async () => {
  const root = tree();
  try {
    const hits = [];
    for await (const h of builtinGrep(query(path.join(root, 'crlf.txt'), 'crlf 333$', false, 0))) hits.push(h);
    assert.deepEqual(hits.map((h) => [h.line, h.text]), [[334, 'needle crlf 333']]);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
