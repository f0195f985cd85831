// Fails when the TypeScript sources import each other in a circle (type-only imports included:
// a type cycle still ties two modules into one unit a reader must hold in mind at once).
//   node scripts/checkCycles.mjs [folder ...]   (default: src)
// Part of `npm run lint`. Relative specifiers only; packages cannot form a cycle with our files.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

const IMPORT = /(?:^|[\s;])(?:import|export)\s[^'"`;]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|(?:import|require)\s*\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)|^\s*import\s*['"](\.{1,2}\/[^'"]+)['"]/gm;

export function sourceFiles(dir, out = []) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) sourceFiles(p, out);
    else if (/\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

function resolve(from, spec) {
  const base = path.resolve(path.dirname(from), spec.replace(/\.js$/, ''));
  for (const c of [`${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')]) if (fs.existsSync(c)) return c;
  return undefined;
}

/** The import graph of the .ts files under the folders: file → files it imports. */
export function importGraph(folders) {
  const graph = new Map();
  for (const f of folders.flatMap((d) => sourceFiles(path.resolve(d)))) {
    const text = fs.readFileSync(f, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
    const deps = new Set();
    for (const m of text.matchAll(IMPORT)) {
      const r = resolve(f, m[1] ?? m[2] ?? m[3]);
      if (r) deps.add(r);
    }
    graph.set(f, deps);
  }
  return graph;
}

/** Every strongly connected component with more than one file (or a file importing itself), as lists of files. */
export function cycles(graph) {
  // Tarjan's algorithm, iterative so a deep import chain cannot overflow the stack.
  let index = 0;
  const idx = new Map(), low = new Map(), onStack = new Set(), stack = [], found = [];
  for (const start of graph.keys()) {
    if (idx.has(start)) continue;
    const work = [[start, [...(graph.get(start) ?? [])], 0]];
    idx.set(start, index); low.set(start, index); index++; stack.push(start); onStack.add(start);
    while (work.length) {
      const top = work[work.length - 1];
      const [v, deps] = top;
      if (top[2] < deps.length) {
        const w = deps[top[2]++];
        if (!graph.has(w)) continue;
        if (!idx.has(w)) {
          idx.set(w, index); low.set(w, index); index++; stack.push(w); onStack.add(w);
          work.push([w, [...graph.get(w)], 0]);
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1][0];
        low.set(parent, Math.min(low.get(parent), low.get(v)));
      }
      if (low.get(v) === idx.get(v)) {
        const scc = [];
        let w;
        do {
          w = stack.pop();
          onStack.delete(w);
          scc.push(w);
        } while (w !== v);
        if (scc.length > 1 || graph.get(v).has(v)) found.push(scc.sort());
      }
    }
  }
  return found;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const folders = process.argv.slice(2);
  const graph = importGraph(folders.length ? folders : ['src']);
  const found = cycles(graph);
  const rel = (f) => path.relative(process.cwd(), f).split(path.sep).join('/');
  if (found.length) {
    console.error(`import cycles (${found.length}): each group below imports itself through the others; move what they share into a module of its own.`);
    for (const c of found) console.error(`  ${c.map(rel).join(' <-> ')}`);
    process.exit(1);
  }
  console.log(`no import cycles among ${graph.size} files`);
}
