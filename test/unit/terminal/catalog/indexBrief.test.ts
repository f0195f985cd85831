// The terminal catalog's index fold (src/core/terminal/catalog/indexBrief.ts) reads the lines our capture
// writes with a regular expression instead of JSON.parse. Its state must be exactly what the former
// fold (JSON.parse of every line, kept here as the reference) gives, on the lines capture writes and
// on everything else an index can hold: other spacing and key orders, torn and glued lines,
// strings full of quotes, keys and escapes, odd numbers, CRLF, invalid UTF-8, duplicate keys.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { advanceFoldSync, type FoldCheckpoint, type FoldSpec } from '../../../../src/core/fs/appendFold';
import { BRIEF_SPEC, briefFrom, settled, settledStart, type BriefCommand, type CompactState } from '../../../../src/core/terminal/catalog/indexBrief';
import type { IndexRecord } from '../../../../src/core/terminal/terminalFormat';

// The fold as it was before the fast path (terminalCatalog.ts at 0fd464c), line for line.
function briefOf(r: IndexRecord): BriefCommand {
  const exitCode = r.exitCode ?? null;
  const done = r.status === 'done';
  const t = Date.parse(r.started);
  return {
    command: r.command,
    status: done ? 'done' : 'running',
    exitCode,
    exitUnknown: done && exitCode === null ? (typeof r.exitUnknown === 'string' ? r.exitUnknown : 'not recorded') : null,
    endMs: (Number.isNaN(t) ? 0 : t) + (r.durationMs ?? 0),
  };
}
function isRecord(r: unknown): r is IndexRecord {
  const o = r as IndexRecord;
  return typeof o === 'object' && o !== null && typeof o.command === 'number' && typeof o.file === 'string' && typeof o.firstLine === 'number';
}
const REFERENCE: FoldSpec<CompactState> = {
  version: 1,
  init: () => ({ count: 0, maxCommand: 0, last: null, prevDone: null, lastFailed: null, closing: null }),
  line(s, text) {
    if (text.trim() === '') return;
    let r: unknown;
    try {
      r = JSON.parse(text);
    } catch {
      return;
    }
    // A closing record (no command): the terminal closed, and whose it is; any command after it undoes that.
    const c = r as { v?: unknown; closed?: unknown; command?: unknown; agent?: unknown; session?: unknown };
    if (c !== null && typeof c === 'object' && c.v === 1 && typeof c.closed === 'string' && c.command === undefined && (c.agent === undefined || typeof c.agent === 'string') && (c.session === undefined || typeof c.session === 'string')) {
      s.closing = typeof c.agent === 'string' ? { agent: c.agent, session: typeof c.session === 'string' ? c.session : 'unknown' } : { agent: null, session: null };
      return;
    }
    if (!isRecord(r)) return;
    s.closing = null;
    if (r.command > s.maxCommand || s.count === 0) s.count++;
    s.maxCommand = Math.max(s.maxCommand, r.command);
    const b = briefOf(r);
    if (!s.last || r.command > s.last.command) {
      if (s.last?.status === 'done') s.prevDone = s.last;
      s.last = b;
    } else if (r.command === s.last.command) s.last = b;
    else if (b.status === 'done' && (!s.prevDone || r.command >= s.prevDone.command)) s.prevDone = b;
    if (r.status === 'done' && r.exitCode !== null && r.exitCode !== undefined && r.exitCode !== 0) s.lastFailed = b;
  },
};

