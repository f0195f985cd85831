import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as os from 'node:os';
import { loadBuilt, renderTable, rng, stats } from '../../../bench/harness';
import { corpusDir, loadCorpus } from '../../../bench/corpusLoader';
import { chunked, progressBars, seqOutput } from '../../../bench/streams';
import { identicalPercent, normaliseLines, xtermRender } from '../../../bench/xtermOracle';

describe('bench harness', () => {
  it('reports median, min and max of the samples', () => {
    assert.deepEqual({ ...stats([5, 1, 3]), samples: [] }, { median: 3, min: 1, max: 5, samples: [] });
    assert.equal(stats([4, 1, 3, 2]).median, 2.5);
  });

  it('stops the run, naming the file, when the module of a row is missing or lacks an export (a moved module must not read as "not built")', () => {
    assert.throws(() => loadBuilt('core/reference', ['buildReference']), /out\/src\/core\/reference\.js is missing/);
    assert.throws(() => loadBuilt('core/output/reference', ['noSuchExport']), /does not export noSuchExport/);
    assert.equal(typeof loadBuilt<{ buildReference: unknown }>('core/output/reference', ['buildReference']).buildReference, 'function');
  });

  it('says "missed" plainly when a goal is not met', () => {
    const table = renderTable([{ id: '1', what: 'x', ours: '1', reference: '2', ratio: '0.5×', goal: '≥ 3×', met: false }]);
    assert.match(table, /\*\*missed\*\*/);
  });

  it('generates the same inputs from the same seed', () => {
    const a = rng(42);
    const b = rng(42);
    assert.deepEqual([a(), a(), a()], [b(), b(), b()]);
    assert.equal(progressBars(10_000, 7), progressBars(10_000, 7));
  });

  it('never cuts a chunk inside a surrogate pair', () => {
    const text = 'ab😀'.repeat(1000);
    for (const c of chunked(text, 7)) assert.ok(!/[\ud800-\udbff]$/.test(c), `chunk ends in a lone high surrogate: ${JSON.stringify(c)}`);
    assert.equal(chunked(text, 7).join(''), text);
  });
});

describe('bench xterm oracle', () => {
  it('renders a carriage return the way the terminal shows it', async () => {
    assert.deepEqual(await xtermRender(['a\rb\r\n', 'next\r\n']), ['b', 'next']);
  });

  it('keeps every line of a stream longer than its scrollback', async () => {
    const lines = await xtermRender(chunked(seqOutput(200_000)));
    assert.equal(lines[0], '1');
    assert.equal(lines.length, Number(lines[lines.length - 1]));
  });

  it('compares renderings line by line', () => {
    assert.equal(identicalPercent(normaliseLines('a  \nb\n\n'), ['a', 'b']).percent, 100);
    const r = identicalPercent(['a', 'x'], ['a', 'b']);
    assert.equal(r.percent, 50);
    assert.deepEqual(r.firstDiff, { line: 2, ours: 'x', xterm: 'b' });
  });
});

describe('bench corpus', () => {
  it('has a manifest entry, a file and an error-line list for every recorded output', () => {
    const dir = corpusDir();
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as { entries: { file: string; errors: string; origin: string }[] };
    assert.ok(manifest.entries.length >= 15);
    for (const e of manifest.entries) {
      assert.ok(fs.existsSync(path.join(dir, e.file)), e.file);
      assert.ok(fs.existsSync(path.join(dir, e.errors)), e.errors);
      assert.ok(['recorded', 'hand-written'].includes(e.origin), `${e.file}: origin ${e.origin}`);
    }
  });

  it('loads every output with its error lines in range', () => {
    const corpus = loadCorpus();
    const big = corpus.filter((e) => e.text.length > 32_000);
    assert.ok(big.length >= 3, 'several outputs are larger than 8k tokens');
    for (const e of corpus) {
      const lines = e.text.split('\n');
      for (const n of e.errorLines) assert.ok(lines[n - 1] !== undefined && lines[n - 1].trim() !== '', `${e.name}:${n} is a blank or missing line`);
    }
    assert.ok(corpus.some((e) => /[\u3040-\u30ff\u4e00-\u9fff]/.test(e.text) && e.errorLines.length > 0), 'a CJK log with marked errors');
  });
});

