import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { parsePlan, planProgress } from '../../../src/core/plan/planDocument';
import { applyPlanEdit, updatePlanFile, readPlanVersion } from '../../../src/core/plan/planEdit';
import { findPlanFiles, isPlanPath } from '../../../src/core/plan/planFiles';
import { repoRoot } from '../../repoRoot';

const fixtures = path.join(repoRoot, 'test/fixtures/plans');
const read = (name: string) => fs.readFileSync(path.join(fixtures, name), 'utf8');

/** Replaces exactly one occurrence of `from` (asserting there is exactly one) — the expected result of an edit. */
function replaceOnce(text: string, from: string, to: string): string {
  const i = text.indexOf(from);
  assert.ok(i >= 0 && text.indexOf(from, i + 1) < 0, `expected exactly one "${from}"`);
  return text.slice(0, i) + to + text.slice(i + from.length);
}

function edited(text: string, edit: Parameters<typeof applyPlanEdit>[1]): string {
  const r = applyPlanEdit(text, edit);
  assert.ok(r.ok, r.ok ? '' : r.error.message);
  return r.value;
}

test('parses the commented plan with step lines', () => {
  const r = parsePlan(read('commented.yaml'), 'commented.yaml');
  assert.ok(r.ok);
  assert.equal(r.value.objective, 'Refactor authentication module');
  assert.equal(r.value.status, 'in_progress');
  assert.deepEqual(r.value.steps.map((s) => [s.id, s.status, s.line]), [['1', 'completed', 7], ['2', 'in_progress', 15], ['3', 'pending', 20]]);
  assert.equal(r.value.steps[0].notes, 'Found 14 endpoints.\nTwo of them are unused.\n');
  assert.deepEqual(r.value.steps[0].evidence, ['src/auth/endpoints.ts']);
  assert.equal(r.value.steps[2].notes, "it's blocked on review");
  assert.deepEqual(planProgress(r.value), { done: 1, total: 3 });
});

test('invalid YAML gives file and line, not an exception', () => {
  const r = parsePlan(read('invalid.yaml'), 'invalid.yaml');
  assert.ok(!r.ok);
  assert.equal(r.error.file, 'invalid.yaml');
  assert.equal(r.error.line, 7);
  assert.match(r.error.message, /invalid YAML/);
});

test('schema errors: a list, duplicate ids, missing objective, unknown status', () => {
  const list = parsePlan(read('list.yaml'), 'list.yaml');
  assert.ok(!list.ok);
  assert.deepEqual([list.error.line, /is a list/.test(list.error.message)], [2, true]);
  const dup = parsePlan(read('duplicate-ids.yaml'), 'd.yaml');
  assert.ok(!dup.ok);
  assert.equal(dup.error.line, 9);
  assert.match(dup.error.message, /duplicate step id "1" \(first used on line 3\)/);
  const miss = parsePlan(read('missing-objective.yaml'), 'm.yaml');
  assert.ok(!miss.ok);
  assert.match(miss.error.message, /missing required "objective"/);
  const bad = parsePlan('objective: x\nsteps:\n  - id: 1\n    status: done\n', 'b.yaml');
  assert.ok(!bad.ok);
  assert.equal(bad.error.line, 4);
  assert.match(bad.error.message, /status "done" is not one of pending, in_progress, completed, blocked, cancelled/);
  assert.ok(!parsePlan('objective: x\nsteps:\n  - description: no id\n', 'n.yaml').ok);
  const empty = parsePlan('', 'e.yaml');
  assert.ok(!empty.ok);
});

test('setStatus changes only the value: comments, quoting, long lines survive', () => {
  const src = read('commented.yaml');
  assert.equal(edited(src, { kind: 'setStatus', stepId: '3', status: 'completed' }), replaceOnce(src, 'status: pending', 'status: completed'));
  // Double-quoted stays double-quoted.
  assert.equal(edited(src, { kind: 'setStatus', stepId: '2', status: 'blocked' }), replaceOnce(src, 'status: "in_progress"', 'status: "blocked"'));
  // The inline comment after the value stays.
  assert.equal(edited(src, { kind: 'setStatus', stepId: '1', status: 'in_progress' }), replaceOnce(src, 'status: completed   # done', 'status: in_progress   # done'));
});