function rng(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (x * 1664525 + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

const NASTY = ['make', 'echo "done"', 'x "status":"done" y', '"exitCode":1,', 'a\\"b', 'tab\there', 'nl\\n', '\u0001ctl', 'ünï ✓ 𝄞', '},{"command":99', '\\', '"', '\u2028'];

/** Index lines: mostly as capture writes them, with every kind of oddity mixed in. */
function lines(seed: number, count: number): Buffer[] {
  const r = rng(seed);
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)];
  const out: Buffer[] = [];
  let k = 1;
  for (let i = 0; i < count; i++) {
    if (r() < 0.6) k++;
    const done = r() < 0.55;
    const rec: Record<string, unknown> = {
      v: 1, command: r() < 0.05 ? pick([1.5, -3, 1e2, 0, 2 ** 53, k + 7]) : r() < 0.05 ? k - 3 : k, status: done ? 'done' : pick(['running', 'running', 'continued']),
      file: pick(['3.txt', '3.1.txt', 'we"ird.txt']), commandLine: pick(NASTY), cwd: pick(['/w', null, 'c:\\dir']), started: r() < 0.08 ? pick(['not a date', '\\u0032026-06-01T00:00:00.000Z', '', 'Mon, 01 Jun 2026 00:00:00 GMT', 'q"uote, 2026']) : new Date(Date.UTC(2026, 5, 1) + i * 1000).toISOString(),
      headerLine: i * 3 + 9, firstLine: i * 3 + 10, lastLine: done ? i * 3 + 11 : null,
      exitCode: done ? (r() < 0.3 ? pick([1, 2, 127, -1, 0.5, -0]) : r() < 0.2 ? null : 0) : r() < 0.05 ? 3 : null,
      durationMs: done ? (r() < 0.1 ? pick([null, 1.25, 1e3]) : Math.floor(r() * 5000)) : null, secretsMasked: 0,
    };
    if (done && rec.exitCode === null && r() < 0.7) rec.exitUnknown = pick(['no status from the shell', 'terminal closed while it ran', 'q"uote\\']);
    if (r() < 0.05) rec.diskFull = true;
    if (r() < 0.05) rec.outputMissing = pick(['all', 'start']);
    // An agent session's keys, and the tally (indexTally.ts), sometimes not in the writers' form.
    if (r() < 0.1) rec.saved = pick(['scratch/tool_outputs/a.txt', 'q"uote', 'x\\y']);
    if (r() < 0.1) rec.spool = pick(['1765000000000-4242-ab.rec', '', 'a,"tally":[1,2,3]']);
    if (r() < 0.3) rec.tally = r() < 0.9 ? [i * 300, k, r() < 0.5 ? -1 : i * 100] : pick([[1.5, 2, 3], [-2, 1, 1], ['1', 2, 3], [1, 2], {}]);
    let text = JSON.stringify(rec);
    if (rec.started === '\\u0032026-06-01T00:00:00.000Z') text = text.replace('"\\\\u0032026', '"\\u0032026'); // a real escape in the string
    const odd = r();
    if (odd < 0.03) text = text.replace(/":/g, '": '); // another writer's spacing
    else if (odd < 0.06) text = JSON.stringify({ status: rec.status, ...rec }); // another key order
    else if (odd < 0.08) text = text.slice(0, Math.floor(r() * text.length)); // torn
    else if (odd < 0.10) text = text.slice(0, Math.floor(r() * text.length)) + JSON.stringify(rec); // torn, then a whole record glued on
    else if (odd < 0.11) text = pick(['', '   ', 'garbage', '[]', 'null', '"x"', '{}', '{"v":1}']);
    else if (odd < 0.115) text = JSON.stringify(pick([{ v: 1, closed: '2026-06-01T00:00:00.000Z' }, { v: 1, closed: 'x', agent: 'codex', session: 's"1' }, { v: 1, closed: 'x', agent: 'gemini' }, { v: 1, closed: 'x', agent: 7 }, { v: 2, closed: 'x' }, { v: 1, closed: 'x', command: 3 }])); // closing records, and shapes that are not
    else if (odd < 0.12) text = text.replace(/}$/, ',"exitUnknown":"first","exitUnknown":"second"}'); // duplicate keys
    else if (odd < 0.13) text = text.replace('"v":1', '"v":2');
    else if (odd < 0.14) text += ' '; // trailing space
    else if (odd < 0.15) text = text.replace(/}$/, pick([',"exitUnknown":nope}', ',"diskFull":false}', ',"exitUnknown":"a"b"}'])); // not JSON, or not capture's
    else if (odd < 0.16) text = text.replace(/"commandLine":"/, '"commandLine":"raw\ttab '); // a raw control character: not JSON
    const eol = r() < 0.05 ? '\r\n' : '\n';
    let b = Buffer.from(text + eol);
    if (r() < 0.02) b = Buffer.concat([b.subarray(0, Math.floor(b.length / 2)), Buffer.from([0xe2, 0x82]), b.subarray(Math.floor(b.length / 2))]); // invalid UTF-8
    out.push(b);
  }
  return out;
}