describe('bench results file', () => {
  it('reads back its own table and replaces only the re-measured rows', async () => {
    const { parseResults, mergeRows } = await import('../../../bench/resultsFile.js');
    const old = [
      { id: '1a', what: 'a | b', ours: '1', reference: '2', ratio: '2×', goal: 'g', met: true },
      { id: '7b', what: 'bundle', ours: '—', reference: '—', ratio: '—', goal: 'g', state: 'error', note: 'boom' },
      { id: '8', what: 'scratch', ours: '3', reference: '—', ratio: '—', goal: 'g', met: false },
    ];
    const parsed = parseResults(`- Date: x\n\n${renderTable(old)}\n`);
    assert.deepEqual(parsed.rows, old.map((r) => ({ note: undefined, ...r })));
    const fresh = [{ id: '7b', what: 'bundle', ours: '5 KB', reference: '—', ratio: '—', goal: 'g', met: true }, { id: '7c', what: 'vsix', ours: '1 MB', reference: '—', ratio: '—', goal: 'g', met: true }];
    assert.deepEqual(mergeRows(parsed.rows, fresh).map((r) => `${r.id}:${r.ours}`), ['1a:1', '7b:5 KB', '7c:1 MB', '8:3']);
  });

  it('a re-run of some row-17 dimensions (BENCH_DIMS) replaces only the ids it measured', async () => {
    const { parseResults, mergeRows, remeasuredLine } = await import('../../../bench/resultsFile.js');
    const r = (id: string, ours: string): import('../../../bench/harness').Row => ({ id, what: `dimension ${id}`, ours, reference: '—', ratio: '—', goal: 'g', met: ours !== 'slow' });
    const old = [r('14a', 'old'), r('17a1', 'a1'), r('17a2', 'a2'), r('17b1', 'slow'), r('17b2', 'slow'), r('17c', 'failed'), r('17e1', 'e1'), r('18a', 'x')];
    const parsed = parseResults(`- Date: x\n\n${renderTable(old)}\n`);
    const fresh = [r('17b1', 'b1 new'), r('17b2', 'b2 new'), r('17b3', 'b3 new'), r('17c1', 'c1 new'), r('17c2', 'c2 new')];
    const merged = mergeRows(parsed.rows, fresh, new Set(['17']));
    assert.deepEqual(merged.map((x) => `${x.id}:${x.ours}`), ['14a:old', '17a1:a1', '17a2:a2', '17b1:b1 new', '17b2:b2 new', '17b3:b3 new', '17c1:c1 new', '17c2:c2 new', '17e1:e1', '18a:x']);
    // A dimension that failed this time (one row '17e') replaces that dimension's old rows only.
    const failed = mergeRows(merged, [r('17e', 'failed')], new Set(['17']));
    assert.deepEqual(failed.map((x) => x.id), ['14a', '17a1', '17a2', '17b1', '17b2', '17b3', '17c1', '17c2', '17e', '18a']);
    // A whole re-run of row 17 (no BENCH_DIMS) still replaces every 17 row.
    assert.deepEqual(mergeRows(merged, [r('17a1', 'all')]).map((x) => x.id), ['14a', '17a1', '18a']);
    const line = remeasuredLine(fresh, new Set(['17']), 'Date: 2026-12-02T06:00:00Z', 'Commit: abc1234', 'load 0.9 → 1.1');
    assert.equal(line, '- Re-measured rows 17 (only 17b1, 17b2, 17b3, 17c1, 17c2; its other rows are kept from the lines above): Date: 2026-12-02T06:00:00Z; Commit: abc1234; load 0.9 → 1.1');
    assert.deepEqual(parseResults(`${line}\n`).header, [line], 'the line is kept by the next merge');
  });

  it('a merge keeps the README\'s annotated "Re-measured rows" lines as they stand and adds its own', async () => {
    const { readmeHeaderAfterMerge } = await import('../../../bench/resultsFile.js');
    const block = [
      '<!-- bench-table:start -->',
      '- Date: 2026-12-01T00:00:00Z',
      '- Commit: abc1234',
      '- Re-measured rows 21: Date: 2026-12-07T10:36:36Z; Commit: c34a47f (built at c34a47f); five starts, load 0.9 → 3.8: 21a missed',
      '- Re-measured rows 23: Date: 2026-12-07T11:54:00Z; Commit: 83f4024; P 68.8% R 87.3%',
      '',
      '| 21a | x | 1 | — | — | g | 0.1 | met |',
    ].join('\n');
    const line = '- Re-measured rows 21: Date: 2026-12-07T12:10:00Z; Commit: 14236ae';
    assert.deepEqual(readmeHeaderAfterMerge(block, line), [
      '- Date: 2026-12-01T00:00:00Z',
      '- Commit: abc1234',
      '- Re-measured rows 21: Date: 2026-12-07T10:36:36Z; Commit: c34a47f (built at c34a47f); five starts, load 0.9 → 3.8: 21a missed',
      '- Re-measured rows 23: Date: 2026-12-07T11:54:00Z; Commit: 83f4024; P 68.8% R 87.3%',
      line,
    ]);
  });

  it('a full run keeps the rows the test runs measured (13, 15) and drops the rest of the old table', async () => {
    const { parseResults, withTestRunRows } = await import('../../../bench/resultsFile.js');
    const old = [
      { id: '1a', what: 'render', ours: 'old', reference: '—', ratio: '—', goal: 'g', met: true },
      { id: '13a', what: 'copilot run', ours: '294 bytes', reference: '—', ratio: '—', goal: 'g', note: 'measured by the copilot test run' },
      { id: '15a', what: 'Claude Code Bash', ours: '980 bytes', reference: '10,040 bytes', ratio: '10.2×', goal: 'g', met: true },
    ];
    const parsed = parseResults(`- Date: x\n\n${renderTable(old)}\n\nNotes:\n\n- **13a**: measured by the copilot test run\n`);
    const fresh = [{ id: '1a', what: 'render', ours: 'new', reference: '—', ratio: '—', goal: 'g', met: true }, { id: '14a', what: 'terminals', ours: '1', reference: '—', ratio: '—', goal: 'g', met: true }];
    const rows = withTestRunRows(parsed.rows, fresh);
    assert.deepEqual(rows.map((r) => `${r.id}:${r.ours}`), ['1a:new', '13a:294 bytes', '14a:1', '15a:980 bytes']);
    assert.equal(rows.find((r) => r.id === '13a')?.note, 'measured by the copilot test run');
  });
});

