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
import { failedRow, measure, measurePair, repoRoot, type Row, type Stats } from './harness';
import { generateAgentFolder, type Scale } from './scaleGen';
import { SCALE_CALLS, setRgForCount } from './scaleCalls';

function runRg(rg: string, args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(rg, args, { cwd, stdio: ['ignore', 'ignore', 'ignore'] });
    child.once('error', reject);
    child.once('close', (code) => (code === 0 || code === 1 ? resolve() : reject(new Error(`rg exited ${code}`))));
  });
}

const loadavg = (): string => os.loadavg().map((x) => x.toFixed(1)).join(' ');

/** Measures every call at each scale; returns one row per call (S, M, L figures and L/S). */
export async function rowScale(levels: { label: string; scale: Scale }[], rgPath: string | undefined, log: (s: string) => void): Promise<Row[]> {
  setRgForCount(rgPath);
  const serverJs = path.join(repoRoot(), 'out', 'src', 'mcp', 'server.js');
  if (!fs.existsSync(serverJs)) return [failedRow('9', 'scale study over MCP', '—', new Error(`${serverJs} missing: run tsc -p .`))];
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-context-scale-'));
  const results = new Map<string, Map<string, { t: Stats; rg?: Stats; error?: string; load: string }>>();
  const scales = levels.map((l) => l.label);
  try {
    for (const { label, scale } of levels) {
      const root = path.join(tmp, `ws-${label}`);
      const t0 = Date.now();
      const g = await generateAgentFolder(root, scale);
      log(`scale ${label} (${scale}×): generated ${g.files.toLocaleString('en-US')} files, ${(g.bytes / 1048576).toFixed(0)} MB in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
      let mcp: McpSession | undefined;
      try {
        mcp = await startMcp(serverJs, root);
        for (const c of SCALE_CALLS) {
          const per = results.get(c.id) ?? new Map();
          results.set(c.id, per);
          const load0 = loadavg();
          const call = async (): Promise<void> => {
            const r = await mcp!.call(c.tool, c.input(g));
            if (r.isError) throw new Error(`${c.tool}: ${r.text.slice(0, 200)}`);
            const bad = c.check?.(r.text, g);
            if (bad) throw new Error(`${c.tool}: wrong result: ${bad}`);
          };
          try {
            if (c.rg && rgPath) {
              const p = await measurePair(call, () => runRg(rgPath, c.rg!(g), root));
              per.set(label, { t: p.a, rg: p.b, load: `${load0} → ${loadavg()}` });
            } else per.set(label, { t: await measure(call), load: `${load0} → ${loadavg()}` });
            const m = per.get(label)!;
            log(`  ${c.id} ${c.what} @${label}: ${m.t.median.toFixed(1)} ms${m.rg ? ` (rg ${m.rg.median.toFixed(1)} ms)` : ''}`);
          } catch (e) {
            per.set(label, { t: { median: NaN, min: NaN, max: NaN, samples: [] }, error: (e as Error).message, load: load0 });
            log(`  ${c.id} @${label}: ${(e as Error).message}`);
          }
        }
      } finally {
        await mcp?.close();
        fs.rmSync(root, { recursive: true, force: true });
      }
    }
  } finally {
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
    const goal = useRg ? `≤ 1.2× rg over the same tree at ${last}` : `≤ 500 ms at ${last}; ${last}/${first} ≤ 1.5×`;
    const met = errors.length === 0 && L !== undefined && (useRg ? rgRatio <= 1.2 : L.t.median <= 500 && ratioLS <= 1.5);
    rows.push({
      id: c.id,
      what: `${c.what}, over MCP`,
      ours: cells.join('; '),
      reference: useRg ? `rg at ${last}: ${ms(L!.rg!)}` : '—',
      ratio: `${last}/${first} ${Number.isFinite(ratioLS) ? ratioLS.toFixed(2) : '—'}×${useRg && Number.isFinite(rgRatio) ? `; ${rgRatio.toFixed(2)}× rg` : ''}`,
      goal,
      met,
      note: [`load average ${[...per.entries()].map(([s, m]) => `${s}: ${m.load}`).join(', ')}`, ...errors].join('; '),
    });
  }
  return rows;
}
