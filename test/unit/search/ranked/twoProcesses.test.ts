import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { searchIndex } from '../../../../src/core/search/ranked/rankedSearch';
import { SearchIndex } from '../../../../src/core/search/ranked/searchIndex';
import { maskerFor } from '../../../../src/core/search/ranked/searchHere';
import { CHUNK_FIELDS, parseManifest, manifestPath, searchDir } from '../../../../src/core/search/ranked/manifest';
import { queryTerms } from '../../../../src/core/search/ranked/terms';
import { rankChunks } from '../../../../src/core/search/ranked/chunkRanking';

const ranked = path.resolve(__dirname, '../../../../src/core/search/ranked');

/**
 * A process that writes `count` outputs of its own into scratch/tool_outputs/ and brings the shared
 * index up to date after each (small batches: many runs, merged as they pile up), while others do
 * the same on the same folder.
 */
function writer(root: string, tag: string, count: number): Promise<string> {
  const script = `
    const fs = require('fs'), path = require('path');
    const { SearchIndex } = require(${JSON.stringify(path.join(ranked, 'searchIndex.js'))});
    const { tune } = require(${JSON.stringify(path.resolve(ranked, '../../processState.js'))});
    const { maskerFor } = require(${JSON.stringify(path.join(ranked, 'searchHere.js'))});
    (async () => {
      tune({ searchBatchBytes: 3000 });
      const idx = new SearchIndex(${JSON.stringify(path.join(root, '.agent'))}, { mask: maskerFor({ roots: [] }) });
      const dir = ${JSON.stringify(path.join(root, '.agent/scratch/tool_outputs'))};
      for (let i = 0; i < ${count}; i++) {
        const lines = Array.from({ length: 60 }, (_, k) => '${tag} line ' + k + ' of output ' + i);
        lines.push('needle${tag}x' + i + 'y found here');
        fs.writeFileSync(path.join(dir, '${tag}-' + i + '.txt'), lines.join('\\n') + '\\n');
        await idx.refresh(Infinity);
        if (i % 3 === 2) await idx.mergeOnce();
      }
      idx.dispose();
      process.stdout.write('done');
    })().catch((e) => { process.stderr.write(String(e && e.stack || e)); process.exit(1); });`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.once('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`writer ${tag} exited ${code}: ${err}`))));
  });
}

test('three processes updating one index at once: every file indexed exactly once, every run whole, nothing left behind', async () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ranked-procs-')));
  fs.mkdirSync(path.join(root, '.agent/scratch/tool_outputs'), { recursive: true });
  const tags = ['p', 'q', 'r'];
  const count = 12;
  assert.deepEqual(await Promise.all(tags.map((t) => writer(root, t, count))), ['done', 'done', 'done']);

  const agentDir = path.join(root, '.agent');
  const m = parseManifest(fs.readFileSync(manifestPath(agentDir)));
  assert.ok(m, 'the manifest parses');
  assert.equal(Object.keys(m.files).length, tags.length * count);
  const ids = Object.values(m.files).flatMap((e) => Array.from(e.c).filter((_, k) => k % CHUNK_FIELDS === 0));
  assert.equal(new Set(ids).size, ids.length, 'no chunk id given twice');
  const dir = searchDir(agentDir);
  for (const r of m.runs) assert.ok(fs.existsSync(path.join(dir, r.name)), `${r.name} is named and exists`);
  assert.deepEqual(fs.readdirSync(dir).filter((f) => f.endsWith('.tmp') || f.endsWith('.lock')), []);

  // A fresh process finds nothing left to index, and each output's needle in exactly one chunk.
  const mask = maskerFor({ roots: [] });
  const idx = new SearchIndex(agentDir, { mask });
  const report = await idx.refresh(Infinity);
  assert.equal(report.indexedFiles, 0, 'the writers left nothing unindexed');
  for (const t of tags) {
    for (let i = 0; i < count; i++) {
      const { chunks } = rankChunks(idx, queryTerms(`needle${t}x${i}y`), undefined, 5, false);
      assert.equal(chunks.length, 1, `needle${t}x${i}y`);
      assert.equal(chunks[0].rel, `scratch/tool_outputs/${t}-${i}.txt`);
    }
  }
  const a = await searchIndex(idx, { query: `needle${tags[1]}x7y` }, mask);
  assert.equal(a.windows[0].rel, `scratch/tool_outputs/${tags[1]}-7.txt`);
  assert.ok(a.windows[0].lines.some((l) => l.n === 61));
  idx.dispose();
});
