/*
 * VS Code's own agent (the built-in Copilot Chat, Agent mode) drives Agent Context for real: the
 * model is a scripted fake Chat Completions server; prompts are typed into the chat and tool
 * confirmations answered like a user would. Every assertion is on what the agent sent back to the
 * model (the `tool` messages), i.e. what a real model would have read. Run:
 *   node scripts/test.mjs --integration-only --run copilot
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { log, ui, waitFor } from '../bridge';
import { agentApi } from '../agentViewsHelpers';
import { answerConfirmation, CONFIRMATION, confirmationButtons, confirmationText, resultsFor, sendInNewChat, waitForResults, waitForTurnEnd } from '../chatHelpers';
import { startFakeChatCompletions, type FakeChatCompletions, type ScriptTurn } from '../../realClient/fakeModels/chatCompletions';
import { errorLinesSeen, errorLinesWithNumbers, writeNoisyBuild } from '../../realClient/claudeCli';
import { TOOL_NAMES } from '../../../src/core/tools/toolNames';
import { VSCODE_HOOK_FILE } from '../../../src/core/setup/agents/vscodeAgent';

const ws = vscode.workspace.workspaceFolders![0].uri.fsPath;
const settings = () => vscode.workspace.getConfiguration('agentContext');
const build = 'bash build.sh';

/** One conversation per scenario; the marker in the prompt picks the model's script. */
const SCRIPTS: Record<string, ScriptTurn[]> = {
  '[run-allow]': [
    { tool: 'agentContext_run', input: { command: build } },
    // After "Allow in this Session" VS Code asks no more for this tool, in any chat of the window:
    // a compound command must still ask.
    { tool: 'agentContext_run', input: { command: `${build} | tail -n 1` } },
  ],
  '[run-skip]': [{ tool: 'agentContext_run', input: { command: build } }],
  '[run-allowlist]': [{ tool: 'agentContext_run', input: { command: build } }],
  '[rule-allow]': [{ tool: 'agentContext_run', input: { command: build } }],
  '[rule-deny]': [{ tool: 'agentContext_run', input: { command: build } }],
  '[rule-workspace]': [{ tool: 'agentContext_run', input: { command: build } }],
  '[grep-read]': [
    { tool: 'agentContext_grep', input: { pattern: 'TODO\\(rate-limit\\)', path: 'src' } },
    (results) => {
      const hit = /src\/limiter\.ts:(\d+):/.exec(results[results.length - 1]?.text ?? '');
      const line = hit ? Number(hit[1]) : 1;
      return { tool: 'agentContext_read', input: { path: 'src/limiter.ts', offset: Math.max(1, line - 3), limit: 7 } };
    },
  ],
  '[own-terminal]': [
    { tool: 'run_in_terminal', input: { command: build, explanation: 'Build the project', goal: 'Build', mode: 'sync', isBackground: false } },
    { tool: 'agentContext_terminal', input: { command: 'lastFailed' } },
    { tool: 'agentContext_briefing', input: {} },
  ],
  '[hook]': [
    { tool: 'run_in_terminal', input: { command: build, explanation: 'Build the project', goal: 'Build', mode: 'sync', isBackground: false } },
    { tool: 'run_in_terminal', input: { command: 'echo small-output', explanation: 'Say hello', goal: 'Check', mode: 'sync', isBackground: false } },
  ],
  '[search]': [{ tool: 'agentContext_search', input: { query: 'Why does the Rust build fail?' } }],
  '[copilot-plan-read]': [{ tool: 'agentContext_plan', input: {} }],
  '[plan]': [
    { tool: 'agentContext_plan', input: {} },
    { tool: 'agentContext_briefing', input: {} },
  ],
};

/** What the bench row reports: bytes and error lines that reached the model. */
const measured: Record<string, unknown> = {};

