// A worker's first build travels to the thread that takes it as one string (catalogFile.ts
// encodeHandover): what arrives must be the build itself, and anything else must count as no build.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { decodeHandover, encodeHandover, type Entry } from '../../../../src/core/terminal/catalog/catalogFile';
import { firstBuildSnapshot } from '../../../../src/core/terminal/catalog/terminalCatalog';
import { folder } from './catalogFixtures';
import { resetProcessState, tune } from '../../../../src/core/processState';

const plain = (e: Entry): unknown => ({ n: e.n, txt: e.txt, info: e.info, idx: e.idx, from: e.from });
const byN = (a: Entry, b: Entry): number => a.n - b.n;

test('a build handed over as text is the build: its listing and every entry', async () => {
  const { agentDir } = await folder(250);
  resetProcessState();
  // N.txt left unread, as a worker's build leaves them (the read entries' rows are the catalog file's).
  const s = await firstBuildSnapshot(agentDir);
  assert.ok(s);
  const unread = s.entries.filter((e) => !e.txt).length;
  assert.ok(unread >= 200, `the build left N.txt unread (${unread})`);
  const dev = fs.statSync(path.join(agentDir, 'terminals')).dev;
  const got = decodeHandover(encodeHandover(s, dev));
  assert.ok(got);
  assert.deepEqual({ dir: got.dir, listed: got.listed, numbers: got.numbers, previous: got.previous, indexed: got.indexed }, { dir: s.dir, listed: true, numbers: s.numbers, previous: s.previous, indexed: s.indexed });
  assert.deepEqual(got.entries.sort(byN).map(plain), [...s.entries].sort(byN).map(plain));
  resetProcessState();
});

test('what is not a hand-over, or one that was cut or altered: no build, or the bad rows left out', async () => {
  const { agentDir } = await folder(20);
  resetProcessState();
  const restore = tune({ catalogLazyInfoMin: 0 });
  const s = await firstBuildSnapshot(agentDir).finally(restore);
  assert.ok(s);
  const dev = fs.statSync(path.join(agentDir, 'terminals')).dev;
  const h = encodeHandover(s, dev);
  const rows = s.entries.length;
  assert.ok(rows >= 20 && h.unread.length % rows === 0, `every N.txt left unread (${rows})`);
  const stride = h.unread.length / rows;
  const bad: [string, unknown][] = [
    ['nothing', undefined],
    ['text', 'x'],
    ['body not JSON', { ...h, body: h.body.slice(0, 40) }],
    ['the file\'s format', { ...h, body: h.body.replace('terminal-catalog-handover', 'terminal-catalog') }],
    ['the table cut mid-row', { ...h, unread: h.unread.slice(0, h.unread.length - 3) }],
    ['a string missing', { ...h, strings: h.strings.slice(1) }],
    ['a string too many', { ...h, strings: [...h.strings, 'x'] }],
    ['a terminal number that is none', { ...h, unread: Float64Array.from(h.unread, (v, i) => (i === stride ? -1 : v)) }],
  ];
  for (const [name, x] of bad) assert.equal(decodeHandover(x), undefined, name);
  // A row whose index checkpoint cannot be (its offset past its size): that entry alone is left out.
  const t = Float64Array.from(h.unread);
  t[3] = t[5] + 1;
  const got = decodeHandover({ ...h, unread: t });
  assert.ok(got);
  assert.equal(got.entries.length, rows - 1, 'the bad row is left out: the taker reads that terminal');
  resetProcessState();
});
