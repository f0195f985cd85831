import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { builtinGrep, compileQuery, ripgrep, type GrepHit, type GrepQuery } from '../../../src/core/search/grepEngine';
import { findRipgrep } from '../../../src/core/search/findRipgrep';
import { gitignoreGlobsFor, gitignoreToGlobs } from '../../../src/core/search/ignoreRules';

function tree(): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'grep-')));
  const files: Record<string, string> = {
    '.gitignore': 'build/\n*.log\n/only-root.txt\n',
    'src/a.ts': 'const x = 1;\n// TODO: fix\nexport const y = x;\n',
    'src/deep/b.ts': 'todo lower\nnothing\n',
    'build/out.js': 'TODO in build\n',
    'app.log': 'TODO in log\n',
    'only-root.txt': 'TODO root\n',
    'sub/only-root.txt': 'TODO sub\n',
    'bin.dat': 'TODO\u0000binary',
    'ünï/数据.txt': '错误 TODO 数据\n',
  };
  for (const [f, t] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
    fs.writeFileSync(path.join(root, f), t);
  }
  return root;
}

async function collect(gen: AsyncIterable<GrepHit>, root: string): Promise<string[]> {
  const out: string[] = [];
  for await (const h of gen) out.push(`${path.relative(root, h.file)}:${h.line}${h.context ? '-' : ':'}${h.text}`);
  return out.sort();
}

async function query(root: string, over: Partial<GrepQuery> = {}): Promise<GrepQuery> {
  const regex = compileQuery('todo', false, false) as RegExp;
  return {
    pattern: 'todo', literal: false, caseSensitive: false, regex, root, exclude: [], useIgnoreFiles: true,
    ignoreGlobs: await gitignoreGlobsFor(root, root), context: 0, signal: new AbortController().signal, ...over,
  };
}

test('the built-in engine honours .gitignore, skips binary files and finds unicode paths', async () => {
  const root = tree();
  const hits = await collect(builtinGrep(await query(root)), root);
  assert.deepEqual(hits, ['src/a.ts:2:// TODO: fix', 'src/deep/b.ts:1:todo lower', 'sub/only-root.txt:1:TODO sub', 'ünï/数据.txt:1:错误 TODO 数据']);
});

test('ripgrep and the built-in engine give the same matches and context lines', async () => {
  const rg = findRipgrep(undefined);
  assert.ok(rg, 'ripgrep on PATH (scripts/ensure-deps.sh installs Debian\'s ripgrep)');
  const root = tree();
  for (const over of [{}, { context: 1 }, { useIgnoreFiles: false, ignoreGlobs: [] }, { include: '*.ts' }, { exclude: ['src/deep/**'] }] as Partial<GrepQuery>[]) {
    const q = await query(root, over);
    assert.deepEqual(await collect(ripgrep(rg!, q), root), await collect(builtinGrep(q), root), JSON.stringify(over));
  }
});

test('an invalid pattern is reported, a literal one is escaped', () => {
  assert.equal(typeof compileQuery('a(b', false, true), 'string');
  const lit = compileQuery('a(b', true, true) as RegExp;
  assert.ok(lit.test('x a(b y'));
});

test('.gitignore lines become globs; negations are skipped', () => {
  assert.deepEqual(gitignoreToGlobs('# c\nbuild/\n*.log\n/root.txt\n!keep.log\ndocs/api\n'), [
    '**/build/**', '**/*.log/**', '**/*.log', 'root.txt/**', 'root.txt', 'docs/api/**', 'docs/api',
  ]);
});