test('CRLF files keep CRLF everywhere, including inserted lines', () => {
  const src = read('crlf.yaml');
  assert.ok(src.includes('\r\n'));
  assert.equal(edited(src, { kind: 'setStatus', stepId: 'a', status: 'blocked' }), replaceOnce(src, 'status: pending # inline', 'status: blocked # inline'));
  const withNotes = edited(src, { kind: 'setNotes', stepId: 'a', notes: 'two\nlines' });
  assert.equal(withNotes, replaceOnce(src, 'status: pending # inline\r\n', 'status: pending # inline\r\n    notes: |-\r\n      two\r\n      lines\r\n'));
  const added = edited(src, { kind: 'addStep', description: 'Third' });
  assert.equal(added, src + '  - id: step-3\r\n    description: "Third"\r\n    status: pending\r\n');
  assert.ok(!/[^\r]\n/.test(added), 'no bare LF');
});

test('setNotes replaces a block scalar, a quoted value, or inserts with the step indentation', () => {
  const src = read('commented.yaml');
  assert.equal(
    edited(src, { kind: 'setNotes', stepId: '1', notes: 'Found 15.\nAll used.\n' }),
    replaceOnce(src, '|\n        Found 14 endpoints.\n        Two of them are unused.\n', '|\n        Found 15.\n        All used.\n'),
  );
  assert.equal(edited(src, { kind: 'setNotes', stepId: '3', notes: "now it's fine" }), replaceOnce(src, "'it''s blocked on review'", "'now it''s fine'"));
  // Step 2 has no notes: a new line goes right after its last key, at the step's key indentation.
  assert.equal(
    edited(src, { kind: 'setNotes', stepId: '2', notes: 'see #12: token ttl' }),
    replaceOnce(src, 'status: "in_progress"\n', 'status: "in_progress"\n      notes: "see #12: token ttl"\n'),
  );
});

test('edits on compact (PyYAML-style) lists and empty values', () => {
  const src = read('compact.yaml');
  assert.equal(edited(src, { kind: 'setNotes', stepId: '2', notes: 'x' }), replaceOnce(src, '  notes:\n', '  notes: "x"\n'));
  assert.equal(edited(src, { kind: 'setNotes', stepId: '1', notes: 'y' }), replaceOnce(src, 'notes: null', 'notes: y'));
  assert.equal(edited(src, { kind: 'addStep', description: 'third', status: 'blocked' }), src + '- id: 3\n  description: "third"\n  status: blocked\n');
});

test('addStep on a file without a final newline, without steps, and with a flow list', () => {
  const nofinal = read('no-final-newline.yaml');
  assert.ok(!nofinal.endsWith('\n'));
  assert.equal(edited(nofinal, { kind: 'addStep', description: 'two' }), nofinal + '\n  - id: 2\n    description: "two"\n    status: pending');
  assert.equal(edited('objective: x # c\n', { kind: 'addStep', description: 'd' }), 'objective: x # c\nsteps:\n  - id: 1\n    description: "d"\n    status: pending\n');
  assert.equal(edited('objective: x\nsteps: []\n', { kind: 'addStep', description: 'd' }), 'objective: x\nsteps: [{id: 1, description: "d", status: pending}]\n');
  assert.equal(edited('objective: x\nsteps:\nz: 1\n', { kind: 'addStep', description: 'd' }), 'objective: x\nsteps:\n  - id: 1\n    description: "d"\n    status: pending\nz: 1\n');
});

test('unicode survives edits', () => {
  const src = read('unicode.yaml');
  assert.equal(edited(src, { kind: 'setStatus', stepId: 'ü1', status: 'completed' }), replaceOnce(src, 'status: pending   # Kommentar', 'status: completed   # Kommentar'));
  assert.equal(edited(src, { kind: 'setNotes', stepId: '2', notes: '✅ fertig' }), replaceOnce(src, '"🚧 waiting"', '"✅ fertig"'));
});

