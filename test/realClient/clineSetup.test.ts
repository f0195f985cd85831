/*
 * Cline with what `mcp.js --setup cline` wrote (its user-scope cline_mcp_settings.json: our server
 * with no --root, started by Cline in the folder it works in; its ~/.cline/hooks/PostToolUse): every
 * tool offered, the noisy build through agentContext_run; then `--undo cline`. Cline's own shell output
 * is recorded but not offloaded (its hooks cannot replace it: README, "Use with Cline"): cline.test.ts
 * (describeRecordingHook) checks the recording.
 * Run: node scripts/test.mjs --integration-only --run cline
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TOOL_NAMES } from '../../src/core/tools/toolNames';
import { copyFixture, errorLinesWithNumbers, MCP_JS, resultOf, tempDir, writeNoisyBuild, type AgentRun } from './agentProcess';
import { assertSetupSaysOffload, setUpWith, unescapeJsonText } from './agentScenarios';
import { recordMeasure } from './measure';
import { clineHookFile } from '../../src/core/setup/agents/cline';
import { clineMcpTool, runCline } from './clineCli';

describe('Cline after mcp.js --setup cline: every tool offered from the user-scope settings, serving the folder Cline works in, and the undo', function () {
  let ws: string;
  let home: string;
  let noisy: ReturnType<typeof writeNoisyBuild>;
  let run: AgentRun;
  let undone: AgentRun;
  let undo: ReturnType<typeof spawnSync>;
  let said: string;
  let hookAfterSetup: boolean;

  before(async function () {
    this.timeout(480_000);
    ws = copyFixture('workspace');
    noisy = writeNoisyBuild(ws);
    home = tempDir('home-');
    said = setUpWith('cline', ws, home);
    hookAfterSetup = fs.existsSync(clineHookFile(home));
    run = await runCline({ workspace: ws, home, mcp: false, script: [{ tool: clineMcpTool('agentContext_run'), input: { command: noisy.script } }, { text: 'Done.' }] });
    undo = spawnSync(process.execPath, [MCP_JS, '--root', ws, '--undo', 'cline'], { encoding: 'utf8', env: { ...process.env, HOME: home } });
    undone = await runCline({ workspace: ws, home, mcp: false, script: [{ text: 'Done.' }] });
  });

  it('the set-up\'s server offers every tool at the first request, and agentContext_run (run in the workspace Cline works in) gives the build in ≤ 2 KB with its three error lines and numbers', () => {
    assertSetupSaysOffload(said, false);
    const offered = run.requests[0]?.toolNames ?? [];
    assert.deepEqual(TOOL_NAMES.filter((t) => !offered.includes(clineMcpTool(t))), [], `offered: ${offered.join(', ')}; stderr: ${run.stderr.slice(-1500)}`);
    const r = resultOf(run, clineMcpTool('agentContext_run'));
    // Cline hands the model the result's JSON: the text escaped.
    const text = unescapeJsonText(r.text);
    const errors = errorLinesWithNumbers(text, noisy.errorLines);
    recordMeasure('cline', 'setUpMcpRun', { bytes: r.bytes, errors, isError: r.isError });
    assert.ok(r.bytes <= 2048, `${r.bytes} bytes:\n${r.text}`);
    assert.equal(errors, 3, text);
    const saved = /Output saved: (\S+)/.exec(text)![1];
    assert.ok(fs.existsSync(path.join(ws, saved)), `${saved} is not in the workspace`);
  });

  it('--undo cline takes our server and our hook file out (the files it created go): the next session offers none of our tools', () => {
    assert.equal(undo.status, 0, `${String(undo.stderr)}${String(undo.stdout)}`);
    assert.ok(hookAfterSetup, 'the set-up wrote no ~/.cline/hooks/PostToolUse');
    assert.equal(fs.existsSync(clineHookFile(home)), false, 'the undo left ~/.cline/hooks/PostToolUse');
    const settings = path.join(home, '.cline/data/settings/cline_mcp_settings.json');
    assert.equal(fs.existsSync(settings), false, fs.existsSync(settings) ? fs.readFileSync(settings, 'utf8') : '');
    const offered = undone.requests.flatMap((q) => q.toolNames);
    assert.ok(offered.length > 0, undone.stderr.slice(-1500));
    assert.equal(offered.some((n) => n.includes('agentContext_')), false, offered.join(', '));
  });
});
