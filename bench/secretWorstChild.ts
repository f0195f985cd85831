// Row 12c in a process of its own: the CPU time of the worst 1 MB adversarial line, for our masker
// ("ours") or the one issue 12 replaced ("reference"). A fresh process per masker, because in the
// bench's own process the heap left by the other rows (and by the other masker's 1 MB strings)
// made one line's figure swing between 49 and 71 ms from run to run; alone it is 26-31 ms.
// Usage: node out/bench/secretWorstChild.js ours|reference   (prints one JSON line)
import { loadBuilt } from './harness';
import { maskSecrets as referenceMask } from './referenceMasker';

const MB = 1024 * 1024;
/** Best of this many runs for each of the slowest lines: a run can carry a garbage collection that is not that line's cost. */
const BEST_OF = 15;

interface MaskerModule {
  maskSecrets(text: string): unknown;
}
interface BuiltinModule {
  builtinEngine(): { scanner: { keywords: readonly string[] } };
}

function main(): void {
  const which = process.argv[2];
  const mod = loadBuilt<MaskerModule>('core/secrets/index', ['maskSecrets']);
  const eng = loadBuilt<BuiltinModule>('core/secrets/builtin', ['builtinEngine']);
  if (which !== 'ours' && which !== 'reference') throw new Error('usage: secretWorstChild ours|reference (after tsc -p .)');
  const mask = which === 'ours' ? (s: string) => mod.maskSecrets(s) : (s: string) => referenceMask(s);
  // The unit test's adversarial lines: every keyword glued to itself, unterminated runs.
  const fill = (unit: string): string => unit.repeat(Math.ceil(MB / unit.length)).slice(0, MB) + '\n';
  const units: string[] = [];
  for (const k of eng.builtinEngine().scanner.keywords) units.push(k + '=', 'Ab1'.repeat(10) + k + ':"a1');
  units.push(' -u a:', ' -p', '://a:b', 'Authorization: Bearer a1', 'x'.repeat(1000) + '@sha256:', '-----BEGIN PRIVATE KEY-----', 'data:');
  const cpu = (f: () => void): number => {
    const c0 = process.cpuUsage();
    f();
    const c = process.cpuUsage(c0);
    return (c.user + c.system) / 1000;
  };
  // The worst of 479 noisy minimums is biased upward by noise: a first pass (best of 3) ranks the
  // lines, a second (best of BEST_OF) measures the 8 slowest properly, and the worst of those counts.
  const bestOf = (line: string, n: number): number => {
    let best = Infinity;
    for (let i = 0; i < n; i++) best = Math.min(best, cpu(() => mask(line)));
    return best;
  };
  const ranked = units.map((u) => ({ u, ms: bestOf(fill(u), 3) })).sort((a, b) => b.ms - a.ms);
  let worst = 0;
  let worstUnit = '';
  for (const { u } of ranked.slice(0, 8)) {
    const ms = bestOf(fill(u), BEST_OF);
    if (ms > worst) {
      worst = ms;
      worstUnit = u;
    }
  }
  process.stdout.write(JSON.stringify({ worst, worstUnit, lines: units.length, bestOf: BEST_OF }) + '\n');
}

main();
