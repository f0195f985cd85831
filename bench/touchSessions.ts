// `node out/bench/touchSessions.js <workspace> <sessions.json>`: the open agent sessions of a
// generated folder (bench/agentSessionsGen.ts, its GeneratedSessions as JSON) each run one more
// command through the hooks' Node path, so a fold does not close them as idle while the editor
// row's starts go on (scripts/benchEditor.mjs runs this before each start of such a level).
import * as fs from 'node:fs';
import { touchOpenSessions, type GeneratedSessions } from './agentSessionsGen';

const [root, file] = process.argv.slice(2);
if (!root || !file) {
  process.stderr.write('usage: node out/bench/touchSessions.js <workspace> <sessions.json>\n');
  process.exit(2);
}
const g = JSON.parse(fs.readFileSync(file, 'utf8')) as GeneratedSessions;
touchOpenSessions(root, g).then(
  () => fs.writeFileSync(file, JSON.stringify(g)),
  (e: unknown) => {
    process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
    process.exit(1);
  },
);
