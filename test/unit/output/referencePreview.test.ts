// Which error and warning lines a reference's preview shows when it cannot show them all (issue 47
// item 4): errors before warnings, then the lines naming the command's own words, a new shape before
// a repeat; over real recordings (bench/retrieval/outputs/, bench/corpus/) and through
// agentContext_terminal lastFailed on a real terminal capture.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildReferenceFromText, issuePicker, type IssueLine } from '../../../src/core/output/reference';
import { openTerminalCapture } from '../../../src/core/terminal/terminalCapture';
import { invokeTool } from '../../../src/core/tools/invokeTool';
import { DEFAULT_TOOL_CONFIG } from '../../../src/core/config';
import { nullLogger } from '../../../src/core/log';
import type { ToolContext } from '../../../src/core/tools/toolContext';
import { repoRoot } from '../../repoRoot';

const recording = (rel: string): string => fs.readFileSync(path.join(repoRoot, 'bench', rel), 'utf8');
/** The numbers of the lines the preview lists under "Errors/warnings". */
const issueLinesShown = (ref: string): number[] => {
  const block = /Errors\/warnings[^\n]*\n([\s\S]*?)\n(?:All \d+:|Last lines:|Next:)/.exec(ref)?.[1] ?? '';
  return [...block.matchAll(/^L(\d+):/gm)].map((m) => Number(m[1]));
};

test('a Rust build whose 41 warnings come before its error: the preview shows the error line, and Next reads around it', () => {
  // cargo build, recorded: 14 × `unused variable: legacy_factor` with their notes, then error[E0502] at line 244.
  const text = recording('retrieval/outputs/cargo-build-borrow.log');
  const ref = buildReferenceFromText(text, { path: 'build.log', command: 'cargo build', exitCode: 101 });
  const shown = issueLinesShown(ref);
  assert.match(ref, /Errors\/warnings \(46 lines; \d+ shown\)/, ref);
  assert.ok(shown.includes(244), `E0502 (line 244) not shown:\n${ref}`);
  assert.match(ref, /^L244: error\[E0502\]: cannot borrow `inv\.items` as mutable/m);
  // The last error sums the build up: it keeps its place too.
  assert.ok(shown.includes(262), ref);
  assert.match(ref, /Next: read lines 239–262 of build\.log/);
  // The repeated warning is shown once or a few times, not in every place left.
  const repeats = [...ref.matchAll(/warning: unused variable: `legacy_factor`/g)].length;
  assert.ok(repeats < shown.filter((n) => n < 244).length, ref);
});

test('a make -k build with room for 4 of its 28 issue lines: errors only, not its first warnings, and one of make\'s repeated "Error 1" lines', () => {
  // 240 modules: warnings from line 10, compiler errors at lines 40, 97, 288, each followed by make's `*** [...] Error 1`.
  const text = recording('corpus/make-gcc-build.log');
  const ref = buildReferenceFromText(text, { path: 'make.log', command: 'make -k', exitCode: 2 });
  const shown = issueLinesShown(ref);
  assert.match(ref, /Errors\/warnings \(28 lines; 4 shown\)/, ref);
  assert.deepEqual(shown, [40, 49, 97, 391], ref);
  assert.doesNotMatch(ref, /warning:/);
});

test('among errors of the same kind, those naming the command\'s words come first (tsc given one file)', () => {
  // 68 tsc errors over five files; the agent asked about src/user.ts (errors on lines 67–72).
  const text = recording('corpus/tsc-errors.log');
  const user = buildReferenceFromText(text, { path: 'tsc.log', command: 'npx tsc --noEmit src/user.ts', exitCode: 2 });
  const shown = issueLinesShown(user);
  for (const n of [67, 69, 70, 71, 72]) assert.ok(shown.includes(n), `line ${n} not shown:\n${user}`);
  // The program and its flags are not the command's words: `npx tsc --noEmit` alone keeps the first errors.
  const plain = issueLinesShown(buildReferenceFromText(text, { path: 'tsc.log', command: 'npx tsc --noEmit', exitCode: 2 }));
  assert.ok(plain.includes(1) && plain.includes(2) && !plain.includes(67), plain.join(','));
});

test('the picker: errors, then command words, then new shapes; a quarter for the last lines; all when they fit', () => {
  const l = (n: number, text: string, level: 1 | 2): IssueLine => ({ n, text, level });
  const lines = [
    l(1, 'warning: unused x in orders.rs', 1),
    l(2, 'error: timeout in billing', 2),
    l(3, 'error: timeout in billing', 2),
    l(4, 'error: mismatch in orders', 2),
    l(5, 'error: timeout in billing', 2),
    l(6, 'error: 3 failed', 2),
  ];
  const pick = issuePicker(lines, 'cargo test -p orders');
  assert.deepEqual(pick(6).map((x) => x.n), [1, 2, 3, 4, 5, 6]);
  // 4 places: one for the last error (6); then 4 (names `orders`), 2 (first of its shape), and 3 (a
  // repeat, but an error: the warning naming `orders` comes after every error).
  assert.deepEqual(pick(4).map((x) => x.n), [2, 3, 4, 6]);
  // 2 places: no quarter for the end; 4 for `orders`, then the first error of a new shape.
  assert.deepEqual(pick(2).map((x) => x.n), [2, 4]);
  assert.deepEqual(issuePicker(lines, undefined)(3).map((x) => x.n), [2, 4, 6]);
});

test('the scanner keeps an error that comes after 60 warnings, giving up a warning for it', () => {
  const out: string[] = [];
  for (let i = 1; i <= 200; i++) out.push(i === 120 ? 'src/lib.c:9:1: error: expected declaration' : `src/lib.c:${i}:1: warning: implicit conversion ${i}`);
  out.push('done');
  const ref = buildReferenceFromText(out.join('\n') + '\n', { path: 'cc.log', command: 'make', exitCode: 2 });
  assert.ok(issueLinesShown(ref).includes(120), ref);
  assert.match(ref, /Next: read lines 115–/);
});

test('agentContext_terminal lastFailed on a captured cargo build shows the E0502 error, not only warnings', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-preview-'));
  try {
    fs.mkdirSync(path.join(root, '.agent'));
    const cap = await openTerminalCapture(path.join(root, '.agent/terminals'), { name: 'bash', shell: '/bin/bash', cwd: root, started: new Date(), shellIntegration: true }, { settleMs: 0 });
    const t0 = new Date();
    const c = cap.beginCommand({ commandLine: 'cargo build', cwd: root, started: t0 });
    c.write('\x1b]633;C\x07' + recording('retrieval/outputs/cargo-build-borrow.log').replace(/\n/g, '\r\n'));
    c.end(101, t0);
    await cap.close(t0);
    const ctx: ToolContext = { folders: [{ name: 'w', path: root }], config: DEFAULT_TOOL_CONFIG, signal: new AbortController().signal, log: nullLogger, source: 'vscode', trusted: true, allowRun: false };
    const r = await invokeTool('agentContext_terminal', { command: 'lastFailed' }, ctx);
    assert.match(r.text, /Command: cargo build/);
    assert.match(r.text, /^L\d+: error\[E0502\]: cannot borrow `inv\.items` as mutable/m, r.text);
    assert.match(r.text, /^L\d+: error: could not compile `rust-build`/m, r.text);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