test('edits refuse bad input and never return a changed text', () => {
  for (const [name, edit] of [
    ['invalid.yaml', { kind: 'setStatus', stepId: '1', status: 'completed' }],
    ['list.yaml', { kind: 'setStatus', stepId: '1', status: 'completed' }],
    ['duplicate-ids.yaml', { kind: 'setStatus', stepId: '2', status: 'completed' }],
    ['commented.yaml', { kind: 'setStatus', stepId: '99', status: 'completed' }],
    ['commented.yaml', { kind: 'addStep', id: '2', description: 'dup' }],
  ] as const) {
    const r = applyPlanEdit(read(name), edit, name);
    assert.ok(!r.ok, `${name} should be refused`);
    assert.equal(r.error.file, name);
  }
});

test('1,000 steps: parse and edit the last one', () => {
  let text = 'objective: big\nsteps:\n';
  for (let i = 1; i <= 1000; i++) text += `  - id: ${i}\n    description: step ${i} # c${i}\n    status: pending\n`;
  const r = parsePlan(text, 'big.yaml');
  assert.ok(r.ok);
  assert.equal(r.value.steps.length, 1000);
  assert.equal(r.value.steps[999].line, 2 + 999 * 3 + 1);
  const out = edited(text, { kind: 'setStatus', stepId: '1000', status: 'completed' });
  assert.equal(out, text.slice(0, text.length - 'pending\n'.length) + 'completed\n');
});

test('updatePlanFile writes atomically and refuses when the file changed since it was read', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-plan-'));
  const file = path.join(dir, 'plan.yaml');
  const src = read('commented.yaml');
  fs.writeFileSync(file, src);
  const v = await readPlanVersion(file);
  assert.ok(v.ok);
  fs.writeFileSync(file, src.replace('# trailing comment', '# someone else edited'));
  const refused = await updatePlanFile(file, { kind: 'setStatus', stepId: '3', status: 'completed' }, v.value);
  assert.ok(!refused.ok);
  assert.match(refused.error.message, /changed on disk/);
  assert.ok(fs.readFileSync(file, 'utf8').includes('someone else edited'));
  const done = await updatePlanFile(file, { kind: 'setStatus', stepId: '3', status: 'completed' });
  assert.ok(done.ok);
  assert.equal(done.value.plan.steps[2].status, 'completed');
  assert.equal(fs.readFileSync(file, 'utf8'), replaceOnce(src.replace('# trailing comment', '# someone else edited'), 'status: pending', 'status: completed'));
  assert.deepEqual(fs.readdirSync(dir), ['plan.yaml']);
  fs.writeFileSync(file, read('invalid.yaml'));
  const bad = await updatePlanFile(file, { kind: 'setStatus', stepId: '1', status: 'completed' });
  assert.ok(!bad.ok);
  assert.equal(fs.readFileSync(file, 'utf8'), read('invalid.yaml'));
});

test('a YAML plan that is not read (over 1 MB, NUL bytes, not UTF-8) is not edited either: the file stays byte for byte', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-plan-'));
  const file = path.join(dir, 'plan.yaml');
  const steps = Array.from({ length: 16_000 }, (_, i) => `  - id: s${i}\n    description: step number ${i} with some words\n    status: pending\n`).join('');
  const cases: [string, Buffer, RegExp][] = [
    ['over 1 MB', Buffer.from(`objective: big\nsteps:\n${steps}`), /plans over 1 MB are not read/],
    ['NUL bytes', Buffer.from('objective: x\u0000\nsteps:\n  - id: a\n    description: one\n    status: pending\n'), /NUL bytes/],
    ['not UTF-8', Buffer.concat([Buffer.from('objective: caf'), Buffer.from([0xe9]), Buffer.from('\nsteps:\n  - id: a\n    description: one\n    status: pending\n')]), /UTF-8/],
  ];
  for (const [what, bytes, why] of cases) {
    fs.writeFileSync(file, bytes);
    const r = await updatePlanFile(file, { kind: 'setStatus', stepId: what === 'over 1 MB' ? 's15999' : 'a', status: 'completed' });
    assert.ok(!r.ok, what);
    assert.match(r.error.message, why, what);
    assert.ok(fs.readFileSync(file).equals(bytes), `${what}: the file is unchanged`);
  }
});