describe('Copilot agent (VS Code built-in) → Agent Context tools', function () {
  this.timeout(240_000);
  let fake: FakeChatCompletions;
  let noisy: ReturnType<typeof writeNoisyBuild>;

  before(async () => {
    noisy = writeNoisyBuild(ws);
    fs.writeFileSync(path.join(ws, 'src/limiter.ts'), Array.from({ length: 300 }, (_, i) => (i + 1 === 187 ? '  // TODO(rate-limit): refill the bucket per client' : `  const line${i + 1} = ${i + 1};`)).join('\n') + '\n');
    fake = await startFakeChatCompletions((prompt) => Object.entries(SCRIPTS).find(([m]) => prompt.includes(m))?.[1], { port: Number(process.env.AGENT_CONTEXT_FAKE_MODEL_PORT) });
  });

  after(async () => {
    await fake?.close();
    log(`measured (bytes / error lines that reached the model): ${JSON.stringify(measured)}`);
    for (const f of ['build.sh', 'src/limiter.ts']) fs.rmSync(path.join(ws, f), { force: true });
  });

  it('agentContext_run: Skip runs nothing and the model is told', async () => {
    const m = '[run-skip]';
    const outputs = path.join(ws, '.agent/scratch/tool_outputs');
    const before = fs.existsSync(outputs) ? fs.readdirSync(outputs).length : 0;
    await sendInNewChat(`${m} Build the project.`);
    await confirmationText();
    await answerConfirmation('Skip');
    const [r] = await waitForResults(fake, m, 1);
    log(`  after Skip the model reads: ${JSON.stringify(r.text)}`);
    assert.doesNotMatch(r.text, /tool_outputs|exit 1/);
    assert.equal(fs.existsSync(outputs) ? fs.readdirSync(outputs).length : 0, before, 'nothing was run');
    await waitForTurnEnd(fake, m, 1);
  });

  it('agentContext_run: a command on agentContext.run.allowList runs without a confirmation', async () => {
    const m = '[run-allowlist]';
    await settings().update('run.allowList', [build], vscode.ConfigurationTarget.Global);
    try {
      await sendInNewChat(`${m} Build the project.`);
      const [r] = await waitForResults(fake, m, 1);
      assert.equal(await ui.count(CONFIRMATION), 0);
      assert.equal(errorLinesWithNumbers(r.text, noisy.errorLines), 3, r.text);
      await waitForTurnEnd(fake, m, 1);
    } finally {
      await settings().update('run.allowList', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('agentContext_run honours the user\'s chat.tools.terminal.autoApprove: an approving rule runs it unasked, a denying rule asks even over our allow-list, a workspace rule is ignored', async () => {
    const terminal = () => vscode.workspace.getConfiguration('chat.tools.terminal');
    try {
      await terminal().update('autoApprove', { [build]: true }, vscode.ConfigurationTarget.Global);
      await sendInNewChat('[rule-allow] Build the project.');
      const [allowed] = await waitForResults(fake, '[rule-allow]', 1);
      assert.equal(errorLinesWithNumbers(allowed.text, noisy.errorLines), 3, allowed.text);
      await waitForTurnEnd(fake, '[rule-allow]', 1);

      await terminal().update('autoApprove', { bash: false }, vscode.ConfigurationTarget.Global);
      await settings().update('run.allowList', [build], vscode.ConfigurationTarget.Global);
      await sendInNewChat('[rule-deny] Build the project.');
      const asked = (await ui.attribute(CONFIRMATION, 'aria-label', { timeout: 60_000 })) ?? '';
      assert.match(asked, /chat\.tools\.terminal\.autoApprove rule "bash" denies it/, asked);
      await answerConfirmation('Skip');
      await waitForTurnEnd(fake, '[rule-deny]', 1);

      await terminal().update('autoApprove', undefined, vscode.ConfigurationTarget.Global);
      await settings().update('run.allowList', undefined, vscode.ConfigurationTarget.Global);
      await terminal().update('autoApprove', { [build]: true }, vscode.ConfigurationTarget.Workspace);
      await sendInNewChat('[rule-workspace] Build the project.');
      await confirmationText();
      await answerConfirmation('Skip');
      await waitForTurnEnd(fake, '[rule-workspace]', 1);
    } finally {
      await terminal().update('autoApprove', undefined, vscode.ConfigurationTarget.Global);
      await terminal().update('autoApprove', undefined, vscode.ConfigurationTarget.Workspace);
      await settings().update('run.allowList', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('agentContext_run: the confirmation shows the command and wraps (no &nbsp;); Allow runs it and ≤ 2 KB with every error line and its number reaches the model; a compound command still asks after "Allow in this Session" (our own dialog), and Cancel runs nothing', async () => {
    const m = '[run-allow]';
    await sendInNewChat(`${m} Build the project and tell me what failed.`);
    const text = await confirmationText();
    const html = await ui.evaluate<string>(`[...document.querySelectorAll('.chat-tool-invocation-part.has-confirmation .chat-confirmation-widget-message .rendered-markdown p')].map((p) => p.innerHTML).join('\\n')`);
    const label = (await ui.attribute(CONFIRMATION, 'aria-label')) ?? '';
    log(`  the user sees: ${JSON.stringify(text.slice(0, 300))}; buttons: ${(await confirmationButtons()).join(' | ')}`);
    assert.match(label, /Run this command\?/);
    assert.doesNotMatch(label, /&nbsp;/, label);
    assert.match(text, /bash\sbuild\.sh/);
    assert.match(html, /in the workspace root\. Output goes to \.agent\/scratch\/tool_outputs\/\. Asking because it is not on the allow-list/);
    assert.doesNotMatch(html, /&nbsp;|\u00a0/, `spaces stay spaces, so the sentence wraps in the narrow chat panel: ${html}`);
    await answerConfirmation('Allow in this Session');
    const [r] = await waitForResults(fake, m, 1);
    measured.agentContextRun = { bytes: r.bytes, errorLinesWithNumbers: errorLinesWithNumbers(r.text, noisy.errorLines) };
    assert.ok(r.bytes <= 2048, `${r.bytes} bytes reached the model:\n${r.text}`);
    assert.equal(errorLinesWithNumbers(r.text, noisy.errorLines), 3, r.text);
    assert.match(r.text, /exit 1/);
    assert.match(r.text, /\.agent\/scratch\/tool_outputs\/\S+\.txt/);

    // The compound command: asked in our own dialog although the tool is now allowed for the session.
    const dialog = await ui.dialog('Cancel', { timeout: 60_000 });
    log(`  compound: ${JSON.stringify(dialog)}`);
    assert.match(dialog.message, /Run this command\?/);
    assert.match(dialog.detail, /bash build\.sh \| tail -n 1[^]*always asks because it contains \|/);
    const results = await waitForResults(fake, m, 2);
    assert.match(results[1].text, /^Not run: the user declined `bash build\.sh \| tail -n 1` \(asked because it contains \|\)/);
    await waitForTurnEnd(fake, m, 2);
  });

  it('offers every one of our tools, beside the built-in ones; their definitions\' size', () => {
    const offered = fake.requests.find((r) => r.tools.length > 0)?.tools ?? [];
    const ours = offered.filter((t) => t.name.startsWith('agentContext_'));
    for (const t of TOOL_NAMES) assert.ok(ours.some((o) => o.name === t), `${t} offered (got ${ours.map((o) => o.name).join(', ')})`);
    const bytes = ours.reduce((a, t) => a + t.bytes, 0);
    const all = offered.reduce((a, t) => a + t.bytes, 0);
    measured.toolDefinitions = { ours: ours.length, oursBytes: bytes, allTools: offered.length, allBytes: all };
    log(`  offered ${offered.length} tools (${all} bytes of definitions); ours ${ours.length}, ${bytes} bytes`);
    assert.ok(offered.some((t) => t.name === 'run_in_terminal'));
  });

  it('our skill (chatSkills) and our custom agent (chatAgents) reach the agent\'s request', () => {
    const req = fake.requests.find((r) => r.tools.length > 0);
    assert.ok(req);
    const all = JSON.stringify(req.messages) + JSON.stringify(req.tools);
    const at = (needle: string): string => {
      const i = all.indexOf(needle);
      return i < 0 ? '(absent)' : all.slice(Math.max(0, i - 200), i + 200);
    };
    log(`  skill in the request: ${at('agent-context')}`);
    log(`  custom agent in the request: ${at('Agent Context')}`);
    assert.match(all, /<skill>\\n<name>agent-context<\/name>\\n<description>The workspace's \.agent\/ folder/, 'the skill is listed with its description');
    assert.match(all, /<agent>\\n<name>Agent Context<\/name>\\n<description>Works like the default agent/, 'the custom agent is listed');
    // The workspace's own .agent/skills come in only with the set-up (the [hook] scenario).
    assert.doesNotMatch(all, /<name>pdf-extract<\/name>/, 'a skill of .agent/skills before the set-up');
  });

  it('agentContext_grep finds a line, agentContext_read reads around it', async () => {
    const m = '[grep-read]';
    await sendInNewChat(`${m} Where is the rate-limit TODO?`);
    const [grep, read] = await waitForResults(fake, m, 2);
    assert.match(grep.text, /src\/limiter\.ts:187:.*TODO\(rate-limit\)/);
    assert.match(read.text, /lines 184–190/);
    assert.match(read.text, /187: {3}\/\/ TODO\(rate-limit\): refill the bucket per client/);
    await waitForTurnEnd(fake, m, 2);
  });

  it('after the agent\'s OWN run_in_terminal ran the failing build, agentContext_terminal lastFailed gives every error line with its number, and the briefing the same lines', async () => {
    const m = '[own-terminal]';
    await sendInNewChat(`${m} Build the project in the terminal.`);
    const text = await confirmationText();
    log(`  run_in_terminal asks: ${JSON.stringify(text.slice(0, 200))}; buttons: ${(await confirmationButtons()).join(' | ')}`);
    await answerConfirmation('Allow');
    const [own, ours, briefing] = await waitForResults(fake, m, 3, 180_000);
    // What VS Code's own tool handed the model, for the bench row.
    const pointer = /(\/[^\s"'`]+)/.exec(own.text)?.[1];
    const file = pointer && fs.existsSync(pointer) ? fs.readFileSync(pointer, 'utf8') : '';
    measured.runInTerminal = { bytes: own.bytes, errorLinesSeen: errorLinesSeen(own.text, noisy.errorLines), file: pointer, fileBytes: file.length, errorLinesInFile: errorLinesSeen(file, noisy.errorLines), text: own.text.slice(0, 300) };
    log(`  run_in_terminal gave the model ${own.bytes} bytes: ${JSON.stringify(own.text.slice(0, 400))}`);
    const range = /(\.agent\/terminals\/\d+\.txt) lines (\d+)–(\d+)/.exec(ours.text);
    assert.ok(range, ours.text);
    // Line numbers of the terminal file: the output starts at line range[2].
    const inFile = noisy.errorLines.map((e) => ({ n: Number(range[2]) + e.n - 1, text: e.text }));
    measured.terminalLastFailed = { bytes: ours.bytes, errorLinesWithNumbers: errorLinesWithNumbers(ours.text, inFile) };
    assert.equal(errorLinesWithNumbers(ours.text, inFile), 3, ours.text);
    assert.ok(ours.bytes <= 2048, `${ours.bytes} bytes`);
    assert.match(ours.text, /\nCommand: bash build\.sh \(cwd/, 'the agent\'s command, without its leading space');
    assert.match(briefing.text, new RegExp(`${range[1].replace(/\./g, '\\.')} lines ${range[2]}-${range[3]}: exit 1 \`bash build\\.sh\``), briefing.text);
    await waitForTurnEnd(fake, m, 3);
  });

  it('set-up\'s hook (.github/hooks/agent-context-vscode.json): a large run_in_terminal result reaches the model with our reference (from the next turn on), a small one unchanged; the user is asked about their own command', async () => {
    const m = '[hook]';
    const written = await vscode.commands.executeCommand<{ changed: string[] }>('agentContext.setupAgent', 'vscode');
    const file = path.join(ws, VSCODE_HOOK_FILE);
    try {
      assert.ok(written?.changed.includes(file), `the hook file is written: ${written?.changed.join(', ')}`);
      const text = fs.readFileSync(file, 'utf8');
      assert.ok(JSON.parse(text).hooks.PostToolUse.length === 1, text);
      assert.doesNotMatch(text, /"\/|\s\/(tmp|root|home|usr|work)\//, 'no absolute path in a file meant to be committed');
      assert.equal(vscode.workspace.getConfiguration('chat').inspect<Record<string, boolean>>('agentSkillsLocations')?.globalValue?.['.agent/skills'], true, 'the set-up adds .agent/skills to the user\'s chat.agentSkillsLocations');
      await sendInNewChat(`${m} Build the project in the terminal.`);
      const asked = await confirmationText();
      assert.match(asked, /^bash\sbuild\.sh/, `the user is asked about their own command: ${asked}`);
      await answerConfirmation('Allow');
      // `echo` may be auto-approved by VS Code's default rules; answer if it asks.
      const [big, small] = await waitFor(async () => {
        if (await ui.count(CONFIRMATION)) await answerConfirmation('Allow').catch(() => undefined);
        const r = resultsFor(fake, m);
        return r.length >= 2 ? r : undefined;
      }, { timeout: 180_000, interval: 500, message: 'two run_in_terminal results' });
      const range = /(\.agent\/terminals\/\d+\.txt) lines (\d+)–(\d+)/.exec(big.text);
      assert.ok(range, big.text);
      const inFile = noisy.errorLines.map((e) => ({ n: Number(range[2]) + e.n - 1, text: e.text }));
      const context = /<PostToolUse-context>[^]*<\/PostToolUse-context>/.exec(big.text)?.[0] ?? '';
      // VS Code appends the hook's context to the tool message after the request that follows the
      // tool call was sent: that turn sees only the pointer, every later turn sees our reference.
      measured.runInTerminalWithHook = { bytes: big.bytes, hookContextBytes: Buffer.byteLength(context), errorLinesWithNumbers: errorLinesWithNumbers(big.text, inFile), firstTurnHasContext: big.firstText.includes('PostToolUse-context') };
      log(`  run_in_terminal with the hook gave the model ${big.bytes} bytes: ${JSON.stringify(big.text.slice(0, 700))}`);
      assert.equal(errorLinesWithNumbers(context, inFile), 3, big.text);
      assert.ok(Buffer.byteLength(context) <= 2048 + 200, `${Buffer.byteLength(context)} bytes of context`);
      assert.match(small.text, /small-output/);
      assert.doesNotMatch(small.text, /PostToolUse-context/);
      // .agent/skills loaded natively: the agent lists the workspace's skill with its description.
      const req = fake.requests.find((r) => r.prompt.includes(m) && r.tools.length > 0);
      assert.match(JSON.stringify(req?.messages ?? ''), /<skill>\\n<name>pdf-extract<\/name>\\n<description>Extract text and tables from PDF files/, 'the skill of .agent/skills is in the agent\'s request');
      await waitForTurnEnd(fake, m, 2);
    } finally {
      await vscode.commands.executeCommand('agentContext.undoAgentSetup', 'vscode');
    }
    assert.equal(fs.existsSync(file), false, 'undo removes the hook file');
    assert.equal(vscode.workspace.getConfiguration('chat').inspect<Record<string, boolean>>('agentSkillsLocations')?.globalValue?.['.agent/skills'], undefined, 'undo removes the skills folder it added');
  });

  it('agentContext_search: asked in words why a saved build failed, the model gets the error line with its number and the file to read on', async () => {
    // A real cargo build's output (bench/retrieval/, recorded from rustc), saved where agentContext_run saves one.
    const repo = path.resolve(__dirname, '../../../..');
    const saved = path.join(ws, '.agent/scratch/tool_outputs/cargo-build-01JESEARCHCOPILOT0000000000.txt');
    fs.mkdirSync(path.dirname(saved), { recursive: true });
    fs.copyFileSync(path.join(repo, 'bench/retrieval/outputs/cargo-build-borrow.log'), saved);
    try {
      const m = '[search]';
      await sendInNewChat(`${m} Why does the Rust build fail?`);
      const [search] = await waitForResults(fake, m, 1);
      assert.match(search.text, /windows? match "Why does the Rust build fail\?"/);
      assert.match(search.text, /\.agent\/scratch\/tool_outputs\/cargo-build-01JESEARCHCOPILOT0000000000\.txt:\d+-\d+ \(.*error line\)/);
      // An error line of the build quoted with its number, and the window of rustc's E0502 (line 244)
      // shown, listed, or in the list of every window the answer saved and names. (Which of these
      // depends on what else .agent/ holds: the cause holds none of the question's words, the
      // summary line "could not compile `rust-build`" two of them; bench row 23 measures the ranking.)
      assert.match(search.text, /^L\d+: error(\[E0502\])?: /m);
      const ranges = [...search.text.matchAll(/cargo-build-01JESEARCHCOPILOT0000000000\.txt:(\d+)-(\d+)/g)].map((r) => [Number(r[1]), Number(r[2])]);
      if (!ranges.some(([a, b]) => a <= 244 && 244 <= b)) {
        const list = /all \d+ in (\.agent\/scratch\/tool_outputs\/search-[^ ]+\.search\.txt)\./.exec(search.text)?.[1];
        assert.ok(list, `no window holds line 244 (${JSON.stringify(ranges)}) and no list of all windows is named:\n${search.text}`);
        assert.match(fs.readFileSync(path.join(ws, list), 'utf8'), /^L244: error\[E0502\]/m, `the list ${list} holds the E0502 window`);
      }
      // A read of what the best window lacks, or the word that it holds its whole block (windowRest.ts decides).
      assert.match(search.text, /^(?:Next: read lines \d+–\d+ of \.agent\/scratch\/tool_outputs\/cargo-build-|The best window holds its whole block)/m);
      assert.ok(Buffer.byteLength(search.text) < 8 * 1024, `${Buffer.byteLength(search.text)} bytes`);
      measured.search = { bytes: Buffer.byteLength(search.text) };
      await waitForTurnEnd(fake, m, 1);
    } finally {
      // The saved output, and the list of all windows the answer saved beside it.
      for (const f of fs.readdirSync(path.dirname(saved))) if (f === path.basename(saved) || f.startsWith('search-why-does-the-rust-build-fail')) fs.rmSync(path.join(path.dirname(saved), f), { force: true });
    }
  });

  it('agentContext_plan and agentContext_briefing read the plan', async () => {
    const m = '[plan]';
    await sendInNewChat(`${m} What is the plan?`);
    const [plan, briefing] = await waitForResults(fake, m, 2);
    assert.match(plan.text, /Add rate limiting to the public API/);
    assert.match(plan.text, /Choose a limiter/);
    assert.match(briefing.text, /Add rate limiting to the public API/);
    await waitForTurnEnd(fake, m, 2);
  });

  it('the plan VS Code\'s Plan agent keeps in its session memory (Copilot\'s workspace storage) is mirrored into .agent/plans/, and agentContext_plan lists it', async () => {
    // Copilot Chat 0.67 writes /memories/session/plan.md to <workspace storage>/github.copilot-chat/
    // memory-tool/memories/<session>/plan.md (its memory tool; read from its source). That tool is
    // not offered to a custom-endpoint model without a GitHub sign-in, so the test writes the file
    // where the Plan agent would, and the real extension host has to notice it outside the workspace.
    // This window's workspace storage, as the extension host gives it (matching code-server's
    // meta.json by folder name picked, in a CI run, another window's folder that VS Code then
    // deleted as unused). Copilot Chat's own folder there is named by its extension id.
    const mine = (await agentApi()).workspaceStorage;
    assert.ok(mine && fs.existsSync(path.dirname(mine)), `this window's workspace storage (${mine})`);
    assert.equal(path.dirname(mine), path.join(process.env.AGENT_CONTEXT_USER_DATA!, 'User', 'workspaceStorage'));
    const session = path.join(mine, 'GitHub.copilot-chat', 'memory-tool', 'memories', 'dnNjb2RlLWNoYXQtc2Vzc2lvbg');
    fs.mkdirSync(session, { recursive: true });
    fs.writeFileSync(path.join(session, 'plan.md'), '# Plan: Cache the rate limiter\n\n## Steps\n1. [ ] Measure the hit rate\n2. [ ] Add the cache\n');
    const plans = path.join(ws, '.agent', 'plans');
    const mirror = path.join(plans, 'copilot-dnNjb2RlLWNoYXQtc2Vzc2lvbg.md');
    try {
      await waitFor(() => fs.existsSync(mirror), { timeout: 20_000, message: `${mirror} (the mirror of the session plan)` }).catch((e) => {
        const list = (d: string) => (fs.existsSync(d) ? fs.readdirSync(d).join(', ') : 'gone');
        throw new Error(`${(e as Error).message}; plan.md ${fs.existsSync(path.join(session, 'plan.md')) ? 'still there' : 'gone'}; storage: ${list(mine)}; memories: ${list(path.dirname(session))}`);
      });
      assert.match(fs.readFileSync(mirror, 'utf8'), /^<!-- Mirrored by Agent Context from VS Code's Plan agent[^\n]*-->\n# Plan: Cache the rate limiter\n/);
      // The agent updates its plan: the mirror follows.
      fs.writeFileSync(path.join(session, 'plan.md'), '# Plan: Cache the rate limiter\n\n## Steps\n1. [x] Measure the hit rate\n2. [ ] Add the cache\n');
      await waitFor(() => /1\. \[x\] Measure/.test(fs.readFileSync(mirror, 'utf8')), { timeout: 20_000, message: 'the mirror follows the update' });
      const r = '[copilot-plan-read]';
      await sendInNewChat(`${r} Which plans are there?`);
      const [plan] = await waitForResults(fake, r, 1);
      assert.match(plan.text, /- \.agent\/plans\/copilot-dnNjb2RlLWNoYXQtc2Vzc2lvbg\.md: Plan: Cache the rate limiter \(1\/2 done\)/, plan.text);
      await waitForTurnEnd(fake, r, 1);
    } finally {
      fs.rmSync(mirror, { force: true });
      fs.rmSync(session, { recursive: true, force: true });
    }
  });

  it('the chat shows no error', async () => {
    await waitFor(async () => (await ui.count('.interactive-session .chat-response-loading')) === 0, { message: 'the chat is idle' });
    assert.equal(await ui.count('.interactive-session .chat-error-message, .interactive-session .interactive-response-error-details'), 0);
  });
});
