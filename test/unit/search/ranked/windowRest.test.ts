// windowRest: whether a search answer's window lacks part of its block, and which lines, decided on
// real recorded outputs (bench/retrieval/, bench/corpus/) from the output's structure alone.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { reportOf, windowRest, REST_MAX_LINES } from '../../../../src/core/search/ranked/windowRest';
import { repoRoot } from '../../../repoRoot';

/** A recording's lines, numbered from 1. */
const recording = (rel: string): { n: number; text: string }[] =>
  fs.readFileSync(path.join(repoRoot, 'bench', rel), 'utf8').split('\n').map((text, i) => ({ n: i + 1, text }));
/** windowRest of the window of file lines first–last whose last matching line is `matched`. */
const restOf = (rel: string, first: number, last: number, matched = last) => windowRest(recording(rel), first - 1, last - 1, matched - 1);

test('a window ending on a failure header (pytest\'s ERROR at setup, jest\'s ●) lacks the report below it, up to the next section', () => {
  const pytest = restOf('retrieval/outputs/pytest-failures.log', 10, 13, 12);
  assert.deepEqual(pytest, { first: 14, last: 23, side: 'after' });
  const lines = recording('retrieval/outputs/pytest-failures.log');
  assert.match(lines[21 - 1].text, /^E +sqlite3\.IntegrityError/, 'the exception is in the read');
  assert.match(lines[24 - 1].text, /={3,} FAILURES ={3,}/, 'the read stops before the next section');
  const jest = restOf('retrieval/outputs/jest-failures.log', 37, 45, 44);
  assert.ok(jest && jest.side === 'after' && jest.first === 46, JSON.stringify(jest));
  // The assertion and its expected/received values (48, 49) and the code line (53) are in it; no other test's report.
  assert.ok(jest.last >= 53 && jest.last <= 45 + REST_MAX_LINES, JSON.stringify(jest));
  const jl = recording('retrieval/outputs/jest-failures.log');
  for (let n = jest.first; n <= jest.last; n++) assert.doesNotMatch(jl[n - 1].text, /^\s*● |^(?:FAIL|PASS) /, `line ${n} starts another report`);
});

test('a window inside an indented report lacks only its header above; a chained Python traceback lacks both ends', () => {
  // jest: the window starts at the timeout message; the test's name is the header two lines up.
  assert.deepEqual(restOf('retrieval/outputs/jest-failures.log', 23, 26, 24), { first: 22, last: 22, side: 'before' });
  // "The above exception was the direct cause…": the first exception's message above, the second traceback below to its message.
  const etl = restOf('corpus/python-traceback.log', 156, 158, 157);
  assert.deepEqual(etl, { first: 155, last: 170, side: 'both' });
  const lines = recording('corpus/python-traceback.log');
  assert.doesNotMatch(lines[170 - 1].text, /^\s/, 'the read ends on the exception\'s own (unindented) line');
});

test('a window inside the detail lines of an announced step lacks the step\'s line above it (a migration runner\'s `Applying …...`)', () => {
  // The session's command 7: `  Applying 0009_orders_owner...` (199), its two ALTER statements indented under it (200-201), then
  // `  FAILED 0009_orders_owner: …` (202). A window from 201 lacks the step's line and the first statement.
  const lines = recording('retrieval/outputs/session-migrations.txt');
  assert.match(lines[199 - 1].text, /^ {2}Applying 0009_orders_owner\.\.\.$/);
  assert.deepEqual(restOf('retrieval/outputs/session-migrations.txt', 201, 204, 202), { first: 199, last: 200, side: 'before' });
  // Command 17's failure: its step's line (529) is right above the window.
  assert.deepEqual(restOf('retrieval/outputs/session-migrations.txt', 530, 533, 531), { first: 529, last: 529, side: 'before' });
});

test('a summary counting errors reported before it (rustc\'s "due to 1 previous error") lacks the error above it, not the warnings after that', () => {
  // An invented clang run: its last error with the lines that explain it, then a warning, then the count.
  const clang = [
    'src/queue.c:14:9: error: use of undeclared identifier \'head\'', '   14 |   return head->next;', '      |          ^', '',
    'src/queue.c:30:7: warning: unused variable \'depth\' [-Wunused-variable]', '   30 |   int depth = 0;', '      |       ^', '',
    '1 warning and 1 error generated.',
  ].map((text, i) => ({ n: i + 1, text }));
  assert.deepEqual(windowRest(clang, 8, 8), { first: 1, last: 3, side: 'before' });
  // The same in a real cargo build:
  const rest = restOf('retrieval/outputs/cargo-build-borrow.log', 259, 262);
  assert.ok(rest && rest.side === 'before', JSON.stringify(rest));
  assert.match(recording('retrieval/outputs/cargo-build-borrow.log')[rest.first - 1].text, /^error\[E0502\]/);
  // The error's code frame ends on line 252; 254-258 are a warning about an unused variable.
  assert.equal(rest.last, 252);
});

