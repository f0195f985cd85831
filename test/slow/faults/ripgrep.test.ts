// Faults of ripgrep and of unreadable files (issue 22): the grep tool never answers "No matches"
// unless a search completed, falls back to the built-in engine when ripgrep fails, and names the
// files it could not read.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildSync } from 'esbuild';
import { globTool } from '../../../src/core/tools/glob';
import { grepTool } from '../../../src/core/tools/grep';
import { findRipgrep } from '../../../src/core/search/findRipgrep';
import { brokenRipgrep, faultWorkspace, giveToNobody, isRoot, NOBODY, toolContext, type BrokenRipgrep } from '../../faultKit';

function workspaceWithMatches(): { root: string; bin: string } {
  const { root } = faultWorkspace('ac-rgfault-');
  fs.writeFileSync(path.join(root, 'app.log'), 'starting\nERROR: disk on fire\nok\n');
  fs.mkdirSync(path.join(root, 'src'));
  fs.writeFileSync(path.join(root, 'src', 'main.ts'), '// ERROR handling lives here\n');
  const bin = path.join(root, '..', `${path.basename(root)}-bin`);
  fs.mkdirSync(bin);
  return { root, bin };
}

for (const kind of ['killed', 'execFormat', 'missingInterpreter', 'missing', 'silentExit2', 'hang'] as BrokenRipgrep[]) {
  test(`grep with a ripgrep that fails (${kind}) answers with the built-in engine's matches and says why`, async () => {
    const { root, bin } = workspaceWithMatches();
    const rg = brokenRipgrep(bin, kind);
    const ctx = toolContext(root, { ripgrep: rg, ripgrepTimeoutMs: 1500 });
    for (const input of [{ pattern: 'ERROR', path: '.' }, { pattern: 'ERROR', path: 'app.log' }]) {
      const r = await grepTool(input, ctx);
      assert.ok(!r.isError, r.text);
      assert.doesNotMatch(r.text, /No matches/, r.text);
      assert.match(r.text, /app\.log:2: ERROR: disk on fire/);
      assert.match(r.text, new RegExp(`Note: ripgrep \\(${rg.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\) .*; searched with the built-in engine instead\\.`), r.text);
    }
  });
}

test('ripgrep exiting 2 on one unreadable file: its matches elsewhere, and the file named', async () => {
  const real = findRipgrep(undefined);
  assert.ok(real, 'ripgrep on PATH');
  const { root, bin } = workspaceWithMatches();
  const ctx = toolContext(root, { ripgrep: brokenRipgrep(bin, 'ioError', real) });
  const r = await grepTool({ pattern: 'ERROR', path: '.' }, ctx);
  assert.match(r.text, /^2 matches in 2 files/);
  assert.doesNotMatch(r.text, /built-in engine/);
  assert.match(r.text, /Not searched: 1 file or folder could not be read: broken\.log \(Input\/output error \(os error 5\)\)\./);
});

// Root reads every file: the unreadable ones need a process that is not root. What it runs is
// bundled into a file beside the workspace (a folder giveToNobody made passable): the compiled code
// under out/ may sit in a clone nobody cannot enter (a private 0700 folder, a 0750 home).
function asNobody(root: string, engine: 'ripgrep' | 'builtin'): string {
  const bundle = path.join(path.dirname(root), `${path.basename(root)}-nobody.js`);
  if (!fs.existsSync(bundle)) {
    const grepJs = require.resolve('../../../src/core/tools/grep');
    const kitJs = require.resolve('../../faultKit');
    buildSync({
      stdin: { contents: `exports.grepTool = require(${JSON.stringify(grepJs)}).grepTool;\nexports.toolContext = require(${JSON.stringify(kitJs)}).toolContext;\n`, resolveDir: path.dirname(grepJs) },
      bundle: true,
      platform: 'node',
      format: 'cjs',
      outfile: bundle,
      logLevel: 'error',
    });
    fs.chmodSync(bundle, 0o644);
  }
  const script = `
    const { grepTool, toolContext } = require(${JSON.stringify(bundle)});
    grepTool({ pattern: 'ERROR', path: '.' }, toolContext(${JSON.stringify(root)}, { ripgrep: ${engine === 'ripgrep' ? JSON.stringify(findRipgrep(undefined)) : 'undefined'} }))
      .then((r) => process.stdout.write(r.text));`;
  return execFileSync(process.execPath, ['-e', script], { ...NOBODY, encoding: 'utf8', cwd: '/' });
}

for (const engine of ['ripgrep', 'builtin'] as const) {
  test(`${engine}: files and folders without read permission are named, the rest is searched`, { skip: !isRoot() && 'needs root to switch to the nobody user' }, async () => {
    const { root } = workspaceWithMatches();
    fs.writeFileSync(path.join(root, 'secret.log'), 'ERROR: hidden\n');
    fs.mkdirSync(path.join(root, 'locked'));
    fs.writeFileSync(path.join(root, 'locked', 'x.log'), 'ERROR: locked away\n');
    giveToNobody(root);
    execFileSync('chown', ['root:root', path.join(root, 'secret.log'), path.join(root, 'locked')]);
    fs.chmodSync(path.join(root, 'secret.log'), 0o600);
    fs.chmodSync(path.join(root, 'locked'), 0o700);
    const text = asNobody(root, engine);
    assert.match(text, /^2 matches in 2 files/, text);
    assert.match(text, /Not searched: 2 files or folders could not be read: /, text);
    assert.match(text, /locked \(/);
    assert.match(text, /secret\.log \(/);
    // Nothing unreadable but nothing found: still not a bare "No matches".
    fs.rmSync(path.join(root, 'app.log'));
    fs.rmSync(path.join(root, 'src'), { recursive: true });
    const none = asNobody(root, engine);
    assert.match(none, /^No matches for \/ERROR\/i in \. in the files that could be read\.\nNot searched: 2 files/, none);
  });
}

for (const kind of ['killed', 'execFormat', 'missing', 'hang'] as BrokenRipgrep[]) {
  test(`glob with a ripgrep that fails (${kind}) lists the files with the built-in walk`, async () => {
    const { root, bin } = workspaceWithMatches();
    const r = await globTool({ pattern: '*.ts' }, toolContext(root, { ripgrep: brokenRipgrep(bin, kind), ripgrepTimeoutMs: 1500 }));
    assert.match(r.text, /^1 file match \*\.ts in \., newest first:\nsrc\/main\.ts/, r.text);
  });
}

test('built-in engine: a file of NULs past its first 8 KB is skipped as binary at once; other files still searched', async () => {
  const { root } = workspaceWithMatches();
  const big = path.join(root, 'sparse.log');
  fs.writeFileSync(big, 'ERROR at the top\n'.repeat(600)); // 10 KB of text, then 2 GB of NULs without a newline
  fs.truncateSync(big, 2 * 1024 * 1024 * 1024);
  const t0 = Date.now();
  const r = await grepTool({ pattern: 'ERROR', path: '.' }, toolContext(root));
  assert.ok(Date.now() - t0 < 30_000, `took ${Date.now() - t0} ms`);
  assert.match(r.text, /app\.log:2: ERROR: disk on fire/);
  fs.rmSync(big);
});
