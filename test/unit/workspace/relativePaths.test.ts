import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { isInside, pathRulesFor, toPosixRelative } from '../../../src/core/workspace/relativePaths';

// toPosixRelative has a fast path for a normalized file below a normalized root; every answer
// must be the one path.relative gives (with forward slashes), including the cases that leave it.
test('toPosixRelative answers as path.relative does, on the fast path and off it', () => {
  const roots = ['/w/repo', '/w/repo/', '/w/./repo', '/w/repo/..', '/', '/w/rep', 'relative/root'];
  const rests = ['a.txt', '.agent/plans/p.md', 'a//b', 'a/./b', 'a/../b', '../x', 'a/', '.', '..', '.hidden/.x', 'a/..b/c', 'ünï/数据.md', ''];
  let fast = 0;
  for (const root of roots) {
    for (const rest of rests) {
      for (const file of [`${root}/${rest}`, `${root}${rest}`, `/w/repo/${rest}`, `/w/repository/${rest}`]) {
        const want = path.relative(root, file).split(path.sep).join('/');
        assert.equal(toPosixRelative(root, file), want, `toPosixRelative(${JSON.stringify(root)}, ${JSON.stringify(file)})`);
        if (root === '/w/repo' && file.startsWith('/w/repo/')) fast++;
      }
    }
  }
  assert.ok(fast > 10, 'the fast path was exercised');
});

// Each platform's rules, chosen by the platform passed in (so Windows' and macOS' are checked here).
test('pathRulesFor: a name starting with two dots is inside; .. and other folders are not (every platform)', () => {
  const cases: [NodeJS.Platform, string, string][] = [['linux', '/w', '/'], ['darwin', '/w', '/'], ['win32', 'C:\\w', '\\']];
  for (const [platform, root, sep] of cases) {
    const r = pathRulesFor(platform);
    const j = (...parts: string[]): string => [root, ...parts].join(sep);
    assert.ok(r.isInside(root, j('..x')), `${platform}: ..x`);
    assert.ok(r.isInside(root, j('a', '..b', 'c')), platform);
    assert.ok(r.isInside(root, root), platform);
    assert.equal(r.relativeInside(root, j('..x', 'y')), ['..x', 'y'].join(sep), platform);
    assert.equal(r.relativeInside(root, root), '', platform);
    assert.ok(!r.isInside(root, j('..', 'x')), platform);
    assert.ok(!r.isInside(root, `${root}x${sep}a`), `${platform}: a sibling whose name starts with the folder's`);
    assert.equal(r.relativeInside(root, j('..', 'x')), undefined, platform);
    assert.equal(r.toPosixRelative(root, j('..x', 'y')), '..x/y', platform);
    assert.equal(r.toPosixRelative(root, j('..', 'x')), '../x', platform);
    assert.ok(!r.leavesFolder('..x'), platform);
    assert.ok(!r.leavesFolder('..x/y'), platform);
    assert.ok(r.leavesFolder('..'), platform);
    assert.ok(r.leavesFolder('../x'), platform);
  }
});

test('pathRulesFor: case is ignored on Windows and macOS, not on Linux; Windows takes either separator', () => {
  assert.ok(pathRulesFor('win32').isInside('C:\\Work\\Repo', 'c:\\work\\repo\\src\\a.ts'));
  assert.equal(pathRulesFor('win32').toPosixRelative('C:\\Work\\Repo', 'c:\\work\\repo\\src\\a.ts'), 'src/a.ts');
  assert.ok(pathRulesFor('win32').isInside('C:\\Work\\Repo', 'C:/Work/Repo/src/a.ts'));
  assert.ok(pathRulesFor('win32').leavesFolder('..\\x'));
  assert.ok(!pathRulesFor('linux').leavesFolder('..\\x'), 'on Linux a backslash is part of a name');
  assert.ok(!pathRulesFor('win32').isInside('C:\\Work', 'D:\\Work\\a'));
  assert.ok(pathRulesFor('darwin').isInside('/Users/Me/Repo', '/users/me/repo/a.md'));
  assert.equal(pathRulesFor('darwin').relativeInside('/Users/Me/Repo', '/users/me/repo/A.md'), 'A.md');
  assert.ok(!pathRulesFor('linux').isInside('/Users/Me/Repo', '/users/me/repo/a.md'));
  assert.equal(pathRulesFor('darwin').foldCase('/A/B'), '/a/b');
  assert.equal(pathRulesFor('linux').foldCase('/A/B'), '/A/B');
});

test('isInside answers as the lexical rule does, on the fast path and off it', () => {
  const roots = ['/w/repo', '/w/repo/', '/w/./repo', '/', '/w/rep'];
  const rests = ['a.txt', '..x', 'a/..b', '../x', 'a/../../x', '.', '..', 'a//b', ''];
  for (const root of roots) {
    for (const rest of rests) {
      for (const file of [`${root}/${rest}`, `/w/repo/${rest}`, `/w/repository/${rest}`]) {
        const rel = path.relative(root, file);
        const want = rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
        assert.equal(isInside(root, file), want, `isInside(${JSON.stringify(root)}, ${JSON.stringify(file)})`);
      }
    }
  }
});
