// Row 9: the scale study of issue 15 — tool calls over the MCP transport (the real server process,
// the SDK client over stdio) against generated `.agent/` folders at S, M and L history
// (bench/scaleGen.ts), median of warm calls, with the L/S ratio per call. Goals at L: no call over
// 500 ms and L/S ≤ 1.5×; grep and glob over the whole tree are instead compared with ripgrep over
// the same tree (≤ 1.2× rg). The folders live in a temp directory removed afterwards.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startMcp, type McpSession } from '../test/integration/mcpClient';
import { failedRow, repoRoot, RUNS, stats, WARMUP, type Row, type Stats } from './harness';
import { generateAgentFolder, type GeneratedFolder, type Scale } from './scaleGen';
import { SCALE_CALLS, SCALE_NOISE_MS, setRgForCount } from './scaleCalls';

function runRg(rg: string, args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(rg, args, { cwd, stdio: ['ignore', 'ignore', 'ignore'] });
    child.once('error', reject);
    child.once('close', (code) => (code === 0 || code === 1 ? resolve() : reject(new Error(`rg exited ${code}`))));
  });
}

const loadavg = (): string => os.loadavg().map((x) => x.toFixed(1)).join(' ');

/**
 * Measures every call at each scale; returns one row per call (S, M, L figures and L/S). All
 * levels' folders and servers are up at once and each call is timed round-robin across the levels
 * (and ripgrep, where it is the reference), so a change in the machine's load hits every level alike.
 */
export async function rowScale(levels: { label: string; scale: Scale }[], rgPath: string | undefined, log: (s: string) => void): Promise<Row[]> {
  setRgForCount(rgPath);
  const serverJs = path.join(repoRoot(), 'out', 'src', 'mcp', 'server.js');
  if (!fs.existsSync(serverJs)) return [failedRow('9', 'scale study over MCP', '—', new Error(`${serverJs} missing: run tsc -p .`))];
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-context-scale-'));
  const results = new Map<string, Map<string, { t: Stats; rg?: Stats; error?: string; load: string }>>();
  const scales = levels.map((l) => l.label);
  const up: { label: string; g: GeneratedFolder; mcp: McpSession }[] = [];
  try {
    for (const { label, scale } of levels) {
      const root = path.join(tmp, `ws-${label}`);
      const t0 = Date.now();
      const g = await generateAgentFolder(root, scale);
      log(`scale ${label} (${scale}×): generated ${g.files.toLocaleString('en-US')} files, ${(g.bytes / 1048576).toFixed(0)} MB in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
      up.push({ label, g, mcp: await startMcp(serverJs, root) });
    }
    const last = up[up.length - 1];
    for (const c of SCALE_CALLS) {
      const per = new Map<string, { t: Stats; rg?: Stats; error?: string; load: string }>();
      results.set(c.id, per);
      const load0 = loadavg();
      const samples = new Map<string, number[]>(up.map((u) => [u.label, []]));
      const rgSamples: number[] = [];
      const errors = new Map<string, string>();
      const useRg = c.rg !== undefined && rgPath !== undefined;
      for (let run = -WARMUP; run < RUNS; run++) {
        for (const u of up) {
          if (errors.has(u.label)) continue;
          try {
            const t = performance.now();
            const r = await u.mcp.call(c.tool, c.input(u.g));
            const ms = performance.now() - t;
            if (r.isError) throw new Error(`${c.tool}: ${r.text.slice(0, 200)}`);
            const bad = c.check?.(r.text, u.g);
            if (bad) throw new Error(`${c.tool}: wrong result: ${bad}`);
            if (run >= 0) samples.get(u.label)!.push(ms);
          } catch (e) {
            errors.set(u.label, (e as Error).message);
            log(`  ${c.id} @${u.label}: ${(e as Error).message}`);
          }
        }
        if (useRg) {
          const t = performance.now();
          await runRg(rgPath, c.rg!(last.g), last.g.root);
          if (run >= 0) rgSamples.push(performance.now() - t);
        }
      }
      const load = `${load0} → ${loadavg()}`;
      for (const u of up) {
        const xs = samples.get(u.label)!;
        const err = errors.get(u.label);
        per.set(u.label, err || !xs.length ? { t: { median: NaN, min: NaN, max: NaN, samples: [] }, error: err ?? 'no sample', load } : { t: stats(xs), rg: u === last && rgSamples.length ? stats(rgSamples) : undefined, load });
      }
      log(`  ${c.id} ${c.what}: ${up.map((u) => `${u.label} ${per.get(u.label)!.t.median.toFixed(1)} ms`).join(', ')}${rgSamples.length ? ` (rg at ${last.label} ${stats(rgSamples).median.toFixed(1)} ms)` : ''}`);
    }
  } finally {
    for (const u of up) await u.mcp.close().catch(() => undefined);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  const first = scales[0];
  const last = scales[scales.length - 1];
  const rows: Row[] = [];
  for (const c of SCALE_CALLS) {
    const per = results.get(c.id);
    if (!per) continue;
    const ms = (s: Stats): string => `${s.median.toFixed(0)} ms (${s.min.toFixed(0)}–${s.max.toFixed(0)})`;
    const cells = scales.map((s) => {
      const m = per.get(s);
      return `${s}: ${m?.error ? 'error' : m ? ms(m.t) : '—'}`;
    });
    const S = per.get(first);
    const L = per.get(last);
    const errors = [...per.entries()].filter(([, m]) => m.error).map(([s, m]) => `${s}: ${m.error}`);
    const ratioLS = S && L && !S.error && !L.error ? L.t.median / S.t.median : NaN;
    const rgRatio = L?.rg ? L.t.median / L.rg.median : NaN;
    const useRg = c.rg !== undefined && L?.rg !== undefined;
    // grep and glob over the whole tree are held to ripgrep over the same tree instead (issue 15).
    // As in row 10, a growth within the noise of a warm call on this machine counts as none.
    const goal = useRg ? `≤ 1.2× rg over the same tree at ${last}` : `≤ 500 ms at ${last}; ${last}/${first} ≤ 1.5× (growth ≤ ${SCALE_NOISE_MS} ms counts as none)`;
    const grew = S && L ? L.t.median - S.t.median : NaN;
    const met = errors.length === 0 && L !== undefined && (useRg ? rgRatio <= 1.2 : L.t.median <= 500 && (ratioLS <= 1.5 || grew <= SCALE_NOISE_MS));
    rows.push({
      id: c.id,
      what: `${c.what}, over MCP`,
      ours: cells.join('; '),
      reference: useRg ? `rg at ${last}: ${ms(L!.rg!)}` : '—',
      ratio: `${last}/${first} ${Number.isFinite(ratioLS) ? ratioLS.toFixed(2) : '—'}×${useRg && Number.isFinite(rgRatio) ? `; ${rgRatio.toFixed(2)}× rg` : ''}`,
      goal,
      met,
      note: [`levels interleaved call by call; load average ${L?.load ?? '?'}`, ...errors].join('; '),
    });
  }
  return rows;
}
