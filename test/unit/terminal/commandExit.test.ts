import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EXIT_UNKNOWN, exitKind, formatExit, noStatusHint, resolveExit } from '../../../src/core/terminal/commandExit';
import { openTerminalCapture } from '../../../src/core/terminal/terminalCapture';
import { parseTerminalIndex } from '../../../src/core/terminal/terminalFormat';
import { readTerminalIndex } from '../../../src/core/terminal/terminalIndex';
import { terminalTool } from '../../../src/core/tools/terminal';
import { settleTerminalCatalog } from '../../../src/core/terminal/catalog/terminalCatalog';
import { composeBriefing } from '../../../src/core/briefing/composeBriefing';
import { gatherBriefing } from '../../../src/core/briefing/briefingSources';
import { DEFAULT_TOOL_CONFIG } from '../../../src/core/config';
import { nullLogger } from '../../../src/core/log';
import type { ToolContext } from '../../../src/core/tools/toolContext';

const header = { name: 'bash', shell: '/usr/bin/bash', cwd: '/w', started: new Date('2026-01-02T03:04:05.000Z'), shellIntegration: true };

function workspace(): { root: string; dir: string; ctx: ToolContext } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-exit-'));
  const ctx: ToolContext = { folders: [{ name: 'w', path: root }], config: DEFAULT_TOOL_CONFIG, signal: new AbortController().signal, log: nullLogger, source: 'vscode', trusted: true, allowRun: false };
  return { root, dir: path.join(root, '.agent', 'terminals'), ctx };
}

/**
 * Removes a workspace once the terminal catalog's work the calls started is done: on a loaded
 * machine its cache write could land while the folder was being removed (ENOTEMPTY, CI).
 */
async function removeWorkspace(root: string): Promise<void> {
  await settleTerminalCatalog(path.join(root, '.agent'));
  fs.rmSync(root, { recursive: true, maxRetries: 5 });
}

function footers(dir: string, n = 1): string[] {
  return fs.readFileSync(path.join(dir, `${n}.txt`), 'utf8').split('\n').filter((l) => l.startsWith('<<< '));
}

test('resolveExit: the end event\'s status wins; an end event without one, no end event and a cut-short command each say why', () => {
  assert.deepEqual(resolveExit({ endEvent: { exitCode: 3 } }), { exitCode: 3 });
  assert.deepEqual(resolveExit({ endEvent: { exitCode: 0 }, cutShort: EXIT_UNKNOWN.terminalClosed }), { exitCode: 0 });
  assert.deepEqual(resolveExit({ endEvent: { exitCode: 130 } }), { exitCode: 130 });
  assert.deepEqual(resolveExit({ endEvent: { exitCode: undefined } }), { exitCode: null, reason: 'no status from the shell' });
  assert.deepEqual(resolveExit({}), { exitCode: null, reason: 'no end event from VS Code' });
  assert.deepEqual(resolveExit({ cutShort: EXIT_UNKNOWN.terminalClosed }), { exitCode: null, reason: 'terminal closed while it ran' });
  assert.deepEqual(resolveExit({ endEvent: { exitCode: Number.NaN } }), { exitCode: null, reason: 'no status from the shell' });
});

test('formatExit and the bash hint', () => {
  assert.equal(formatExit(0), 'exit 0');
  assert.equal(formatExit(null, 'no status from the shell'), 'exit ? (no status from the shell)');
  assert.equal(formatExit(null), 'exit ?');
  assert.match(noStatusHint('/usr/bin/bash') ?? '', /true && \( … \)/);
  assert.match(noStatusHint('bash') ?? '', /subshell/);
  assert.equal(noStatusHint('/usr/bin/zsh'), undefined);
  assert.equal(noStatusHint(null), undefined);
});

