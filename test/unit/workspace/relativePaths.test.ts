import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { toPosixRelative } from '../../../src/core/workspace/relativePaths';

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
