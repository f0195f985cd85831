// Replays raw PTY recordings of real programs (test/fixtures/recordings/) through the renderer in
// three ways — whole, cut at random points, and with the recorded timing while the capture's settle
// timer ticks at 10 different phases — and requires the text to equal what @xterm/headless (with
// VS Code's Unicode 11 widths) shows at the recorded size. Documented divergences only: an
// alternate-screen session is one marker line (removed before comparing, and counted), trailing
// spaces are not compared (xterm's translateToString trims them), and `clear` keeps history.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { altSessions, loadRecordings, normaliseCapture, oracleLines, replays } from './recordings';

const corpus = loadRecordings();

test('the corpus holds the recordings the issue asks for', () => {
  const names = corpus.map((r) => r.name);
  for (const want of ['apt-install', 'vitest', 'jest', 'pnpm-install', 'npm-install', 'cli-progress-multibar', 'ora', 'ink', 'log-update', 'top-batch', 'top-interactive', 'git-clone', 'gcc-errors', 'less', 'vim']) {
    assert.ok(names.includes(want), `missing recording ${want}`);
  }
  for (const r of corpus) assert.equal(`${r.cols}x${r.rows}`, '200x50', `${r.name}: recorded at ${r.cols}x${r.rows}`);
});

for (const rec of corpus) {
  test(`recording ${rec.name} (${rec.command}) renders as xterm in one go, in random chunks and with its timing`, async () => {
    const oracle = (await oracleLines(rec)).join('\n');
    if (altSessions(rec.text) === 0) assert.ok(oracle.length > 0, `${rec.name}: xterm shows nothing`);
    for (const { how, text } of replays(rec)) {
      const got = normaliseCapture(text);
      assert.equal(got.lines.join('\n'), oracle, `${rec.name}, ${how}: differs from @xterm/headless`);
      assert.equal(got.markers, altSessions(rec.text) > 0 ? 1 : 0, `${rec.name}, ${how}: alternate-screen markers`);
    }
  });
}