test('complete windows propose nothing: a compiler error with its detail, a summary list, a stack whose rest is callers, a log entry that ends', () => {
  assert.equal(restOf('retrieval/outputs/go-build-errors.log', 7, 8), undefined);
  assert.equal(restOf('retrieval/outputs/pytest-failures.log', 79, 84, 82), undefined);
  assert.equal(restOf('retrieval/outputs/cargo-test-failures.log', 53, 61), undefined);
  // A migration log: the renamed column's statement, then the next migration's first line as context.
  assert.equal(restOf('retrieval/outputs/session-migrations.txt', 194, 199, 197), undefined);
});

test('an indented paragraph that goes on past the window (a help page\'s flag) lacks its next line only', () => {
  assert.deepEqual(restOf('retrieval/outputs/history/session-docs.txt', 9584, 9586), { first: 9587, last: 9587, side: 'after' });
});

/** Lines of an invented output, numbered from 1. */
const numbered = (text: string): { n: number; text: string }[] => text.split('\n').map((t, i) => ({ n: i + 1, text: t }));

test('reportOf: a pytest report of several frames is its last frame, where it raised (real pytest output)', () => {
  // Line 82 `FAILED tests/test_cart.py::test_shipping_to_japan - KeyError: 'JP'`; its report (header on line 50) holds the test's
  // frame, `_ _ _ …` on line 59, then Cart.shipping's frame: `>       return rates[country]` (68), `E       KeyError: 'JP'` (70).
  const lines = recording('retrieval/outputs/pytest-failures.log');
  assert.match(lines[82 - 1].text, /^FAILED tests\/test_cart\.py::test_shipping_to_japan /);
  assert.deepEqual(reportOf(lines, 82 - 1, 79 - 1, 84 - 1), { first: 60, last: 72, side: 'report' });
  // A report of one frame is whole: test_tenoff_never_negative's, header on line 37.
  assert.equal(reportOf(lines, 81 - 1, 79 - 1, 84 - 1)?.first, 37);
});

test('reportOf: a list line naming a test finds that test\'s own report (its header names it, maybe on two lines) and where it ends', () => {
  // mocha: the progress list names `2) keeps the label`; the report's header is `2) labels` then `keeps the label:`.
  const mocha = numbered(['  labels', '    ✔ prints the name', '    2) keeps the label', '    ✔ trims', '', '  1 passing', '  1 failing', '',
    '  2) labels', '       keeps the label:', '', '      AssertionError: expected "a" to equal "b"', '      at Context.<anonymous> (test/labels.js:9:12)', '', '', ''].join('\n'));
  assert.deepEqual(reportOf(mocha, 2, 1, 3), { first: 9, last: 13, side: 'report' });
  // cargo: `test tests::splits_pairs ... FAILED` names `---- tests::splits_pairs stdout ----`; its report ends before the next one.
  const cargo = numbered(['test tests::joins_pairs ... ok', 'test tests::splits_pairs ... FAILED', 'test tests::trims ... ok', '', 'failures:', '',
    '---- tests::splits_pairs stdout ----', "thread 'tests::splits_pairs' panicked at src/lib.rs:3:5:", 'assertion failed: pairs.len() == 2', '',
    '---- tests::other stdout ----', 'boom'].join('\n'));
  assert.deepEqual(reportOf(cargo, 1, 0, 2), { first: 7, last: 9, side: 'report' });
  // pytest: a summary's `ERROR tests/test_db.py::test_load_rows - …` names `____ ERROR at setup of test_load_rows ____` by its snake-case name.
  const pytest = numbered(['____________ ERROR at setup of test_load_rows ____________', '', 'E   KeyError: \'rows\'', '', 'tests/test_db.py:4: KeyError',
    '=========== short test summary info ===========', 'FAILED tests/test_db.py::test_count - assert 1 == 2', 'ERROR tests/test_db.py::test_load_rows - KeyError: \'rows\'',
    'FAILED tests/test_db.py::test_sum - assert 0 == 3'].join('\n'));
  assert.deepEqual(reportOf(pytest, 7, 6, 8), { first: 1, last: 5, side: 'report' });
  assert.equal(reportOf(pytest, 6, 6, 8), undefined);
  // A line whose item no header names, or that names it by one word only, has none.
  assert.equal(reportOf(cargo, 0, 0, 0), undefined);
  assert.equal(reportOf(numbered('    ✕ trims\n\n  ● trims\n    boom\n'), 0, 0, 0), undefined);
});