describe('bench row hygiene (runRow)', () => {
  const row = (): import('../../../bench/harness').Row => ({ id: '1', what: 'x', ours: '1 ms', reference: '2 ms', ratio: '0.5×', goal: '≤ 1×', met: true });
  it('keeps the load average of a quiet row and does not re-run it', async () => {
    const { runRow } = await import('../../../bench/harness.js');
    let calls = 0;
    const rows = await runRow('1', () => (calls++, [row()]), () => {}, { retries: 2, load: () => ({ load: 0.5, cores: 2 }), sleep: async () => {} });
    assert.equal(calls, 1);
    assert.equal(rows[0].load, '0.5 → 0.5');
    assert.equal(rows[0].note, undefined);
  });
  it('re-runs a row measured above the core count, at most `retries` times, then marks it', async () => {
    const { runRow, renderTable } = await import('../../../bench/harness.js');
    let calls = 0;
    const lines: string[] = [];
    const rows = await runRow('1', () => (calls++, [row()]), (s) => lines.push(s), { retries: 2, load: () => ({ load: 7.5, cores: 2 }), sleep: async () => {} });
    assert.equal(calls, 3);
    assert.equal(rows[0].load, '7.5 → 7.5 ⚠');
    assert.match(rows[0].note ?? '', /load average exceeded the 2 cores .* after 2 re-runs/);
    assert.ok(lines.some((l) => /load average 7\.5 at start/.test(l)) && lines.some((l) => /load average 7\.5 at end — above 2 cores/.test(l)), lines.join('\n'));
    assert.match(renderTable(rows), /\| 7\.5 → 7\.5 ⚠ \| met \|/);
  });
  it('stops re-running once the load falls below the core count', async () => {
    const { runRow } = await import('../../../bench/harness.js');
    const loads = [5, 5, 1, 1];
    let calls = 0;
    const rows = await runRow('1', () => (calls++, [row()]), () => {}, { retries: 3, load: () => ({ load: loads.shift() ?? 1, cores: 2 }), sleep: async () => {} });
    assert.equal(calls, 2);
    assert.equal(rows[0].load, '1.0 → 1.0');
  });
});

