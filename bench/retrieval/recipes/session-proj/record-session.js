// Records a terminal session in the capture format of .agent/terminals/N.txt (formatHeader,
// formatCommandHeader, formatCommandFooter from the product): each command runs in bash in `cwd`,
// stdout and stderr merged in order, as a terminal would show them (piped: no colour).
// usage: node record-session.js <repo root> <cwd> <out.txt> <commands.json> [terminal number] [cwd shown]
const { spawnSync } = require('child_process');
const fs = require('fs');
const [repo, cwd, out, cmdsFile, num = '1', shown = '~/orders-service'] = process.argv.slice(2);
const fmt = require(require('path').join(repo, 'out/src/core/terminal/terminalFormat.js'));
const commands = JSON.parse(fs.readFileSync(cmdsFile, 'utf8'));
let t = Date.parse('2026-12-06T10:00:00Z');
let text = fmt.formatHeader({ name: 'bash', n: Number(num), shell: '/bin/bash', cwd: shown, started: new Date(t), shellIntegration: true });
commands.forEach((cmd, i) => {
  t += 20_000;
  const started = Date.now();
  const r = spawnSync('bash', ['-c', `{ ${cmd}\n} 2>&1`], { cwd, encoding: 'utf8', env: { ...process.env, TERM: 'dumb', GIT_PAGER: 'cat', PAGER: 'cat' } });
  const ms = Date.now() - started;
  text += fmt.formatCommandHeader(i + 1, new Date(t), shown, cmd) + '\n';
  let body = r.stdout.replace(/\r\n/g, '\n');
  if (body && !body.endsWith('\n')) body += '\n';
  text += body;
  text += fmt.formatCommandFooter(i + 1, r.status ?? undefined, ms, 0) + '\n';
});
fs.writeFileSync(out, text);
console.log(`${commands.length} commands, ${text.split('\n').length - 1} lines`);
