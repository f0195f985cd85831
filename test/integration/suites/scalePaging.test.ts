// Views at scale (issue 15): long histories show their newest items first and page the rest
// ("… N older commands"), and the views still follow file events written by another process.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ui, waitFor } from '../bridge';
import { agentApi, flatten, paneRows, waitForTree, wsRoot, type SnapshotNode } from '../agentViewsHelpers';
import { ledgerPath, summarizeLedger, type LedgerEntry } from '../../../src/core/history/ledger';

const agentDir = () => path.join(wsRoot(), '.agent');

/** Writes terminal N with `count` finished commands (echo 1 … echo count) in the documented formats. */
function writeTerminal(n: number, count: number): void {
  const dir = path.join(agentDir(), 'terminals');
  fs.mkdirSync(dir, { recursive: true });
  const started = new Date(Date.now() - 3_600_000);
  const head = `# Agent Context terminal capture\n# terminal: paging\n# number: ${n}\n# shell: /bin/bash\n# cwd: ${wsRoot()}\n# started: ${started.toISOString()}\n# shell integration: active\n`;
  const text: string[] = [head];
  const index: string[] = [];
  let line = 8;
  for (let k = 1; k <= count; k++) {
    const rec = { v: 1, command: k, status: 'running', file: `${n}.txt`, commandLine: `echo ${k}`, cwd: wsRoot(), started: new Date(started.getTime() + k * 1000).toISOString(), headerLine: line, firstLine: line + 1, lastLine: null, exitCode: null, durationMs: null, secretsMasked: 0 };
    text.push(`>>> command ${k} | started ${rec.started} | cwd ${wsRoot()} | $ echo ${k}\n${k}\n<<< command ${k} | exit 0 | 0.01s | secrets masked 0\n`);
    index.push(JSON.stringify(rec), JSON.stringify({ ...rec, status: 'done', lastLine: line + 1, exitCode: 0, durationMs: 10 }));
    line += 3;
  }
  text.push(`# terminal closed at ${new Date().toISOString()}\n`);
  fs.writeFileSync(path.join(dir, `${n}.index.jsonl`), index.join('\n') + '\n');
  fs.writeFileSync(path.join(dir, `${n}.txt`), text.join(''));
}

const short = (n: number): string => (n < 1000 ? String(n) : n < 1_000_000 ? `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k` : `${(n / 1_000_000).toFixed(1)}M`);