function foldAll(file: string, spec: FoldSpec<CompactState>, cuts: number[]): FoldCheckpoint<CompactState> {
  // Folded as the file grows: appended in pieces, each folded before the next (cuts: byte lengths).
  const all = fs.readFileSync(file);
  const tmp = `${file}.grow`;
  fs.writeFileSync(tmp, '');
  let cp: FoldCheckpoint<CompactState> | undefined;
  let at = 0;
  for (const end of [...cuts, all.length]) {
    fs.appendFileSync(tmp, all.subarray(at, end));
    at = end;
    cp = advanceFoldSync(tmp, spec, cp, fs.statSync(tmp), 64 * 1024 * 1024)!.cp;
  }
  fs.rmSync(tmp);
  return cp!;
}

test('the fast index fold leaves exactly the state of JSON.parse line by line, on capture\'s lines and on anything else', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-brief-'));
  try {
    const perLine: FoldSpec<CompactState> = { version: BRIEF_SPEC.version, init: BRIEF_SPEC.init, line: BRIEF_SPEC.line };
    let fast = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const file = path.join(dir, `${seed}.index.jsonl`);
      const body = Buffer.concat(lines(seed, 40 + seed * 7));
      fs.writeFileSync(file, body);
      const r = rng(seed * 31);
      const cuts = [...new Set([0, 0, 0].map(() => Math.floor(r() * body.length)))].sort((a, b) => a - b);
      const want = foldAll(file, REFERENCE, cuts).state;
      assert.deepEqual(foldAll(file, BRIEF_SPEC, cuts).state, want, `seed ${seed}: whole runs, appended in pieces at ${cuts}`);
      assert.deepEqual(foldAll(file, BRIEF_SPEC, []).state, want, `seed ${seed}: one read`);
      assert.deepEqual(foldAll(file, perLine, cuts).state, want, `seed ${seed}: line by line`);
      fast += body.toString('utf8').split('\n').filter((l) => l.startsWith('{"v":1,"command":')).length;
    }
    assert.ok(fast > 1000, 'most lines are capture\'s own');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the fast index fold on out-of-order and repeated commands at the start of a read', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-brief-'));
  try {
    const rec = (command: number, status: string, exitCode: number | null): string =>
      JSON.stringify({ v: 1, command, status, file: '1.txt', commandLine: 'x', cwd: '/w', started: `2026-06-01T00:00:0${command % 10}.000Z`, headerLine: 1, firstLine: 2, lastLine: 1, exitCode, durationMs: 5, secretsMasked: 0 }) + '\n';
    const cases = [
      [rec(5, 'done', 1), rec(3, 'done', 0), rec(4, 'done', 2)],
      [rec(5, 'running', null), rec(5, 'done', 0), rec(2, 'done', 9), rec(5, 'done', 3)],
      [rec(7, 'done', 0), rec(7, 'running', null), rec(6, 'done', 4), rec(8, 'continued', null)],
    ];
    for (const [i, c] of cases.entries()) {
      const file = path.join(dir, `${i}.index.jsonl`);
      fs.writeFileSync(file, c.join(''));
      // Read whole, and appended line by line (each read starts with a line at offset 0 of its text).
      const cuts = c.slice(0, -1).map((_, j) => Buffer.byteLength(c.slice(0, j + 1).join('')));
      const want = foldAll(file, REFERENCE, cuts).state;
      assert.deepEqual(foldAll(file, BRIEF_SPEC, []).state, want, `case ${i}, one read`);
      assert.deepEqual(foldAll(file, BRIEF_SPEC, cuts).state, want, `case ${i}, line by line`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** Index lines in capture's order (command numbers never go down), with the oddities an index can still hold: garbage, torn lines, CRLF. */
function captureOrder(seed: number, commands: number): string[] {
  const r = rng(seed);
  const out: string[] = [];
  for (let k = 1; k <= commands; k++) {
    const base = { v: 1, command: k, status: 'running', file: '3.txt', commandLine: r() < 0.1 ? 'say "hi", \\ ok' : 'make', cwd: '/w', started: new Date(Date.UTC(2026, 5, 1) + k * 1000).toISOString(), headerLine: k * 3, firstLine: k * 3 + 1, lastLine: null, exitCode: null, durationMs: null, secretsMasked: 0 };
    const eol = r() < 0.1 ? '\r\n' : '\n';
    if (r() < 0.9) out.push(JSON.stringify(base) + eol);
    if (r() < 0.1) out.push(JSON.stringify({ ...base, status: 'continued', lastLine: k * 3 + 2 }) + eol);
    const odd = r();
    if (odd < 0.05) out.push('garbage' + eol);
    else if (odd < 0.08) out.push(JSON.stringify(base).slice(0, 40) + eol); // torn
    // The last command, and some others, never finish (a terminal still running it, a shell killed).
    if (k === commands ? r() < 0.5 : r() < 0.85) {
      const exitCode = r() < 0.25 ? Math.floor(r() * 3) + 1 : r() < 0.1 ? null : 0;
      out.push(JSON.stringify({ ...base, status: 'done', lastLine: k * 3 + 2, exitCode, durationMs: 700, ...(exitCode === null ? { exitUnknown: 'no status from the shell' } : {}) }) + eol);
    }
  }
  return out;
}

test('the fold of an index\'s end from settledStart says what the whole fold says of last and lastDone, and of lastFailed when it holds one', () => {
  const refState = (text: string): CompactState => {
    const s = REFERENCE.init();
    for (const l of text.split('\n').slice(0, -1)) REFERENCE.line(s, l.replace(/\r$/, ''), 0, 0);
    return s;
  };
  let ends = 0;
  let failedKnown = 0;
  for (let seed = 1; seed <= 40; seed++) {
    const lines = captureOrder(seed, 1 + (seed % 13) * 3);
    const want = briefFrom(refState(lines.join('')));
    // Every end of the index the catalog may read: the lines from each line on.
    for (let first = lines.length - 1; first >= 0; first--) {
      const text = lines.slice(first).join('');
      const i = settledStart(text);
      const all = BRIEF_SPEC.init();
      BRIEF_SPEC.lines!(all, text);
      if (i < 0) {
        // No run of final lines settles it, nor do all of them: the catalog folds the whole index.
        assert.equal(settled(all), false, `seed ${seed} from line ${first}: -1, yet the lines settle`);
        continue;
      }
      const s = BRIEF_SPEC.init();
      BRIEF_SPEC.lines!(s, text.slice(i));
      assert.ok(settled(s), `seed ${seed} from line ${first}: settled`);
      const got = briefFrom(s, 1);
      assert.deepEqual([got.last, got.lastDone], [want.last, want.lastDone], `seed ${seed} from line ${first}: last and lastDone`);
      assert.ok(got.commands >= 1 && got.commands <= want.commands, `seed ${seed} from line ${first}: commands ${got.commands} of ${want.commands}`);
      if (got.lastFailed !== undefined) {
        assert.deepEqual(got.lastFailed, want.lastFailed, `seed ${seed} from line ${first}: lastFailed`);
        failedKnown++;
      }
      ends++;
    }
  }
  assert.ok(ends > 500 && failedKnown > 50, `${ends} ends, ${failedKnown} with a failure`);
});
