// Where a CPU profile's time went, by source module of the bundle: for looking into a bench figure.
//   node scripts/profileByModule.mjs PROFILE.cpuprofile [--compare BASE.cpuprofile] [--bundle dist/extension.js] [--top 40]
// The bundle (esbuild, not minified) marks where each module starts with a `// src/...` or
// `// node_modules/...` line; a sample in the bundle counts for the module it falls in. A sample in
// Node or a native function (a stat, a read, JSON.parse) counts for the nearest bundle frame above it,
// as "module (via function)"; samples with no bundle frame above them are "other: file". With
// --compare, each row is PROFILE minus BASE (the L profile against the S one: what grows with history).
// Profiles come from AGENT_CONTEXT_BENCH_CPUPROF (editor rows, bench/README.md) or `node --cpu-prof`.
import * as fs from 'node:fs';
import * as path from 'node:path';

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const i = argv.indexOf(name);
  if (i < 0) return fallback;
  const v = argv[i + 1];
  argv.splice(i, 2);
  return v;
};
const base = option('--compare');
const bundle = path.resolve(option('--bundle', 'dist/extension.js'));
const top = Number(option('--top', '40'));
const [file] = argv;
if (!file || !fs.existsSync(file) || !fs.existsSync(bundle) || !(top > 0)) {
  console.error('usage: node scripts/profileByModule.mjs PROFILE.cpuprofile [--compare BASE.cpuprofile] [--bundle dist/extension.js] [--top 40]');
  if (file && !fs.existsSync(file)) console.error(`no such profile: ${file}`);
  if (!fs.existsSync(bundle)) console.error(`no such bundle: ${bundle} (node esbuild.mjs makes dist/)`);
  process.exit(2);
}

/** Line index → module, from the bundle's `// path` lines. */
const starts = [];
fs.readFileSync(bundle, 'utf8').split('\n').forEach((line, i) => {
  const m = /^\/\/ ((?:src|node_modules)\/\S+)$/.exec(line);
  if (m) starts.push([i, m[1]]);
});
function moduleAt(line) {
  let lo = 0;
  let hi = starts.length - 1;
  let found = '(bundle head)';
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (starts[mid][0] <= line) {
      found = starts[mid][1];
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** Self time (ms) per row of one profile, and its total without (idle). */
function byModule(profileFile) {
  const p = JSON.parse(fs.readFileSync(profileFile, 'utf8'));
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const name = path.basename(bundle);
  const inBundle = (cf) => cf.url.endsWith(`/${name}`) || cf.url === name;
  const rows = new Map();
  let total = 0;
  for (let i = 0; i < p.samples.length; i++) {
    // A sample's time is the gap to the next one.
    const ms = (p.timeDeltas[i + 1] ?? 0) / 1000;
    const leaf = byId.get(p.samples[i]).callFrame;
    if (leaf.functionName !== '(idle)') total += ms;
    let row;
    if (inBundle(leaf)) row = moduleAt(leaf.lineNumber);
    else if (leaf.functionName.startsWith('(')) row = leaf.functionName; // (garbage collector), (idle), (program)
    else {
      for (let id = parent.get(p.samples[i]); id !== undefined && !row; id = parent.get(id)) {
        const cf = byId.get(id).callFrame;
        if (inBundle(cf)) row = `${moduleAt(cf.lineNumber)} (via ${leaf.functionName || 'anonymous'})`;
      }
      row ??= `other: ${leaf.url.split('/').slice(-2).join('/') || leaf.functionName}`;
    }
    rows.set(row, (rows.get(row) ?? 0) + ms);
  }
  return { rows, total };
}

const a = byModule(file);
const b = base ? byModule(base) : undefined;
const keys = new Set([...a.rows.keys(), ...(b?.rows.keys() ?? [])]);
const lines = [...keys].map((k) => ({ k, v: (a.rows.get(k) ?? 0) - (b?.rows.get(k) ?? 0), a: a.rows.get(k) ?? 0, b: b?.rows.get(k) ?? 0 }));
lines.sort((x, y) => y.v - x.v);
const f = (x) => x.toFixed(1).padStart(8);
console.log(b ? `${f(a.total - b.total)} ms busy (${a.total.toFixed(0)} − ${b.total.toFixed(0)}); rows: difference, base, profile` : `${a.total.toFixed(0)} ms busy; rows: self ms`);
for (const l of lines.slice(0, top)) console.log(b ? `${f(l.v)}${f(l.b)}${f(l.a)}  ${l.k}` : `${f(l.v)}  ${l.k}`);