test('an unknown exit is written with its reason in N.txt and the index, never as a bare "exit ?"', async () => {
  const { root, dir } = workspace();
  const cap = await openTerminalCapture(dir, header, { settleMs: 0 });
  const t0 = new Date('2026-01-02T03:05:00.000Z');
  const a = cap.beginCommand({ commandLine: '(exit 3)', started: t0 });
  a.write('\x1b]633;C\x07');
  a.end(resolveExit({ endEvent: { exitCode: undefined } }), t0);
  const b = cap.beginCommand({ commandLine: 'false', started: t0 });
  b.end(1, t0);
  const c = cap.beginCommand({ commandLine: 'legacy caller', started: t0 });
  c.end(undefined, t0);
  // The next command starts while this one is open: it is ended with that reason.
  cap.beginCommand({ commandLine: 'sleep 1', started: t0 });
  const d = cap.beginCommand({ commandLine: 'sleep 30', started: t0 });
  d.write('\x1b]633;C\x07started\r\n');
  await cap.close(t0);
  assert.deepEqual(footers(dir).map((l) => l.replace(/ \| [0-9.]+s \| secrets masked 0$/, '')), [
    '<<< command 1 | exit ? (no status from the shell)',
    '<<< command 2 | exit 1',
    '<<< command 3 | exit ? (not reported)',
    '<<< command 4 | exit ? (next command started before its end was reported)',
    '<<< command 5 | exit ? (terminal closed while it ran)',
  ]);
  const idx = await readTerminalIndex(path.join(root, '.agent'), 1);
  assert.ok(idx.ok);
  assert.deepEqual(idx.value.commands.map((x) => [x.status, x.exitCode, x.exitUnknown]), [
    ['done', null, 'no status from the shell'],
    ['done', 1, null],
    ['done', null, 'not reported'],
    ['done', null, 'next command started before its end was reported'],
    ['done', null, 'terminal closed while it ran'],
  ]);
  const raw = fs.readFileSync(path.join(dir, '1.index.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  const done = raw.filter((r) => r.status === 'done');
  assert.ok(done.every((r) => (r.exitCode === null) === (typeof r.exitUnknown === 'string')), 'exitUnknown exactly when exitCode is null');
});

test('a capture stopped while a command runs (settings, window closing) ends it with that reason', async () => {
  const { dir } = workspace();
  const cap = await openTerminalCapture(dir, header, { settleMs: 0 });
  cap.beginCommand({ commandLine: 'npm start', started: new Date() }).write('\x1b]633;C\x07listening\r\n');
  const why = EXIT_UNKNOWN.captureStopped('window closed or extension stopped');
  cap.running?.end({ exitCode: null, reason: why });
  cap.note('window closed or extension stopped');
  await cap.close(new Date(), why);
  const text = fs.readFileSync(path.join(dir, '1.txt'), 'utf8');
  assert.match(text, /\nlistening\n<<< command 1 \| exit \? \(capture stopped while it ran: window closed or extension stopped\) \| [^\n]+\n# window closed or extension stopped\n# terminal closed at \S+\n$/);
});

test('index records from before exitUnknown existed read as "not recorded"; codes and running commands have none', () => {
  const base = { v: 1, file: '1.txt', commandLine: 'x', cwd: null, started: '2026-01-01T00:00:00.000Z', headerLine: 9, firstLine: 10, durationMs: 5, secretsMasked: 0 };
  const text = [
    { ...base, command: 1, status: 'done', lastLine: 9, exitCode: null },
    { ...base, command: 2, status: 'done', lastLine: 9, exitCode: 2 },
    { ...base, command: 3, status: 'running', lastLine: null, exitCode: null },
  ].map((r) => JSON.stringify(r)).join('\n');
  const idx = parseTerminalIndex(text, 'i');
  assert.deepEqual(idx.commands.map((c) => c.exitUnknown), ['not recorded', null, null]);
});

test('lastFailed finds the last failure and names later commands whose shell reported no status, with the bash hint', async () => {
  const { root, dir, ctx } = workspace();
  const cap = await openTerminalCapture(dir, header, { settleMs: 0 });
  const t0 = new Date();
  const f = cap.beginCommand({ commandLine: 'npm test', started: t0 });
  f.write('\x1b]633;C\x07FAIL one\r\n');
  f.end(1, t0);
  const u = cap.beginCommand({ commandLine: '(cd web && npm test)', started: t0 });
  u.write('\x1b]633;C\x07');
  u.end(resolveExit({ endEvent: { exitCode: undefined } }), t0);
  const closed = cap.beginCommand({ commandLine: 'sleep 30', started: t0 });
  closed.write('\x1b]633;C\x07');
  await cap.close(t0);
  const text = (await terminalTool({ terminal: 1, command: 'lastFailed' }, ctx)).text;
  assert.match(text, /Terminal 1 command #1/);
  assert.match(text, /exit 1/);
  assert.match(text, /Later command with unknown exit \(may have failed\): #2 `\(cd web && npm test\)` exit \? \(no status from the shell\)\. bash reports no status/);
  assert.doesNotMatch(text, /#3 `sleep 30`/, 'a command cut short by closing its terminal is not a possible failure');
  const one = (await terminalTool({ terminal: 1, command: '2' }, ctx)).text;
  assert.match(one, /exit \? \(no status from the shell\) · .*no output/);
  assert.match(one, /true && \( … \)/);
  const list = (await terminalTool({}, ctx)).text;
  assert.match(list, /#2 exit \? \(no status from the shell\) · \(cd web && npm test\)/);
  assert.match(list, /#3 exit \? \(terminal closed while it ran\) · sleep 30/);
  await removeWorkspace(root);
});

test('the briefing lists terminals whose last command failed or had no status, newest first', async () => {
  const { root, dir } = workspace();
  const t0 = new Date();
  const a = await openTerminalCapture(dir, header, { settleMs: 0 });
  a.beginCommand({ commandLine: 'make', started: t0 }).end(2, t0);
  await a.close(t0);
  const b = await openTerminalCapture(dir, header, { settleMs: 0 });
  b.beginCommand({ commandLine: '(cd web && npm test)', started: t0 }).end(resolveExit({ endEvent: { exitCode: undefined } }), t0);
  await b.close(t0);
  const c = await openTerminalCapture(dir, header, { settleMs: 0 });
  c.beginCommand({ commandLine: 'npm start', started: t0 });
  await c.close(t0); // closed while running: not a possible failure
  const { text } = composeBriefing(await gatherBriefing(path.join(root, '.agent')));
  assert.match(text, /Terminals whose last command failed or has no exit status \(2 of 3\):\n  \.agent\/terminals\/2\.txt lines \d+-\d+: exit \? \(no status from the shell\) `\(cd web && npm test\)`\n  \.agent\/terminals\/1\.txt lines \d+-\d+: exit 2 `make`/);
  await removeWorkspace(root);
});

const done = (commandLine: string, exitCode: number | null, exitUnknown: string | null = null) => ({ status: 'done' as const, commandLine, exitCode, exitUnknown });

test('every exit state has its own kind: `exit` closing the terminal is not an unknown status', () => {
  assert.equal(exitKind({ status: 'running', commandLine: 'sleep 9', exitCode: null, exitUnknown: null }), 'running');
  assert.equal(exitKind(done('true', 0)), 'succeeded');
  assert.equal(exitKind(done('false', 1)), 'failed');
  assert.equal(exitKind(done('exit', null, EXIT_UNKNOWN.terminalClosed)), 'closedByExit');
  assert.equal(exitKind(done(' exit 3', null, EXIT_UNKNOWN.terminalClosed)), 'closedByExit');
  assert.equal(exitKind(done('logout', null, EXIT_UNKNOWN.terminalClosed)), 'closedByExit');
  assert.equal(exitKind(done('npm run dev', null, EXIT_UNKNOWN.terminalClosed)), 'terminalClosed');
  assert.equal(exitKind(done('exit-code-check', null, EXIT_UNKNOWN.terminalClosed)), 'terminalClosed');
  assert.equal(exitKind(done('make', null, EXIT_UNKNOWN.captureStopped('window closing'))), 'captureStopped');
  assert.equal(exitKind(done('make', null, EXIT_UNKNOWN.captureFailed)), 'captureFailed');
  for (const why of [EXIT_UNKNOWN.noStatus, EXIT_UNKNOWN.noEndEvent, EXIT_UNKNOWN.superseded, EXIT_UNKNOWN.unspecified]) assert.equal(exitKind(done('(cd x; make)', null, why)), 'noStatus');
});
