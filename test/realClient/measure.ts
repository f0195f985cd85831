/*
 * What the real-client runs measure (bytes and error lines that reached the model, the hook's added
 * time…), merged into one JSON file per run (AGENT_CONTEXT_REAL_CLIENT_MEASURE): the runner prints it,
 * and the bench and the README's compatibility table are built from it.
 */
import * as fs from 'node:fs';

/** Merges `value` under `agent`.`key` in the run's measure file (a no-op outside a run). */
export function recordMeasure(agent: string, key: string, value: unknown): void {
  const file = process.env.AGENT_CONTEXT_REAL_CLIENT_MEASURE;
  if (!file) return;
  let all: Record<string, Record<string, unknown>> = {};
  try {
    all = JSON.parse(fs.readFileSync(file, 'utf8')) as typeof all;
  } catch {
    // first record of the run
  }
  all[agent] = { ...all[agent], [key]: value };
  fs.writeFileSync(file, JSON.stringify(all, null, 2));
}