describe('Views at scale: newest first, the rest paged', () => {
  before(async () => {
    await agentApi();
    await ui.openViewContainer('Agent Context');
  });

  it('the Terminals view shows a terminal\'s newest 200 commands and pages the older ones', async () => {
    const n = 9001;
    writeTerminal(n, 450);
    try {
      const term = await waitForTree('agentContext.terminals', (t) => t.find((x) => x.label === `paging (${n})`), 'the generated terminal is listed');
      assert.match(term.description ?? '', /^echo 450 · closed/);
      const kids = term.children;
      assert.equal(kids.length, 201);
      assert.equal(kids[0].label, 'echo 450');
      assert.equal(kids[199].label, 'echo 251');
      assert.equal(kids[200].label, '… 250 older commands');
      assert.equal(kids[200].collapsible, true);
      const next = kids[200].children;
      assert.equal(next.length, 201);
      assert.equal(next[0].label, 'echo 250');
      assert.equal(next[200].label, '… 50 older commands');
      const last = next[200].children;
      assert.deepEqual([last.length, last[0].label, last[49].label], [50, 'echo 50', 'echo 1']);
      assert.equal(flatten([term]).filter((x) => /^echo \d+$/.test(x.label)).length, 450, 'every command is reachable through the pages');
    } finally {
      fs.rmSync(path.join(agentDir(), 'terminals', `${n}.txt`), { force: true });
      fs.rmSync(path.join(agentDir(), 'terminals', `${n}.index.jsonl`), { force: true });
    }
    await waitForTree('agentContext.terminals', (t) => (t.some((x) => x.label === `paging (${n})`) ? undefined : true), 'the terminal is gone once its file is removed');
  });

  it('the Scratch view shows a folder\'s newest 200 files, pages the rest, and follows a new file and a deletion', async () => {
    const dir = path.join(agentDir(), 'scratch', 'paging');
    fs.mkdirSync(dir, { recursive: true });
    const t0 = Date.now() / 1000 - 100_000;
    try {
      for (let i = 1; i <= 450; i++) {
        const f = path.join(dir, `f${String(i).padStart(3, '0')}.txt`);
        fs.writeFileSync(f, 'x');
        fs.utimesSync(f, t0 + i, t0 + i);
      }
      const folder = (nodes: SnapshotNode[]) => nodes.find((x) => x.label === 'paging');
      const node = await waitForTree('agentContext.scratch', (t) => (folder(t)?.description === '450 files · 450 B' ? folder(t) : undefined), 'the folder counts 450 files', 60_000);
      assert.equal(node.children.length, 201);
      assert.deepEqual([node.children[0].label, node.children[199].label, node.children[200].label], ['f450.txt', 'f251.txt', '… 250 older files']);
      assert.equal(node.children[200].children[200].label, '… 50 older files');
      // Another process writes a newer file: it leads the folder and the count follows.
      fs.writeFileSync(path.join(dir, 'newest.txt'), 'new');
      const after = await waitForTree('agentContext.scratch', (t) => (folder(t)?.description === '451 files · 453 B' ? folder(t) : undefined), 'the count follows the new file', 30_000);
      assert.equal(after.children[0].label, 'newest.txt');
      assert.equal(after.children[200].label, '… 251 older files');
      fs.rmSync(path.join(dir, 'f450.txt'));
      await waitForTree('agentContext.scratch', (t) => (folder(t)?.description === '450 files · 452 B' && folder(t)!.children[1].label === 'f449.txt' ? true : undefined), 'a deleted file leaves the page', 30_000);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    await waitForTree('agentContext.scratch', (t) => (t.some((x) => x.label === 'paging') ? undefined : true), 'the folder is gone', 30_000);
  });

  it('the Plan view shows the last progress entries of a long log and follows an appended entry', async () => {
    const file = path.join(agentDir(), 'progress.md');
    const had = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
    try {
      const entries = Array.from({ length: 300 }, (_, i) => `## 2026-11-${String(1 + (i % 28)).padStart(2, '0')}T10:00:00Z — Entry ${i + 1}\n\nDid ${i + 1}.\n\nNext: more.\n`);
      fs.writeFileSync(file, `# Progress\n\n${entries.join('\n')}`);
      const recent = (t: SnapshotNode[]) => t.find((x) => x.label === 'Recent progress');
      const r = await waitForTree('agentContext.plan', (t) => (recent(t)?.description?.startsWith('5 of 300') ? recent(t) : undefined), 'Recent progress counts 300 entries');
      assert.deepEqual(r.children.map((c) => c.label), ['Entry 300', 'Entry 299', 'Entry 298', 'Entry 297', 'Entry 296']);
      fs.appendFileSync(file, '\n## 2026-11-30T09:00:00Z — Appended by another process\n\nDone.\n');
      const r2 = await waitForTree('agentContext.plan', (t) => (recent(t)?.description?.startsWith('5 of 301') ? recent(t) : undefined), 'the appended entry is counted');
      assert.equal(r2.children[0].label, 'Appended by another process');
      // What the user sees without scrolling: the count on the Recent progress row.
      await waitFor(async () => (await paneRows('Plan')).some((row) => row.includes('Recent progress') && row.includes('5 of 301')), { timeout: 20_000, message: 'the Plan view row says 5 of 301' });
    } finally {
      if (had === undefined) fs.rmSync(file, { force: true });
      else fs.writeFileSync(file, had);
    }
  });

  it('the Plan view shows the newest plans of plans/ and pages the rest, and follows an edit and a removal', async () => {
    const dir = path.join(agentDir(), 'plans');
    fs.mkdirSync(dir, { recursive: true });
    const t0 = Date.now() / 1000 - 100_000;
    const file = (i: number) => path.join(dir, `paging-${String(i).padStart(2, '0')}.md`);
    const label = (i: number) => `Paging plan ${i}`;
    const others = ['plans', 'scratch/plans'].flatMap((d) => (fs.existsSync(path.join(agentDir(), d)) ? fs.readdirSync(path.join(agentDir(), d)) : []));
    assert.deepEqual(others, [], 'no other plans in the plan folders (the counts below are of this test\'s plans)');
    try {
      for (let i = 1; i <= 45; i++) {
        fs.writeFileSync(file(i), `# ${label(i)}\n\n- [ ] first step of ${i}\n- [x] done step of ${i}\n`);
        fs.utimesSync(file(i), t0 + i, t0 + i);
      }
      const paging = (t: SnapshotNode[]) => t.filter((x) => x.label.startsWith('Paging plan '));
      const older = (t: SnapshotNode[]) => t.find((x) => /^… \d+ older plans?$/.test(x.label));
      const top = await waitForTree('agentContext.plan', (t) => (paging(t).length > 0 && older(t)?.label === '… 25 older plans' ? t : undefined), 'the newest plans and "… 25 older plans"', 60_000);
      // The workspace's own plan.yaml stays first; then the 20 newest plans of plans/.
      assert.equal(top[0].label, 'Add rate limiting to the public API');
      assert.equal(top[0].expanded, true, 'plan.yaml is drawn open');
      assert.deepEqual(paging(top).map((x) => x.label), Array.from({ length: 20 }, (_, k) => label(45 - k)));
      assert.equal(paging(top)[0].children.length, 2, 'a shown plan has its checklist');
      // The three newest unfinished plans are drawn open, the older ones as one row each (their checklist a click away).
      assert.deepEqual(paging(top).map((x) => x.expanded), Array.from({ length: 20 }, (_, k) => k < 3));
      assert.ok(paging(top)[10].children.length === 2, 'a closed plan still has its checklist under it');
      const page2 = older(top)!.children;
      assert.deepEqual(paging(page2).map((x) => x.label), Array.from({ length: 20 }, (_, k) => label(25 - k)));
      assert.equal(older(page2)?.label, '… 5 older plans');
      assert.deepEqual(paging(older(page2)!.children).map((x) => x.label), [5, 4, 3, 2, 1].map(label));
      // Another process edits an old plan: it leads the list, with its new state.
      fs.writeFileSync(file(3), `# ${label(3)}\n\n- [x] first step of 3\n- [x] done step of 3\n`);
      const edited = await waitForTree('agentContext.plan', (t) => (paging(t)[0]?.label === label(3) ? paging(t)[0] : undefined), 'the edited plan leads', 30_000);
      assert.match(edited.description ?? '', /^2\/2 done/);
      fs.rmSync(file(45));
      await waitForTree('agentContext.plan', (t) => (paging(t)[1]?.label === label(44) && older(t)?.label === '… 24 older plans' ? true : undefined), 'a removed plan leaves the page and the count', 30_000);
    } finally {
      for (let i = 1; i <= 45; i++) fs.rmSync(file(i), { force: true });
    }
    await waitForTree('agentContext.plan', (t) => (t.some((x) => x.label.startsWith('Paging plan ') || /older plan/.test(x.label)) ? undefined : true), 'the plans are gone', 30_000);
  });

  it('the Agents view shows the most recently active agents first and pages the rest', async () => {
    const ids = Array.from({ length: 30 }, (_, i) => `it-page-${String(i).padStart(2, '0')}`);
    const dirOf = (id: string) => path.join(agentDir(), 'agents', id);
    // Activity one minute apart, the last ones ahead of any other agent of the workspace.
    const base = Date.now() / 1000 + 3600 - ids.length * 60;
    const touch = (id: string, t: number) => {
      for (const f of [path.join(dirOf(id), 'status.json'), dirOf(id)]) fs.utimesSync(f, t, t);
    };
    try {
      ids.forEach((id, i) => {
        fs.mkdirSync(dirOf(id), { recursive: true });
        fs.writeFileSync(path.join(dirOf(id), 'status.json'), JSON.stringify({ agentId: id, status: 'done', progress: 1, updated: new Date().toISOString() }));
        touch(id, base + i * 60);
      });
      const labels = (t: SnapshotNode[]) => t.map((x) => x.label);
      const top = await waitForTree('agentContext.memory:agents', (t) => (labels(t)[0] === 'it-page-29' && t.length === 26 ? t : undefined), 'the newest 25 agents lead, then the older ones are paged');
      assert.deepEqual(labels(top).slice(0, 25), ids.slice(5).reverse());
      assert.match(top[25].label, /^… \d+ older agents?$/);
      assert.deepEqual(labels(top[25].children).slice(0, 5), ids.slice(0, 5).reverse());
      // Another process updates an older agent's status: it moves to the top.
      fs.writeFileSync(path.join(dirOf('it-page-00'), 'status.json.tmp'), JSON.stringify({ agentId: 'it-page-00', status: 'working', progress: 0.5, updated: new Date().toISOString() }));
      fs.renameSync(path.join(dirOf('it-page-00'), 'status.json.tmp'), path.join(dirOf('it-page-00'), 'status.json'));
      touch('it-page-00', base + 3600);
      const moved = await waitForTree('agentContext.memory:agents', (t) => (labels(t)[0] === 'it-page-00' ? t : undefined), 'the agent just updated leads the list');
      assert.equal(moved[0].description, 'working · 50%');
      assert.equal(moved[1].label, 'it-page-29');
    } finally {
      for (const id of ids) fs.rmSync(dirOf(id), { recursive: true, force: true });
    }
    await waitForTree('agentContext.memory:agents', (t) => (t.some((x) => x.label.startsWith('it-page-')) ? undefined : true), 'the generated agents are gone');
  });

  it('the Memory view shows the first 100 entries and pages the rest, saying how many of them need review', async () => {
    const file = path.join(agentDir(), 'memory', 'preferences.yaml');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const had = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
    const key = (i: number) => `it-mem-${String(i).padStart(3, '0')}`;
    try {
      const entries = Array.from({ length: 230 }, (_, i) => `${key(i)}:\n  value: "value ${i}"\n  source: agent\n  updated: 2026-12-01T10:00:00.000Z\n${i === 150 ? '  review: true\n  history:\n    - value: "older ${i}"\n      updated: 2026-11-30T10:00:00.000Z\n' : ''}`);
      fs.writeFileSync(file, entries.join(''));
      const more = (t: SnapshotNode[]) => t.find((x) => /^… [\d,]+ more entr(y|ies)$/.test(x.label));
      const top = await waitForTree('agentContext.memory:memory', (t) => (more(t)?.label === '… 130 more entries' ? t : undefined), 'the first 100 entries and "… 130 more entries"', 30_000);
      const keys = (t: SnapshotNode[]) => t.filter((x) => x.label.startsWith('it-mem-')).map((x) => x.label);
      assert.deepEqual(keys(top), Array.from({ length: 100 }, (_, i) => key(i)));
      assert.equal(more(top)!.description, '1 needs review', 'an entry needing review behind the fold is announced');
      const page2 = more(top)!.children;
      assert.deepEqual(keys(page2), Array.from({ length: 100 }, (_, i) => key(100 + i)));
      assert.match(page2.find((x) => x.label === key(150))?.description ?? '', /^needs review · /);
      assert.equal(more(page2)?.label, '… 30 more entries');
      assert.deepEqual(keys(more(page2)!.children), Array.from({ length: 30 }, (_, i) => key(200 + i)));
      assert.equal(flatten(top).filter((x) => x.label.startsWith('it-mem-')).length, 230, 'every entry is reachable through the pages');
    } finally {
      if (had === undefined) fs.rmSync(file, { force: true });
      else fs.writeFileSync(file, had);
    }
    // Once (CI at 718fd95, load ~4) the entries were still listed 30 s after the file was put back;
    // never again in a run of this suite. Should it recur, the failure says what was on disk and listed.
    let seen: SnapshotNode[] = [];
    const gone = await waitForTree('agentContext.memory:memory', (t) => ((seen = t), t.some((x) => x.label.startsWith('it-mem-')) ? undefined : true), 'the generated entries are gone', 30_000).catch((e: Error) => e);
    if (gone instanceof Error) {
      const disk = fs.existsSync(file) ? `${fs.statSync(file).size} B on disk, ${(fs.readFileSync(file, 'utf8').match(/^it-mem-/gm) ?? []).length} it-mem- keys in it` : 'no file on disk';
      assert.fail(`${gone.message}: preferences.yaml ${had === undefined ? 'removed' : 'put back'} (${disk}); the view lists ${seen.filter((x) => x.label.startsWith('it-mem-')).length} it-mem- entries of ${seen.length} rows`);
    }
  });

  it('the Skills view shows the first 100 skills of a folder and pages the rest, saying how many of them are broken', async () => {
    const root = path.join(agentDir(), 'skills');
    const name = (i: number) => `it-skill-${String(i).padStart(3, '0')}`;
    try {
      for (let i = 0; i < 140; i++) {
        fs.mkdirSync(path.join(root, name(i)), { recursive: true });
        fs.writeFileSync(path.join(root, name(i), 'SKILL.md'), i === 120 ? '---\nname: [broken\n---\n' : `---\nname: ${name(i)}\ndescription: Skill ${i}\n---\nbody\n`);
      }
      const source = (t: SnapshotNode[]) => flatten(t).find((x) => x.label === '.agent/skills');
      const more = (t: SnapshotNode[]) => t.find((x) => /^… [\d,]+ more skills?$/.test(x.label));
      const src = await waitForTree('agentContext.skills', (t) => (source(t)?.children.some((x) => /more skills/.test(x.label)) ? source(t) : undefined), 'the .agent/skills folder is paged', 30_000);
      // By folder name: the fixture's broken-skill, it-skill-000 … it-skill-098; then the rest (it-skill-099 … 139 and pdf-extract).
      const labels = (t: SnapshotNode[]) => t.map((x) => x.label);
      assert.deepEqual(labels(src.children), ['broken-skill', ...Array.from({ length: 99 }, (_, i) => name(i)), '… 42 more skills']);
      const rest = more(src.children)!;
      assert.equal(rest.description, '1 broken', 'a broken skill behind the fold is announced');
      assert.deepEqual(labels(rest.children), [...Array.from({ length: 41 }, (_, i) => name(99 + i)), 'pdf-extract']);
      assert.equal(flatten([src]).filter((x) => x.label.startsWith('it-skill-')).length, 140, 'every skill, the broken one too, is reachable through the pages');
    } finally {
      for (let i = 0; i < 140; i++) fs.rmSync(path.join(root, name(i)), { recursive: true, force: true });
    }
    await waitForTree('agentContext.skills', (t) => (flatten(t).some((x) => x.label.startsWith('it-skill-')) ? undefined : true), 'the generated skills are gone', 30_000);
  });

  it('the status bar counts a call appended to the ledger by another process', async () => {
    const file = ledgerPath(agentDir());
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const had = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
    try {
      const entry: LedgerEntry = { time: new Date().toISOString(), tool: 'agentContext_run', source: 'mcp', input: '{}', rawTokens: 2_345_678, returnedTokens: 100, ok: true, text: 'Saved' };
      fs.appendFileSync(file, JSON.stringify(entry) + '\n');
      const all = fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as LedgerEntry);
      const want = `${short(summarizeLedger(all).today.savedTokens)} tokens kept out`;
      await waitFor(async () => (await ui.texts('.statusbar-item')).some((t) => t.includes(want)), { timeout: 20_000, message: `the status bar shows "${want}"` });
    } finally {
      if (had === undefined) fs.rmSync(file, { force: true });
      else fs.writeFileSync(file, had);
    }
  });
});
