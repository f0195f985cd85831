// The bench probe: activated on '*' (before Agent Context's workspaceContains:.agent), it notes the
// extension host's CPU, RSS and time, starts the block monitor, opens the Agent Context sidebar and
// runs the scenario (out/bench/editorScenario.js), writing its JSON result where the runner waits
// for it. Does nothing unless the bench runner set AGENT_CONTEXT_BENCH_SCENARIO and _OUT.
const fs = require('node:fs');

function activate() {
  const scenario = process.env.AGENT_CONTEXT_BENCH_SCENARIO;
  const out = process.env.AGENT_CONTEXT_BENCH_OUT;
  if (!scenario || !out) return;
  const u = typeof process.threadCpuUsage === 'function' ? process.threadCpuUsage() : process.cpuUsage();
  const cpu0 = (u.user + u.system) / 1000; // the same clock as mainCpu() in the scenario
  const t0 = performance.now();
  const rss0 = process.memoryUsage().rss;
  const write = (r) => fs.writeFileSync(out, JSON.stringify(r, null, 1));
  let mod;
  try {
    mod = require(scenario);
  } catch (e) {
    write({ ok: false, error: `cannot load ${scenario}: ${(e && e.stack) || e}` });
    return;
  }
  const blocks = new mod.BlockMonitor();
  mod.openContainer();
  mod.run({ cpu0, t0, rss0, blocks }, process.env.AGENT_CONTEXT_BENCH_LEVEL || '?').then(
    (r) => write(r),
    (e) => write({ ok: false, error: String((e && e.stack) || e) }),
  ).finally(() => blocks.dispose());
}

module.exports = { activate, deactivate() {} };