test('three processes adding steps at once: every edit that says it succeeded is in the plan (no lost update)', async () => {
  // What the concurrency soak (bench row 16) found: without the lock, two processes read the same
  // text, both passed the "changed on disk" check and both renamed their edit into place.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-plan-procs-'));
  const file = path.join(dir, 'plan.yaml');
  fs.writeFileSync(file, read('commented.yaml'));
  const mod = require.resolve('../../../src/core/plan/planEdit');
  const N = 15;
  const script = `
    const m = require(${JSON.stringify(mod)});
    const [file, tag, n] = process.argv.slice(1);
    (async () => {
      const done = [];
      for (let i = 0; i < Number(n); i++) {
        const r = await m.updatePlanFile(file, { kind: 'addStep', description: 'step ' + tag + ' ' + i });
        if (r.ok) done.push('step ' + tag + ' ' + i); else console.error(r.error.message);
      }
      process.stdout.write(JSON.stringify(done));
    })().catch((e) => { console.error(e); process.exit(1); });`;
  const run = (tag: string) =>
    new Promise<string[]>((resolve, reject) => {
      const child = spawn(process.execPath, ['-e', script, file, tag, String(N)], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.on('exit', (c) => (c === 0 ? resolve(JSON.parse(out) as string[]) : reject(new Error(`exit ${c}`))));
    });
  const done = (await Promise.all(['A', 'B', 'C'].map(run))).flat();
  assert.equal(done.length, 3 * N, 'every edit succeeded');
  const plan = parsePlan(fs.readFileSync(file, 'utf8'), file);
  assert.ok(plan.ok);
  const descriptions = plan.value.steps.map((st) => st.description);
  for (const d of done) assert.equal(descriptions.filter((x) => x === d).length, 1, `"${d}" is in the plan once`);
  assert.equal(new Set(plan.value.steps.map((st) => st.id)).size, plan.value.steps.length, 'step ids are distinct');
  assert.deepEqual(fs.readdirSync(dir), ['plan.yaml'], 'no lock or temp file left');
});

test('findPlanFiles finds every plan location and nothing else', async () => {
  const agent = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-plans-'));
  for (const f of ['plan.yaml', 'plans/b.yaml', 'plans/a.yml', 'plans/notes.txt', 'scratch/current_plan.yaml', 'scratch/plans/x.yaml', 'scratch/other.yaml']) {
    fs.mkdirSync(path.dirname(path.join(agent, f)), { recursive: true });
    fs.writeFileSync(path.join(agent, f), 'objective: x\n');
  }
  const rel = (await findPlanFiles(agent)).map((f) => path.relative(agent, f));
  assert.deepEqual(rel, ['plan.yaml', 'plans/a.yml', 'plans/b.yaml', 'scratch/plans/x.yaml', 'scratch/current_plan.yaml']);
  assert.ok(isPlanPath(agent, path.join(agent, 'scratch/plans/y.yaml')));
  assert.ok(!isPlanPath(agent, path.join(agent, 'scratch/other.yaml')));
  assert.deepEqual(await findPlanFiles(path.join(agent, 'missing')), []);
});

test('a step whose text is a YAML alias (*big: 500 steps × 200 KB if expanded) is refused naming the alias, fast, and never expanded', () => {
  const text = `objective: &big "${'x'.repeat(200_000)}"\nsteps:\n${Array.from({ length: 500 }, (_, i) => `  - id: ${i + 1}\n    description: *big\n    status: pending`).join('\n')}\n`;
  const r = parsePlan(text, 'plan.yaml');
  assert.equal(r.ok, false);
  assert.match(r.ok ? '' : r.error.message, /^step "1": "description" is an alias \(\*big\); write the text itself$/);
  const notes = parsePlan('objective: o\nx: &n [1, 2]\nsteps:\n  - id: 1\n    description: d\n    status: pending\n    notes: *n\n', 'plan.yaml');
  assert.match(notes.ok ? '' : notes.error.message, /"notes" is an alias \(\*n\)/);
});