describe('bench load of other processes (rows that start editors)', () => {
  const row = (): import('../../../bench/harness').Row => ({ id: '10a', what: 'x', ours: '1 ms', reference: '—', ratio: '1×', goal: '≤ 1×', met: true });
  /** A fake /proc: pid → [ppid, states of its threads (the first is the main thread)]. */
  function fakeProc(tree: Record<number, [number, string[]]>): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fake-proc-'));
    for (const [pid, [ppid, states]] of Object.entries(tree)) {
      states.forEach((st, i) => {
        const tid = i === 0 ? pid : `${pid}${i}`;
        fs.mkdirSync(path.join(dir, pid, 'task', tid), { recursive: true });
        // comm with a space and a parenthesis, as real ones can have ("(sd-pam)", "Web Content").
        fs.writeFileSync(path.join(dir, pid, 'task', tid, 'stat'), `${tid} (a (b) c) ${st} ${ppid} 1 1 0 -1\n`);
      });
    }
    fs.mkdirSync(path.join(dir, 'self')); // non-numeric entries are not processes
    return dir;
  }
  it('counts runnable threads of the bench tree and of other processes apart', async () => {
    const { runnableThreads } = await import('../../../bench/harness.js');
    // 100 = the bench; 101 its editor (two running threads), 102 a grandchild shell; 200 and 201 someone else's.
    const dir = fakeProc({ 1: [0, ['S']], 100: [1, ['R']], 101: [100, ['R', 'R', 'S']], 102: [101, ['D']], 200: [1, ['R', 'S']], 201: [200, ['R', 'R']] });
    try {
      assert.deepEqual(runnableThreads(100, dir), { own: 4, others: 3 });
      assert.equal(runnableThreads(100, path.join(dir, 'missing')), undefined);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
  it('does not re-run a row whose own processes alone raise the load average, and says what others used', async () => {
    const { runRow } = await import('../../../bench/harness.js');
    let calls = 0;
    const rows = await runRow('10', () => (calls++, [row()]), () => {}, {
      retries: 2, load: () => ({ load: 3.4, cores: 2 }), sleep: async () => {},
      foreign: () => ({ stop: () => ({ others: 0.3, own: 2.6, samples: 40 }) }),
    });
    assert.equal(calls, 1);
    assert.equal(rows[0].load, '3.4 → 3.4 (others 0.3)');
    assert.equal(rows[0].note, undefined);
  });
  it('re-runs and marks a row while other processes use more than one core of two', async () => {
    const { runRow } = await import('../../../bench/harness.js');
    let calls = 0;
    const rows = await runRow('10', () => (calls++, [row()]), () => {}, {
      retries: 1, load: () => ({ load: 4.1, cores: 2 }), sleep: async () => {},
      foreign: () => ({ stop: () => ({ others: 1.6, own: 2.5, samples: 40 }) }),
    });
    assert.equal(calls, 2);
    assert.equal(rows[0].load, '4.1 → 4.1 (others 1.6) ⚠');
    assert.match(rows[0].note ?? '', /other processes kept 1\.6 threads runnable on average \(more than 1 of the 2 cores.* after 1 re-run/);
  });
  it('sampleForeignLoad averages its samples', async () => {
    const { sampleForeignLoad } = await import('../../../bench/harness.js');
    const seq = [{ own: 2, others: 0 }, { own: 4, others: 1 }];
    const s = sampleForeignLoad(60_000, () => seq.shift());
    assert.deepEqual(s.stop(), { own: 3, others: 0.5, samples: 2 });
    assert.equal(sampleForeignLoad(60_000, () => undefined).stop(), undefined);
  });
});

describe('retrieval scoring (rows 23, 24e)', () => {
  it('scores ripgrep output line by line as a stream does: relevant within 2 lines of a marked line, recall of the best place', async () => {
    const { LoadedScore, rgLineOf, rgLines, rgShown, score } = await import('../../../bench/rowRetrieval.js');
    const q = { places: [{ file: 'terminals/1.txt', lines: [10, 20] }, { file: 'tool_outputs/x.txt', lines: [5] }] };
    // ripgrep --null: a NUL ends each path where it prints `:` (a match) or `-` (context).
    const out = ['.agent/terminals/1.txt\x008-a', '.agent/terminals/1.txt\x009-b', '.agent/terminals/1.txt\x0010:error here', '.agent/terminals/1.txt\x0011-c', '--', '.agent/terminals/2.txt\x0010:error', 'elsewhere/1.txt\x0020:x', '.agent/terminals/1.txt\x0020:error again'];
    assert.deepEqual(rgLineOf(out[2], '.agent/'), { rel: 'terminals/1.txt', n: 10 });
    assert.equal(rgLineOf('--', '.agent/'), undefined);
    assert.equal(rgLineOf(out[6], '.agent/'), undefined);
    const streamed = new LoadedScore(q);
    for (const line of out) {
      const at = rgLineOf(line, '.agent/');
      if (at) streamed.add(at.rel, at.n);
    }
    // Loaded: 1.txt 8, 9, 10, 11, 20 and 2.txt 10; relevant: 1.txt 8 (10-2), 9, 10, 11, 20; both marked lines of the answer found.
    assert.deepEqual(streamed.result(), { precision: 5 / 6, recall: 1, lines: 6 });
    assert.deepEqual(score(rgLines(out.join('\n'), '.agent/'), q), streamed.result(), 'the set and the stream agree');
    assert.equal(rgShown(out.join('\n')).split('\n')[2], '.agent/terminals/1.txt:10:error here', 'what the agent reads: ripgrep\'s output without --null');
    const alt = new LoadedScore(q);
    alt.add('tool_outputs/x.txt', 5);
    assert.deepEqual(alt.result(), { precision: 1, recall: 1, lines: 1 }, 'an alternative place found whole is full recall');
  });
  it('reads the file of a ripgrep line whose name holds -<digits>- (an output saved as `rust-backtrace-1-cargo-test-….txt`)', async () => {
    const { rgArgs, rgLineOf } = await import('../../../bench/rowRetrieval.js');
    assert.ok(rgArgs('which tests failed').includes('--null'));
    assert.deepEqual(rgLineOf('.agent/scratch/tool_outputs/make-k-240-module-c-01J.txt\x00288:src/mod_163.c:2:10: fatal error', '.agent/'), { rel: 'scratch/tool_outputs/make-k-240-module-c-01J.txt', n: 288 });
    assert.deepEqual(rgLineOf('.agent/scratch/tool_outputs/rust-backtrace-1-cargo-test-01J.txt\x0012-  left: 3', '.agent/'), { rel: 'scratch/tool_outputs/rust-backtrace-1-cargo-test-01J.txt', n: 12 });
  });
});
