// The generated `.agent/` tree of row 3: 10,000 files, about 1 GB of terminal logs and scratch,
// written once under bench/work/ (git-ignored) from a fixed seed and reused by later runs.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { rng } from './harness';

/** Planted needles: every engine must report exactly these many matching lines. */
export const LITERAL = 'ECONNRESET';
export const REGEX = 'Timeout of [0-9]+ms exceeded';

const SPEC = {
  version: 2,
  seed: 20261129,
  terminals: 40,
  terminalBytes: 20 * 1024 * 1024,
  scratchFiles: 9960,
  scratchBytes: 20 * 1024,
  literalLines: 37,
  regexLines: 29,
};

/** Where the tree lives and what it holds. */
export interface AgentTree {
  root: string;
  agentDir: string;
  files: number;
  bytes: number;
  literalLines: number;
  regexLines: number;
}

const WORDS = ['build', 'compile', 'module', 'render', 'request', 'response', 'cache', 'worker', 'queue', 'socket',
  'parser', 'token', 'config', 'install', 'package', 'resolve', 'fetch', 'retry', 'server', 'client', 'handler',
  'données', 'Größe', '构建', 'テスト', 'ошибка', 'status', 'done', 'pending', 'skipped', 'passed'];

function linePool(r: () => number): string[] {
  const pool: string[] = [];
  const w = (): string => WORDS[Math.floor(r() * WORDS.length)];
  for (let i = 0; i < 20000; i++) {
    const k = r();
    const n = Math.floor(r() * 100000);
    if (k < 0.3) pool.push(`[${String(Math.floor(r() * 100)).padStart(3)}%] ${w()} ${w()} src/${w()}/${w()}_${n}.ts`);
    else if (k < 0.5) pool.push(`2026-11-29T19:${String(Math.floor(r() * 60)).padStart(2, '0')}:${String(Math.floor(r() * 60)).padStart(2, '0')}.${n % 1000}Z INFO ${w()}: ${w()} ${w()} in ${n % 5000} ms`);
    else if (k < 0.65) pool.push(`    at ${w()}.${w()} (/work/app/node_modules/${w()}/lib/${w()}.js:${n % 900}:${n % 80})`);
    else if (k < 0.8) pool.push(`  ✔ ${w()} ${w()} the ${w()} when ${w()} is ${w()} (${n % 300}ms)`);
    else if (k < 0.9) pool.push(`src/${w()}.ts(${n % 400},${n % 60}): warning TS${6000 + (n % 999)}: '${w()}' is declared but its value is never read.`);
    else pool.push(`{"level":"debug","msg":"${w()} ${w()}","id":${n},"tags":["${w()}","${w()}"]}`);
  }
  return pool;
}

/** Builds one file's text of about `bytes`, planting needles at the given line indexes. */
function fileText(r: () => number, pool: string[], bytes: number, plant: Map<number, string>): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const l = plant.get(i) ?? pool[Math.floor(r() * pool.length)];
    lines.push(l);
    size += l.length + 1;
  }
  for (const [i, l] of plant) if (i >= lines.length) lines.push(l);
  return lines.join('\n') + '\n';
}

/** Generates the tree if bench/work holds no complete one of this version; returns its description. */
export function ensureAgentTree(workDir: string, log: (s: string) => void): AgentTree {
  const root = path.join(workDir, 'agent-tree');
  const agentDir = path.join(root, '.agent');
  const stamp = path.join(root, 'complete.json');
  if (fs.existsSync(stamp)) {
    const t = JSON.parse(fs.readFileSync(stamp, 'utf8')) as AgentTree & { version: number };
    if (t.version === SPEC.version) return { ...t, root, agentDir };
  }
  fs.rmSync(root, { recursive: true, force: true });
  log(`generating ${SPEC.terminals + SPEC.scratchFiles} files (~1 GB) under ${root} (once; reused by later runs)`);
  const r = rng(SPEC.seed);
  const pool = linePool(r);
  const total = SPEC.terminals + SPEC.scratchFiles;
  // Which files get needles: chosen up front so the counts are exact.
  const m = new Map<number, Map<number, string>>();
  const plantAt = (count: number, text: (i: number) => string): void => {
    for (let i = 0; i < count; i++) {
      const f = Math.floor(r() * total);
      const lines = f < SPEC.terminals ? 200_000 : 200;
      let at = Math.floor(r() * lines);
      const inFile = m.get(f) ?? new Map<number, string>();
      while (inFile.has(at)) at++;
      inFile.set(at, text(i));
      m.set(f, inFile);
    }
  };
  plantAt(SPEC.literalLines, (i) => `npm error code ${LITERAL} (attempt ${i + 1}) while fetching https://registry.example/pkg-${i}`);
  plantAt(SPEC.regexLines, (i) => `  Error: Timeout of ${2000 + i * 7}ms exceeded. For async tests and hooks, ensure "done()" is called`);
  let bytes = 0;
  for (let f = 0; f < total; f++) {
    const plant = m.get(f) ?? new Map<number, string>();
    let file: string;
    let size: number;
    if (f < SPEC.terminals) {
      file = path.join(agentDir, 'terminals', `${f + 1}.txt`);
      size = SPEC.terminalBytes;
    } else {
      const i = f - SPEC.terminals;
      file = path.join(agentDir, 'scratch', i % 3 === 0 ? 'tool_outputs' : i % 3 === 1 ? `notes/${i % 50}` : `runs/${i % 200}`, `out-${i}.txt`);
      size = Math.floor(SPEC.scratchBytes * (0.5 + r()));
    }
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const text = fileText(r, pool, size, plant);
    fs.writeFileSync(file, text);
    bytes += Buffer.byteLength(text);
  }
  const tree: AgentTree = { root, agentDir, files: total, bytes, literalLines: SPEC.literalLines, regexLines: SPEC.regexLines };
  fs.writeFileSync(stamp, JSON.stringify({ ...tree, version: SPEC.version }, null, 2));
  return tree;
}
